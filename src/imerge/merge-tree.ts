import { GitError, type Git } from '../git/index.js';
import type { ConflictPath, FileConflictKind, StageEntry } from './types.js';

/** One informational message of `git merge-tree --messages -z`. */
export interface MergeTreeMessage {
  paths: string[];
  /** merge-tree's conflict type, e.g. `CONFLICT (contents)` or `Auto-merging`. */
  type: string;
  text: string;
}

/** The result of an in-memory merge: clean (tree only) or conflicted (as data, never thrown). */
export type MergeTreeResult =
  | { clean: true; tree: string }
  | { clean: false; tree: string; stages: { stage: number; entry: StageEntry }[]; messages: MergeTreeMessage[] };

/**
 * Merge two commits in memory with `git merge-tree --write-tree` (git >= 2.38).
 * No index, no working tree, no hooks; exit 1 (conflict) is returned as data.
 */
export async function mergeTree(
  git: Git,
  ours: string,
  theirs: string,
  signal?: AbortSignal,
): Promise<MergeTreeResult> {
  const result = await runFast(git, ['merge-tree', '--write-tree', '--messages', '-z', ours, theirs], signal);
  const parsed = parseMergeTreeOutput(result.stdout);
  if (result.exitCode === 0) return { clean: true, tree: parsed.tree };
  return { clean: false, ...parsed };
}

/**
 * Parse `merge-tree --write-tree --messages -z` output: `TREE NUL`, then conflicted stage lines
 * (`MODE OID STAGE TAB PATH NUL`), an empty field, then messages
 * (`COUNT NUL PATH... NUL TYPE NUL TEXT NUL`). A field where a count belongs is free text git
 * printed outside that framing (2.39's advice on a submodule conflict): a message of no path.
 */
export function parseMergeTreeOutput(stdout: string): {
  tree: string;
  stages: { stage: number; entry: StageEntry }[];
  messages: MergeTreeMessage[];
} {
  const fields = stdout.split('\0');
  const tree = fields[0] ?? '';
  const stages: { stage: number; entry: StageEntry }[] = [];
  let i = 1;
  for (; i < fields.length; i++) {
    const f = fields[i] as string;
    if (f === '') {
      i++;
      break;
    }
    const m = /^(\d+) ([0-9a-f]+) (\d)\t([\s\S]*)$/.exec(f);
    if (!m) continue;
    stages.push({ stage: Number(m[3]), entry: { mode: m[1] as string, oid: m[2] as string, path: m[4] as string } });
  }
  const messages: MergeTreeMessage[] = [];
  while (i < fields.length) {
    const countField = fields[i] as string;
    if (countField === '') {
      i++;
      continue;
    }
    if (!/^\d+$/.test(countField)) {
      messages.push({ paths: [], type: '', text: countField.replace(/\n$/, '') });
      i++;
      continue;
    }
    const count = Number(countField);
    const paths = fields.slice(i + 1, i + 1 + count) as string[];
    const type = fields[i + 1 + count] ?? '';
    const text = (fields[i + 2 + count] ?? '').replace(/\n$/, '');
    messages.push({ paths, type, text });
    i += count + 3;
  }
  return { tree, stages, messages };
}

/** Map merge-tree's conflict type (`CONFLICT (modify/delete)`) to our kind; unknown types stay 'unknown'. */
export function conflictKindOf(type: string, text = ''): FileConflictKind | null {
  const m = /^CONFLICT \((.*)\)$/.exec(type);
  if (!m) return null;
  const t = (m[1] as string).toLowerCase();
  if (t === 'contents' || t === 'content') {
    // git reports add/add content conflicts with type "contents" and says add/add only in the text.
    if (/^CONFLICT \(add\/add\)/.test(text)) return 'add/add';
    return /binary/i.test(text) ? 'binary' : 'content';
  }
  if (t === 'add/add') return 'add/add';
  if (t === 'modify/delete') return 'modify/delete';
  if (t === 'rename/delete') return 'rename/delete';
  if (t.startsWith('rename/rename') || t === 'rename involved in collision') return 'rename/rename';
  if (t === 'file/directory' || t === 'directory/file') return 'file/directory';
  if (t === 'binary') return 'binary';
  if (t === 'distinct modes') return 'mode';
  if (t === 'distinct types') return /symlink|symbolic/i.test(text) ? 'symlink' : 'mode';
  if (t.startsWith('submodule')) return 'submodule';
  return 'unknown';
}

/**
 * Every conflicted path of a conflicted merge: the union of paths with index stages and paths named
 * by a CONFLICT message. A path keeps its first CONFLICT kind; a path with stages but no recognised
 * message is 'unknown' (reported, never dropped). A message naming several paths of which some have
 * stages (a rename's source and destination) is about those: its other paths are gone from both
 * sides, as `git merge` leaves them out of the unmerged paths. A message whose paths have no stages
 * at all (e.g. a directory rename split) still reports them.
 */
export function conflictPaths(result: Extract<MergeTreeResult, { clean: false }>): ConflictPath[] {
  const byPath = new Map<string, ConflictPath>();
  const get = (path: string): ConflictPath => {
    let p = byPath.get(path);
    if (!p) {
      p = { path, kind: 'unknown', messages: [], stages: {} };
      byPath.set(path, p);
    }
    return p;
  };
  for (const { stage, entry } of result.stages) {
    const p = get(entry.path);
    if (stage === 1) p.stages.base = entry;
    else if (stage === 2) p.stages.ours = entry;
    else if (stage === 3) p.stages.theirs = entry;
  }
  const kinded = new Set<string>();
  const staged = new Set(result.stages.map((s) => s.entry.path));
  for (const msg of result.messages) {
    const kind = conflictKindOf(msg.type, msg.text);
    const about = msg.paths.some((p) => staged.has(p)) ? msg.paths.filter((p) => staged.has(p)) : msg.paths;
    for (const path of about) {
      if (kind === null && !byPath.has(path)) continue;
      const p = get(path);
      p.messages.push(msg.text);
      if (kind !== null && !kinded.has(path)) {
        p.kind = kind;
        kinded.add(path);
      }
    }
  }
  // Informational messages (e.g. Auto-merging) on a path that turned out clean are not conflicts.
  return [...byPath.values()].filter((p) => kinded.has(p.path) || p.stages.base || p.stages.ours || p.stages.theirs);
}

/**
 * The hot path of every autofill: through the Git's long-lived shells (git-shell.ts), which spares
 * a fork of node per call; exit 0/1 as data. An abort stops
 * waiting (a merge already started finishes on its own: it only writes objects).
 */
function runFast(git: Git, args: string[], signal?: AbortSignal): Promise<{ exitCode: number; stdout: string }> {
  if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    git.runPooled(args).then(
      (r) => {
        signal?.removeEventListener('abort', onAbort);
        if (r.exitCode === 0 || r.exitCode === 1) resolve({ exitCode: r.exitCode, stdout: r.stdout });
        else reject(new GitError(args, r.exitCode, r.stderr, git.cwd));
      },
      (error: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
