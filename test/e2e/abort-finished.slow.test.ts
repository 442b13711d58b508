import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { finishedRun } from '../fixtures/workflow/finished-run.js';
import { tempDir } from '../helpers/git-repo.js';

/**
 * `abort` on a run whose merge is finished: there is nothing to abort. It says so, and where the
 * merge is; the run's record stays, so `status` and `report` still tell what the merge did.
 */
describe('abort on a finished run', () => {
  it('says the merge is finished and where, removes nothing, and status and report still work', async () => {
    const repo = await finishedRun();
    const merge = repo.sh('rev-parse', 'main');
    const before = repo.sh('rev-parse', 'main^1');
    const abort = await runCli(['abort'], repo.dir);
    expect(abort.code, abort.stderr).toBe(0);
    expect(abort.stdout).toContain(
      `The merge 'up' is finished, nothing to abort: main is at its merge commit ${merge.slice(0, 12)}, the merge of upstream.`,
    );
    expect(abort.stdout).toContain(
      'Nothing was removed: its record stays for splintercat status and splintercat report.',
    );
    expect(abort.stdout).toContain(`To undo the merge itself: git reset --keep ${before.slice(0, 12)}`);
    expect(abort.stdout).toContain(
      'To start another merge under this name: splintercat merge upstream --restart --name up',
    );
    expect(abort.stdout).not.toMatch(/untouched/);
    expect(repo.sh('rev-parse', 'main')).toBe(merge);
    expect(existsSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'))).toBe(true);
    const status = await runCli(['status'], repo.dir);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Merge 'up': done/);
    expect(status.stdout).toContain(`result: ${merge}`);
    const out = join(tempDir('splintercat-abort-report-'), 'r.md');
    const report = await runCli(['report', '--md', out], repo.dir);
    expect(report.code, report.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
  });

  it('on a run still open says where the branch is, which the run never moved', async () => {
    const repo = await finishedRun();
    // Another run, stopped for a person; the branch gets a commit of its own meanwhile.
    repo.checkout('upstream');
    repo.commit('upstream: more', { 'vals.txt': 'v1 = 2\n# spacer a\n# spacer b\n' });
    repo.checkout('main');
    repo.commit('fork: more', { 'vals.txt': 'v1 = 3\n# spacer a\n# spacer b\n' });
    const started = repo.sh('rev-parse', 'main');
    const merged = await runCli(['merge', 'upstream', '--restart', '--set', 'merge.resolver=manual'], repo.dir);
    expect(merged.code, merged.stderr).toBe(3);
    const moved = repo.commit('fork: a note', { 'note.txt': 'n\n' });
    const abort = await runCli(['abort'], repo.dir);
    expect(abort.code, abort.stderr).toBe(0);
    expect(abort.stdout).toContain(
      `main was not moved by the run (it was at ${started.slice(0, 12)} when the run started; it is at ${moved.slice(0, 12)} now).`,
    );
    expect(existsSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'))).toBe(false);
  });
});
