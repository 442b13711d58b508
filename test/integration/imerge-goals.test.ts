import { describe, expect, it } from 'vitest';
import { IncrementalMerge } from '../../src/imerge/index.js';
import type { TestRepo } from '../helpers/git-repo.js';
import { createGridRepo } from '../fixtures/imerge/grid-repo.js';

/**
 * Each commit of `ref` not on main or feature, sorted by subject (the new commits share a commit
 * date, so log order is not stable): parents (subjects, or 'new'), subject, author date, message.
 */
function newCommits(repo: TestRepo, ref: string): { parents: string[]; subject: string; date: string; body: string }[] {
  const subjects = new Map(
    repo
      .sh('log', '--format=%H %s', 'main', 'feature')
      .split('\n')
      .map((l) => [l.slice(0, 40), l.slice(41)]),
  );
  const out = repo.sh('log', '--format=%H%x00%P%x00%s%x00%at%x00%B%x1e', ref, '--not', 'main', 'feature');
  return out
    .split('\x1e')
    .map((r) => r.replace(/^\n/, ''))
    .filter(Boolean)
    .map((r) => {
      const [, p, subject, date, body] = r.split('\0') as string[];
      return {
        parents: (p as string).split(' ').map((h) => subjects.get(h) ?? 'new'),
        subject: subject as string,
        date: date as string,
        body: body as string,
      };
    })
    .sort((a, b) => (a.subject < b.subject ? -1 : 1));
}

async function completeMerge(
  n1: number,
  n2: number,
  merged2: number[] = [],
): Promise<{ repo: TestRepo; im: IncrementalMerge }> {
  const repo = createGridRepo({ n1, n2, conflicts: [], merged2 });
  const im = await IncrementalMerge.start(repo.git, { name: 'g', tip2: 'feature', firstParent: merged2.length > 0 });
  expect((await im.autofill()).complete).toBe(true);
  return { repo, im };
}

describe('IncrementalMerge.simplify goals (git-imerge 1.2.0 shapes)', () => {
  it('rebase-with-history: each rebased commit also has its original as second parent and names it', async () => {
    const { repo, im } = await completeMerge(2, 3);
    const tip = await im.simplify({ goal: 'rebase-with-history', branch: 'rwh' });
    expect(repo.sh('rev-parse', `${tip}^{tree}`)).toBe(repo.sh('rev-parse', `${im.cellCommit(2, 3)}^{tree}`));
    const commits = newCommits(repo, 'rwh');
    expect(commits.map((c) => [c.subject, c.parents])).toEqual([
      ['feature 1', ['main 2', 'feature 1']],
      ['feature 2', ['new', 'feature 2']],
      ['feature 3', ['new', 'feature 3']],
    ]);
    expect(repo.sh('log', '-1', '--format=%s', tip)).toBe('feature 3');
    const orig = repo.sh('rev-parse', 'feature');
    expect(commits[2]?.body).toBe(`feature 3\n\n(rebased-with-history from commit ${orig})\n`);
    expect(commits[2]?.date).toBe(repo.sh('log', '-1', '--format=%at', 'feature'));
    // The goal switch is saved in the state, as git-imerge saves it.
    expect((await IncrementalMerge.load(repo.git, 'g')).goal).toBe('rebase-with-history');
  });

  it('border goals: all but the last commit of each branch rebased onto the other tip, merged by an apex', async () => {
    const { repo, im } = await completeMerge(3, 3);
    for (const goal of ['border', 'border-with-history', 'border-with-history2'])
      await im.simplify({ goal, branch: goal });
    const border = newCommits(repo, 'border');
    expect(border.map((c) => [c.subject, c.parents])).toEqual([
      ['Merge feature into main (using imerge border)', ['new', 'new']],
      ['feature 1', ['main 3']],
      ['feature 2', ['new']],
      ['main 1', ['feature 3']],
      ['main 2', ['new']],
    ]);
    // No trailing newline on the apex message, as git-imerge writes it.
    expect(border[0]?.body).toBe('Merge feature into main (using imerge border)');
    expect(repo.sh('rev-parse', 'border^{tree}')).toBe(repo.sh('rev-parse', `${im.cellCommit(3, 3)}^{tree}`));
    expect(border[2]?.body).toMatch(/^feature 2\n\n\(rebased from commit [0-9a-f]{40}\)\n$/);
    expect(newCommits(repo, 'border-with-history').map((c) => c.parents)).toEqual([
      ['new', 'new'],
      ['main 3', 'feature 1'],
      ['new', 'feature 2'],
      ['feature 3'],
      ['new'],
    ]);
    // With history on branch 1 too, the original comes first there.
    expect(newCommits(repo, 'border-with-history2').map((c) => c.parents)).toEqual([
      ['new', 'new'],
      ['main 3', 'feature 1'],
      ['new', 'feature 2'],
      ['main 1', 'feature 3'],
      ['main 2', 'new'],
    ]);
  });

  it('simplify --goal rebase refuses a branch 2 with merges and keeps the goal; the other goals accept it', async () => {
    const { repo, im } = await completeMerge(2, 3, [2]);
    await expect(im.simplify({ goal: 'rebase', branch: 'r' })).rejects.toMatchObject({ code: 'imerge_rebase_merges' });
    expect(im.goal).toBe('merge');
    expect(repo.sh('branch', '--list', 'r')).toBe('');
    await im.simplify({ goal: 'rebase-with-history', branch: 'rwh' });
    expect(newCommits(repo, 'rwh').map((c) => c.parents[1])).toEqual(['feature 1', 'feature 2', 'feature 3']);
  });

  it('refuses full when a cell is missing, and the goals only git-imerge can set up', async () => {
    const { im } = await completeMerge(3, 3);
    await expect(im.simplify({ goal: 'full', branch: 'f' })).rejects.toMatchObject({
      code: 'imerge_incomplete',
      message: 'Cannot simplify to "full" because merge 1-1 is not yet done',
    });
    await expect(im.simplify({ goal: 'drop', branch: 'd' })).rejects.toMatchObject({ code: 'imerge_goal_unsupported' });
  });
});
