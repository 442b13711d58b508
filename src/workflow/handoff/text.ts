import type { HandoffFile, Handoff } from '../../store/run-state.js';
import { fileHunks } from '../../store/stored-hunks.js';
import { isPrintableName, prefixedLines, printableLine, printableName } from '../../util/safe-print.js';

const EXCERPT_LINES = 15;

/**
 * A hand-off as text a person can follow to the letter: per conflict its worktree, every file
 * with its kind and what to do, the failed check (summary, log, excerpt, a cleanly merged file
 * it points at), what the model tried, why the last `continue` refused; then the commands.
 */
export function handoffLines(handoff: Handoff, indent = '  '): string[] {
  const lines: string[] = ['Files to settle:', ...handoff.files.map((f) => `${indent}${printableName(f)}`)];
  for (const c of handoff.conflicts) {
    lines.push('', `Conflict ${c.conflict}, in ${printableName(c.worktree)}:`);
    c.files.forEach((f, k) => {
      // A name that cannot print as itself is shown escaped and named by its number too.
      const unsafe = isPrintableName(f.path)
        ? ''
        : ` (file ${k + 1}; its name holds control characters, shown escaped)`;
      lines.push(
        `${indent}${printableName(f.path)}${unsafe} [${f.kind}${f.hunks !== undefined ? `, ${f.hunks} hunk(s)` : ''}]: ${f.instructions}`,
      );
      lines.push(...hunkLines(f, `${indent}${indent}`));
    });
    if (c.failure) {
      lines.push(
        `${indent}check '${printableName(c.failure.check)}' failed: ${c.failure.summary}${c.failure.logFile ? ` (log: ${printableName(c.failure.logFile)})` : ''}`,
      );
      for (const file of c.failure.cleanlyMerged)
        lines.push(
          `${indent}the failure is in ${printableName(file)}, which git merged cleanly at this cell (no conflict there): the fix may be needed in that file`,
        );
      const excerpt = c.failure.excerpt.split('\n').filter(Boolean).slice(-EXCERPT_LINES);
      if (excerpt.length > 0) lines.push(`${indent}log excerpt:`, ...excerpt.map((l) => `${indent}${indent}${l}`));
    }
    for (const w of c.warnings ?? []) lines.push(`${indent}warning: ${w}`);
    // A model's words, line by line behind a fixed prefix: never a line of splintercat's own (`Then:`).
    for (const m of c.model) lines.push(...prefixedLines(m, `${indent}model: `));
    for (const r of c.refused) lines.push(`${indent}not taken yet: ${r}`);
  }
  if (handoff.conflicts.length > 1)
    lines.push(
      '',
      `These ${handoff.conflicts.length} conflicts are independent: settle them in any order, each in its own worktree; one \`splintercat continue\` then checks them together (and finds the one that breaks a check, if one does).`,
    );
  if (handoff.expected) lines.push(expectedLine(handoff.expected));
  lines.push('', 'Then:', ...handoff.commands.map((c) => `${indent}${c}`));
  if (handoff.accept) {
    lines.push(
      '',
      'Or, if this failure is expected at this step of the merge (code a later commit brings fixes it), accept it:',
      `${indent}${handoff.accept}   # the worktree's resolution is taken as it is; those failing tests are never blamed again`,
    );
  }
  // Whatever else a line holds (a check's output, a file name, a teammate's words): it stays one line, with
  // no control character raw, so nothing but these commands is printed as a command.
  return lines.map(printableLine);
}

/**
 * Each hunk of a file with its one-command answers: the suggested one first, with the evidence
 * the fork's past merges give for it, then the others (`take ours|theirs|both|base FILE N`).
 */
function hunkLines(file: HandoffFile, indent: string): string[] {
  return (fileHunks(file) ?? []).flatMap((b) => {
    const where = `hunk ${b.hunk} (lines ${b.startLine}-${b.endLine})`;
    const others = Object.keys(b.take)
      .filter((k) => k !== 'both theirs-first')
      .join('|');
    const generic = (b.take.ours ?? '').replace(/ take ours /, ` take ${others} `);
    if (!b.suggestion)
      return [`${indent}${where}: ${generic}   (both --order theirs-first for upstream's lines first)`];
    return [
      `${indent}${where}: suggested ${b.suggestion.choice}: ${b.suggestion.command}`,
      `${indent}${indent}why: ${b.suggestion.evidence}`,
      `${indent}${indent}or: ${generic}`,
    ];
  });
}

/** The conflicts still expected after these, with the range of the total when the grid bounds it. */
function expectedLine(e: NonNullable<Handoff['expected']>): string {
  const range =
    e.low === undefined
      ? `${e.total} in all`
      : e.high === null || e.high === undefined
        ? `~${e.total} in all, at least ${e.low}`
        : e.low === e.high
          ? `${e.total} in all`
          : `~${e.total} in all, range ${e.low}-${e.high}`;
  const basis =
    e.low === undefined ? 'a plain merge of the tips and the conflicts met so far' : 'the grid explored so far';
  return `${e.more === 0 ? 'No more conflicts are expected after these' : `About ${e.more} more conflict(s) are expected after these`} (${range}, estimated from ${basis}).`;
}
