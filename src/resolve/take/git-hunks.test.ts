import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../git/index.js';
import { TestRepo } from '../../../test/helpers/git-repo.js';
import { takeInWorkingTree } from './take-in-tree.js';

/** A page about conflicts: a marker hunk that is the file's own text, in every version of it. */
const literal = ['<<<<<<< ours', 'example: ours', '=======', 'example: theirs', '>>>>>>> theirs', ''].join('\n');
const page = (value: string): string =>
  `# Conflicts look like this\n\n${literal}\n# spacer\n# spacer\nvalue = ${value}\n`;

/** `git merge` of feature into main stopped on doc.md: a real conflict on `value`, beside the literal hunk. */
function merged(): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'doc.md': page('0') });
  repo.branch('feature');
  repo.commit('fork', { 'doc.md': page('fork') });
  repo.checkout('feature');
  repo.commit('upstream', { 'doc.md': page('up') });
  repo.checkout('main');
  expect(() => repo.sh('merge', '--no-edit', 'feature')).toThrow();
  return repo;
}

describe('take and the marker hunks git made', () => {
  it('a marker hunk present in base, ours and theirs is content: left as it is, not counted, and the file is staged', async () => {
    const repo = merged();
    const git = new Git({ cwd: repo.dir });
    try {
      const outcome = await takeInWorkingTree(git, repo.dir, { choice: 'theirs', path: 'doc.md' });
      expect(outcome.taken).toEqual([{ path: 'doc.md', hunks: [1], staged: true, remembered: 'theirs' }]);
      expect(outcome.left).toEqual([]);
      expect(readFileSync(join(repo.dir, 'doc.md'), 'utf8')).toBe(page('up'));
      expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('');
    } finally {
      git.close();
    }
  });

  it('a hunk a person copied into the file is still a hunk: only what all three sides hold is content', async () => {
    const repo = merged();
    // The person pastes a second copy of git's hunk: it is in the working tree only.
    const text = readFileSync(join(repo.dir, 'doc.md'), 'utf8');
    const hunk = /<<<<<<< HEAD[\s\S]*?>>>>>>> feature\n/.exec(text)![0];
    writeFileSync(join(repo.dir, 'doc.md'), `${text}${hunk}`);
    const git = new Git({ cwd: repo.dir });
    try {
      const outcome = await takeInWorkingTree(git, repo.dir, { choice: 'ours', path: 'doc.md' });
      expect(outcome.taken).toEqual([{ path: 'doc.md', hunks: [1, 2], staged: true, remembered: 'ours' }]);
      expect(readFileSync(join(repo.dir, 'doc.md'), 'utf8')).toBe(`${page('fork')}value = fork\n`);
    } finally {
      git.close();
    }
  });
});
