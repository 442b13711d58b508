import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReportModel, renderHtmlReport } from '../../src/report/index.js';
import { Journal } from '../../src/store/journal.js';
import { parseRunEvent, type RunEvent } from '../../src/store/run-events.js';
import { launchChromium, testResults } from '../helpers/browser.js';
import { tempDir, testGitEnv } from '../helpers/git-repo.js';
import { repoRoot, runCli } from '../fixtures/resolve/cli.js';
import { recordedRun, type RecordedRun } from '../fixtures/report/recorded-run.js';
import { HOSTILE, syntheticSnapshot } from '../fixtures/report/synthetic-run.js';

let browser: BrowserContext;
let run: RecordedRun;
let reportFile: string;

/** Open a page and collect what the console and the page report (CSP violations show up here). */
async function open(
  url: string,
  size?: { width: number; height: number },
): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  if (size) await page.setViewportSize(size);
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('http://127.0.0.1:') && !r.url().startsWith('data:'))
      problems.push(`fetched ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForFunction('document.documentElement.dataset.rendered !== undefined');
  return { page, problems };
}

beforeAll(async () => {
  browser = await launchChromium();
  run = await recordedRun({ hostile: true });
  expect(run.outcome.kind).toBe('done');
  reportFile = join(tempDir('splintercat-report-'), 'report.html');
  const cli = await runCli(['report', '--html', reportFile, '--md', `${reportFile}.md`], run.repo.dir);
  expect(cli.stderr).toBe('');
  expect(cli.code).toBe(0);
});

afterAll(async () => {
  await browser?.close();
});

describe('the HTML report in chromium', () => {
  it('opens from file://, fetches nothing, shows the grid, hover gives the two commits and the outcome, a conflict diff and a decision are visible; repo text stays inert', async () => {
    const { page, problems } = await open(pathToFileURL(reportFile).href);
    await expect.poll(() => page.locator('#grid-view svg').isVisible()).toBe(true);
    expect(await page.locator('#grid-view rect[data-cell]').count()).toBe(25);

    await page.locator('#grid-view rect[data-cell="1-1"]').hover();
    const tip = page.locator('#grid-tip');
    await tip.waitFor({ state: 'visible' });
    const text = await tip.innerText();
    expect(text).toContain('Cell 1-1');
    expect(text).toContain(`fork: value 1 ${HOSTILE}`);
    expect(text).toContain('upstream: value 1');
    expect(text).toContain('Outcome: Conflict resolved by model (value-resolver)');

    await page.locator('#grid-view rect[data-cell="2-4"]').hover();
    await expect.poll(() => tip.innerText()).toMatch(/Cell 2-4[^]*Outcome: merged automatically/);

    const diff = page.locator('#conflict-3-3 pre.diff');
    await diff.scrollIntoViewIfNeeded();
    expect(await diff.isVisible()).toBe(true);
    expect(await diff.innerText()).toMatch(/^-v3 = fork3$[^]*^\+v3 = merged3$/m);
    const decision = page.locator('#timeline li.t-recovery').first();
    expect(await decision.isVisible()).toBe(true);
    expect(await decision.innerText()).toContain('Unclear which resolution broke the build: bisect the batch.');

    // The script tag in a commit message and in a file's text is shown, never run.
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('#conflict-1-1').innerText()).toContain(HOSTILE);
    expect(problems).toEqual([]);
    await page.locator('#grid').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(testResults, 'report-laptop.png'), fullPage: true });
    await page.close();
  });

  it('is usable from the keyboard: arrows move a cursor that announces the cell, Enter opens its conflict, + zooms', async () => {
    const { page } = await open(pathToFileURL(reportFile).href);
    await page.evaluate("document.querySelectorAll('details.conflict').forEach((d) => { d.open = false; })");
    await page.locator('#grid-view').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.locator('#grid-announce').innerText()).toMatch(/^Cell 2-1\. /);
    await page.keyboard.press('ArrowDown');
    await expect
      .poll(() => page.locator('#grid-announce').innerText())
      .toMatch(/^Cell 2-2\. .*Conflict resolved by model/);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#conflict-2-2').getAttribute('open')).toBe('');
    const before = (await page.locator('#grid-view svg').boundingBox())!.width;
    await page.locator('#grid-view').focus();
    await page.keyboard.press('+');
    await expect.poll(async () => (await page.locator('#grid-view svg').boundingBox())!.width).toBeGreaterThan(before);
    await page.close();
  });

  it('reads on a phone width without horizontal scrolling of the page', async () => {
    const { page, problems } = await open(pathToFileURL(reportFile).href, { width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await page.locator('#grid-view svg').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await page.screenshot({ path: join(testResults, 'report-phone.png'), fullPage: true });
    await page.close();
  });

  it('draws a 2,000 x 500 grid on a canvas: hover and zoom work', async () => {
    const file = join(tempDir('splintercat-report-'), 'large.html');
    writeFileSync(
      file,
      renderHtmlReport(
        buildReportModel(syntheticSnapshot({ commits1: 2000, commits2: 500, scatter: 200 }), { now: new Date() }),
      ),
    );
    const { page, problems } = await open(pathToFileURL(file).href);
    const canvas = page.locator('#grid-view canvas');
    await canvas.scrollIntoViewIfNeeded();
    expect(await canvas.isVisible()).toBe(true);
    const box = (await canvas.boundingBox())!;
    // Fitted: 2,001 columns across the canvas width.
    await page.mouse.move(box.x + box.width * 0.5, box.y + 5);
    await expect
      .poll(() => page.locator('#grid-tip').innerText())
      .toMatch(
        /^Cell 1000-\d+\nmain #1000: [0-9a-f]{12} fork commit 1000\nupstream #\d+: [0-9a-f]{12} upstream commit \d+\nOutcome: /,
      );
    await page.locator('#grid-tools button[data-zoom="in"]').click();
    await page.locator('#grid-tools button[data-zoom="in"]').click();
    await page.mouse.move(box.x + 2, box.y + 2);
    await expect
      .poll(() => page.locator('#grid-tip').innerText())
      .toMatch(/^(Merge base|Fork commit \d+|Upstream commit \d+|Cell \d+-\d+)\n/);
    expect(problems).toEqual([]);
    await page.screenshot({ path: join(testResults, 'report-large-grid.png') });
    await page.close();
  });

  it('the Markdown report keeps the script tag out of the markup', () => {
    const md = readFileSync(`${reportFile}.md`, 'utf8');
    expect(md).toContain('fork: value 1 &lt;script&gt;');
    expect(md).toMatch(/```diff\n/);
  });
});

