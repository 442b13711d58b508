import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/index.js';
import { listUnmerged, resolveWorkingTree } from '../../src/resolve/index.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { gitSpy } from '../helpers/git-spy.js';

describe('resolveWorkingTree', () => {
  it('asks git for the top level only when the caller does not know it', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'f.txt': 'a\nb\nc\n' });
    repo.branch('feature');
    repo.commit('main', { 'f.txt': 'a\nB main\nc\n' });
    repo.checkout('feature');
    repo.commit('feature', { 'f.txt': 'a\nB feature\nc\n' });
    repo.checkout('main');
    expect(() => repo.sh('merge', '--no-edit', 'feature')).toThrow();
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    onTestFinished(() => git.close());

    const told = await resolveWorkingTree(git, { top: repo.dir, rules: [] });
    expect(told.map((r) => [r.path, r.status, r.remaining.length])).toEqual([['f.txt', 'open', 1]]);
    expect(spy.calls().some((c) => c.startsWith('rev-parse'))).toBe(false);

    spy.reset();
    expect(await resolveWorkingTree(git, { rules: [] })).toEqual(told);
    expect(spy.calls()).toContain('rev-parse --show-toplevel');
  });

  it('takes the unmerged entries from a caller that has just listed them', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'f.txt': 'a\nb\nc\n', 'g.txt': 'g\n' });
    repo.branch('feature');
    repo.commit('main', { 'f.txt': 'a\nB main\nc\n', 'g.txt': 'g main\n' });
    repo.checkout('feature');
    repo.commit('feature', { 'f.txt': 'a\nB feature\nc\n', 'g.txt': 'g feature\n' });
    repo.checkout('main');
    expect(() => repo.sh('merge', '--no-edit', 'feature')).toThrow();
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    onTestFinished(() => git.close());
    const unmerged = await listUnmerged(git);
    spy.reset();
    const results = await resolveWorkingTree(git, { top: repo.dir, unmerged: unmerged.slice(1), rules: [] });
    expect(results.map((r) => [r.path, r.status])).toEqual([['g.txt', 'open']]);
    expect(spy.calls().filter((c) => c.startsWith('ls-files'))).toEqual([]);
  });

  it('does not hand a file that is not UTF-8 to the model: it goes to a person with every byte kept', async () => {
    const repo = TestRepo.create();
    const file = (line: string): Buffer =>
      Buffer.concat([
        Buffer.from('caf\xe9\n', 'latin1'),
        Buffer.from(`${line}\n`),
        Buffer.from('cr\xe8me\n', 'latin1'),
      ]);
    writeFileSync(join(repo.dir, 'f.txt'), file('b'));
    repo.sh('add', '-A');
    repo.sh('commit', '-q', '-m', 'base');
    repo.branch('feature');
    writeFileSync(join(repo.dir, 'f.txt'), file('B main'));
    repo.sh('commit', '-q', '-am', 'main');
    repo.checkout('feature');
    writeFileSync(join(repo.dir, 'f.txt'), file('B feature'));
    repo.sh('commit', '-q', '-am', 'feature');
    repo.checkout('main');
    expect(() => repo.sh('merge', '--no-edit', 'feature')).toThrow();
    const before = readFileSync(join(repo.dir, 'f.txt'));
    const git = new Git({ cwd: repo.dir, env: testGitEnv });
    onTestFinished(() => git.close());
    let asked = 0;
    const results = await resolveWorkingTree(git, {
      top: repo.dir,
      fallback: async (_f, hunks) => {
        asked++;
        return hunks.map((h) => ({ hunkIndex: h.index, text: 'model\n', rung: 'model' as const, by: 'm' }));
      },
    });
    expect(asked).toBe(0);
    expect(results[0]).toMatchObject({ path: 'f.txt', status: 'open', note: expect.stringMatching(/not valid UTF-8/) });
    expect(readFileSync(join(repo.dir, 'f.txt')).equals(before)).toBe(true);
  });

  it("reads git's default merge-style hunks through a diff3 re-merge, and keeps a file the user edited", async () => {
    const section = (v: string, note: string): string => `## ${v}\n\n* ${note}\n\n`;
    const rest = section('1.0.0', 'first');
    const repo = TestRepo.create();
    repo.commit('base', { 'CHANGELOG.md': `# Changelog\n\n${rest}` });
    repo.branch('feature');
    repo.commit('main', { 'CHANGELOG.md': `# Changelog\n\n${section('2.0.0', 'main')}${rest}` });
    repo.checkout('feature');
    repo.commit('feature', { 'CHANGELOG.md': `# Changelog\n\n${section('1.1.0', 'feature')}${rest}` });
    repo.checkout('main');
    const merge = (): void => {
      repo.sh('reset', '-q', '--hard');
      expect(() => repo.sh('merge', '--no-edit', 'feature')).toThrow();
    };
    merge();
    const path = join(repo.dir, 'CHANGELOG.md');
    // git's default style moved the blank line both sides end with out of the hunk: no base, another shape.
    expect(readFileSync(path, 'utf8')).not.toContain('|||||||');
    const git = new Git({ cwd: repo.dir, env: testGitEnv });
    onTestFinished(() => git.close());

    const [resolved] = await resolveWorkingTree(git, { top: repo.dir });
    expect(resolved).toMatchObject({ path: 'CHANGELOG.md', status: 'resolved' });
    expect(readFileSync(path, 'utf8')).toBe(
      `# Changelog\n\n${section('2.0.0', 'main')}${section('1.1.0', 'feature')}${rest}`,
    );

    merge();
    writeFileSync(path, `${readFileSync(path, 'utf8')}an edit of the user's\n`);
    const edited = readFileSync(path, 'utf8');
    const [kept] = await resolveWorkingTree(git, { top: repo.dir });
    expect(kept).toMatchObject({ path: 'CHANGELOG.md', status: 'open' });
    expect(readFileSync(path, 'utf8')).toBe(edited);
  });
});
