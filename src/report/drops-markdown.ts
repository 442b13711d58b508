import type { DropFileView, DropsView } from './model.js';

/** Files listed per side, and lines quoted per file: the section stays a few screens whatever the merge. */
const FILES_PER_SIDE = 25;
const LINES_PER_FILE = 3;

function clipLine(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

interface Escapes {
  /** Inline text. */
  text: (s: string) => string;
  /** A code span. */
  code: (s: string) => string;
}

function fileLines(f: DropFileView, md: Escapes): string[] {
  const reason = f.reason === null ? ' — **no recorded reason**' : ` (${md.text(f.reason)})`;
  const where = f.cell ? `cell ${f.cell}, ` : '';
  return [
    `- ${md.code(f.path)}: ${md.text(f.words)} [${where}${md.text(f.decidedBy)}]${reason}`,
    ...f.lines.slice(0, LINES_PER_FILE).map((l) => `  - ${l.kind} ${l.line}: ${md.code(clipLine(l.text))}`),
  ];
}

/**
 * The report's "What the merge dropped" section, per side (the fork, upstream): each file with
 * what it lost, who decided it, and the reason or its absence (flagged). Compact: a bounded number
 * of files and lines; the merge record holds the rest. `md` escapes text and code spans for Markdown.
 */
export function dropsMarkdown(drops: DropsView, md: Escapes): string[] {
  const out = ['', '### What the merge dropped', ''];
  if (drops.fork.length + drops.upstream.length === 0) {
    out.push(
      drops.source === 'final'
        ? "Nothing: the merge keeps every line of the fork's and upstream's changes."
        : 'Nothing so far: every resolution keeps both sides’ changes.',
    );
  } else {
    const scope = drops.source === 'final' ? "the whole merge's audit" : "the resolutions' audits";
    out.push(`From ${scope}; ${drops.unreasoned} file(s) with no recorded reason.`);
    for (const [side, files] of [
      ['The fork', drops.fork],
      ['Upstream', drops.upstream],
    ] as const) {
      if (files.length === 0) continue;
      out.push('', `**${side}** (${files.length} file(s)):`, '');
      for (const f of files.slice(0, FILES_PER_SIDE)) out.push(...fileLines(f, md));
      if (files.length > FILES_PER_SIDE)
        out.push(`- … and ${files.length - FILES_PER_SIDE} more: see the merge record`);
    }
  }
  if (drops.notAudited > 0) out.push('', `${drops.notAudited} file(s) not audited (over the size cap or binary).`);
  return out;
}
