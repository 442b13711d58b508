import { describe, expect, it } from 'vitest';
import { syntheticSnapshot } from '../../test/fixtures/report/synthetic-run.js';
import { buildReportModel } from './build-model.js';
import { mdFenced, mdCode, mdText, renderMarkdownReport } from './markdown.js';

const now = new Date('2026-01-02T03:10:00Z');

describe('Markdown report', () => {
  it('summarises, then lists decisions, conflicts with diffs and reasoning, checks and cost', () => {
    const md = renderMarkdownReport(buildReportModel(syntheticSnapshot({ status: 'done' }), { now }));
    expect(md).toMatch(/^## splintercat: upstream merged into main — done\n/);
    expect(md).toMatch(
      /\| Conflicts \| 4 resolved, 1 left; hunks by rung: cache 1, policy 0, generated 0, rule 1, syntax 0, learnt 0, model 1, person 1 \|/,
    );
    expect(md).toMatch(/1\. \*\*strategy: batch \(batches of 3\)\*\* — planner/);
    expect(md).toMatch(/<summary>Conflict 2-3 — model \(scripted-model\), 1 file\(s\)<\/summary>/);
    expect(md).toMatch(/```diff\n[^]*\+int total\(int a, int b\);\n```/);
    expect(md).toMatch(/> Both sides add a parameter; keep both\./);
    expect(md).toMatch(/\| 3 \| build \| 5-4 \| \*\*failed\*\* \(exit 1\)/);
    expect(md.indexOf('### Conflicts')).toBeLessThan(md.indexOf('### Checks'));
  });

  it('keeps every summary row a row of two cells (the progress line holds `|` separators)', () => {
    const md = renderMarkdownReport(buildReportModel(syntheticSnapshot({ status: 'running' }), { now }));
    const rows = md.split('\n').filter((line) => /^\| (Result|Progress|Planner|Duration) \|/.test(line));
    expect(rows.some((r) => r.startsWith('| Progress |'))).toBe(true);
    for (const row of rows) expect(row.replace(/\\\|/g, '').match(/\|/g), row).toHaveLength(3);
  });

  it('cannot be broken out of by repository text', () => {
    const md = renderMarkdownReport(buildReportModel(syntheticSnapshot({ hostile: true }), { now }));
    const outsideCode = md.replace(/(`{3,})[a-z]*\n[^]*?\n\1/g, '').replace(/(`+)[^`]*?\1/g, '');
    expect(outsideCode).not.toContain('<script');
    expect(outsideCode).not.toContain('<img');
    expect(mdText('a|b [x](http://e) *y* <b>')).toBe('a\\|b \\[x\\](http://e) \\*y\\* &lt;b&gt;');
    expect(mdCode('a ``b`` c')).toBe('```a ``b`` c```');
    expect(mdFenced('x\n```\ny', 'diff')).toBe('````diff\nx\n```\ny\n````');
  });

  it('stays under the size a pull request comment accepts', () => {
    const md = renderMarkdownReport(
      buildReportModel(syntheticSnapshot({ commits1: 400, commits2: 300, scatter: 600 }), { now }),
    );
    expect(md.length).toBeLessThan(65_536);
    expect(md).toMatch(/\d+ more conflict\(s\): see the HTML report/);
  });
});
