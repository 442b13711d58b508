import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import type { Git } from '../../git/index.js';
import { replayMerge } from '../eval/repo.js';
import { learnFile, type LearntHunk } from './learnt-hunk.js';

/**
 * What a repository's past merges teach, remembered per merge commit (a merge never changes, so
 * each is replayed once): `<git common dir>/splintercat/learnt/merges.json`. A new version of the
 * classification bumps `VERSION` and starts the memo afresh.
 */
const VERSION = 3;

const hunkSchema = z.object({
  path: z.string(),
  choice: z.string(),
  kind: z.enum(['added', 'deleted', 'rewrote', 'rewrote, other added', 'same lines']),
  lead: z.enum(['ours', 'theirs']).nullable(),
  lines: z.array(z.number()),
  unionParses: z.boolean().optional(),
});
const memoSchema = z.object({
  version: z.literal(VERSION),
  merges: z.record(z.string(), z.object({ time: z.number(), hunks: z.array(hunkSchema) })),
});
type Memo = z.infer<typeof memoSchema>;

export interface HistoryOptions {
  /** At most this many of the most recent merges reachable from `target`. */
  limit: number;
  /** Called once per merge replayed for the first time (progress). */
  onReplay?: (done: number, total: number) => void;
  /** Called once per merge read, remembered or replayed, newest first (progress). */
  onRead?: (done: number, total: number) => void;
  /**
   * Stop replaying merges after this many milliseconds: the merges read by then (the most recent)
   * are learnt from, the older ones left out. Remembered merges cost nothing and are always read
   * up to the first one left out.
   */
  budgetMs?: number;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

export interface LearntHistory {
  hunks: LearntHunk[];
  /** Merges read, and of them those replayed now (the rest came from the memo). */
  merges: number;
  replayed: number;
  /** Merges within `limit` left out, older than those read, because the time budget ran out. */
  leftOut: number;
}

function memoPath(commonDir: string): string {
  return join(commonDir, 'splintercat', 'learnt', 'merges.json');
}

async function loadMemo(path: string): Promise<Memo> {
  try {
    const parsed = memoSchema.safeParse(JSON.parse(await readFile(path, 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // Missing or damaged: the merges are replayed again.
  }
  return { version: VERSION, merges: {} };
}

async function saveMemo(path: string, memo: Memo): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(temp, JSON.stringify(memo));
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Every hunk git could not merge in the most recent two-parent merges reachable from `target`
 * (replayed in memory, as `eval --repo` does), with what the maintainer wrote for it. A merge
 * that replays cleanly teaches nothing and is remembered as such.
 */
export async function learnHistory(git: Git, target: string, options: HistoryOptions): Promise<LearntHistory> {
  const merges = await git.lines([
    'rev-list',
    '--merges',
    '--min-parents=2',
    '--max-parents=2',
    '--date-order',
    `--max-count=${options.limit}`,
    target,
  ]);
  const path = memoPath(await git.gitDir(true));
  const memo = await loadMemo(path);
  const fresh = merges.filter((m) => memo.merges[m] === undefined);
  const now = options.now ?? Date.now;
  const deadline = options.budgetMs === undefined ? Infinity : now() + options.budgetMs;
  let done = 0;
  let read = 0;
  for (const merge of merges) {
    if (memo.merges[merge] !== undefined) {
      read++;
      options.onRead?.(read, merges.length);
      continue;
    }
    if (now() >= deadline) break;
    const replayed = await replayMerge(git, merge);
    const time = replayed.cases[0]?.time ?? Number(await git.text(['show', '-s', '--format=%ct', merge]));
    const hunks: LearntHunk[] = [];
    for (const c of replayed.cases) hunks.push(...(await learnFile(git, { oid: merge, time }, c)));
    memo.merges[merge] = { time, hunks: hunks.map(({ merge: _m, time: _t, ...rest }) => rest) };
    // Counted apart from the calls: an absent callback skips its arguments.
    done++;
    read++;
    options.onReplay?.(done, fresh.length);
    options.onRead?.(read, merges.length);
  }
  if (done > 0) await saveMemo(path, memo);
  const kept = merges.slice(0, read);
  const hunks = kept.flatMap((merge) => {
    const m = memo.merges[merge];
    return m ? m.hunks.map((h) => ({ ...h, merge, time: m.time })) : [];
  });
  return { hunks, merges: read, replayed: done, leftOut: merges.length - read };
}
