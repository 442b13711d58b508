import { closeAttempt } from './attempt.js';
import { join } from 'node:path';
import { checkoutOfBranch, type Git } from '../../git/index.js';
import { printableName, shellWord } from '../../util/safe-print.js';
import type { RunState } from '../../store/run-state.js';
import { removeBuildDir } from '../check-tree.js';
import { removeFinishedRunWorktrees } from '../release-worktrees.js';
import { mergeMessage, mergeNote, writeMergeNote } from '../merge-record.js';
import { exportCacheRef } from '../../resolve/cache/cache-ref.js';
import { flagGenerated, generatedWarningsAt } from '../generated-warnings.js';
import { lastCheck, recordChecks, runChecksOn, workflowChecks, type Ctx, type Result } from './common.js';
import { checkProgress, withCheckProgress } from '../../store/flow-checks.js';
import { shortOid } from '../../util/short-oid.js';
import { tipsChecked } from './tip-checks.js';
import { auditFinalMerge } from '../drops/final-drops.js';
import { runLater, runLaterLine } from '../decided-once-record.js';

/**
 * Finalize: the final validation on the last cell (the `check.final` check, or the
 * workflow checks) unless the last check already passed there, then finish the
 * merge: one two-parent commit on the fork branch. Only a failure absent from both
 * tips' baselines stops it (check-blame.ts).
 */
export async function finalize(state: RunState, ctx: Ctx): Promise<Result> {
  // Wherever the branch is checked out (the main checkout, usually), not where this process was started.
  const checkedOut = await checkoutOfBranch(ctx.git, state.fork.branch);
  // The tips' checks run alongside the conflicts are waited for: the finished run records every check it asked for.
  const tips = await tipsChecked(state, ctx, true);
  let next = recordChecks(state, tips.records, tips.baselines);
  // A kill after the branch moved and before this node's result was saved: finish what is left.
  const finished = await finishedMerge(next, ctx);
  if (finished) return complete(next, ctx, finished, checkedOut);
  const engine = await ctx.engine();
  const size = engine.size();
  const final = { i1: size.i1, i2: size.i2 };
  if (!checkProgress(state).finalValidated) {
    const commit = await engine.cellCommit(final);
    if (!commit) return { next: 'resolve_conflicts', state: next };
    const names =
      ctx.config.check.final && ctx.config.check.final in ctx.config.check.commands
        ? [ctx.config.check.final]
        : workflowChecks(ctx);
    const run = await runChecksOn(ctx, next, commit, final, 'final', names);
    next = recordChecks(next, run.records, run.baselines);
    // Failures the baselines have (or cannot tell from them) are not blamed: runChecksOn logged why.
    if (!run.passed && run.failed) {
      // Every resolution not yet validated is under suspicion (all of them if all were).
      const validated = new Set(checkProgress(next).validated);
      const suspects = next.conflicts.filter((c) => c.status === 'resolved' && !validated.has(c.id)).map((c) => c.id);
      const batch =
        suspects.length > 0 ? suspects : next.conflicts.filter((c) => c.status === 'resolved').map((c) => c.id);
      return {
        next: 'summarize_failure',
        state: withCheckProgress(next, { batch, lastCheck: lastCheck(final, run.failed, run.blame) }),
      };
    }
    next = withCheckProgress(next, { finalValidated: true });
    await flagGeneratedFiles(ctx, engine, final, commit);
  }
  if (checkedOut !== null) {
    const commit = await engine.cellCommit(final);
    const dirty = commit ? await localChanges(ctx.git.at(checkedOut), commit) : null;
    if (dirty) return stopForLocalChanges(next, ctx, checkedOut, dirty);
  }
  // Said once for the whole merge, however many cells took the file's side: the tool runs later, where it can.
  for (const later of runLater(next, ctx.config.resolve.regenerate)) ctx.log.warn({}, runLaterLine(later));
  if (next.goal === 'merge') next = await withFinalDrops(next, ctx, engine, final);
  return complete(next, ctx, await engine.finish(mergeMessage(next), next.fork.branch), checkedOut);
}

