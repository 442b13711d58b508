import type { FileConflictKind } from './types.js';

/** One side of a path in a conflict: its mode and, where known, its object id and content. */
export interface FileSide {
  mode: string;
  oid?: string;
  /** Content when read (null when not text). */
  text?: string | null;
}

export interface FileConflictInput {
  path: string;
  /** Absent = the version does not exist (not in the base, deleted by that side). */
  base?: FileSide;
  ours?: FileSide;
  theirs?: FileSide;
  /** What git said, when known (`modify/delete`, `rename/delete`, ...). */
  kind?: FileConflictKind;
}

export type FileAction = 'keep-ours' | 'keep-theirs' | 'delete' | 'merge-content';

/** One explicit way to settle a file-level conflict. */
export interface FileOption {
  action: FileAction;
  description: string;
}

/**
 * The file-level decisions the ladder makes by itself, each named for what it saw (not after the
 * hunk rules, which decide text): both sides deleted the path, both have the same file, one side
 * deleted a file the other left unchanged, only one side changed a binary, symlink, submodule or mode.
 */
export type FileDecisionName =
  'deleted-on-both-sides' | 'same-file-on-both-sides' | 'unchanged-side-deleted' | 'file-changed-on-one-side';

/**
 * A file-level conflict as data: what happened, every option, and the choice
 * only when a rule is certain (never a silent pick of one side).
 */
export interface FileDecision {
  path: string;
  kind: FileConflictKind;
  description: string;
  options: FileOption[];
  resolution: (FileOption & { by: FileDecisionName }) | null;
}

const GITLINK = '160000';
const SYMLINK = '120000';

/** The options a person is offered for `path`. */
function optionsFor(path: string): Record<'keepOurs' | 'keepTheirs' | 'del' | 'mergeContent', FileOption> {
  return {
    keepOurs: { action: 'keep-ours', description: `keep our version of ${path}` },
    keepTheirs: { action: 'keep-theirs', description: `keep their version of ${path}` },
    del: { action: 'delete', description: `delete ${path}` },
    mergeContent: { action: 'merge-content', description: `merge the contents of ${path} hunk by hunk` },
  };
}

/** One side deleted the path: the deletion wins only where the other side left it unchanged. */
function oneSideDeleted(input: FileConflictInput, present: FileSide): FileDecision {
  const { path, base, ours } = input;
  const { keepOurs, keepTheirs, del } = optionsFor(path);
  const who = ours ? 'ours' : 'theirs';
  const other = ours ? 'theirs' : 'ours';
  const kind = input.kind ?? 'modify/delete';
  const keep = ours ? keepOurs : keepTheirs;
  if (base && sameContent(present, base) && present.mode === base.mode) {
    const why = `${other} deleted ${path}; ${who} left it unchanged`;
    return decided(path, kind, why, [del, keep], del, 'unchanged-side-deleted');
  }
  const why = `${other} deleted ${path} while ${who} ${base ? 'changed' : 'added'} it: keep the changed file or the deletion`;
  return open(path, kind, why, [keep, del]);
}

/** Only the mode differs: the side that changed it wins, unless both did. */
function modeOnly(path: string, base: FileSide | undefined, ours: FileSide, theirs: FileSide): FileDecision {
  const { keepOurs, keepTheirs } = optionsFor(path);
  const both = [keepOurs, keepTheirs];
  const changedBy = !base ? null : ours.mode === base.mode ? 'theirs' : theirs.mode === base.mode ? 'ours' : null;
  if (base && changedBy) {
    const mode = (changedBy === 'ours' ? ours : theirs).mode;
    const keep = changedBy === 'ours' ? keepOurs : keepTheirs;
    return decided(
      path,
      'mode',
      `only ${changedBy} changed the mode (${base.mode} -> ${mode})`,
      both,
      keep,
      'file-changed-on-one-side',
    );
  }
  return open(path, 'mode', `both sides changed the mode differently (ours ${ours.mode}, theirs ${theirs.mode})`, both);
}

