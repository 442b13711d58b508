import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log/logger.js';
import { nullLogger } from '../../src/log/logger.js';
import {
  buildReportModel,
  loadRunSnapshot,
  renderMarkdownReport,
  renderReportBody,
  renderStatusText,
} from '../../src/report/index.js';
import { statusData } from '../../src/report/status-text.js';
import { RunStore } from '../../src/store/index.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { fixedPlanner, valueResolver, valuesFile } from '../fixtures/workflow/chain-repo.js';
import { chainContext, scriptedGateway, startChainRun } from '../fixtures/workflow/chain-run.js';
import { OLD_FAILURE, specRepo } from '../fixtures/workflow/spec-repo.js';
import type { TestRepo } from '../helpers/git-repo.js';

const legacyTest = 'legacy > should keep old good';
const valueTest = (k: number): string => `values > should keep v${k} good`;

/** Merge `upstream` into `main` with the model resolver (and planner) given, the `test` check being `command`; the decisions log is kept. */
async function merge(repo: TestRepo, command: string, answer: (k: number, retry: boolean) => string) {
  const resolver = valueResolver(answer);
  const planner = fixedPlanner({ decision: 'retry-all', reasoning: 'redo what the check blamed' });
  const gw = scriptedGateway({ resolver: resolver.model, planner });
  const settings = {
    check: { commands: { test: command }, workflow: ['test'] },
    merge: { strategy: 'per_conflict', parallel: 1 },
    llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
  };
  const { ctx, checks } = await chainContext(repo, gw, settings);
  const decisions: string[] = [];
  const log: Logger = {
    ...nullLogger,
    decision: (obj, msg) => void decisions.push(typeof obj === 'string' ? obj : (msg ?? '')),
    child: () => log,
  };
  const store = await RunStore.forRepo(repo.git);
  const { run, state } = startChainRun(store, repo);
  try {
    const outcome = await driveRun(run, state, { ...ctx, log });
    const snapshot = await loadRunSnapshot(repo.git, store, 'up');
    const model = buildReportModel(snapshot!, { now: new Date() });
    return {
      outcome,
      state: outcome.state,
      checks,
      decisions,
      resolver,
      status: statusData(model),
      statusText: renderStatusText(model),
      markdown: renderMarkdownReport(model),
      html: renderReportBody(model),
    };
  } finally {
    run.close();
  }
}