/**
 * The survival audit of the whole merge, for its record: the fork's and upstream's deltas against
 * the result. It informs and never stops the merge: when it cannot run, the record goes without it.
 */
async function withFinalDrops(
  state: RunState,
  ctx: Ctx,
  engine: Awaited<ReturnType<Ctx['engine']>>,
  final: { i1: number; i2: number },
): Promise<RunState> {
  const [base, fork, upstream, merged] = await Promise.all([
    engine.cellCommit({ i1: 0, i2: 0 }),
    engine.cellCommit({ i1: final.i1, i2: 0 }),
    engine.cellCommit({ i1: 0, i2: final.i2 }),
    engine.cellCommit(final),
  ]);
  if (!base || !fork || !upstream || !merged) return state;
  const conflicted = [...new Set(state.conflicts.flatMap((c) => c.files.map((f) => f.path)))];
  try {
    return { ...state, finalDrops: await auditFinalMerge(ctx.git, { base, fork, upstream, merged }, conflicted) };
  } catch (error) {
    ctx.log.warn({ err: error }, 'the survival audit of the merge could not run; the record goes without it');
    return state;
  }
}

/** Warn (log and journal, so the report shows it) of generated files the merge left invalid (a package pinned twice). */
async function flagGeneratedFiles(
  ctx: Ctx,
  engine: Awaited<ReturnType<Ctx['engine']>>,
  final: { i1: number; i2: number },
  merged: string,
): Promise<void> {
  const [base, ours, theirs] = await Promise.all([
    engine.cellCommit({ i1: 0, i2: 0 }),
    engine.cellCommit({ i1: final.i1, i2: 0 }),
    engine.cellCommit({ i1: 0, i2: final.i2 }),
  ]);
  if (!base || !ours || !theirs) return;
  flagGenerated(ctx, await generatedWarningsAt(ctx.git, { base, ours, theirs, merged }));
}

interface LocalChanges {
  files: string[];
  detail: string;
  /** Untracked files in the merge's way (not changes to tracked files). */
  untracked: boolean;
}

/**
 * What in the checkout of the fork branch the merge would move under: uncommitted changes to
 * tracked files (staged or not), and untracked files the merge's tree would overwrite. Null when none.
 */
async function localChanges(checkout: Git, result: string): Promise<LocalChanges | null> {
  const status = await checkout.run(['status', '--porcelain=v1', '-z', '--no-renames', '--untracked-files=no'], {
    okExitCodes: [0],
  });
  const files = status.stdout
    .split('\0')
    .filter((entry) => /^.. /.test(entry))
    .map((entry) => entry.slice(3));
  if (files.length > 0) return { files, detail: 'uncommitted changes', untracked: false };
  const dry = await checkout.run(['read-tree', '-n', '-m', '-u', 'HEAD', result], { okExitCodes: [0, 128] });
  if (dry.exitCode === 0) return null;
  const blocked = [...dry.stderr.matchAll(/'([^']+)' would be overwritten/g)].map((m) => m[1] as string);
  return {
    files: blocked.length > 0 ? blocked : [dry.stderr.trim()],
    detail: 'untracked files the merge would overwrite',
    untracked: true,
  };
}

/**
 * The branch stays where it is: moving it under a person's uncommitted work would leave their
 * index and files describing the old commit. The grid is complete and kept, so `continue`
 * finishes the merge once the checkout is clean.
 */