describe('splintercat ui in chromium', () => {
  it('serves the run on 127.0.0.1 and updates the page when an event is appended to the journal', async () => {
    const ui = spawn(
      process.execPath,
      [
        '--import',
        join(repoRoot, 'node_modules/tsx/dist/loader.mjs'),
        join(repoRoot, 'src/cli/main.ts'),
        'ui',
        '--port',
        '0',
      ],
      {
        cwd: run.repo.dir,
        env: { ...process.env, ...testGitEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((done) => ui.on('close', (code) => done(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        ui.stdout.setEncoding('utf8').on('data', (c: string) => {
          out += c;
          const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
          if (m) resolve(m[1] as string);
        });
        ui.on('close', () => reject(new Error(`ui exited: ${out}`)));
      });
      const { page, problems } = await open(url);
      expect(await page.locator('#grid-view svg').isVisible()).toBe(true);
      await expect.poll(() => page.locator('#live-status').innerText()).toMatch(/^Live: /);
      expect(await page.locator('#timeline').innerText()).not.toContain('Live marker');

      const journal = new Journal<RunEvent>(run.store.paths(run.name).journal, { parse: parseRunEvent });
      const appended = journal.append({
        type: 'decision',
        kind: 'recovery',
        by: 'person',
        decision: 'retry-all',
        reasoning: 'Live marker: appended by the test.',
        conflicts: ['2-2'],
      });
      await page
        .locator('#timeline li', { hasText: 'Live marker: appended by the test.' })
        .waitFor({ state: 'visible' });
      await expect.poll(() => page.locator('#live-status').innerText()).toContain(`event #${appended.seq} (decision)`);
      expect(await page.locator('#report-meta').getAttribute('data-last-seq')).toBe(String(appended.seq));
      // The grid is drawn again after the update and still answers hover.
      await page.locator('#grid-view rect[data-cell="3-3"]').hover();
      await expect.poll(() => page.locator('#grid-tip').innerText()).toContain('Cell 3-3');
      expect(problems).toEqual([]);
      await page.screenshot({ path: join(testResults, 'ui-live.png') });
      await page.close();
    } finally {
      ui.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });
});
