import { describe, expect, it } from 'vitest';
import { HOSTILE, syntheticSnapshot } from '../../../test/fixtures/report/synthetic-run.js';
import { buildReportModel } from '../build-model.js';
import { esc, jsonForScript } from './escape.js';
import { renderHtmlReport } from './page.js';

const now = new Date('2026-01-02T03:10:00Z');

describe('HTML report', () => {
  it('keeps untrusted text inert: escaped in the markup, unicode-escaped in the data, only our two script elements', () => {
    const html = renderHtmlReport(buildReportModel(syntheticSnapshot({ hostile: true }), { now }), { nonce: 'n0nce' });
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(esc(HOSTILE));
    expect(html).toContain('\\u003cscript\\u003ewindow.__pwned=1');
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts).toEqual(['<script type="application/json" id="grid-data">', '<script nonce="n0nce">']);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });

  it('fetches nothing: a CSP without network sources, no external URLs', () => {
    const html = renderHtmlReport(buildReportModel(syntheticSnapshot(), { now }), { nonce: 'abc' });
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;nonce-abc&#39;;[^"]*connect-src &#39;none&#39;/,
    );
    const urls = (html.match(/(?:src|href)="[^"]*"/g) ?? []).filter((u) => !/^(?:src|href)="(#|file:)/.test(u));
    expect(urls).toEqual([]);
    expect(html.replace('http://www.w3.org/2000/svg', '')).not.toMatch(/https?:\/\//);
  });

  it('draws small grids as SVG, one rect per cell, and large ones on a canvas from compact data', () => {
    const small = renderHtmlReport(buildReportModel(syntheticSnapshot(), { now }));
    expect(small.match(/<rect [^>]*data-cell="/g)).toHaveLength(7 * 6);
    expect(small).toMatch(/<rect [^>]*class="m-model"[^>]*data-cell="2-3"/);
    expect(small).toMatch(/<rect [^>]*class="k2 failed"[^>]*data-cell="5-4"/);
    expect(small).not.toContain('<canvas');
    const large = renderHtmlReport(buildReportModel(syntheticSnapshot({ commits1: 2000, commits2: 500 }), { now }));
    expect(large).toContain('<canvas');
    expect(large).not.toMatch(/data-cell="/);
    expect(large.length).toBeLessThan(600_000);
  });

  it('shows the summary, decisions with reasoning, each conflict with its diff and transcript, checks with log links, cost', () => {
    const html = renderHtmlReport(buildReportModel(syntheticSnapshot(), { now }));
    expect(html).toContain('Few conflicts, cheap checks: batches of three.');
    expect(html).toMatch(/<details class="conflict" id="conflict-2-3" open>/);
    expect(html).toContain('<span class="d-add">+int total(int a, int b);</span>');
    expect(html).toContain('Both sides add a parameter; keep both.');
    expect(html).toMatch(/<code>view_conflict<\/code>/);
    expect(html).toMatch(/href="file:\/\/\/repo\/.splintercat\/logs\/build-20.log">log<\/a>/);
    expect(html).toContain('undeclared identifier &#39;total&#39;');
    expect(html).toContain('$0.0373');
    expect(html).toMatch(/<td>reviewer<\/td>/);
  });

  it('escapes JSON for a script element', () => {
    expect(jsonForScript({ a: '</script><!--' })).toBe('{"a":"\\u003c/script\\u003e\\u003c!--"}');
    expect(JSON.parse(jsonForScript({ a: '</script>&\u2028' }))).toEqual({ a: '</script>&\u2028' });
  });
});

describe('HTML report: failures a person accepted', () => {
  it('lists each accepted failure with its check, conflicts, tests and log, escaped', () => {
    const model = buildReportModel(syntheticSnapshot(), { now });
    model.accepted = [
      {
        check: 'test',
        conflicts: ['1-4'],
        failing: ['json parser <strict>'],
        logFile: '/tmp/logs/test-1.log',
        at: '2026-01-02T03:05:00Z',
      },
    ];
    const html = renderHtmlReport(model);
    expect(html).toContain('<b>Failures accepted by a person</b>');
    expect(html).toContain('<li>test at <a href="#conflict-');
    expect(html).toContain('<code>json parser &lt;strict&gt;</code>');
    expect(html).toContain('/tmp/logs/test-1.log');
    expect(renderHtmlReport(buildReportModel(syntheticSnapshot(), { now }))).not.toContain(
      'Failures accepted by a person',
    );
  });

  it('shares a page budget of hunks and diffs among the conflicts: 400 conflicts of 40 KB each stay under 2 MB and say what is cut', () => {
    const snap = syntheticSnapshot({ commits1: 72, commits2: 1015, scatter: 400 });
    const long = Array.from({ length: 1000 }, (_, k) => `+line ${k} of a long resolution`).join('\n');
    for (const d of Object.values(snap.conflicts)) {
      if (d.diff !== null) d.diff = `${d.diff}${long}\n`;
      for (const hunks of Object.values(d.hunks)) for (const h of hunks) h.ours = `${long}\n`;
    }
    const model = buildReportModel(snap, { now });
    expect(model.conflicts.length).toBeGreaterThan(400);
    const html = renderHtmlReport(model);
    expect(html.length).toBeLessThan(2_000_000);
    expect(html).toMatch(/\d+ more line\(s\) of this diff are not shown here: see the commit/);
    expect(html).toMatch(/… \d+ more line\(s\)/);
    // A run of a few conflicts shows them whole.
    const few = syntheticSnapshot();
    for (const d of Object.values(few.conflicts)) if (d.diff !== null) d.diff = `${d.diff}${long}\n`;
    expect(renderHtmlReport(buildReportModel(few, { now }))).toContain('+line 999 of a long resolution');
  });
});
