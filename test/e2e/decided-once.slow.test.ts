import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { configureMemoryClone, git, handoffDir } from '../fixtures/resolve/memory-clone.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * A lockfile and a translation are decided once per merge, not once per fork commit: the fork's
 * commits each touch Gemfile.lock and a locale file, upstream's too, so the grid conflicts on them
 * in several cells; the person takes upstream's whole files at the first, and no later cell is
 * handed over. The command that regenerates the lockfile is said once, at the end and in the record.
 */
const gemfileLock = (rails: string, rack: string): string =>
  `GEM\n  remote: https://rubygems.org/\n  specs:\n    rails (${rails})\n    rack (${rack})\n\nDEPENDENCIES\n  rails\n`;
const locale = (hello: string, extra: string[] = []): string =>
  ['en:', `  hello: "${hello}"`, '  a: "1"', '  b: "2"', '  c: "3"', '  d: "4"', ...extra, ''].join('\n');
const LOCALE = 'config/locales/en.yml';

/** Four fork commits and two upstream commits, each changing the same lines of both files. */
function forkRepo(): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'Gemfile.lock': gemfileLock('1.0', '1.0'), [LOCALE]: locale('Hello') });
  repo.branch('upstream');
  for (let k = 1; k <= 4; k++)
    // The fork's own key, added away from the conflicting line, must survive upstream's side being taken.
    repo.commit(`fork ${k}`, {
      'Gemfile.lock': gemfileLock(`1.0.${k}`, '1.0'),
      [LOCALE]: locale(`Hello fork ${k}`, ['  fork_only: "kept"']),
      [`fork${k}.txt`]: `${k}\n`,
    });
  repo.checkout('upstream');
  for (let k = 1; k <= 2; k++)
    repo.commit(`upstream ${k}`, {
      'Gemfile.lock': gemfileLock(`2.${k}`, `2.${k}`),
      [LOCALE]: locale(`Hello upstream ${k}`),
      [`up${k}.txt`]: `${k}\n`,
    });
  repo.checkout('main');
  return repo;
}

describe('generated files and translations decided once per merge', () => {
  it('a whole-file take at the first conflict settles every later one; the lockfile command is said once', async () => {
    const repo = forkRepo();
    // review_drops: ask hands over a drop without a recorded reason: a side decided once is the person's reason.
    configureMemoryClone(repo.dir, ['merge:', '  batch_handoff: false', 'resolve:', '  review_drops: ask']);
    const first = await runCli(['merge', 'upstream'], repo.dir);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(/The side you take is taken again at every later conflict on it in this merge/);
    const wt = handoffDir(first);

    const lock = await runCli(['take', 'theirs', 'Gemfile.lock'], wt);
    expect(lock.code, lock.stderr).toBe(0);
    expect(lock.stdout).toMatch(/Gemfile\.lock: later conflicts in this file in this merge take upstream \(theirs\)/);
    const words = await runCli(['take', 'theirs', LOCALE], wt);
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toMatch(/en\.yml: later conflicts in this file in this merge take upstream \(theirs\)/);
    expect(words.stdout).toMatch(/Then: splintercat continue/);

    const done = await runCli(['continue'], wt);
    // Not handed over again: every later conflict on the two files took upstream's side.
    expect(done.code, `${done.stderr}\n${done.stdout}`).toBe(0);
    const state = JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8')) as {
      conflicts: Array<{ id: string; files: Array<{ path: string; decidedBy?: string; note?: string }> }>;
    };
    const later = state.conflicts.filter((c) => c.id !== state.conflicts[0]?.id);
    expect(later.length).toBeGreaterThanOrEqual(2);
    for (const c of later)
      for (const f of c.files.filter((x) => x.path === 'Gemfile.lock' || x.path === LOCALE)) {
        expect(f.decidedBy).toBe('cache');
        expect(f.note).toMatch(/^decided once for this merge \(at \d+-\d+ by the person\): upstream's/);
      }
    expect(git(repo.dir, 'show', 'main:Gemfile.lock')).toBe(gemfileLock('2.2', '2.2').trimEnd());
    const words2 = git(repo.dir, 'show', `main:${LOCALE}`);
    expect(words2).toMatch(/hello: "Hello upstream 2"/);
    expect(words2).toMatch(/fork_only: "kept"/);

    // The regenerate command is said once, however many cells took the lockfile's side.
    const all = `${first.stderr}${done.stderr}${done.stdout}`;
    expect(all.match(/run later on the merged tree, then commit: `bundle lock`/g)?.length).toBe(1);
    const message = git(repo.dir, 'log', '-1', '--format=%B', 'main');
    expect(message.match(/`bundle lock`/g)?.length).toBe(1);
    expect(message).toMatch(/Gemfile\.lock: upstream's side at every conflict, decided once at \d+-\d+ by the person/);
    const note = JSON.parse(git(repo.dir, 'notes', '--ref=splintercat', 'show', 'main')) as {
      runLater: Array<{ command: string; paths: string[] }>;
    };
    expect(note.runLater).toEqual([{ command: 'bundle lock', paths: ['Gemfile.lock'] }]);
  });

  it('take on a lockfile: the whole side with no file named; a refusal lists each fix once', async () => {
    const repo = forkRepo();
    expect(() => repo.sh('merge', '--no-edit', 'upstream')).toThrow();
    const hunk = await runCli(['take', 'theirs', 'Gemfile.lock', '1'], repo.dir);
    expect(hunk.code).toBe(2);
    const fixes = hunk.stderr.split('\n').filter((l) => /splintercat take (ours|theirs)/.test(l));
    expect(fixes.length).toBeGreaterThan(0);
    expect(new Set(fixes.map((l) => l.trim().replace(/^\d+\.\s*/, ''))).size).toBe(fixes.length);
    expect(hunk.stderr).not.toMatch(/Gemfile\.lock \[content\]/);

    const all = await runCli(['take', 'theirs'], repo.dir);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/Gemfile\.lock: took theirs for the whole file/);
    expect(readFileSync(join(repo.dir, 'Gemfile.lock'), 'utf8')).toBe(gemfileLock('2.2', '2.2'));
  });
});
