import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorktreePool } from '../../src/workflow/worktrees.js';
import { TestRepo } from '../helpers/git-repo.js';

describe('WorktreePool', () => {
  it('creates many worktrees at once (parallel conflict resolution) without git racing itself', async () => {
    const repo = TestRepo.create();
    const base = repo.commit('base', { 'a.txt': 'a\n' });
    const pool = new WorktreePool(repo.git, join(repo.dir, '.git', 'splintercat', 'test', 'worktrees'));
    // Unserialized, concurrent `worktree prune` + `worktree add` fail now and then ("could not open
    // .git/worktrees/X/locked", "failed to read .git/worktrees/X/commondir"): several rounds to catch it.
    for (let round = 0; round < 6; round++) {
      const ids = Array.from({ length: 8 }, (_, k) => `resolve-${round}-${k}`);
      const paths = await Promise.all(ids.map((id) => pool.checkout(id, base)));
      expect(paths).toEqual(ids.map((id) => pool.path(id)));
      for (const path of paths) expect(existsSync(join(path, 'a.txt'))).toBe(true);
    }
    expect(repo.sh('worktree', 'list').split('\n')).toHaveLength(1 + 6 * 8);
  });
});
