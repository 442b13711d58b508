import { fitsParser } from '../size-limits.js';
import { auditLines, lineKey } from './line-alignment.js';
import { auditSide, type LinePool, type SideLines } from './side-audit.js';
import type { AuditInput, AuditSide, FileAudit, SideAudit } from './types.js';

const NO_CHANGE: SideAudit = {
  changed: false,
  deletedFile: false,
  resolvedDeleted: false,
  hunks: 0,
  dropped: 0,
  restored: 0,
  rewritten: 0,
  moved: 0,
  losses: [],
  truncated: false,
};

/** Whether a text holds a NUL byte: a binary file, which has no lines to audit. */
function isBinary(text: string | null): boolean {
  return text !== null && text.slice(0, 8000).includes('\0');
}

/**
 * The lines each other file of the cell gained in its resolution (its resolved lines that its base
 * lacks): where a function the side moved out of this file may have gone.
 */
function gainedElsewhere(path: string, others: readonly AuditInput[]): LinePool {
  const pool: LinePool = new Map();
  for (const other of others) {
    if (other.path === path || !fitsParser(other.base, other.resolved) || isBinary(other.resolved)) continue;
    const before = new Map<string, number>();
    for (const line of auditLines(other.base)) before.set(lineKey(line), (before.get(lineKey(line)) ?? 0) + 1);
    auditLines(other.resolved).forEach((line, at) => {
      const key = lineKey(line);
      const left = before.get(key) ?? 0;
      if (left > 0) return void before.set(key, left - 1);
      if (key === '') return;
      pool.set(key, [...(pool.get(key) ?? []), { path: other.path, line: at + 1 }]);
    });
  }
  return pool;
}

function sideLines(input: AuditInput, side: AuditSide): SideLines {
  return {
    path: input.path,
    base: auditLines(input.base),
    side: auditLines(input[side]),
    resolved: auditLines(input.resolved),
    sideDeleted: input.base !== null && input[side] === null,
    resolvedDeleted: input.resolved === null,
  };
}

/**
 * The survival audit of one resolved file: for each side, every line it added that the
 * resolution dropped, every line it removed that is back, every added line rewritten, and the
 * lines kept elsewhere (in the file, or in `others`, the other files of the same cell). A file over
 * the size cap, or binary, is not audited and says so.
 */
export function auditFile(input: AuditInput, others: readonly AuditInput[] = []): FileAudit {
  const { base, ours, theirs, resolved } = input;
  const skipped = !fitsParser(base, ours, theirs, resolved)
    ? 'too-large'
    : [base, ours, theirs, resolved].some(isBinary)
      ? 'binary'
      : null;
  if (skipped !== null) return { path: input.path, skipped, ours: NO_CHANGE, theirs: NO_CHANGE };
  return {
    path: input.path,
    skipped: null,
    ours: auditSide(sideLines(input, 'ours'), gainedElsewhere(input.path, others)),
    theirs: auditSide(sideLines(input, 'theirs'), gainedElsewhere(input.path, others)),
  };
}

/** The audit of every file of a resolved cell, each file's moves looked for in the others too. */
export function auditCell(files: readonly AuditInput[]): FileAudit[] {
  return files.map((file) => auditFile(file, files));
}

/** Whether a side lost anything: a dropped, restored or rewritten line. */
export function sideLost(side: SideAudit): boolean {
  return side.dropped + side.restored + side.rewritten > 0;
}
