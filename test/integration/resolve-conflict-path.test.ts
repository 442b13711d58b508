import { describe, expect, it } from 'vitest';
import type { ConflictPath } from '../../src/imerge/types.js';
import { resolveConflictPath } from '../../src/resolve/index.js';
import { TestRepo } from '../helpers/git-repo.js';

/** Conflicted paths of an in-memory merge, as merge-tree reports them. */
async function mergeTreeConflicts(repo: TestRepo): Promise<ConflictPath[]> {
  const { stdout } = await repo.git.run(['merge-tree', '--write-tree', '-z', '--no-messages', 'main', 'feature'], {
    okExitCodes: [0, 1],
  });
  const byPath = new Map<string, ConflictPath>();
  for (const field of stdout.split('\0').slice(1)) {
    if (field === '') break;
    const [info, path] = field.split('\t') as [string, string];
    const [mode, oid, stage] = info.split(' ') as [string, string, string];
    const entry = byPath.get(path) ?? { path, kind: 'content', messages: [], stages: {} };
    entry.stages[stage === '1' ? 'base' : stage === '2' ? 'ours' : 'theirs'] = { mode, oid, path };
    byPath.set(path, entry);
  }
  return [...byPath.values()];
}

describe('resolveConflictPath (in-memory merges)', () => {
  it('runs content conflicts down the ladder and hands file-level ones on as decisions', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': 'x\ny\nz\n', 'm.txt': 'keep\n' });
    repo.branch('feature');
    repo.commit('main', { 'a.txt': 'x\nY  \nz\n', 'm.txt': 'keep, changed\n' });
    repo.checkout('feature');
    repo.commit('feature', { 'a.txt': 'x\nY\nz\n', 'm.txt': null });
    const conflicts = await mergeTreeConflicts(repo);
    expect(conflicts.map((c) => c.path)).toEqual(['a.txt', 'm.txt']);

    const a = await resolveConflictPath(repo.git, conflicts[0]!, {});
    expect(a.kind).toBe('content');
    if (a.kind === 'content') {
      expect(a.result.text).toBe('x\nY  \nz\n');
      expect(a.result.remaining).toEqual([]);
    }
    const m = await resolveConflictPath(repo.git, conflicts[1]!, {});
    expect(m).toMatchObject({ kind: 'file', decision: { kind: 'modify/delete', resolution: null } });
  });
});
