import {
  blamesResolutions,
  compareWithBaselines,
  sideOutcome,
  validates,
  type Baseline,
  type SideOutcome,
} from '../../checks/baseline.js';
import { readCheckLog } from '../../checks/read-log.js';
import { parseTestFailures } from '../../checks/test-output/index.js';
import type { CheckResult } from '../../checks/types.js';
import { cellId, type Cell } from '../../imerge/cell.js';
import type { BaselineState, CheckJudgement, CheckRecord, RunState } from '../../store/run-state.js';
import { baselineSideOf, baselineTargetOf } from '../../store/baseline-side.js';
import type { Side } from '../../store/side.js';
import type { NodeContext } from './node-context.js';
import type { RunContext } from '../ports.js';
import { prepareCheckTree } from '../check-tree.js';
import { shortOid } from '../../util/short-oid.js';
import { claimsFor, claimText } from '../share/check-claims.js';

/**
 * Blame only what the merge broke. A check that fails on a tip is that side's baseline (its failing
 * tests by name, or its whole outcome when none can be named); a check failing on a cell or on the
 * final merge is compared with the baselines (checks/baseline.ts), and only what fails on none of them
 * is blamed on the resolutions. Where the tips alone would blame a cell, the cell's own fork and
 * upstream commits are checked too (a test broken by an early fork commit and fixed by a later one fails
 * on the cell, not on the tip). Every check run here is returned as a record: every run is counted.
 */

/** What the checks on one commit came to. */
export interface ChecksRun {
  /** Nothing was blamed on the resolutions: every check passed, or failed only as its baselines do. */
  passed: boolean;
  /** Every check passed, or failed exactly as a baseline does with no test left unseen: what was checked is validated. */
  validated: boolean;
  /** Every check run, the baselines run to judge a failure included. */
  records: CheckRecord[];
  /** Baselines measured on the way (tips, or the fork/upstream commits of a cell). */
  baselines: BaselineState[];
  /** The check whose failure is blamed on the resolutions. */
  failed?: CheckResult;
  /** Where it ran and how it was judged. */
  blame?: { cwd: string; judgement: CheckJudgement };
}

/** common.ts's Ctx (not imported from there: common.ts imports this file). */
type Ctx = RunContext & NodeContext;

/** Run the checks `names` on a tip (or a fork/upstream commit of a cell): each outcome is that side's baseline. All of them run, failing or not. */
export async function runBaselines(
  ctx: Ctx,
  state: RunState,
  side: Side,
  commit: string,
  cell: Cell | null,
  names: string[],
): Promise<Pick<ChecksRun, 'records' | 'baselines'>> {
  const records: CheckRecord[] = [];
  const baselines: BaselineState[] = [];
  for (const name of names) {
    const { record } = await runOne(ctx, state, commit, cell, baselineTargetOf(side), name);
    records.push(record);
    baselines.push({
      side,
      commit,
      cell,
      check: name,
      outcome: record.outcome as BaselineState['outcome'],
      logFile: record.logFile,
    });
  }
  return { records, baselines };
}

/**
 * Run the checks `names` on a cell or the final merge, one after another. A failure is judged against
 * the baselines (measured here when the state has none for that check; `baselinesRunning`: the
 * baselines still being measured, waited for before the first judgement): one that blames the
 * resolutions stops there; one that does not is recorded, said in the decision log, and the next check runs.
 */
export async function runJudgedChecks(
  ctx: Ctx,
  state: RunState,
  commit: string,
  cell: Cell | null,
  target: 'cell' | 'final',
  names: string[],
  baselinesRunning?: () => Promise<Pick<ChecksRun, 'records' | 'baselines'>>,
): Promise<ChecksRun> {
  const run: ChecksRun = { passed: true, validated: true, records: [], baselines: [] };
  let waited = baselinesRunning === undefined;
  for (const name of names) {
    const { record, result, cwd } = await runOne(ctx, state, commit, cell, target, name);
    if (result.success) {
      run.records.push(record);
      continue;
    }
    if (!waited && baselinesRunning) {
      waited = true;
      const late = await baselinesRunning();
      run.records.push(...late.records);
      run.baselines.push(...late.baselines);
    }
    const known = { ...state, baselines: [...state.baselines, ...run.baselines] };
    const judged = await judge(ctx, known, record.outcome as SideOutcome, name, cell);
    run.records.push({ ...record, judgement: judged.judgement }, ...judged.records);
    run.baselines.push(...judged.baselines);
    ctx.log.decision(
      { check: name, verdict: judged.judgement.verdict },
      verdictLine(name, cell, target, judged, result),
    );
    if (blamesResolutions(judged.judgement))
      return { ...run, passed: false, validated: false, failed: result, blame: { cwd, judgement: judged.judgement } };
    if (!validates(judged.judgement)) run.validated = false;
  }
  return run;
}

