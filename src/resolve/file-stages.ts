import type { Git } from '../git/index.js';
import { regenerateCommandFor, regenerateLockfile } from './data/lockfiles.js';
import type { FileDecision } from './file-level.js';
import { recallWholeFile } from './file-recall.js';
import type { PathAtHand, WorkingTreeFileResult } from './ladder-types.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeBytes, encodeText } from './parse/encoding.js';
import { parseConflictText, printWithResolutions } from './parse/markers.js';
import { stageSide, type UnmergedEntry } from './parse/stages.js';
import { withReachablePath } from '../util/long-path.js';
import { DECIDED_ONCE_NOTE } from '../store/flow-choices.js';
import { describeDecision, type PathRule } from './policy/path-policy.js';

/**
 * The file-level rungs of the ladder (`LADDER` in `ladder.ts` puts them in order): each looks at a
 * conflicted path whole and returns its result when it settles the path (or stops the ladder
 * there), else null. They act on the working tree (`git checkout`, `git rm`, a regenerate command).
 */

/** A path settled whole, as the working tree reports it. */
function settled(at: PathAtHand, fields: Omit<WorkingTreeFileResult, 'path' | 'status' | 'resolutions' | 'remaining'>) {
  return { path: at.entry.path, status: 'resolved' as const, resolutions: [], remaining: [], ...fields };
}

/** A path the ladder stops at, left as it is, with why. */
function leftOpen(
  at: PathAtHand,
  fields: Omit<WorkingTreeFileResult, 'path' | 'status' | 'resolutions' | 'remaining'>,
) {
  return { path: at.entry.path, status: 'open' as const, resolutions: [], remaining: [], ...fields };
}

/**
 * A lockfile with a `resolve.regenerate` command, once every other path is resolved (its
 * manifests): start from our version (a command cannot read a file full of markers), run the
 * command in the worktree, stage the result. When the command fails, the fork's version stays
 * in place for a person.
 */
export async function regenerateLockfileStage(at: PathAtHand): Promise<WorkingTreeFileResult | null> {
  const { git, top, entry, options } = at;
  const regenerate = options.regenerate ?? {};
  const { path } = entry;
  if (!regenerateCommandFor(path, regenerate) || !options.runCommand || !at.othersResolved) return null;
  await git.run(['checkout', '--ours', '--', path], { okExitCodes: [0, 1] });
  const outcome = await regenerateLockfile(path, top, regenerate, options.runCommand);
  if (outcome.status === 'regenerated') {
    await git.run(['add', '--', path]);
    return settled(at, { rung: 'generated', note: `regenerated with \`${outcome.command}\`` });
  }
  if (outcome.status === 'failed') {
    return leftOpen(at, {
      note: `\`${outcome.command}\` failed (exit ${outcome.exitCode ?? 'killed'}): ${outcome.output.split('\n').slice(-5).join(' | ')}; the fork's version of ${path} is in place: run the command here yourself once what it needs is fixed, then \`git add -- ${path}\``,
    });
  }
  return leftOpen(at, { note: outcome.note });
}

/**
 * A path decided once for this merge (`decidedOnce`: a person took one side's whole file at an
 * earlier conflict) takes the same side again: a file decided whole (a generated file, a
 * modify/delete) that side's whole file or its deletion, a file merged by hunk that side of every
 * conflict hunk, git's clean merge of the rest kept. The fork's policy for the path comes first.
 */
export async function decidedOnceStage(at: PathAtHand): Promise<WorkingTreeFileResult | null> {
  const { entry, decision, options } = at;
  const decided = options.decidedOnce?.[entry.path];
  if (decided === undefined || at.policy !== null) return null;
  const side = decided.side === 'fork' ? 'ours' : 'theirs';
  const who = decided.side === 'fork' ? "the fork side's" : "upstream's";
  const byHunk = at.generated === null && (decision.kind === 'content' || decision.kind === 'add/add');
  const note = `${DECIDED_ONCE_NOTE} (at ${decided.conflict} by the person): ${who} ${byHunk ? 'side of every conflict hunk' : 'whole file'}`;
  if (!byHunk) {
    await applyFileDecision(at.git, entry, entry[side] === undefined ? 'delete' : `keep-${side}`);
    return settled(at, { rung: 'cache', decision, note, decidedOnce: decided });
  }
  if (at.diskBytes === null) return null;
  const file = parseConflictText(decodeBytes(at.diskBytes, at.encoding), { path: entry.path });
  if (file.hunks.length === 0) return null;
  const text = printWithResolutions(file, new Map(file.hunks.map((h) => [h.index, h[side]])));
  await withReachablePath(join(at.top, entry.path), (p) => writeFile(p, encodeText(text, at.encoding)));
  await at.git.run(['add', '--', entry.path]);
  return settled(at, { rung: 'cache', decision, note, decidedOnce: decided });
}

