import { describe, expect, it } from 'vitest';
import type { ConflictState } from '../../src/store/run-state.js';
import { changesNoCode } from '../../src/workflow/no-code-change.js';
import { TestRepo } from '../helpers/git-repo.js';

const source = (comment: string, body = '    return x + 1;'): string => `${comment}\nint f(int x)\n{\n${body}\n}\n`;

/**
 * A fork and an upstream commit that both change the comment of a.c (a conflict), and a resolution
 * commit (parents: the fork side, then the upstream side, as the engine records one) of `files`.
 */
function resolved(files: Record<string, string>): { repo: TestRepo; conflict: ConflictState } {
  const repo = TestRepo.create();
  repo.commit('base', { 'a.c': source('/* one more */'), 'b.c': 'int g;\n' });
  repo.branch('upstream');
  const fork = repo.commit('fork', { 'a.c': source('/* one more, as the fork says */', '\treturn x + 1;') });
  repo.checkout('upstream');
  const upstream = repo.commit('upstream', { 'a.c': source('/*  one more (upstream) */') });
  repo.checkout('main');
  repo.write(files);
  repo.sh('add', '-A');
  const tree = repo.sh('write-tree');
  const commit = repo.sh('commit-tree', tree, '-p', fork, '-p', upstream, '-m', 'resolution');
  repo.sh('reset', '-q', '--hard', fork);
  return {
    repo,
    conflict: {
      id: '1-1',
      cell: { i1: 1, i2: 1 },
      files: [{ path: 'a.c', kind: 'content', hunks: [] }],
      status: 'resolved',
      resolutionTree: tree,
      resolutionCommit: commit,
      attempts: 1,
      resolvedInAttempt: 1,
      blame: null,
    },
  };
}

describe('changesNoCode', () => {
  it('proves a resolution of a comment conflict (and a whitespace change git merged) compiles to the same bytes', async () => {
    const { repo, conflict } = resolved({
      'a.c': source('/* one more (upstream), as the fork says */', '\treturn x + 1;'),
    });
    expect(await changesNoCode(repo.git, conflict)).toEqual({ same: true });
  });

  it('refuses a resolution that changes code, or a file outside its conflict', async () => {
    const code = resolved({ 'a.c': source('/* one more */', '\treturn x + 2;') });
    expect(await changesNoCode(code.repo.git, code.conflict)).toMatchObject({
      same: false,
      why: /a\.c: the code differs/,
    });
    const outside = resolved({ 'a.c': source('/* one more */', '\treturn x + 1;'), 'b.c': 'int g = 1;\n' });
    expect(await changesNoCode(outside.repo.git, outside.conflict)).toMatchObject({
      same: false,
      why: 'it also changes b.c',
    });
  });
});
