import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { tempDir } from '../helpers/git-repo.js';
import { realHistoriesDir } from '../helpers/real-histories.js';

/**
 * The default ladder replayed on every merge of the real fork histories
 * (`splintercat eval --repo`, offline): each two-parent merge that conflicts is
 * re-merged and each hunk a rung resolves is compared with what the person
 * committed. These are projects the corpus does not hold (JavaScript forks), so
 * they measure the rungs independently of the corpus their defaults were
 * chosen on: no default rung may be wrong on them.
 */
const available = existsSync(join(realHistoriesDir, 'README.md'));
if (!available) {
  const why = `../shared/real-histories is missing (looked in ${realHistoriesDir}): it holds the git bundles of real fork histories, and CI provides it beside the clone`;
  if (process.env.CI) throw new Error(why);
  console.warn(`[skipped] the ladder replayed on real fork histories: ${why}`);
}
const bundles = available ? readdirSync(realHistoriesDir).filter((f) => f.endsWith('.bundle')) : [];

interface Counts {
  resolved: number;
  equal: number;
  orderOnly: number;
  wrong: number;
}

describe.skipIf(!available)('splintercat eval --repo on the real fork histories (the default ladder, offline)', () => {
  it.each(bundles)(
    '%s: no default rung is wrong on any replayed merge',
    async (bundle) => {
      const dir = join(tempDir('splintercat-eval-history-'), 'repo');
      execFileSync('git', ['clone', '-q', '--mirror', join(realHistoriesDir, bundle), dir], { stdio: 'ignore' });
      const r = await runCli(['eval', '--repo', dir, '--json'], dir);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as {
        cases: number;
        hunksSeen: number;
        ladder: Counts;
        byRule: Record<string, Counts>;
        files: Counts;
      };
      expect(report.cases).toBeGreaterThan(0);
      for (const [rung, counts] of Object.entries(report.byRule)) {
        expect(counts.wrong, `${bundle}: ${rung}`).toBe(0);
        expect(counts.orderOnly, `${bundle}: ${rung} (order only)`).toBe(0);
      }
      expect(report.files.wrong).toBe(0);
      expect(report.files.orderOnly).toBe(0);
      console.log(
        `[${bundle}] ${report.cases} conflicted files, ${report.hunksSeen} hunks: the ladder took ${report.ladder.resolved} (${report.ladder.equal} equal to the person's), ${report.files.resolved} whole files`,
      );
      // werkzeug replays 1,140 merges (128 conflict): far more than the JavaScript forks.
    },
    180_000,
  );
});
