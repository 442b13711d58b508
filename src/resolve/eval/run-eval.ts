import type { Git } from '../../git/index.js';
import type { LadderFallback } from '../ladder.js';
import { allRules as defaultAllRules, type ResolutionRule } from '../rules/index.js';
import type { SyntaxSwitches } from '../syntax/syntax-merge.js';
import { emptyFileCounts, emptyHunkCounts, type EvalReport } from './metrics.js';
import { scoreCase, type EvalCase } from './score-case.js';
import { learnCases, learntScorer } from './learnt-score.js';
import { emptyLearntCounts } from './learnt-counts.js';

export interface RunEvalOptions {
  git: Git;
  /** The ladder's rules (the enabled set). */
  rules: readonly ResolutionRule[];
  allRules?: readonly ResolutionRule[];
  fallback?: LadderFallback;
  /** The syntax-aware rung's switches (default off). */
  syntax?: SyntaxSwitches;
  /** Also score suggestions learnt from earlier merges (the cases' own merges, by date) on the hunks the ladder leaves. */
  learnt?: boolean;
  /** Called after each case (progress). */
  onCase?: (done: number, total: number, id: string) => void;
}

/** Score the ladder on every case; a case that fails to score is listed in `skipped`, not fatal. */
export async function runEval(
  source: string,
  cases: Iterable<EvalCase> | AsyncIterable<EvalCase>,
  options: RunEvalOptions,
): Promise<EvalReport> {
  const all = options.allRules ?? defaultAllRules;
  const report: EvalReport = {
    source,
    cases: 0,
    hunksSeen: 0,
    files: emptyFileCounts(),
    filesByLanguage: {},
    filesByKind: {},
    filesByRung: {},
    hunksByLanguage: {},
    ladder: emptyHunkCounts(),
    byRule: {},
    standalone: Object.fromEntries(all.map((r) => [r.name, emptyHunkCounts()])),
    enabledRules: options.rules.map((r) => r.name),
    skipped: [],
    left: { hunks: {}, files: {} },
  };
  let done = 0;
  let scorer: ReturnType<typeof learntScorer> | undefined;
  if (options.learnt) {
    const list: EvalCase[] = [];
    for await (const c of cases) list.push(c);
    cases = list;
    report.learnt = emptyLearntCounts();
    scorer = learntScorer(await learnCases(options.git, list, report.learnt), report.learnt);
  }
  for await (const c of cases) {
    try {
      await scoreCase(
        c,
        {
          git: options.git,
          rules: options.rules,
          allRules: all,
          fallback: options.fallback,
          syntax: options.syntax,
          learnt: scorer,
        },
        report,
      );
    } catch (error) {
      report.skipped.push({ id: c.id, reason: error instanceof Error ? error.message : String(error) });
    }
    done++;
    options.onCase?.(done, done, c.id);
  }
  return report;
}
