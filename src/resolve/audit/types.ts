/** The two sides of a merge as the audit names them: the fork (`ours`) and upstream (`theirs`). */
export type AuditSide = 'ours' | 'theirs';

/** One line of a side's change: its 1-based number (in the side for an added line, in the base for a removed one). */
export interface AuditLine {
  line: number;
  text: string;
}

/** A line the side added that the resolution keeps elsewhere: further down the file or in another file of the cell. */
interface MovedLine extends AuditLine {
  /** Where the resolution has it (`path` is the audited file's own path for a move within the file). */
  to: { path: string; line: number };
}

/** A line the side added that the resolution rewrote: the side's tokens it lost, and the line it wrote instead. */
interface RewrittenLine extends AuditLine {
  lost: string[];
  into: string;
}

/** What the resolution kept of one hunk of a side's change (the diff of the side against the base). */
export interface HunkAudit {
  /** 1-based first line of the hunk in the base and in the side. */
  baseLine: number;
  sideLine: number;
  added: number;
  removed: number;
  /** Lines the side added that are gone. */
  dropped: AuditLine[];
  /** Lines the side removed that are back. */
  restored: AuditLine[];
  /** Lines the side added that the resolution replaced by a line missing some of their tokens. */
  rewritten: RewrittenLine[];
  /** Lines the side added that are kept, but elsewhere. */
  moved: MovedLine[];
}

/** What the resolution kept of one side's change to a file. */
export interface SideAudit {
  /** Whether the side changed the file at all. */
  changed: boolean;
  /** The side deleted the file (its whole change is the deletion). */
  deletedFile: boolean;
  /** The resolution deleted the file. */
  resolvedDeleted: boolean;
  /** Hunks of the side's change. */
  hunks: number;
  dropped: number;
  restored: number;
  rewritten: number;
  moved: number;
  /** The hunks that lost something or moved, in order; bounded (`truncated` says when some were left out). */
  losses: HunkAudit[];
  truncated: boolean;
}

/** The survival audit of one resolved file: per side, what the resolution dropped of its change. */
export interface FileAudit {
  path: string;
  /** Set when the audit did not run: the file is over the size cap, or binary. */
  skipped: 'too-large' | 'binary' | null;
  ours: SideAudit;
  theirs: SideAudit;
}

/** One version of a file for the audit; `null` when the file does not exist in that version. */
type AuditText = string | null;

/** The four versions of one file of a resolved cell. */
export interface AuditInput {
  path: string;
  base: AuditText;
  ours: AuditText;
  theirs: AuditText;
  resolved: AuditText;
}
