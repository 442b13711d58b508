import { PERSON_CHOICES } from './left-hunks.js';
import type { EvalReport, FileCounts, HunkCounts } from './metrics.js';
import { formatLearnt } from './learnt-score.js';

function pct(n: number, d: number): string {
  return d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`;
}

function row(name: string, c: HunkCounts, seen: number): string {
  const aligned = c.resolved - c.unaligned;
  return `| ${name} | ${c.resolved} | ${pct(c.resolved, seen)} | ${c.exact} | ${c.equal} | ${c.orderOnly} | ${c.wrong} | ${c.unaligned} | ${pct(c.equal, aligned)} | ${c.sidesDropped} |`;
}

const fileHead =
  '| files | seen | resolved | of seen | exact | equal | order only | wrong | edited outside | precision | drops what the person kept |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';

function fileRow(name: string, f: FileCounts): string {
  return `| ${name} | ${f.seen || ''} | ${f.resolved} | ${f.seen ? pct(f.resolved, f.seen) : ''} | ${f.exact} | ${f.equal} | ${f.orderOnly} | ${f.wrong} | ${f.outsideEdited} | ${pct(f.equal, f.equal + f.orderOnly + f.wrong)} | ${f.dropsKept} |`;
}

/** The evaluation as Markdown tables: the ladder by rule, each rule alone, and whole files. */
export function formatEvalReport(report: EvalReport): string {
  const head =
    '| rule | resolved | of hunks | exact | equal | order only | wrong | unaligned | precision | sides dropped |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const lines: string[] = [];
  lines.push(`Evaluated ${report.cases} conflicted files (${report.hunksSeen} conflict hunks) from ${report.source}.`);
  lines.push(`Rules in the ladder: ${report.enabledRules.join(', ') || '(none)'}`);
  lines.push('', 'Ladder (each hunk counted under the rung that took it):', head);
  for (const [name, c] of Object.entries(report.byRule)) lines.push(row(name, c, report.hunksSeen));
  lines.push(row('**all**', report.ladder, report.hunksSeen));
  lines.push('', 'Each rule alone on every hunk (enabled or not):', head);
  for (const [name, c] of Object.entries(report.standalone)) lines.push(row(name, c, report.hunksSeen));
  const f = report.files;
  lines.push('', 'Hunks by language (the ladder):', head.replace('| rule |', '| language |'));
  for (const [name, c] of Object.entries(report.hunksByLanguage).sort())
    lines.push(row(`${name} (${c.seen})`, c, c.seen));
  lines.push('', 'Files by language:', fileHead);
  for (const [name, c] of Object.entries(report.filesByLanguage).sort()) lines.push(fileRow(name, c));
  lines.push(fileRow('**all**', f));
  lines.push(
    '',
    'Files by kind (content: all three versions exist; add/add: no base; one side deleted: modify/delete):',
    fileHead,
  );
  for (const [name, c] of Object.entries(report.filesByKind).sort()) lines.push(fileRow(name, c));
  lines.push(
    '',
    'Resolved files by rung (the latest rung that took one of their hunks; file = a file-level decision):',
    fileHead,
  );
  for (const [name, c] of Object.entries(report.filesByRung)) lines.push(fileRow(name, c));
  lines.push(
    '',
    `Files: ${f.seen} seen, ${f.resolved} fully resolved (${pct(f.resolved, f.seen)}), ${f.exact} exact, ${f.equal} equal to the person's file ignoring whitespace, ${f.orderOnly} the same only up to the order of unordered siblings, ${f.wrong} different from the person's file, ${f.outsideEdited} where the person also edited outside the conflicts (not scored).`,
  );
  lines.push(
    '',
    'What the person wrote for the hunks the ladder left (compared after whitespace normalisation):',
    '| person wrote | hunks |',
    '|---|---:|',
  );
  for (const choice of PERSON_CHOICES)
    if (report.left.hunks[choice]) lines.push(`| ${choice} | ${report.left.hunks[choice]} |`);
  lines.push(
    '',
    'Content files the ladder left, by what the person did with their open hunks:',
    '| person did | files |',
    '|---|---:|',
  );
  for (const [kind, n] of Object.entries(report.left.files).sort((a, b) => b[1] - a[1]))
    lines.push(`| ${kind} | ${n} |`);
  if (report.dropsKept?.length)
    lines.push(
      '',
      `Resolved files that drop what the person kept: ${report.dropsKept.map((d) => `${d.id} (${d.by})`).join('; ')}`,
    );
  if (report.learnt) lines.push(...formatLearnt(report.learnt));
  if (report.model) {
    const m = report.model;
    lines.push(
      `Model: ${m.hunksResolved} hunks, ${m.inputTokens} input + ${m.outputTokens} output tokens, $${m.costUsd.toFixed(4)}.`,
    );
  }
  if (report.skipped.length > 0)
    lines.push(
      `Skipped: ${report.skipped.length} (${report.skipped
        .slice(0, 5)
        .map((s) => `${s.id}: ${s.reason}`)
        .join('; ')})`,
    );
  lines.push(
    '',
    "equal = the person's text ignoring whitespace (except indentation in files where it can carry meaning: Python, YAML, Makefile, Markdown, ...); order only = the same as the person's only up to the order of unordered siblings (class members, test cases, mapping keys): counted apart, neither equal nor wrong; precision (files) = equal / (equal + order only + wrong); drops what the person kept = resolved files missing a line a side added (or bringing back one it removed) that the person's own resolution kept; edited outside = the person also changed lines git merged cleanly, so no hunk resolution could match (reported apart). for hunks, order only = the person's file with the resolution in place of their hunk is the same up to the order of unordered siblings; precision (hunks) = equal / (resolved - unaligned); unaligned = the person text for the hunk could not be located (a resolution whose lines appear nowhere in the person's file counts as wrong).",
  );
  return lines.join('\n');
}
