import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { configureMemoryClone, git, handoffDir } from '../fixtures/resolve/memory-clone.js';
import { TestRepo, tempDir } from '../helpers/git-repo.js';

/**
 * The fork's memory gives the same merge: a person's whole result for a file (their edits outside
 * the conflict hunks included) is replayed where the file's three sides are as they were, in this
 * clone and in a fresh clone that imported the exported cache.
 */
const configure = (dir: string): void => configureMemoryClone(dir, []);

const pkg = (version: string, router: string) =>
  `{\n  "name": "app",\n  "version": "${version}",\n  "description": "an app",\n  "license": "MIT",\n  "dependencies": {\n    "router": "${router}"\n  }\n}\n`;

/** A fork and an upstream that both bump the version: one hunk; the router line is the same on both sides. */
function forkRepo(): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'package.json': pkg('1.0.0', '~1.1.5'), 'History.md': '1.0.0\n=====\n\n  * first\n' });
  repo.branch('upstream');
  repo.commit('fork: 1.0.0-fork', { 'package.json': pkg('1.0.0-fork', '~1.1.5') });
  repo.checkout('upstream');
  repo.commit('upstream: 1.1.0', { 'package.json': pkg('1.1.0', '~1.1.5') });
  repo.checkout('main');
  return repo;
}

describe('memory that gives the same merge', () => {
  it('a fresh clone with the imported cache rebuilds the same tree, edits outside the hunks included', async () => {
    const a = forkRepo();
    const remote = join(tempDir(), 'shared.git');
    git(a.dir, 'init', '-q', '--bare', remote);
    git(a.dir, 'remote', 'add', 'origin', remote);
    git(a.dir, 'push', '-q', 'origin', 'main', 'upstream');
    configure(a.dir);
    const first = await runCli(['merge', 'upstream'], a.dir);
    expect(first.code, first.stderr).toBe(3);
    const wt = handoffDir(first);
    // The person settles the hunk and, in the same file, bumps the router (outside any hunk).
    const resolved = pkg('1.1.0-fork', '~1.3.0');
    writeFileSync(join(wt, 'package.json'), resolved);
    const done = await runCli(['continue'], wt);
    expect(done.code, done.stderr).toBe(0);
    expect(git(a.dir, 'show', 'main:package.json')).toBe(resolved.trimEnd());

    // The same merge done again in this clone (into a branch at the fork's old tip) gives the same tree.
    git(a.dir, 'branch', 'redo', 'main^1');
    const redo = await runCli(['merge', 'upstream', '--into', 'redo', '--name', 'again'], a.dir);
    expect(redo.code, redo.stderr).toBe(0);
    expect(git(a.dir, 'rev-parse', 'redo^{tree}')).toBe(git(a.dir, 'rev-parse', 'main^{tree}'));

    expect((await runCli(['cache', 'export'], a.dir)).code).toBe(0);
    git(a.dir, 'push', '-q', 'origin', 'refs/splintercat/cache');
    const b = join(tempDir(), 'b');
    git(a.dir, 'clone', '-q', '-b', 'main', remote, b);
    git(b, 'config', 'user.name', 'B');
    git(b, 'config', 'user.email', 'b@example.com');
    git(b, 'branch', 'upstream', 'origin/upstream');
    git(b, 'fetch', '-q', 'origin', '+refs/splintercat/cache:refs/splintercat/cache');
    expect((await runCli(['cache', 'import'], b)).code).toBe(0);
    configure(b);
    const again = await runCli(['merge', 'upstream'], b);
    expect(again.code, `${git(b, 'branch', '-a')}\n${again.stderr}`).toBe(0);
    expect(git(b, 'rev-parse', 'main^{tree}')).toBe(git(a.dir, 'rev-parse', 'main^{tree}'));
    expect(readFileSync(join(b, 'package.json'), 'utf8')).toBe(resolved);
  });

  it('five consecutive release merges in one clone: a later merge meeting an earlier conflict is not asked again', async () => {
    const conf = (mode: string, keep: string) => `mode = ${mode}\n# one\n# two\nkeep = ${keep}\n`;
    const repo = TestRepo.create();
    repo.commit('base', { 'conf.txt': conf('0', '1') });
    repo.branch('upstream');
    repo.commit('fork: its own mode', { 'conf.txt': conf('fork', '1') });
    repo.checkout('upstream');
    // Upstream toggles its default release after release: the fork meets the same conflicts again.
    const modes = ['a', '0', 'a', '0', 'a'];
    modes.forEach((mode, k) => {
      repo.commit(`upstream: release ${k + 1}`, { 'conf.txt': conf(mode, '1'), [`r${k + 1}.txt`]: `${k + 1}\n` });
      repo.sh('tag', `r${k + 1}`);
    });
    repo.checkout('main');
    configure(repo.dir);
    const handoffs: number[] = [];
    for (let k = 1; k <= modes.length; k++) {
      const run = await runCli(['merge', `r${k}`, '--name', `rel${k}`], repo.dir);
      if (run.code === 3) {
        handoffs.push(1);
        const wt = handoffDir(run);
        // The person keeps the fork's mode and, in the same file, bumps a setting outside the hunk.
        writeFileSync(join(wt, 'conf.txt'), conf('fork', '2'));
        const done = await runCli(['continue', '--name', `rel${k}`], wt);
        expect(done.code, done.stderr).toBe(0);
      } else {
        expect(run.code, run.stderr).toBe(0);
        handoffs.push(0);
      }
      expect(repo.sh('show', 'main:conf.txt')).toBe(conf('fork', '2').trimEnd());
    }
    // Releases 3 to 5 meet the conflicts of releases 1 and 2 again: answered from the memory.
    expect(handoffs).toEqual([1, 1, 0, 0, 0]);
  });
});
