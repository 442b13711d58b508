import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

const base = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
const text = (edits: Record<number, string>): string => base.map((x, i) => `${edits[i] ?? x}\n`).join('');

function merged(
  files: { main: Record<string, string | null>; feature: Record<string, string | null>; base?: Record<string, string> },
  style = 'merge',
): TestRepo {
  const repo = TestRepo.create();
  repo.sh('config', 'merge.conflictStyle', style);
  repo.commit('base', files.base ?? { 'a.txt': text({}), 'b.txt': text({}), 'm.txt': text({}) });
  repo.branch('feature');
  repo.commit('main', files.main);
  repo.checkout('feature');
  repo.commit('feature', files.feature);
  repo.checkout('main');
  try {
    repo.sh('merge', '--no-edit', 'feature');
  } catch {
    // conflicts expected
  }
  return repo;
}

describe('splintercat resolve', () => {
  it('stages what the ladder resolves and reports the rest per file and hunk (exit 3)', async () => {
    const repo = merged({
      main: { 'a.txt': text({ 1: 'BETA  ' }), 'b.txt': text({ 1: 'beta main' }), 'm.txt': text({ 2: 'changed' }) },
      feature: { 'a.txt': text({ 1: 'BETA' }), 'b.txt': text({ 1: 'beta feature' }), 'm.txt': null },
    });
    const r = await runCli(['resolve', '--json'], repo.dir);
    expect(r.code).toBe(3);
    const out = JSON.parse(r.stdout) as {
      resolved: boolean;
      files: Array<{
        path: string;
        status: string;
        remaining: unknown[];
        resolutions: Array<{ by: string }>;
        decision?: { kind: string; options: Array<{ action: string }> };
      }>;
    };
    expect(out.resolved).toBe(false);
    const byPath = Object.fromEntries(out.files.map((f) => [f.path, f]));
    expect(byPath['a.txt']).toMatchObject({ status: 'resolved', resolutions: [{ by: 'whitespace-only' }] });
    expect(byPath['b.txt']).toMatchObject({ status: 'open', remaining: [{ index: 1, startLine: 2 }] });
    expect(byPath['m.txt']?.decision?.kind).toBe('modify/delete');
    expect(byPath['m.txt']?.decision?.options.map((o) => o.action)).toEqual(['keep-ours', 'delete']);
    expect(repo.sh('diff', '--name-only', '--diff-filter=U').split('\n').sort()).toEqual(['b.txt', 'm.txt']);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe(text({ 1: 'BETA  ' }));
    // b.txt untouched: its markers are still git's own
    expect(readFileSync(join(repo.dir, 'b.txt'), 'utf8')).toMatch(
      /^<<<<<<< HEAD\nbeta main\n=======\nbeta feature\n>>>>>>> feature\n/m,
    );

    const human = await runCli(['resolve'], repo.dir);
    expect(human.code).toBe(3);
    expect(human.stdout).toMatch(/b\.txt: 1 hunk\(s\) left \(lines 2-6\)/);
    expect(human.stdout).toMatch(/m\.txt: needs a decision \(modify\/delete\)/);
  });

  it('exits 0 when everything is resolved, so the merge can be committed', async () => {
    const repo = merged(
      {
        base: { 'a.txt': text({}), 'gone.txt': 'x\n' },
        main: { 'a.txt': text({ 1: 'BETA  ', 7: 'theta main' }), 'gone.txt': null },
        feature: { 'a.txt': text({ 1: 'BETA', 7: 'theta main' }), 'gone.txt': null },
      },
      'diff3',
    );
    expect(repo.sh('diff', '--name-only', '--diff-filter=U')).toBe('a.txt');
    const r = await runCli(['resolve', 'a.txt'], repo.dir);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/a\.txt: resolved and staged \(hunk 1 by whitespace-only\)/);
    repo.sh('commit', '--no-edit');
    expect(existsSync(join(repo.dir, '.git', 'splintercat', 'cache'))).toBe(true);
  });

  it("keeps the user's edits outside the conflict hunks", async () => {
    const repo = merged({
      base: { 'a.txt': text({}) },
      main: { 'a.txt': text({ 1: 'BETA  ' }) },
      feature: { 'a.txt': text({ 1: 'BETA' }) },
    });
    const file = join(repo.dir, 'a.txt');
    writeFileSync(file, readFileSync(file, 'utf8').replace('kappa', 'kappa edited by hand'));
    const r = await runCli(['resolve'], repo.dir);
    expect(r.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text({ 1: 'BETA  ', 9: 'kappa edited by hand' }));
  });

  it('says so when nothing is unmerged', async () => {
    const repo = TestRepo.create();
    repo.commit('one', { 'a.txt': 'a\n' });
    const r = await runCli(['resolve'], repo.dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/No unmerged paths/);
  });
});
