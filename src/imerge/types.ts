/**
 * File-level conflicts (modify/delete, add/add, ...): explicit options, never a silent pick.
 * `resolution` is set only when a rule is certain (e.g. both sides deleted).
 */
export type FileConflictKind =
  | 'content'
  | 'add/add'
  | 'modify/delete'
  | 'rename/delete'
  | 'rename/rename'
  | 'file/directory'
  | 'binary'
  | 'mode'
  | 'symlink'
  | 'submodule'
  | 'unknown';

/** One commit on an axis of the grid, as the resolver sees it. */
export interface CommitInfo {
  oid: string;
  author: string;
  authorEmail: string;
  date: string;
  subject: string;
  body: string;
}

/** One side's version of a conflicted path (an index stage). */
export interface StageEntry {
  mode: string;
  oid: string;
  path: string;
}

export interface ConflictPath {
  path: string;
  kind: FileConflictKind;
  /** merge-tree's message(s) about this path, verbatim. */
  messages: string[];
  stages: { base?: StageEntry; ours?: StageEntry; theirs?: StageEntry };
}

/**
 * A blocked cell (i1, i2) and the commits that meet there: the merge of `above` = cell
 * (i1, i2-1) and `left` = cell (i1-1, i2). What the resolver is told about the conflict.
 */
export interface ConflictCell {
  name: string;
  i1: number;
  i2: number;
  /** Parent cells: above = (i1, i2-1) is "ours" (branch 1 side), left = (i1-1, i2) is "theirs". */
  above: string;
  left: string;
  /** The original commits: commit1 on branch 1's axis at i1, commit2 on branch 2's axis at i2. */
  commit1: CommitInfo;
  commit2: CommitInfo;
}

/** A blocked cell with its in-memory merge: the conflicted paths without a working tree. */
export interface ConflictDetails extends ConflictCell {
  /** The tree merge-tree wrote (with conflict markers in content conflicts). */
  conflictTree: string;
  paths: ConflictPath[];
}
