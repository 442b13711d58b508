/**
 * bench:report — how fast a report of a 2,000 x 500 grid opens in a real browser.
 *
 * Builds the view model of a synthetic run with a 2,000 x 500 grid (a staircase frontier and a
 * few hundred conflicts, each with hunks and a diff), writes the self-contained HTML, opens it
 * from file:// in headless chromium (Debian's, as the tests use) and measures the time until the
 * page marks itself rendered (`data-rendered`, set after the grid is drawn). The baseline is an
 * empty page that sets the same marker, loaded the same way in the same run: the ratio and the
 * difference are what the report itself costs. Median of several fresh pages each.
 *
 *   npm run bench:report [-- --runs 7 | --quick]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildReportModel } from '../src/report/build-model.js';
import { renderHtmlReport } from '../src/report/html/page.js';
import { syntheticSnapshot } from '../test/fixtures/report/synthetic-run.js';

const CHROMIUM = '/usr/bin/chromium';
const args = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : process.argv.includes('--quick') ? 3 : 5;
const LIMIT_MS = 2000;

interface Sample {
  /** From the start of navigation (as the test driver sees it) to the marker. */
  wallMs: number;
  /** performance.now() in the page when it set the marker (since its navigation started). */
  pageMs: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

async function measure(browser: BrowserContext, url: string): Promise<Sample> {
  const page = await browser.newPage();
  try {
    await page.setViewportSize({ width: 1280, height: 900 });
    const t0 = performance.now();
    await page.goto(url);
    await page.waitForFunction('document.documentElement.dataset.rendered !== undefined', undefined, {
      polling: 'raf',
    });
    const wallMs = performance.now() - t0;
    const pageMs = Number(await page.evaluate('window.__reportRenderedAt'));
    return { wallMs, pageMs };
  } finally {
    await page.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'splintercat-bench-report-'));
  try {
    const t0 = performance.now();
    const model = buildReportModel(syntheticSnapshot({ commits1: 2000, commits2: 500, scatter: 300 }), {
      now: new Date(),
    });
    const html = renderHtmlReport(model);
    const buildMs = performance.now() - t0;
    const report = join(dir, 'report.html');
    writeFileSync(report, html);
    const empty = join(dir, 'empty.html');
    writeFileSync(
      empty,
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>baseline</title></head><body><p>baseline</p>' +
        "<script>window.__reportRenderedAt = performance.now(); document.documentElement.setAttribute('data-rendered', '1');</script></body></html>",
    );

    const browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args,
    });
    const base: Sample[] = [];
    const full: Sample[] = [];
    try {
      await measure(browser, pathToFileURL(empty).href); // warm-up: the first page pays for process start
      for (let i = 0; i < RUNS; i++) {
        base.push(await measure(browser, pathToFileURL(empty).href));
        full.push(await measure(browser, pathToFileURL(report).href));
      }
    } finally {
      await browser.close();
    }
    const bWall = median(base.map((s) => s.wallMs));
    const fWall = median(full.map((s) => s.wallMs));
    const bPage = median(base.map((s) => s.pageMs));
    const fPage = median(full.map((s) => s.pageMs));
    const cells = model.grid ? (model.grid.len1 - 1) * (model.grid.len2 - 1) : 0;
    const lines = [
      `bench:report — a ${(model.grid?.len1 ?? 1) - 1} x ${(model.grid?.len2 ?? 1) - 1} grid (${cells.toLocaleString('en-US')} cells), ${model.conflicts.length} conflicts, median of ${RUNS} fresh pages in ${CHROMIUM}`,
      `  model + HTML built in ${buildMs.toFixed(0)} ms; HTML ${(html.length / 1024).toFixed(0)} KiB (grid data ${(model.grid?.cells.length ?? 0).toLocaleString('en-US')} bytes run-length encoded)`,
      `  time to rendered (navigation start → grid drawn, driver clock):  report ${fWall.toFixed(0)} ms   empty page ${bWall.toFixed(0)} ms   ratio ${(fWall / bWall).toFixed(2)}x   report cost ${(fWall - bWall).toFixed(0)} ms`,
      `  time to rendered (the page's own clock):                          report ${fPage.toFixed(0)} ms   empty page ${bPage.toFixed(0)} ms   ratio ${(fPage / Math.max(1, bPage)).toFixed(2)}x`,
      `  under ${LIMIT_MS} ms: ${fWall < LIMIT_MS ? 'yes' : 'NO'} (report runs: ${full.map((s) => s.wallMs.toFixed(0)).join(', ')} ms)`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (fWall >= LIMIT_MS) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