/**
 * A failed check on a cell or the final merge, said once with its verdict: blamed on the resolutions, passed
 * against the baselines (it fails only as they do), or nothing blamed but not validated (and why).
 */
function verdictLine(
  name: string,
  cell: Cell | null,
  target: 'cell' | 'final',
  judged: { judgement: CheckJudgement },
  result: CheckResult,
): string {
  const where = cell ? cellId(cell) : target;
  const { reason } = judged.judgement;
  const log = `(log: ${result.logFile})`;
  if (blamesResolutions(judged.judgement))
    return `[check] ${name} FAILED on ${where}, blamed on the resolutions: ${reason} ${log}`;
  if (validates(judged.judgement)) return `[check] ${name} on ${where} passed against the baselines: ${reason} ${log}`;
  return `[check] ${name} on ${where}: nothing blamed, but ${where} is not counted as validated: ${reason} ${log}`;
}

/** One check on one commit in the check worktree, journalled, with the failing tests its log names. */
async function runOne(
  ctx: Ctx,
  state: RunState,
  commit: string,
  cell: Cell | null,
  target: CheckRecord['target'],
  name: string,
): Promise<{ record: CheckRecord; result: CheckResult; cwd: string }> {
  if (ctx.aside.aborted) throw driveEnded(name);
  await sayClaims(ctx, name, commit);
  // A runner elsewhere checks the commit itself: no worktree is needed (so several can be in flight).
  const local = !ctx.checks.remote;
  const cwd = local ? await prepareCheckTree(ctx, commit, baselineSideOf(target)) : ctx.config.target.workdir;
  ctx.journal.append({ type: 'check_started', name, cell, attempt: state.currentAttempt });
  ctx.log.debug({ check: name, cell, commit: shortOid(commit) }, `running check '${name}'`);
  const result = await ctx.checks.run(name, {
    cwd,
    commit,
    signal: ctx.signal,
    leave: ctx.aside,
    untrusted: modelWrittenFiles(state),
  });
  // Cut short by the end of the drive (Ctrl-C, or a hand-off while it ran alongside): no outcome, nothing recorded.
  if (ctx.aside.aborted) throw driveEnded(name);
  const record: CheckRecord = {
    name,
    cell,
    target,
    commit,
    success: result.success,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    logFile: result.logFile,
    summary: null,
    attempt: state.currentAttempt,
    at: ctx.clock.now().toISOString(),
    outcome: outcomeOf(result, cwd, ctx.config.log.dir),
  };
  ctx.journal.append({ type: 'check_finished', check: record });
  const on = cell ? cellId(cell) : target;
  // A failure on a cell or the final merge is said once it is judged (verdictLine), not before.
  if (result.success || baselineSideOf(target) !== null)
    ctx.log.decision(
      { check: name, success: result.success },
      `[check] ${name} ${result.success ? 'PASSED' : 'FAILED'} on ${on} (log: ${result.logFile})`,
    );
  return { record, result, cwd };
}

function driveEnded(check: string): Error {
  return new Error(`the drive ended before check '${check}' was recorded`);
}

/**
 * In a shared run: what other clones say of this check on the same tree, said in the decision log
 * as their claims. A claim never replaces the check: anyone who can push to the remote can write
 * one, and what validates the merge is only what this clone or its own CI ran.
 */
