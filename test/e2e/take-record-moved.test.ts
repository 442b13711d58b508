import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

const text = (a: string, b: string, around = ''): string =>
  ['l1', `${a}`, `l3${around}`, 'l4', 'l5', 'l6', 'l7', `${b}`, 'l9', ''].join('\n');

interface Note {
  conflicts: Array<{
    files: Array<{ path: string; hunks: Array<{ rung: string; choice?: string; person?: string }> }>;
  }>;
}

describe('a take records its choice on the hunk it settled', () => {
  it(
    'the record says "ours" for a hunk taken ours whose surrounding lines the person then edited',
    { timeout: 120_000 },
    async () => {
      const repo = TestRepo.create();
      repo.commit('base', { 'a.txt': text('A base', 'B base') });
      repo.branch('up');
      repo.commit('fork', { 'a.txt': text('A fork', 'B fork') });
      repo.checkout('up');
      repo.commit('upstream', { 'a.txt': text('A upstream', 'B upstream') });
      repo.checkout('main');
      writeFileSync(
        join(repo.dir, 'splintercat.yaml'),
        'target:\n  branch: main\ncheck:\n  commands: {}\n  workflow: []\nimerge:\n  name: up\n',
      );
      writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
      const merged = await runCli(['merge', 'up'], repo.dir);
      expect(merged.code, merged.stderr).toBe(3);
      const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
        handoff: { conflicts: Array<{ worktree: string }> };
      };
      const worktree = status.handoff.conflicts[0]!.worktree;
      expect((await runCli(['take', 'ours', 'a.txt', '1'], worktree)).code).toBe(0);
      // The person edits the lines around the hunk they took: it can no longer be found by them.
      const file = join(worktree, 'a.txt');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/^l1\n/, 'l1 edited\n').replace(/^l3\n/m, 'l3 edited\n'));
      expect((await runCli(['take', 'theirs', 'a.txt', '2'], worktree)).code).toBe(0);
      const done = await runCli(['continue'], worktree);
      expect(done.code, done.stderr).toBe(0);
      expect(`${repo.sh('show', 'main:a.txt')}\n`).toBe(
        ['l1 edited', 'A fork', 'l3 edited', 'l4', 'l5', 'l6', 'l7', 'B upstream', 'l9', ''].join('\n'),
      );

      const message = repo.sh('log', '-1', '--format=%B', 'main');
      expect(message).toMatch(/^ {4}a\.txt: 1 hunk by a person \(ours\), 1 hunk by a person \(theirs\) \[cell 1-1\]$/m);
      const note = JSON.parse(repo.sh('notes', '--ref=splintercat', 'show', 'main')) as Note;
      const hunks = note.conflicts.flatMap((c) => c.files).find((f) => f.path === 'a.txt')?.hunks;
      expect(hunks).toEqual([
        expect.objectContaining({ rung: 'person', choice: 'ours' }),
        expect.objectContaining({ rung: 'person', choice: 'theirs' }),
      ]);
      // Its answer is learnt too, for the same conflict met again.
      expect(done.stderr).not.toMatch(/not located in their file/);
    },
  );
});
