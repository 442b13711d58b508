import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

/**
 * The record of a merge a person finished: the message states the checks' verdict on the final tree as the
 * README shows it, names the person, and says what each choice was (a whole file taken, a file deleted, a hunk
 * taken); the note stores the same explicitly.
 */
function configure(repo: TestRepo, check: string): void {
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    [
      'target:',
      '  branch: main',
      'check:',
      '  commands:',
      `    test: ${JSON.stringify(check)}`,
      '  workflow: [test]',
      'imerge:',
      '  name: up',
      '',
    ].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
}

const lock = (v: string): string =>
  Array.from({ length: 12 }, (_, k) => `pkg${k} ${k % 4 === 0 ? v : 'same'}\n# pad\n# pad\n`).join('');

/** A generated lock file changed everywhere on both sides, a changelog the fork edits and upstream deletes, and a one-line config. */
function recordRepo(): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', {
    'gen.lock': lock('1.0'),
    'History.md': '# History\n\n1.0 released\n',
    'a.txt': 'name = base\n',
    'ok.mjs': "console.log('  1 passing (1ms)');\n",
  });
  repo.branch('up');
  repo.commit('fork', {
    'gen.lock': lock('1.1-fork'),
    'History.md': '# History\n\n1.0 released\n1.1 fork\n',
    'a.txt': 'name = fork\n',
  });
  repo.checkout('up');
  repo.commit('upstream', { 'gen.lock': lock('2.0'), 'History.md': null, 'a.txt': 'name = upstream\n' });
  repo.checkout('main');
  return repo;
}

interface Note {
  splintercat: number;
  verdict: string;
  checksOnMerge: Array<{ name: string; reading: string; inherited: number }>;
  checks: Array<{ name: string; success: boolean; verdict?: string }>;
  conflicts: Array<{
    files: Array<{
      path: string;
      kind: string;
      whole?: string;
      person?: string;
      hunks: Array<{ rung: string; choice?: string; person?: string }>;
    }>;
  }>;
}

describe('the merge record is the truth of what happened', () => {
  it(
    'a whole-file take, a git rm and a hunk take, by a named person; "Checks on the merge: test passed."',
    { timeout: 120_000 },
    async () => {
      const repo = recordRepo();
      configure(repo, 'node ok.mjs');
      const merged = await runCli(['merge', 'up'], repo.dir);
      expect(merged.code, merged.stderr).toBe(3);
      const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
        handoff: { conflicts: Array<{ worktree: string }> };
      };
      const worktree = status.handoff.conflicts[0]!.worktree;
      const wt = new TestRepo(worktree);
      // The generated file as upstream has it, whole; the changelog upstream removed, removed; the config's one hunk, ours.
      wt.sh('checkout', '--theirs', '--', 'gen.lock');
      wt.sh('add', 'gen.lock');
      wt.sh('rm', '-q', 'History.md');
      const took = await runCli(['take', 'ours', 'a.txt', '1'], worktree);
      expect(took.code, took.stderr).toBe(0);
      const done = await runCli(['continue'], worktree);
      expect(done.code, done.stderr).toBe(0);

      expect(repo.sh('show', 'main:gen.lock')).toBe(lock('2.0').trimEnd());
      const message = repo.sh('log', '-1', '--format=%B', 'main');
      expect(message).toMatch(/^ {4}gen\.lock: whole file: theirs, by a person \[cell 1-1\]$/m);
      expect(message).toMatch(/^ {4}History\.md \(modify\/delete\): deleted by a person \(git rm\) \[cell 1-1\]$/m);
      expect(message).toMatch(/^ {4}a\.txt: 1 hunk by a person \(ours\) \[cell 1-1\]$/m);
      expect(message).toContain('\nSettled by hand: Test User <test@example.com>.\n');
      expect(message).toContain('\nChecks on the merge: test passed.\n');

      const note = JSON.parse(repo.sh('notes', '--ref=splintercat', 'show', 'main')) as Note;
      expect(note.splintercat).toBe(1);
      expect(note.verdict).toBe('validated');
      expect(note.checksOnMerge).toEqual([{ name: 'test', reading: 'passed', inherited: 0 }]);
      const files = Object.fromEntries(note.conflicts.flatMap((c) => c.files).map((f) => [f.path, f]));
      expect(files['gen.lock']).toMatchObject({ whole: 'theirs', person: 'Test User <test@example.com>' });
      expect(files['History.md']).toMatchObject({
        kind: 'modify/delete',
        whole: 'deleted',
        person: 'Test User <test@example.com>',
      });
      expect(files['a.txt']?.whole).toBeUndefined();
      expect(files['a.txt']?.hunks).toEqual([
        expect.objectContaining({ rung: 'person', choice: 'ours', person: 'Test User <test@example.com>' }),
      ]);
    },
  );
});