async function sayClaims(ctx: Ctx, name: string, commit: string): Promise<void> {
  const command = ctx.config.check.commands[name];
  if (!ctx.share || command === undefined) return;
  const claims = await claimsFor(ctx.git, ctx.share, name, command, commit).catch(() => []);
  for (const claim of claims) {
    const reasoning = `${claimText(claim)}: ${name} runs here on commit ${shortOid(commit)} all the same`;
    // Journalled as a decision, so the report's timeline shows the claim beside the check this clone ran.
    ctx.journal.append({
      type: 'decision',
      kind: 'check',
      by: 'runner',
      decision: 'claimed',
      reasoning,
      conflicts: [],
    });
    ctx.log.decision({ check: name, from: claim.by, success: claim.success }, `[check] ${reasoning}`);
  }
}

/** The files of the run that hold a model's resolution (what check.setup must not run, nor read with the network). */
function modelWrittenFiles(state: RunState): string[] {
  const files = state.conflicts.flatMap((c) =>
    c.files.filter((f) => f.hunks.some((h) => h.rung === 'model')).map((f) => f.path),
  );
  return [...new Set(files)];
}

/** The failing tests (and tests run) the check's log names; a timeout names none, whatever it printed. */
function outcomeOf(result: CheckResult, cwd: string, logDir: string): BaselineState['outcome'] {
  // A check run elsewhere names its failing tests itself (its whole log is not here).
  if (result.tests !== undefined) {
    const outcome = sideOutcome(result.success, result.timedOut ? null : result.tests, {
      signal: result.signal,
      exitCode: result.exitCode,
    });
    return { ...outcome, ran: outcome.ran ?? null, stopped: outcome.stopped ?? null };
  }
  const log = readCheckLog(result.logFile, logDir);
  const tests = result.timedOut ? null : parseTestFailures(log, { cwd, command: result.command });
  const outcome = sideOutcome(result.success, tests, { signal: result.signal, exitCode: result.exitCode });
  return { ...outcome, ran: outcome.ran ?? null, stopped: outcome.stopped ?? null };
}

/** Compare a failure with the tips' baselines, and where they would blame a cell, with the cell's own fork and upstream commits. */
async function judge(
  ctx: Ctx,
  state: RunState,
  outcome: SideOutcome,
  name: string,
  cell: Cell | null,
): Promise<{ judgement: CheckJudgement; records: CheckRecord[]; baselines: BaselineState[] }> {
  const records: CheckRecord[] = [];
  const baselines: BaselineState[] = [];
  const baseline = async (side: Side, commit: string, at: Cell | null, label: string): Promise<Baseline> => {
    const found = [...state.baselines, ...baselines].find((b) => b.commit === commit && b.check === name);
    if (found) return { label, outcome: found.outcome };
    const run = await runBaselines(ctx, state, side, commit, at, [name]);
    records.push(...run.records);
    baselines.push(...run.baselines);
    return { label, outcome: (run.baselines[0] as BaselineState).outcome };
  };
  const list = [
    await baseline('fork', state.fork.originalOid, null, 'fork tip'),
    await baseline('upstream', state.upstream.oid, null, 'upstream tip'),
  ];
  // Failures a person accepted (`continue --accept-failure`) count as a baseline's.
  list.push(
    ...state.acceptedFailures
      .filter((a) => a.check === name)
      .map((a) => ({ label: `failures accepted at ${a.conflicts.join(', ')}`, outcome: a.outcome })),
  );
  let comparison = compareWithBaselines(outcome, list);
  if (blamesResolutions(comparison) && cell) {
    const engine = await ctx.engine();
    const size = engine.size();
    const edges: Array<[Side, Cell, string]> = [];
    if (cell.i1 > 0 && cell.i1 < size.i1) edges.push(['fork', { i1: cell.i1, i2: 0 }, 'fork commit']);
    if (cell.i2 > 0 && cell.i2 < size.i2) edges.push(['upstream', { i1: 0, i2: cell.i2 }, 'upstream commit']);
    for (const [side, edge, what] of edges) {
      const commit = await engine.cellCommit(edge);
      if (commit)
        list.push(
          await baseline(side, commit, edge, `${what} ${side === 'fork' ? edge.i1 : edge.i2} (${commit.slice(0, 7)})`),
        );
    }
    if (list.length > 2) comparison = compareWithBaselines(outcome, list);
  }
  return { judgement: { ...comparison, against: list.map((b) => b.label) }, records, baselines };
}
