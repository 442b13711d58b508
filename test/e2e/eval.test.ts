import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { historyWithKnownMerges } from '../fixtures/resolve/history.js';
import { missingSharedMessage, sharedData } from '../helpers/shared-data.js';

const corpus = sharedData('corpus', 'index.jsonl', "the corpus test of 'splintercat eval'");
const corpusDir = corpus.dir;

interface Counts {
  resolved: number;
  exact: number;
  whitespaceMatch: number;
  equal: number;
  orderOnly: number;
  wrong: number;
  unaligned: number;
  sidesDropped: number;
}

describe('splintercat eval', () => {
  it.skipIf(corpus.skip)('scores a sample of the conflict corpus (../shared/corpus)', async () => {
    expect(existsSync(`${corpusDir}/index.jsonl`), missingSharedMessage(corpus, 'index.jsonl')).toBe(true);
    const dir = TestRepo.create().dir;
    const r = await runCli(['eval', '--corpus', corpusDir, '--limit', '15', '--json'], dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as {
      cases: number;
      hunksSeen: number;
      ladder: Counts;
      byRule: Record<string, Counts>;
      files: { resolved: number; wrong: number };
      standalone: Record<string, Counts>;
      enabledRules: string[];
      skipped: unknown[];
    };
    expect(report.cases).toBe(15);
    expect(report.hunksSeen).toBeGreaterThanOrEqual(15);
    expect(report.skipped).toEqual([]);
    expect(report.enabledRules).not.toContain('remerge-words');
    expect(report.enabledRules).toContain('contained-change');
    expect(report.enabledRules).toContain('higher-version');
    // the default rungs are never wrong, never drop a side and never order unordered siblings (mapping keys)
    // otherwise than the person on the corpus (an order-only match is counted apart)
    for (const [rule, counts] of Object.entries(report.byRule)) {
      expect(counts.wrong, rule).toBe(0);
      expect(counts.orderOnly, rule).toBe(0);
    }
    expect(report.ladder.sidesDropped).toBe(0);
    expect(report.byRule['syntax-merge']?.resolved ?? 0).toBeGreaterThan(0);
    expect(report.byRule['syntax-merge']?.equal).toBe(report.byRule['syntax-merge']?.resolved);
    expect(report.files.wrong).toBe(0);
    expect(Object.keys(report.standalone)).toEqual([
      'identical-sides',
      'one-side-unchanged',
      'whitespace-only',
      'trailing-whitespace',
      'remerge-lines',
      'contained-change',
      'higher-version',
      'changelog-sections',
      'adjacent-lines',
      'remerge-words',
      'keep-both-additions',
    ]);

    const table = await runCli(['eval', '--corpus', corpusDir, '--limit', '5'], dir);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Evaluated 5 conflicted files/);
    expect(table.stdout).toMatch(/\| remerge-words \|/);
  });

  it("replays a repository's merges with --repo and gives the known counts", async () => {
    const repo = historyWithKnownMerges();
    const r = await runCli(['eval', '--repo', repo.dir, '--json'], repo.dir);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/mined 4 two-parent merges: 3 conflict on replay, 0 criss-cross skipped/);
    const report = JSON.parse(r.stdout) as {
      cases: number;
      hunksSeen: number;
      ladder: Counts;
      files: Record<string, number>;
    };
    expect(report.cases).toBe(3);
    expect(report.hunksSeen).toBe(2);
    expect(report.ladder).toEqual({
      resolved: 1,
      exact: 0,
      whitespaceMatch: 1,
      equal: 1,
      orderOnly: 0,
      wrong: 0,
      unaligned: 0,
      sidesDropped: 0,
    });
    expect(report.files).toEqual({
      seen: 3,
      resolved: 1,
      exact: 0,
      whitespaceMatch: 1,
      equal: 1,
      orderOnly: 0,
      wrong: 0,
      outsideEdited: 0,
      dropsKept: 0,
    });
  });

  it('refuses bad arguments with a clear message and exit 2', async () => {
    const dir = TestRepo.create().dir;
    const neither = await runCli(['eval'], dir);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/exactly one of --corpus DIR or --repo PATH/);
    const missing = await runCli(['eval', '--corpus', `${dir}/nope`], dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No conflict corpus at/);
    const model = await runCli(['eval', '--repo', dir, '--with-model'], dir);
    expect(model.code).toBe(2);
    expect(model.stderr).toMatch(/No resolver model is configured/);
    expect(model.stderr).toMatch(/llm.resolver_model/);
    const limit = await runCli(['eval', '--repo', dir, '--limit', 'x'], dir);
    expect(limit.code).toBe(2);
  });
});
