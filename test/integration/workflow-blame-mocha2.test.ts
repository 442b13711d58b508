import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log/logger.js';
import { nullLogger } from '../../src/log/logger.js';
import { buildReportModel, loadRunSnapshot, renderMarkdownReport, renderStatusText } from '../../src/report/index.js';
import { RunStore } from '../../src/store/index.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { fixedPlanner, valueResolver, valuesFile } from '../fixtures/workflow/chain-repo.js';
import { chainContext, scriptedGateway, startChainRun } from '../fixtures/workflow/chain-run.js';
import { TestRepo } from '../helpers/git-repo.js';

const runner = readFileSync(fileURLToPath(new URL('../fixtures/workflow/mocha2-runner.mjs', import.meta.url)), 'utf8');

/**
 * A fork whose tip already fails its legacy test, and an upstream that changes the same value: the check is a
 * runner printing mocha 2's report, where a test at the root is numbered with two spaces (`  1)  v1 is good:`).
 */
function mocha2Repo(options: { upstreamCannotLoad?: boolean } = {}): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'vals.txt': valuesFile(['0']), 'legacy.txt': 'legacy = fine\n', 'spec.mjs': runner });
  repo.branch('upstream');
  repo.commit('fork: value 1, legacy broken', {
    'vals.txt': valuesFile(['fork1']),
    'legacy.txt': 'legacy = BAD on this runtime\n',
    ...(options.upstreamCannotLoad ? { 'lib.txt': 'the module upstream needs\n' } : {}),
  });
  repo.checkout('upstream');
  repo.commit('upstream: value 1', {
    'vals.txt': valuesFile(['up1']),
    // Upstream's tests need a module only the fork has: its tip cannot even load them.
    ...(options.upstreamCannotLoad ? { 'needs-lib.txt': './lib\n' } : {}),
  });
  repo.checkout('main');
  return repo;
}

async function merge(repo: TestRepo, answer: (k: number, retry: boolean) => string) {
  const resolver = valueResolver(answer);
  const planner = fixedPlanner({ decision: 'retry-all', reasoning: 'redo what the check blamed' });
  const gw = scriptedGateway({ resolver: resolver.model, planner });
  const settings = {
    check: { commands: { test: 'node spec.mjs' }, workflow: ['test'] },
    merge: { strategy: 'per_conflict', parallel: 1 },
    llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
  };
  const { ctx } = await chainContext(repo, gw, settings);
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
      decisions,
      resolver,
      statusText: renderStatusText(model),
      markdown: renderMarkdownReport(model),
    };
  } finally {
    run.close();
  }
}

describe("mocha 2's report (two spaces after a root test's number) is read on every side", () => {
  it('a test failing on the merge and on neither tip is blamed and redone, not "cannot tell"', async () => {
    const repo = mocha2Repo();
    const { outcome, state, decisions, resolver } = await merge(repo, (_k, retry) =>
      retry ? 'merged1' : 'BAD merged1',
    );
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    // The fork tip's own failure is its baseline, by name.
    expect(state.baselines.find((b) => b.side === 'fork')?.outcome.failing).toEqual(['legacy is good']);
    const judged = state.checks.filter((c) => c.judgement);
    expect(judged[0]?.judgement).toMatchObject({ verdict: 'new_failures', blamed: ['v1 is good'] });
    // Blamed, the resolution was redone; the merged tree has the good value and fails only as the fork tip does.
    expect(resolver.seen.some((s) => s.retry)).toBe(true);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1']).trimEnd());
    expect(repo.sh('log', '-1', '--format=%B', 'main')).toContain(
      '\nChecks on the merge: test passed against the baselines (1 inherited failure).\n',
    );
    expect(judged.at(-1)?.judgement).toMatchObject({ verdict: 'inherited_only', inherited: ['legacy is good'] });
    expect(decisions.join('\n')).not.toMatch(/cannot tell/);
  });

  it('a merge failing exactly as the fork tip fails, the upstream tip unable to load: passed against the baselines', async () => {
    const repo = mocha2Repo({ upstreamCannotLoad: true });
    const { outcome, state, decisions, statusText, markdown } = await merge(repo, () => 'merged1');
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(state.baselines.map((b) => [b.side, b.outcome.failing, b.outcome.exitCode])).toEqual([
      ['fork', ['legacy is good'], 1],
      ['upstream', null, 1],
    ]);
    const judged = state.checks.filter((c) => c.judgement);
    expect(judged.map((c) => [c.judgement?.verdict, c.judgement?.incomplete])).toEqual([['inherited_only', false]]);
    // Said once, with its verdict: no "FAILED" line before it.
    const lines = decisions.filter((d) => d.startsWith('[check] test') && /on 1-1/.test(d));
    expect(lines).toEqual([
      expect.stringMatching(
        /^\[check\] test on 1-1 passed against the baselines: every test failing on the merge also fails on a tip \(1 test\): nothing is blamed on the resolutions; the upstream tip fails with no test named, which none of them needs \(log: .*\)$/,
      ),
    ]);
    // status and the report read the same, and never "not validated" beside "checks passed".
    expect(statusText).toContain('checks passed against the baselines');
    expect(statusText).toContain(
      'last failure judged: test on 1-1: passed against the baselines (1 inherited failure):',
    );
    expect(statusText).toMatch(/validated against the baselines on the merged tree/);
    // The record says so: the message as README shows it, the note explicitly.
    expect(repo.sh('log', '-1', '--format=%B', 'main')).toContain(
      '\nChecks on the merge: test passed against the baselines (1 inherited failure).\n',
    );
    const note = JSON.parse(repo.sh('notes', '--ref=splintercat', 'show', 'main')) as { verdict: string };
    expect(note.verdict).toBe('against_baselines');
    for (const text of [statusText, markdown]) {
      expect(text).not.toMatch(/not validated/);
      expect(text).not.toMatch(/failed, not blamed/);
    }
  });
});
