import type { EvalReport, HunkCounts } from './metrics.js';

function pct(n: number, d: number): string {
  return d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`;
}

function row(name: string, c: HunkCounts, seen: number): string {
  const aligned = c.resolved - c.unaligned;
  return `| ${name} | ${c.resolved} | ${pct(c.resolved, seen)} | ${c.exact} | ${c.whitespaceMatch} | ${c.wrong} | ${c.unaligned} | ${pct(c.whitespaceMatch, aligned)} | ${c.sidesDropped} |`;
}

/** The evaluation as Markdown tables: the ladder by rule, each rule alone, and whole files. */
export function formatEvalReport(report: EvalReport): string {
  const head = '| rule | resolved | of hunks | exact | ws-match | wrong | unaligned | precision (ws) | sides dropped |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|';
  const lines: string[] = [];
  lines.push(`Evaluated ${report.cases} conflicted files (${report.hunksSeen} conflict hunks) from ${report.source}.`);
  lines.push(`Rules in the ladder: ${report.enabledRules.join(', ') || '(none)'}`);
  lines.push('', 'Ladder (each hunk counted under the rung that took it):', head);
  for (const [name, c] of Object.entries(report.byRule)) lines.push(row(name, c, report.hunksSeen));
  lines.push(row('**all**', report.ladder, report.hunksSeen));
  lines.push('', 'Each rule alone on every hunk (enabled or not):', head);
  for (const [name, c] of Object.entries(report.standalone)) lines.push(row(name, c, report.hunksSeen));
  const f = report.files;
  lines.push(
    '',
    `Files: ${f.seen} seen, ${f.resolved} fully resolved (${pct(f.resolved, f.seen)}), ${f.exact} exact, ${f.whitespaceMatch} match after whitespace normalisation, ${f.wrong} different from the human's file.`,
  );
  if (report.model) {
    const m = report.model;
    lines.push(`Model: ${m.hunksResolved} hunks, ${m.inputTokens} input + ${m.outputTokens} output tokens, $${m.costUsd.toFixed(4)}.`);
  }
  if (report.skipped.length > 0) lines.push(`Skipped: ${report.skipped.length} (${report.skipped.slice(0, 5).map((s) => `${s.id}: ${s.reason}`).join('; ')})`);
  lines.push(
    '',
    'precision (ws) = ws-match / (resolved - unaligned); ws-match ignores whitespace except indentation in files where it can carry meaning (Python, YAML, Makefile, Markdown, ...); unaligned = the human text for the hunk could not be located (a resolution whose lines appear nowhere in the human\'s file counts as wrong).',
  );
  return lines.join('\n');
}
