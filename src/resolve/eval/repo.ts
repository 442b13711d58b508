import type { Git } from '../../git/index.js';
import { readBlob } from '../parse/read-blob.js';
import type { EvalCase } from './score-case.js';
import { shortOid } from '../../util/short-oid.js';

export interface MineOptions {
  /** At most this many conflicting merges (newest first). */
  limit?: number;
  /** Only merges committed on or after this date (anything `git log --since` takes). */
  since?: string;
  /** Revisions to walk; default every branch and tag (`--all`). */
  revs?: string[];
}

export interface MinedMerges {
  /** Two-parent merges looked at. */
  mergesSeen: number;
  /** Of those, merges that conflict when replayed. */
  mergesConflicting: number;
  /** Merges skipped because they have several merge bases (criss-cross). */
  mergesCrissCross: number;
  cases: EvalCase[];
  /** Conflicted paths that were not turned into cases, with why. */
  skipped: Array<{ id: string; reason: string }>;
}

/**
 * Mine a repository's history for conflicts a person resolved: every
 * two-parent merge is replayed in memory with `git merge-tree --write-tree`,
 * and each conflicted path becomes a case paired with the file in the merge commit.
 */
export async function mineMerges(git: Git, options: MineOptions = {}): Promise<MinedMerges> {
  // `--parents` names each merge's parents on its line: one process for all, not one per merge.
  const args = ['rev-list', '--merges', '--min-parents=2', '--max-parents=2', '--topo-order', '--parents'];
  if (options.since) args.push(`--since=${options.since}`);
  args.push(...(options.revs ?? ['--all']));
  const merges = await git.lines(args);
  const out: MinedMerges = { mergesSeen: 0, mergesConflicting: 0, mergesCrissCross: 0, cases: [], skipped: [] };
  for (const line of merges) {
    if (options.limit !== undefined && out.mergesConflicting >= options.limit) break;
    out.mergesSeen++;
    const [merge, p1, p2] = line.split(' ') as [string, string, string];
    const replayed = await replayMerge(git, merge, [p1, p2]);
    if (replayed.status === 'criss-cross') out.mergesCrissCross++;
    if (replayed.status !== 'conflict') continue;
    out.mergesConflicting++;
    out.cases.push(...replayed.cases);
    out.skipped.push(...replayed.skipped);
  }
  return out;
}

/**
 * Replay one two-parent merge in memory (`git merge-tree --write-tree`): `clean` when it merges
 * without conflict, `criss-cross` when it has several merge bases (not replayed), else each
 * conflicted path as a case paired with the file in the merge commit (binary paths skipped).
 */
export async function replayMerge(
  git: Git,
  merge: string,
  parents?: [string, string],
): Promise<{
  status: 'clean' | 'criss-cross' | 'conflict';
  cases: EvalCase[];
  skipped: Array<{ id: string; reason: string }>;
}> {
  const none = { cases: [], skipped: [] };
  const [p1, p2] =
    parents ?? ((await git.text(['rev-parse', `${merge}^1`, `${merge}^2`])).split('\n') as [string, string]);
  const bases = await git.mergeBases(p1, p2);
  if (bases.length !== 1) return { status: 'criss-cross', ...none };
  const result = await git.run(['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', p1, p2], {
    okExitCodes: [0, 1],
  });
  if (result.exitCode === 0) return { status: 'clean', ...none };
  const time = Number(await git.text(['show', '-s', '--format=%ct', merge]));
  const cases: EvalCase[] = [];
  const skipped: Array<{ id: string; reason: string }> = [];
  let k = 0;
  for (const [path, stages] of await conflictedPaths(git, p1, p2)) {
    k++;
    const id = `${shortOid(merge)}-${k}`;
    const [base, ours, theirs, resolved] = await Promise.all([
      read(git, stages.get('1')),
      read(git, stages.get('2')),
      read(git, stages.get('3')),
      readBlob(git, `${merge}:${path}`),
    ]);
    if ([base, ours, theirs, resolved].some((t) => t !== null && t.slice(0, 8000).includes('\u0000'))) {
      skipped.push({ id, reason: `${path}: binary` });
      continue;
    }
    cases.push({ id, path, base, ours, theirs, resolved, merge, time });
  }
  return { status: 'conflict', cases, skipped };
}

/** Conflicted paths with their stage object ids, from merge-tree's conflicted-file info. */
async function conflictedPaths(git: Git, p1: string, p2: string): Promise<Map<string, Map<string, string>>> {
  const { stdout } = await git.run(['merge-tree', '--write-tree', '-z', '--no-messages', p1, p2], {
    okExitCodes: [0, 1],
  });
  const fields = stdout.split('\0');
  const paths = new Map<string, Map<string, string>>();
  for (const field of fields.slice(1)) {
    if (field === '') break;
    const tab = field.indexOf('\t');
    const [, oid, stage] = field.slice(0, tab).split(' ') as [string, string, string];
    const path = field.slice(tab + 1);
    const stages = paths.get(path) ?? new Map<string, string>();
    stages.set(stage, oid);
    paths.set(path, stages);
  }
  return paths;
}

async function read(git: Git, oid: string | undefined): Promise<string | null> {
  return oid === undefined ? null : readBlob(git, oid);
}
