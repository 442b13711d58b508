import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/index.js';
import { policyWarnings, resolveWorkingTree, selectRules, sandboxedRegenerateRunner } from '../../src/resolve/index.js';
import { pathRules, regenerateCommands } from '../../src/resolve/policy/path-policy.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { regenerateConfig } from '../helpers/regenerate-config.js';

/**
 * main and feature both edit the same line of every file, and main deletes gone.txt that
 * feature edits; the merge of feature into main stops with all of them conflicted.
 */
function conflicted(): { repo: TestRepo; git: Git } {
  const repo = TestRepo.create();
  const files = ['locales/fr.json', 'NEWS', 'src/a.c', 'notes.txt', 'package-lock.json'];
  repo.commit('base', { ...Object.fromEntries(files.map((f) => [f, `head\nbase ${f}\ntail\n`])), 'gone.txt': 'g\n' });
  repo.branch('feature');
  repo.commit('main', { ...Object.fromEntries(files.map((f) => [f, `head\nfork ${f}\ntail\n`])), 'gone.txt': null });
  repo.checkout('feature');
  repo.commit('feature', {
    ...Object.fromEntries(files.map((f) => [f, `head\nupstream ${f}\ntail\n`])),
    'gone.txt': 'g2\n',
  });
  repo.checkout('main');
  expect(() => repo.sh('-c', 'merge.conflictStyle=diff3', 'merge', '--no-edit', 'feature')).toThrow();
  const git = new Git({ cwd: repo.dir, env: testGitEnv });
  onTestFinished(() => git.close());
  return { repo, git };
}

describe('resolve.paths in a conflicted working tree', () => {
  it('settles each path as its rule says and leaves the rest, with the hunks to hand over', async () => {
    const { repo, git } = conflicted();
    const paths = {
      'locales/*.json': 'theirs',
      NEWS: 'union theirs-first',
      'src/**': 'person',
      'gone.txt': 'ours',
      'package-lock.json': { regenerate: `printf 'regenerated\\n' > package-lock.json` },
    } as const;
    const results = await resolveWorkingTree(git, {
      top: repo.dir,
      rules: selectRules(),
      policy: pathRules(paths),
      regenerate: regenerateCommands({ paths, regenerate: {} }),
      runCommand: sandboxedRegenerateRunner(regenerateConfig(repo.dir)),
    });
    const by = Object.fromEntries(results.map((r) => [r.path, [r.status, r.resolutions.map((x) => x.by), r.policy]]));
    expect(by).toEqual({
      'locales/fr.json': ['resolved', ['locales/*.json: theirs'], undefined],
      NEWS: ['resolved', ['NEWS: union theirs-first'], undefined],
      'src/a.c': ['open', [], undefined],
      'notes.txt': ['open', [], undefined],
      'gone.txt': ['resolved', [], 'gone.txt: ours'],
      'package-lock.json': ['open', [], undefined],
    });
    expect(readFileSync(join(repo.dir, 'locales/fr.json'), 'utf8')).toBe('head\nupstream locales/fr.json\ntail\n');
    expect(readFileSync(join(repo.dir, 'NEWS'), 'utf8')).toBe('head\nupstream NEWS\nfork NEWS\ntail\n');
    // ours deleted it: the policy keeps the deletion.
    expect(existsSync(join(repo.dir, 'gone.txt'))).toBe(false);
    const human = results.find((r) => r.path === 'src/a.c');
    expect(human?.note).toBe("the fork's policy hands src/** to a person (resolve.paths)");
    expect(human?.remaining).toEqual([
      {
        index: 1,
        startLine: 2,
        endLine: 8,
        number: 1,
        sides: { base: 'base src/a.c\n', ours: 'fork src/a.c\n', theirs: 'upstream src/a.c\n' },
      },
    ]);
    // The lockfile waits for the other files (its manifest) to be settled.
    expect(results.find((r) => r.path === 'package-lock.json')?.note).toMatch(/not resolved yet/);
  });

  it('regenerates a lockfile decided {regenerate: COMMAND} once the rest is settled; a failing command leaves it, with its output', async () => {
    const { repo, git } = conflicted();
    const settle = {
      '*.json': 'ours',
      NEWS: 'ours',
      'src/**': 'ours',
      'notes.txt': 'ours',
      'gone.txt': 'theirs',
    } as const;
    const run = async (command: string) => {
      const paths = { 'package-lock.json': { regenerate: command }, ...settle } as const;
      return resolveWorkingTree(git, {
        top: repo.dir,
        rules: [],
        policy: pathRules(paths),
        regenerate: regenerateCommands({ paths, regenerate: {} }),
        runCommand: sandboxedRegenerateRunner(regenerateConfig(repo.dir)),
      });
    };
    const failed = await run('echo "npm ERR! network unreachable" >&2; exit 7');
    const lock = failed.find((r) => r.path === 'package-lock.json');
    expect(lock?.status).toBe('open');
    expect(lock?.note).toMatch(/failed \(exit 7\): npm ERR! network unreachable/);
    expect(failed.filter((r) => r.status !== 'resolved').map((r) => r.path)).toEqual(['package-lock.json']);
    const done = await run(`printf 'regenerated\\n' > package-lock.json`);
    expect(done.find((r) => r.path === 'package-lock.json')?.status).toBe('resolved');
    expect(readFileSync(join(repo.dir, 'package-lock.json'), 'utf8')).toBe('regenerated\n');
    expect(readFileSync(join(repo.dir, 'gone.txt'), 'utf8')).toBe('g2\n');
  });

  it('warns of a glob that matches no file of either tip, and of no other', async () => {
    const { git } = conflicted();
    const rules = pathRules({ 'locales/*.json': 'theirs', 'gone.txt': 'ours', 'locale/*.json': 'theirs' });
    const warnings = await policyWarnings(git, rules, ['main', 'feature']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^resolve\.paths: "locale\/\*\.json" matches no file of main or feature; check the glob/,
    );
  });
});
