import type { Git } from '../git/index.js';
import type { ConflictPath } from '../imerge/types.js';
import { decideFileConflict, type FileDecision, type FileSide } from './file-level.js';
import { resolveThreeWay, type LadderOptions, type LadderResult } from './ladder.js';
import { readBlob } from './parse/read-blob.js';

export type ConflictPathResult =
  /** A file-level conflict: `decision.resolution` is set only when a rule was certain. */
  | { kind: 'file'; decision: FileDecision }
  /** A content conflict run down the ladder. */
  | { kind: 'content'; decision: FileDecision; result: LadderResult };

/**
 * The ladder on one conflicted path of an in-memory merge (`git merge-tree`
 * stages, as in `ConflictDetails.paths`): no working tree needed. File-level
 * conflicts come back as explicit decisions; content conflicts as the ladder's result.
 */
export async function resolveConflictPath(
  git: Git,
  conflict: ConflictPath,
  options: Omit<LadderOptions, 'path'>,
): Promise<ConflictPathResult> {
  const { base, ours, theirs } = conflict.stages;
  const [b, o, t] = await Promise.all(
    [base, ours, theirs].map((s) => (s ? readBlob(git, s.oid) : Promise.resolve(null))),
  );
  const side = (s: typeof base, text: string | null | undefined): FileSide | undefined =>
    s ? { mode: s.mode, oid: s.oid, text: text ?? null } : undefined;
  const hint = conflict.kind === 'content' || conflict.kind === 'unknown' ? undefined : conflict.kind;
  const decision = decideFileConflict({
    path: conflict.path,
    base: side(base, b),
    ours: side(ours, o),
    theirs: side(theirs, t),
    kind: hint,
  });
  if (decision.resolution !== null || !decision.options.some((x) => x.action === 'merge-content'))
    return { kind: 'file', decision };
  const result = await resolveThreeWay(
    git,
    { base: b ?? '', ours: o as string, theirs: t as string },
    { ...options, path: conflict.path },
  );
  return { kind: 'content', decision, result };
}