describe('blame only what the merge broke (a tip that already fails a test)', () => {
  it('a fork tip failing its own test does not stop the merge, and cells inheriting the failure are not blamed', async () => {
    const repo = specRepo(
      2,
      (k) => `fork${k}`,
      (k) => `up${k}`,
      { forkFails: true },
    );
    const fork = repo.sh('rev-parse', 'main');
    const { outcome, state, checks, decisions, resolver, status, statusText, markdown, html } = await merge(
      repo,
      'node spec.mjs',
      (k) => `merged${k}`,
    );
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(repo.sh('rev-list', '--parents', '-n', '1', 'main').split(' ').slice(1)).toEqual([
      fork,
      repo.sh('rev-parse', 'upstream'),
    ]);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2']).trimEnd());
    expect(repo.sh('show', 'main:legacy.txt')).toBe(`old = ${OLD_FAILURE}`);

    // The fork's failing test is its baseline, by name; upstream passes all 3 tests.
    expect(state.baselines.map((b) => [b.side, b.cell, b.outcome])).toEqual([
      ['fork', null, { passed: false, failing: [legacyTest], ran: 3, stopped: null, exitCode: 1 }],
      ['upstream', null, { passed: true, failing: [], ran: 3, stopped: null }],
    ]);
    // Every cell check fails the inherited test only: recorded, judged, not blamed; no recovery, nothing resolved twice.
    const judged = state.checks.filter((c) => c.target === 'cell');
    expect(judged.length).toBeGreaterThanOrEqual(2);
    for (const c of judged)
      expect([c.success, c.judgement?.verdict, c.judgement?.inherited]).toEqual([
        false,
        'inherited_only',
        [legacyTest],
      ]);
    expect(state.attempts).toHaveLength(1);
    expect(state.conflicts.map((c) => [c.id, c.status, c.attempts])).toEqual([
      ['1-1', 'resolved', 1],
      ['2-2', 'resolved', 1],
    ]);
    expect(resolver.seen.every((s) => !s.retry)).toBe(true);
    expect(state.data.checks?.validated).toEqual(['1-1', '2-2']);
    expect(decisions.filter((d) => d.startsWith('[baseline]'))).toEqual([
      expect.stringMatching(
        /^\[baseline\] test already fails on the fork tip \(main\) .*: its 1 failing test\(s\) \(legacy > should keep old good\) are that side's baseline, never blamed on a resolution$/,
      ),
    ]);
    expect(decisions).toContainEqual(
      expect.stringMatching(
        /^\[check\] test on 1-1 passed against the baselines: every test failing on the merge also fails on a tip \(1 test\)/,
      ),
    );

    // status --json counts every check run, and shows the baselines and the failures not blamed.
    expect(status.checks).toMatchObject({
      total: checks.runs.length,
      failed: judged.length + 1,
      notBlamed: judged.length,
    });
    expect(status.baselines).toEqual([
      expect.objectContaining({
        side: 'fork',
        cell: null,
        check: 'test',
        passed: false,
        failing: [legacyTest],
        ran: 3,
      }),
      expect.objectContaining({ side: 'upstream', passed: true }),
    ]);
    expect(statusText).toContain(`test on the fork tip (${fork.slice(0, 12)}) fails 1 test(s): ${legacyTest}, 3 ran`);
    // The reports show the baseline and, for each failed check, that it was not blamed and why.
    expect(markdown).toContain(
      `- test on the fork tip (\`${fork.slice(0, 12)}\`): 1 failing test(s): ${legacyTest.replace('>', '&gt;')} (3 ran)`,
    );
    expect(markdown).toContain('**not blamed**: every test failing on the merge also fails on a tip (1 test)');
    expect(html).toContain(`<code>${legacyTest.replace('>', '&gt;')}</code>`);
    expect(html).toContain('Not blamed on the resolutions');
    // Read as passed against the baselines, in a neutral colour, with the count of inherited failures; the
    // attempt passed; the merged tree is validated against the fork tip's baseline.
    expect(statusText).toMatch(
      /checks: \d+ run: 1 passed, \d+ passed against the baselines, 0 failed, 1 failing baseline;/,
    );
    expect(statusText).toMatch(/last: test passed against the baselines \(1 inherited failure\), log /);
    expect(statusText).toMatch(/attempts: 1; #1 per_conflict, 2 resolved, checks passed/);
    expect(status.validation).toMatchObject({
      validated: true,
      checks: [{ name: 'test', reading: 'against_baseline' }],
    });
    const validated = `validated against the baselines on the merged tree: test fails only as the fork tip (${fork.slice(0, 7)}, 1 failing test) does (1 inherited failure, none blamed on a resolution)`;
    expect(statusText).toContain(`  ${validated}`);
    expect(markdown).toContain(`| Validation | ${validated} |`);
    expect(html).toContain('<span class="neutral">passed against the baselines (1 inherited failure)</span>');
    expect(html).not.toContain('class="bad"');
    // The grid does not mark cells X for a failure that is the fork's own.
    const marks = (status.grid as { marks: Array<{ conflict: string | null; failedCheck: string | null }> }).marks;
    expect(marks.map((m) => [m.conflict, m.failedCheck])).toEqual([
      ['1-1', null],
      ['2-2', null],
    ]);
  });

  it("a new failure is blamed (not the inherited one), summarized by test, assertion and file:line, and recovered; the cell's own commits are checked and counted", async () => {
    const repo = specRepo(
      3,
      (k) => `fork${k}`,
      (k) => `up${k}`,
      { forkFails: true },
    );
    const { outcome, state, checks, resolver, status } = await merge(repo, 'node spec.mjs', (k, retry) =>
      k === 2 && !retry ? 'BAD' : `merged${k}`,
    );
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2', 'merged3']).trimEnd());

    const blamed = state.checks.find((c) => c.judgement?.verdict === 'new_failures');
    expect(blamed).toMatchObject({
      target: 'cell',
      cell: { i1: 2, i2: 2 },
      judgement: { blamed: [valueTest(2)], inherited: [legacyTest] },
    });
    // Before blaming 2-2, its own fork commit 2 and upstream commit 2 were checked (they pass): recorded as baselines.
    expect(state.baselines.filter((b) => b.cell !== null).map((b) => [b.side, b.cell, b.outcome.passed])).toEqual([
      ['fork', { i1: 2, i2: 0 }, false],
      ['upstream', { i1: 0, i2: 2 }, true],
    ]);
    expect(blamed?.judgement?.against).toEqual([
      'fork tip',
      'upstream tip',
      expect.stringMatching(/^fork commit 2 \([0-9a-f]{7}\)$/),
      expect.stringMatching(/^upstream commit 2 \([0-9a-f]{7}\)$/),
    ]);

    // The summary handed to recovery and the resolver: the blamed test, its assertion, file:line relative to the worktree.
    const summary = state.attempts[0]?.failureSummary;
    expect(summary).toMatchObject({
      error_type: 'test_failure',
      location: 'test/values.js:4',
      root_cause: `"should keep v2 good" — AssertionError [ERR_ASSERTION]: bad value for v2: 'BAD' (and 1 more failing test)`,
    });
    expect(summary?.excerpt).toContain(
      `Blamed on the resolutions, failing on no baseline (mocha, 1):\n  ${valueTest(2)} (test/values.js:4)`,
    );
    expect(summary?.excerpt).toContain(`Failing on a tip too, not blamed (1):\n  ${legacyTest} (test/legacy.js:1)`);
    expect(state.conflicts.map((c) => [c.id, c.attempts])).toEqual([
      ['1-1', 1],
      ['2-2', 2],
      ['3-3', 1],
    ]);
    expect(resolver.seen.filter((s) => s.retry).map((s) => s.k)).toEqual([2]);

    // Every check run is counted: the tips, the cells, the cell's own commits, the final one if any.
    expect(status.checks).toMatchObject({ total: checks.runs.length });
    expect(state.checks).toHaveLength(checks.runs.length);

    // Each side's commits are checked in that side's worktree, so judging a failure leaves the cells' build as it was.
    const where = (c: { target: string }): string =>
      c.target === 'baseline-ours' ? 'check-fork' : c.target === 'baseline-theirs' ? 'check-upstream' : 'check';
    expect(checks.runs.map((r) => basename(r.cwd))).toEqual(state.checks.map(where));
    expect(new Set(checks.runs.map((r) => basename(r.cwd)))).toEqual(
      new Set(['check', 'check-fork', 'check-upstream']),
    );
  });

  it("mocha --bail stopping at the fork's own failure: nothing is blamed, the run goes on, and what could not run is not counted as validated", async () => {
    // The legacy suite runs first: like body-parser 3f5e93e on Node 20, the fork tip stops at its own failure.
    const repo = specRepo(
      2,
      (k) => `fork${k}`,
      (k) => `up${k}`,
      { forkFails: true },
    );
    const { outcome, state, decisions } = await merge(repo, 'node spec.mjs --bail --legacy-first', (k) => `merged${k}`);
    // The check's own command line says it stops at the first failure.
    const bail = 'mocha ran with --bail, which stops at the first failing test';
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(state.baselines.map((b) => [b.side, b.outcome])).toEqual([
      ['fork', { passed: false, failing: [legacyTest], ran: 1, stopped: bail, exitCode: 1 }],
      ['upstream', { passed: true, failing: [], ran: 3, stopped: null }],
    ]);
    const judged = state.checks.filter((c) => c.target === 'cell');
    for (const c of judged)
      expect(c.judgement).toMatchObject({ verdict: 'inherited_only', incomplete: true, blamed: [] });
    expect(judged[0]?.judgement?.reason).toContain(
      `the run on the merge stopped early (${bail}), so the tests after it never ran`,
    );
    // Not blamed, but not validated either: the tests behind the inherited failure never ran.
    expect(state.data.checks?.validated ?? []).toEqual([]);
    expect(state.attempts).toHaveLength(1);
    expect(decisions).toContainEqual(
      expect.stringMatching(
        /^\[check\] test on 1-1: nothing blamed, but 1-1 is not counted as validated: .*\(log: .*\)$/,
      ),
    );
  });

  it('no test names: whole outcomes compare; a check failing on a tip and on the cell is not blamed ("cannot tell"), one passing on both tips and failing on the cell is', async () => {
    const quiet = 'node spec.mjs >/dev/null 2>&1';
    const inherited = specRepo(
      2,
      (k) => `fork${k}`,
      (k) => `up${k}`,
      { forkFails: true },
    );
    const first = await merge(inherited, quiet, (k) => `merged${k}`);
    expect(first.outcome.kind).toBe('done');
    expect(first.state.baselines[0]?.outcome).toEqual({
      passed: false,
      failing: null,
      ran: null,
      stopped: null,
      exitCode: 1,
    });
    const cells = first.state.checks.filter((c) => c.target === 'cell');
    for (const c of cells) expect(c.judgement).toMatchObject({ verdict: 'cannot_tell', by: 'outcome' });
    expect(cells[0]?.judgement?.reason).toBe(
      'the check fails on the merge and also on the fork tip, and no test names could be read on the merge and the fork tip: cannot tell whether the merge broke more',
    );
    expect(first.decisions).toContainEqual(expect.stringContaining('cannot tell whether the merge broke more'));
    expect(first.statusText).toContain('nothing blamed, not validated');

    const clean = specRepo(
      1,
      (k) => `fork${k}`,
      (k) => `up${k}`,
      { forkFails: false },
    );
    // The summary names no test here, so the resolver cannot see that it is retrying: its first answer is the bad one.
    let answers = 0;
    const second = await merge(clean, quiet, (k) => (answers++ === 0 ? 'BAD' : `merged${k}`));
    expect(second.outcome.kind === 'failed' ? second.outcome.reason : second.outcome.kind).toBe('done');
    expect(second.state.checks.find((c) => c.judgement)?.judgement).toMatchObject({
      verdict: 'broken_by_merge',
      by: 'outcome',
      reason: 'the check passes on both tips and fails on the merge (no test names could be read on the merge)',
    });
    expect(second.state.conflicts.map((c) => [c.id, c.attempts])).toEqual([['1-1', 2]]);
    expect(clean.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1']).trimEnd());
  });
});
