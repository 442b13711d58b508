import { firstTests } from '../../checks/test-list.js';
import type { Side } from '../../store/side.js';
import type { RunState } from '../../store/run-state.js';
import { tipFacts } from '../../store/flow-tips.js';
import type { NodeContext } from './node-context.js';
import type { RunContext } from '../ports.js';
import { runBaselines, type ChecksRun } from './check-blame.js';

/**
 * The checks on the fork and upstream tips: each outcome is that side's baseline (a check that
 * already fails on a tip does not stop the merge; only failures absent from both baselines are
 * blamed on resolutions). Each tip is checked once per run (`once`, across resumes).
 *
 * With checks on CI runners that take several at once and a strategy that does not need their
 * times (merge.strategy set), the tips are checked alongside the first conflicts: a person gets
 * the first conflict at once instead of after a check of the tips. A cell's check then runs without
 * them; the first failure to judge, and the final merge, wait for them. A drive that ends first
 * leaves their requests on the remote, and the next drive waits on those.
 */

type Ctx = RunContext & NodeContext;
type TipsRun = Pick<ChecksRun, 'records' | 'baselines'>;

interface Tip {
  side: Side;
  commit: string;
  /** The `once` key's suffix and the check target, as stored. */
  key: 'baseline-ours' | 'baseline-theirs';
  label: string;
}

function tipsOf(state: RunState): Tip[] {
  return [
    {
      side: 'fork',
      commit: state.fork.originalOid,
      key: 'baseline-ours',
      label: `the fork tip (${state.fork.branch})`,
    },
    {
      side: 'upstream',
      commit: state.upstream.oid,
      key: 'baseline-theirs',
      label: `the upstream tip (${state.upstream.ref})`,
    },
  ];
}

function checkTip(ctx: Ctx, state: RunState, tip: Tip, names: string[]): Promise<TipsRun> {
  return ctx.once(`baseline:${tip.key}`, () => runBaselines(ctx, state, tip.side, tip.commit, null, names));
}

/** Whether the tips are checked alongside the first conflicts rather than before them. */
export function checkTipsAlongside(ctx: Ctx): boolean {
  return ctx.checks.remote === true && (ctx.checks.parallel ?? 1) > 1 && ctx.config.merge.strategy !== 'auto';
}

/**
 * Check both tips with `names`: their records and baselines to record. With `alongside`, only
 * start the checks and return nothing (`tipsChecked` collects them; the tips' record
 * `tipsAlongside` names the checks they run).
 */
export async function checkTips(state: RunState, ctx: Ctx, names: string[], alongside: boolean): Promise<TipsRun> {
  const tips = tipsOf(state);
  if (alongside) {
    // Not awaited: a failure is met again where the results are wanted (`tipsChecked`).
    for (const tip of tips) checkTip(ctx, state, tip, names).catch((error: unknown) => failedAside(ctx, tip, error));
    ctx.log.decision(
      { checks: names },
      `[baseline] ${names.join(', ')} on both tips runs on ${describeRunner(ctx)} alongside the first conflicts`,
    );
    return { records: [], baselines: [] };
  }
  // A runner that runs checks side by side checks both tips at once: the merge waits for both.
  const runs: TipsRun[] = [];
  if ((ctx.checks.parallel ?? 1) > 1)
    runs.push(...(await Promise.all(tips.map((t) => checkTip(ctx, state, t, names)))));
  else for (const tip of tips) runs.push(await checkTip(ctx, state, tip, names));
  return joined(ctx, tips, runs);
}

/**
 * The tips' checks started alongside and not recorded yet: those finished (all of them, once
 * finished, with `wait`), as records and baselines to record. In a drive that did not start
 * them (a resumed run), this starts them again: a request still on the remote is waited on.
 */
export async function tipsChecked(state: RunState, ctx: Ctx, wait: boolean): Promise<TipsRun> {
  const names = tipFacts(state).tipsAlongside;
  const open = tipsOf(state).filter((tip) =>
    names.some((name) => !state.baselines.some((b) => b.commit === tip.commit && b.check === name)),
  );
  if (open.length === 0) return { records: [], baselines: [] };
  const runs = open.map((tip) => checkTip(ctx, state, tip, names));
  // Checks that no longer go to runners elsewhere (the configuration changed) run here and now.
  const all = wait || !checkTipsAlongside(ctx);
  if (!all)
    for (const [k, run] of runs.entries()) run.catch((error: unknown) => failedAside(ctx, open[k] as Tip, error));
  const finished = all ? await Promise.all(runs) : await Promise.all(runs.map(settledValue));
  const done = open.flatMap((tip, k) => (finished[k] ? [[tip, finished[k]] as const] : []));
  return joined(
    ctx,
    done.map(([tip]) => tip),
    done.map(([, run]) => run),
  );
}

/** The tips' runs as one, each tip a check already fails on said in the decision log. */
function joined(ctx: Ctx, tips: Tip[], runs: TipsRun[]): TipsRun {
  const out: TipsRun = { records: [], baselines: [] };
  for (const [k, tip] of tips.entries()) {
    const run = runs[k] as TipsRun;
    out.records.push(...run.records);
    out.baselines.push(...run.baselines);
    for (const b of run.baselines.filter((x) => !x.outcome.passed)) {
      const what =
        b.outcome.failing === null
          ? 'no failing test could be named, so its whole outcome is'
          : `its ${b.outcome.failing.length} failing test(s) (${firstTests(b.outcome.failing)}) are`;
      ctx.log.decision(
        { check: b.check, side: b.side },
        `[baseline] ${b.check} already fails on ${tip.label} (log: ${b.logFile}): ${what} that side's baseline, never blamed on a resolution`,
      );
    }
  }
  return out;
}

/** A tip's check that failed to run alongside (not the drive's end): said now, met again where its result is wanted. */
function failedAside(ctx: Ctx, tip: Tip, error: unknown): void {
  if (ctx.aside.aborted) return;
  const why = error instanceof Error ? error.message : String(error);
  ctx.log.warn(
    { side: tip.side },
    `the check of ${tip.label} could not run alongside the conflicts (${why}); it is asked again when its result is wanted`,
  );
}

/** The value of a promise already fulfilled; undefined while it runs or when it failed (met again when awaited). */
async function settledValue<T>(promise: Promise<T>): Promise<T | undefined> {
  const running = Symbol('running');
  // Of two promises already settled, race takes the first listed.
  const first = await Promise.race([promise, Promise.resolve(running)]).catch(() => running);
  return first === running ? undefined : (first as T);
}

function describeRunner(ctx: Ctx): string {
  return ctx.config.check.runner.remote ? `CI through ${ctx.config.check.runner.remote}` : 'the check runner';
}
