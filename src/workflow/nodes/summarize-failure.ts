import { summarizeFailure as summarizeWithModel } from '../../agents/index.js';
import { readCheckLog } from '../../checks/read-log.js';
import type { CheckResult } from '../../checks/types.js';
import type { RunState } from '../../store/run-state.js';
import type { Ctx, Result } from './common.js';
import { checkProgress } from '../../store/flow-checks.js';

/**
 * SummarizeFailure: the deterministic extractor (the failing test, its assertion and file:line, the
 * blamed tests listed), refined by the summarizer model when one is configured.
 */
export async function summarizeFailure(state: RunState, ctx: Ctx): Promise<Result> {
  const last = checkProgress(state).lastCheck;
  if (!last) return { next: 'plan_recovery', state };
  const result: CheckResult = { ...last, signal: null, tail: [] };
  const log = readCheckLog(last.logFile, ctx.config.log.dir);
  // Paths relative to the worktree the check ran in, and the blamed tests first (not a tip's own failures).
  const options = { ...(last.cwd ? { cwd: last.cwd } : {}), ...(last.blamed ? { blamed: last.blamed } : {}) };
  const extract = (text: string, r: CheckResult) => ctx.extractFailure(text, r, options);
  const outcome = await ctx.once(`summary:${state.checks.length}`, () =>
    summarizeWithModel({ result, log }, { gateway: ctx.gateway, extract, log: ctx.log }),
  );
  ctx.journal.append({
    type: 'failure_summarized',
    check: last.name,
    summary: outcome.summary,
    by: outcome.source === 'model' ? 'model' : 'parser',
  });
  ctx.log.decision(
    { check: last.name },
    `[summarizer] ${outcome.summary.error_type} at ${outcome.summary.location ?? '?'}: ${outcome.summary.root_cause}`,
  );
  const attempts = state.attempts.map((a) =>
    a.number === state.currentAttempt ? { ...a, failureSummary: outcome.summary } : a,
  );
  // The failed check's record (baselines run to judge it may follow it).
  const failed = state.checks.findLastIndex((c) => c.logFile === last.logFile && c.name === last.name);
  const checks = state.checks.map((c, i) =>
    i === (failed < 0 ? state.checks.length - 1 : failed) ? { ...c, summary: outcome.summary } : c,
  );
  return { next: 'plan_recovery', state: { ...state, attempts, checks } };
}
