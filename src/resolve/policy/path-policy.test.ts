import { describe, expect, it } from 'vitest';
import { parseConflictText } from '../parse/markers.js';
import { resolveConflictedFile } from '../ladder.js';
import { selectRules } from '../rules/index.js';
import {
  globMatches,
  pathRules,
  policyFor,
  policyText,
  regenerateCommands,
  unmatchedGlobs,
  type PathRule,
} from './path-policy.js';

const hunk = { ours: 'fork line\n', theirs: 'upstream line\n' };

/** A file with one hunk that one-side-unchanged would settle (ours equals the base). */
const ruleable = [
  'top\n',
  '<<<<<<< ours\n',
  'same\n',
  '||||||| base\n',
  'same\n',
  '=======\n',
  'changed upstream\n',
  '>>>>>>> theirs\n',
  'bottom\n',
].join('');

describe('resolve.paths, the fork policy', () => {
  it('normalises every written form, in the order written', () => {
    expect(
      pathRules({
        'locales/*.json': 'theirs',
        'CHANGELOG.md': 'union',
        'NEWS.md': 'union theirs-first',
        'HISTORY.md': { union: 'theirs-first' },
        'src/mos/**': 'person',
        'package-lock.json': { regenerate: 'npm install --package-lock-only' },
        'README.md': 'ours',
      }).map((r) => [r.glob, r.decision]),
    ).toEqual([
      ['locales/*.json', { kind: 'theirs' }],
      ['CHANGELOG.md', { kind: 'union', order: 'ours-first' }],
      ['NEWS.md', { kind: 'union', order: 'theirs-first' }],
      ['HISTORY.md', { kind: 'union', order: 'theirs-first' }],
      ['src/mos/**', { kind: 'person' }],
      ['package-lock.json', { kind: 'regenerate', command: 'npm install --package-lock-only' }],
      ['README.md', { kind: 'ours' }],
    ]);
  });

  it('matches globs as .gitattributes does: no slash = the file name in any folder; the first rule wins', () => {
    expect(globMatches('package-lock.json', 'packages/a/package-lock.json')).toBe(true);
    expect(globMatches('locales/*.json', 'locales/fr.json')).toBe(true);
    expect(globMatches('locales/*.json', 'src/locales/fr.json')).toBe(false);
    expect(globMatches('.github/**', '.github/workflows/ci.yml')).toBe(true);
    const rules = pathRules({ 'docs/**': 'person', '*.md': 'theirs' });
    expect(policyFor('docs/a.md', rules)?.glob).toBe('docs/**');
    expect(policyFor('README.md', rules)?.glob).toBe('*.md');
    expect(policyFor('src/a.c', rules)).toBeNull();
    expect(unmatchedGlobs(rules, ['README.md', 'src/a.c'])).toEqual(['docs/**']);
  });

  it('writes one side, or both in the order chosen, for a hunk', () => {
    expect(policyText(hunk, { kind: 'ours' })).toBe('fork line\n');
    expect(policyText(hunk, { kind: 'theirs' })).toBe('upstream line\n');
    expect(policyText(hunk, { kind: 'union', order: 'ours-first' })).toBe('fork line\nupstream line\n');
    expect(policyText(hunk, { kind: 'union', order: 'theirs-first' })).toBe('upstream line\nfork line\n');
    expect(policyText({ ours: 'a', theirs: 'b' }, { kind: 'union', order: 'ours-first' })).toBe('a\nb');
    expect(policyText(hunk, { kind: 'person' })).toBeNull();
    expect(policyText(hunk, { kind: 'regenerate', command: 'x' })).toBeNull();
  });

  it('resolve.regenerate is kept; a regenerate decision of resolve.paths joins it and wins on the same glob', () => {
    expect(
      regenerateCommands({
        regenerate: { 'Cargo.lock': 'cargo generate-lockfile', 'package-lock.json': 'old' },
        paths: { 'package-lock.json': { regenerate: 'npm install --package-lock-only' }, 'a.txt': 'ours' },
      }),
    ).toEqual({ 'package-lock.json': 'npm install --package-lock-only', 'Cargo.lock': 'cargo generate-lockfile' });
  });
});

describe('the policy rung of the ladder', () => {
  const rule = (glob: string, decision: PathRule['decision']): PathRule => ({ glob, decision });

  it('comes before the rules and is recorded as rung policy, by glob and decision', async () => {
    const file = parseConflictText(ruleable, { path: 'a.txt' });
    const plain = await resolveConflictedFile(file, { path: 'a.txt', rules: selectRules() });
    expect(plain.resolutions.map((r) => [r.rung, r.by])).toEqual([['rule', 'one-side-unchanged']]);
    const ours = await resolveConflictedFile(file, {
      path: 'a.txt',
      rules: selectRules(),
      policy: rule('*.txt', { kind: 'ours' }),
    });
    expect(ours.resolutions.map((r) => [r.rung, r.by])).toEqual([['policy', '*.txt: ours']]);
    expect(ours.text).toBe('top\nsame\nbottom\n');
  });

  it('human hands every hunk to a person, even one a rule would settle, and asks no model', async () => {
    const file = parseConflictText(ruleable, { path: 'a.txt' });
    let asked = 0;
    const result = await resolveConflictedFile(file, {
      path: 'a.txt',
      rules: selectRules(),
      policy: rule('a.txt', { kind: 'person' }),
      fallback: async () => {
        asked++;
        return [];
      },
    });
    expect(result.resolutions).toEqual([]);
    expect(result.remaining.map((h) => h.index)).toEqual([1]);
    expect(result.text).toBe(ruleable);
    expect(asked).toBe(0);
  });
});