function stopForLocalChanges(state: RunState, ctx: Ctx, checkout: string, dirty: LocalChanges): Result {
  const files = dirty.files.map((f) => join(checkout, f));
  const reason =
    `the merge is ready, but ${printableName(state.fork.branch)} is checked out in ${printableName(checkout)} with ${dirty.detail} ` +
    `(${dirty.files.slice(0, 5).map(printableName).join(', ')}${dirty.files.length > 5 ? `, and ${dirty.files.length - 5} more` : ''}); ` +
    `the branch was not moved and nothing was touched`;
  // Untracked files are stashed only when some are in the way (the config file and logs may be untracked too).
  const stash = dirty.untracked
    ? `git stash push --include-untracked -- ${dirty.files.map(shellWord).join(' ')}`
    : 'git stash';
  const commands = [
    `cd ${shellWord(checkout)}`,
    `${stash}   # or commit them on another branch`,
    'splintercat continue',
    'git stash pop   # your changes back, on top of the merge',
  ];
  ctx.journal.append({ type: 'person_needed', reason, files, commands, conflicts: [] });
  return {
    halt: 'needs_person',
    reason,
    next: 'finalize',
    state: { ...state, handoff: { reason, files, commands, where: checkout, conflicts: [] } },
  };
}

/**
 * After the merge commit is on the branch: drop the merge's refs, bring a checked-out
 * working tree forward, journal and clean up. Each step is safe to repeat after a kill.
 */
async function complete(state: RunState, ctx: Ctx, commit: string, checkedOut: string | null): Promise<Result> {
  await ctx.engines.discard(state.name);
  const checkout = checkedOut === null ? null : ctx.git.at(checkedOut);
  if (
    checkout &&
    (await checkout.run(['diff-index', '--cached', '--quiet', commit], { okExitCodes: [0, 1] })).exitCode !== 0
  ) {
    await updateWorkingTree(ctx, checkout, state.fork.originalOid, commit);
  }
  // The full record travels with the merge commit (a note; rewritten as is after a kill).
  if (state.goal === 'merge') await writeMergeNote(ctx.git, commit, mergeNote(state));
  // What this merge decided, ready to travel with `git push origin refs/splintercat/cache`.
  if (ctx.ladder.cache) await exportCacheRef(ctx.git, ctx.ladder.cache);
  if (!ctx.journal.read().entries.some((e) => e.type === 'finalized' && e.commit === commit))
    ctx.journal.append({ type: 'finalized', commit });
  ctx.log.decision(
    { commit },
    `[finalize] ${state.fork.branch} is now ${shortOid(commit)}: merge of ${state.upstream.ref}`,
  );
  await removeFinishedRunWorktrees(ctx, state);
  removeBuildDir(ctx.buildDir);
  const open = state.attempts.find((a) => a.number === state.currentAttempt && a.finishedAt === null);
  const closed = open ? closeAttempt(ctx, state, open.recovery, ctx.clock.now().toISOString()) : state;
  return { next: 'end', state: { ...closed, finalCommit: commit, handoff: null } };
}

/** The merge commit, when the fork branch already holds it: parents [original tip, upstream's]. */
async function finishedMerge(state: RunState, ctx: Ctx): Promise<string | null> {
  const tip = await ctx.git.revParse(`refs/heads/${state.fork.branch}`);
  if (tip === null || tip === state.fork.originalOid) return null;
  const [, ...parents] = (await ctx.git.text(['rev-list', '--parents', '-n', '1', tip])).split(' ');
  return parents.length === 2 && parents[0] === state.fork.originalOid && parents[1] === state.upstream.oid
    ? tip
    : null;
}

/**
 * The target branch is checked out in `checkout` (the user's working tree): bring index and files
 * forward as a fast-forward would (`read-tree -m -u`), which refuses rather than
 * overwrite a local change; then the user is told how to finish it by hand.
 */
async function updateWorkingTree(ctx: Ctx, checkout: Git, from: string, to: string): Promise<void> {
  const result = await checkout.run(['read-tree', '-m', '-u', from, to], { okExitCodes: [0, 128] });
  if (result.exitCode !== 0) {
    ctx.log.warn(
      { stderr: result.stderr.trim() },
      `the branch now points at ${shortOid(to)}, but local changes kept the working tree from being updated; commit or stash them, then run: git reset --keep ${to}`,
    );
  }
}