/** What a file the policy hands to a person says about it. */
export function policyNote(rule: PathRule): string {
  return `the fork's policy hands ${rule.glob} to a person (resolve.paths)`;
}

/**
 * A conflict decided whole (modify/delete, binary, mode, ..., or a generated file) the policy
 * decides: `ours` or `theirs` keeps that side's file, or its deletion where that side deleted it;
 * `person` leaves it open, even where a rule would decide it. Null when the policy says nothing of
 * it (no rule, a content conflict merged by hunk, `union`, `regenerate`).
 */
export async function filePolicyStage(at: PathAtHand): Promise<WorkingTreeFileResult | null> {
  const { entry, decision, policy: rule } = at;
  const whole = at.generated !== null || (decision.kind !== 'content' && decision.kind !== 'add/add');
  if (rule === null || !whole) return null;
  if (rule.decision.kind === 'person') return leftOpen(at, { decision, note: policyNote(rule) });
  const side = rule.decision.kind;
  if (side !== 'ours' && side !== 'theirs') return null;
  const action = entry[side] === undefined ? 'delete' : side === 'ours' ? 'keep-ours' : 'keep-theirs';
  await applyFileDecision(at.git, entry, action);
  return settled(at, { rung: 'policy', decision, policy: `${rule.glob}: ${describeDecision(rule.decision)}` });
}

/** The person's whole remembered file for these same three sides (`file-recall.ts`), when asked for. */
export async function fileMemoryStage(at: PathAtHand): Promise<WorkingTreeFileResult | null> {
  const { options, diskBytes, encoding } = at;
  if (!options.fileMemory || !options.cache) return null;
  const onDisk = diskBytes === null ? null : decodeBytes(diskBytes, encoding);
  const recalled = await recallWholeFile(at.git, at.top, {
    entry: at.entry,
    cache: options.cache,
    decision: at.decision,
    policy: at.policy,
    onDisk,
  });
  return recalled && { ...recalled, rung: 'cache' };
}

/**
 * The file-level decision of `file-level.ts`, applied where it is certain (both sides deleted the
 * path or have the same file, only one side changed it); any other conflict decided whole
 * (modify/delete, binary, ...) is left open for a person. A content conflict goes on to its hunks.
 */
export async function fileDecisionStage(at: PathAtHand): Promise<WorkingTreeFileResult | null> {
  const { decision } = at;
  const byHunk = decision.kind === 'content' || decision.kind === 'add/add';
  if (decision.resolution === null) return byHunk ? null : leftOpen(at, { decision });
  await applyFileDecision(at.git, at.entry, decision.resolution.action);
  return settled(at, { rung: 'rule', decision });
}

/** A content conflict whose file is gone from the working tree: nothing to merge hunk by hunk. */
export async function missingFileStage(at: PathAtHand): Promise<WorkingTreeFileResult | null> {
  return at.diskBytes === null
    ? leftOpen(at, { decision: at.decision, note: 'the file is missing from the working tree' })
    : null;
}

/**
 * A generated file (a lockfile, pip-compile output) is decided whole, never hunk by hunk: a
 * hunk-by-hunk merge of it is text its tool never wrote. Its hunks are left as git wrote them.
 */
export async function generatedFileStage(at: PathAtHand): Promise<WorkingTreeFileResult | null> {
  const { generated, diskBytes } = at;
  if (generated === null || diskBytes === null) return null;
  const path = at.entry.path;
  const remaining = parseConflictText(decodeBytes(diskBytes, at.encoding), { path }).hunks.map((h) => ({
    index: h.index,
    startLine: h.startLine,
    endLine: h.endLine,
  }));
  return { path, status: 'open', resolutions: [], remaining, generated, decision: at.decision };
}

/** Carry out a file-level choice in the working tree and stage it (a submodule's side as its commit id). */
async function applyFileDecision(git: Git, entry: UnmergedEntry, action: FileDecision['options'][number]['action']) {
  if (action === 'delete') await git.run(['rm', '--quiet', '--force', '--', entry.path]);
  else if (action === 'keep-ours' || action === 'keep-theirs')
    await stageSide(git, entry, action === 'keep-ours' ? 'ours' : 'theirs');
}
