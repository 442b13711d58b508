import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/checks/sandbox.js';
import { assertInvariants, before, createArena, expectMergeOf, expectWorkingTree } from '../helpers/attack-arena.js';
import {
  appendConfig,
  checkConfig,
  handoffDir,
  mergeHandOffContinue,
  upstreamAdds,
} from '../helpers/attack-history.js';
import type { CliRun } from '../fixtures/resolve/cli.js';

/**
 * The attack matrix, second round, the longer rows of upstream's content alone (no model): the
 * other variants of attack-matrix-upstream.test.ts. The five invariants hold after each.
 */

describe.runIf(probeBwrap().ok)('attack matrix: upstream content alone (no model), longer rows', () => {
  it.each([['off', 'HOME/.bashrc']])(
    'critical: a failing check replacing its newest log with a link (sandbox %s, to %s) gets nothing read back: not the summary, the hand-off excerpt, the journal, the report',
    async (sandbox, target) => {
      const arena = await createArena(() => undefined, { model: false });
      const logs = join(arena.repo.dir, '.splintercat', 'logs');
      const link = target.replace('HOME', arena.home);
      // Benign until the merge holds the person's resolution: then the tips pass and only the merge fails.
      const hostile = [
        "grep -q 'fork and upstream' a.txt || exit 0",
        `log=$(ls -t ${logs}/quick-*.log 2>/dev/null | head -1)`,
        `[ -n "$log" ] && rm -f "$log" && ln -s ${link} "$log" && echo linked`,
        'exit 1',
        '',
      ].join('\n');
      arena.repo.commit('base', { 'a.txt': 'alpha\nbeta\ngamma\n', 'test.sh': 'exit 0\n' });
      arena.repo.branch('upstream');
      arena.repo.commit('fork', { 'a.txt': 'alpha\nbeta fork\ngamma\n' });
      arena.repo.checkout('upstream');
      arena.repo.commit('upstream', { 'a.txt': 'alpha\nbeta upstream\ngamma\n', 'test.sh': hostile });
      arena.repo.checkout('main');
      appendConfig(arena, checkConfig('sh test.sh', [`  sandbox: ${sandbox}`]));
      const snap = before(arena, expectWorkingTree(arena, []));
      const runs = await mergeHandOffContinue(arena);
      // The merge fails the check, which the tips pass: the person is asked to amend, with the log's excerpt.
      expect(runs[1]?.code, runs[1]?.stderr).toBe(3);
      expect(runs[1]?.stderr).toMatch(/check 'quick' failed/);
      const status = await arena.cli(['status', '--json']);
      await assertInvariants(arena, snap, [...runs, status], { report: true });
    },
  );

  it.each(['continue', 'abort'])(
    'low: a 4,053-byte path from upstream (past PATH_MAX in the worktrees) leaves %s working, never failing for good',
    async (then) => {
      const arena = await createArena(() => undefined, { model: false });
      const dirs = Array.from({ length: 20 }, () => 'd'.repeat(199));
      const long = [...dirs, 'f'.repeat(4053 - dirs.length * 200)].join('/');
      expect(Buffer.byteLength(long)).toBe(4053);
      upstreamAdds({ [long]: 'long\n' })(arena.repo);
      appendConfig(arena, checkConfig('true'));
      const snap = before(
        arena,
        then === 'continue' ? expectMergeOf(arena, 'main', 'upstream') : expectWorkingTree(arena, []),
      );
      const first = await arena.cli(['merge', 'upstream']);
      expect(first.code, first.stderr).toBe(3);
      let second: CliRun;
      if (then === 'continue') {
        writeFileSync(join(handoffDir(first), 'a.txt'), 'alpha\nbeta fork and upstream\ngamma\n');
        second = await arena.cli(['continue']);
        expect(second.code, second.stderr).toBe(0);
        expect(readFileSync(join(arena.repo.dir, long), 'utf8')).toBe('long\n');
      } else {
        second = await arena.cli(['abort']);
        expect(second.code, second.stderr).toBe(0);
      }
      expect(existsSync(join(arena.root, 'wt', 'up'))).toBe(false);
      expect(arena.repo.sh('worktree', 'list').split('\n')).toHaveLength(1);
      await assertInvariants(arena, snap, [first, second]);
    },
  );
});