/** A binary file, a symlink or a submodule: no merge of contents, so the side that changed it wins, unless both did. */
function wholeFile(
  path: string,
  kind: 'binary' | 'symlink' | 'submodule',
  base: FileSide | undefined,
  ours: FileSide,
  theirs: FileSide,
): FileDecision {
  const { keepOurs, keepTheirs } = optionsFor(path);
  const both = [keepOurs, keepTheirs];
  if (base && sameContent(ours, base) && ours.mode === base.mode)
    return decided(path, kind, `only theirs changed this ${kind}`, both, keepTheirs, 'file-changed-on-one-side');
  if (base && sameContent(theirs, base) && theirs.mode === base.mode)
    return decided(path, kind, `only ours changed this ${kind}`, both, keepOurs, 'file-changed-on-one-side');
  const what =
    kind === 'submodule'
      ? 'point the submodule at different commits'
      : kind === 'symlink'
        ? 'point the symlink at different targets'
        : 'changed the binary file differently';
  return open(path, kind, `both sides ${what}; a person must pick one (or make a new version)`, both);
}

/** Classify a conflicted path and decide it only where a rule is certain. */
export function decideFileConflict(input: FileConflictInput): FileDecision {
  const { path, base, ours, theirs } = input;
  const { keepOurs, keepTheirs, del, mergeContent } = optionsFor(path);
  if (!ours && !theirs) {
    return decided(
      path,
      input.kind ?? 'modify/delete',
      'both sides deleted the path',
      [del],
      del,
      'deleted-on-both-sides',
    );
  }
  if (ours && theirs && sameContent(ours, theirs) && ours.mode === theirs.mode) {
    const why = 'both sides have the same content and mode';
    return decided(path, input.kind ?? 'add/add', why, [keepOurs, keepTheirs], keepOurs, 'same-file-on-both-sides');
  }
  if (!ours || !theirs) return oneSideDeleted(input, (ours ?? theirs) as FileSide);
  const kind = classify(base, ours, theirs, input.kind);
  if (kind === 'mode' && sameContent(ours, theirs)) return modeOnly(path, base, ours, theirs);
  if (kind === 'binary' || kind === 'symlink' || kind === 'submodule') return wholeFile(path, kind, base, ours, theirs);
  const description =
    kind === 'add/add' ? `both sides added ${path} with different contents` : `both sides changed ${path}`;
  return open(path, kind, description, [mergeContent, keepOurs, keepTheirs]);
}

function classify(
  base: FileSide | undefined,
  ours: FileSide,
  theirs: FileSide,
  hint: FileConflictKind | undefined,
): FileConflictKind {
  const modes = [ours.mode, theirs.mode, base?.mode];
  if (modes.includes(GITLINK)) return 'submodule';
  if (modes.includes(SYMLINK)) return 'symlink';
  if (isBinary(ours) || isBinary(theirs) || (base !== undefined && isBinary(base))) return 'binary';
  if (ours.mode !== theirs.mode && sameContent(ours, theirs)) return 'mode';
  if (!base) return 'add/add';
  return hint ?? 'content';
}

function isBinary(side: FileSide): boolean {
  return side.text === null || (typeof side.text === 'string' && side.text.slice(0, 8000).includes('\u0000'));
}

function sameContent(a: FileSide, b: FileSide): boolean {
  if (a.oid !== undefined && b.oid !== undefined) return a.oid === b.oid;
  return a.text !== undefined && a.text !== null && a.text === b.text;
}

function decided(
  path: string,
  kind: FileConflictKind,
  description: string,
  options: FileOption[],
  choice: FileOption,
  by: FileDecisionName,
): FileDecision {
  return { path, kind, description, options, resolution: { ...choice, by } };
}

function open(path: string, kind: FileConflictKind, description: string, options: FileOption[]): FileDecision {
  return { path, kind, description, options, resolution: null };
}
