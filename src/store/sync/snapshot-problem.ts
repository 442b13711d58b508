import { sizeText, type Git } from '../../git/index.js';
import { OBJECT_LIMITS } from '../../git/object-limits.js';

/**
 * Why the machine snapshot `oid` (a `refs/splintercat/NAME/machines/M` another machine pushed) is
 * not one to read, or null: it must be a commit whose `state.json` and `events.jsonl`, where
 * present, are blobs within their size limits. Asked of git by type and size alone: nothing of
 * a snapshot is read before this passes.
 */
export async function snapshotProblem(git: Git, oid: string): Promise<string | null> {
  const info = await git.objectInfo(oid);
  if (info?.type !== 'commit') return `a ${info?.type ?? 'missing object'}, not a commit`;
  const files = [
    ['state.json', OBJECT_LIMITS.snapshotState],
    ['events.jsonl', OBJECT_LIMITS.snapshotJournal],
  ] as const;
  for (const [file, limit] of files) {
    const entry = await git.objectInfo(`${oid}:${file}`);
    if (entry === null) continue;
    if (entry.type !== 'blob') return `${file} is a ${entry.type}, not a blob`;
    if (entry.size > limit) return `${file} is ${sizeText(entry.size)}, over the limit of ${sizeText(limit)}`;
  }
  return null;
}
