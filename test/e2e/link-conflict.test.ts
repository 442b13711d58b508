import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestRepo } from '../helpers/git-repo.js';
import { forkAndUpstream, handedWorktrees, runCli } from '../fixtures/resolve/cli.js';

const SECRET = 'AKIA-link-conflict-secret';

/** Every file's text under `dir`, links not followed (the run's own records). */
function textsUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'latin1'))
    .join('\n');
}

/**
 * A hostile upstream repoints two links the fork also repointed: `pipe` at a FIFO outside the
 * repository (reading through it never returns) and `key` at a secret file that holds conflict
 * markers (read through, it would look like a text conflict still open).
 */
function linkRepo(outside: string): TestRepo {
  execFileSync('mkfifo', [join(outside, 'fifo')]);
  writeFileSync(join(outside, 'secret'), `<<<<<<< ours\n${SECRET}\n=======\nx\n>>>>>>> theirs\n`);
  const point =
    (targets: Record<string, string>) =>
    (repo: TestRepo): void => {
      for (const [name, target] of Object.entries(targets)) {
        execFileSync('rm', ['-f', join(repo.dir, name)]);
        symlinkSync(target, join(repo.dir, name));
      }
      repo.sh('add', '-A');
    };
  return forkAndUpstream(
    {
      change: (repo) => {
        repo.write({ 'x.txt': 'x\n' });
        point({ pipe: 'x.txt', key: 'x.txt' })(repo);
      },
      subject: 'base',
    },
    { change: point({ pipe: 'fork-pipe', key: 'fork-key' }), subject: 'fork: repoint the links' },
    {
      change: point({ pipe: join(outside, 'fifo'), key: join(outside, 'secret') }),
      subject: 'upstream: repoint the links outside',
    },
  );
}

describe('a conflict on links that point outside the repository', () => {
  it(
    'an untouched link is refused as unmerged (never read through), and the side taken is the link itself',
    { timeout: 120_000 },
    async () => {
      const outside = realpathSync(mkdtempSync(join(tmpdir(), 'link-outside-')));
      const repo = linkRepo(outside);
      const merged = await runCli(['merge', 'up'], repo.dir);
      expect(merged.code, merged.stderr).toBe(3);
      // No check is configured: said once at the start, not left for the last line to reveal.
      expect(merged.stdout + merged.stderr).toContain(
        'no check is configured (check.workflow: none; check.commands defines none): the merge is made but not validated',
      );
      expect(merged.stdout + merged.stderr).toContain(
        "key [symlink]: both sides point the symlink at different targets; a person must pick one (or make a new version); there are no conflict markers. Take the fork side's version: `git checkout --ours -- key && git add -- key`",
      );

      // Nothing done: git left our side's links, which is no choice; neither link is read through.
      const untouched = await runCli(['continue'], repo.dir);
      expect(untouched.code, untouched.stderr).toBe(3);
      for (const name of ['key', 'pipe'])
        expect(untouched.stdout + untouched.stderr).toContain(
          `${name} is still unmerged and unchanged: take one side (\`splintercat take ours ${name}\`, or theirs), or edit it`,
        );
      expect(untouched.stdout + untouched.stderr).not.toMatch(/still has conflict markers/);

      const [worktree] = await handedWorktrees(repo.dir);
      for (const name of ['key', 'pipe']) {
        const take = await runCli(['take', 'theirs', name], worktree!);
        expect(take.code, take.stderr).toBe(0);
        expect(take.stdout).toContain(`${name}: took theirs for the whole file: kept the upstream side's link`);
      }
      const done = await runCli(['continue'], repo.dir);
      expect(done.code, done.stderr).toBe(0);
      // No check is configured: every cell's plan says so, never that every workflow check is selected.
      expect(done.stdout + done.stderr).toContain('no check (check.workflow names none)');
      expect(done.stdout + done.stderr).not.toContain('every workflow check is selected');

      // The merge records the links as git stores them; nothing of what they point at was read.
      expect(
        repo
          .sh('ls-tree', 'main', 'key', 'pipe')
          .split('\n')
          .map((l) => l.split(' ')[0]),
      ).toEqual(['120000', '120000']);
      expect(repo.sh('cat-file', 'blob', 'main:key')).toBe(join(outside, 'secret'));
      expect(repo.sh('cat-file', 'blob', 'main:pipe')).toBe(join(outside, 'fifo'));
      expect(statSync(join(outside, 'fifo')).isFIFO()).toBe(true);
      const report = await runCli(['report'], repo.dir);
      expect(report.stdout + textsUnder(join(repo.dir, '.git', 'splintercat'))).not.toContain(SECRET);
    },
  );
});
