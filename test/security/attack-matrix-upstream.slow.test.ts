import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/checks/sandbox.js';
import { assertInvariants, before, createArena, expectMergeOf, expectWorkingTree } from '../helpers/attack-arena.js';
import { appendConfig, checkConfig, handoffDir, logLinkAttack, upstreamAdds } from '../helpers/attack-history.js';
import type { CliRun } from '../fixtures/resolve/cli.js';

/**
 * The attack matrix, second round, the longer rows of upstream's content alone (no model): the
 * other variants of attack-matrix-upstream.test.ts. The five invariants hold after each.
 */

describe.runIf(probeBwrap().ok)('attack matrix: upstream content alone (no model), longer rows', () => {
  it.each([['off', 'HOME/.bashrc']])(
    'critical: a failing check replacing its newest log with a link (sandbox %s, to %s) gets nothing read back: not the summary, the hand-off excerpt, the journal, the report',
    (sandbox, target) => logLinkAttack(sandbox, target),
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
