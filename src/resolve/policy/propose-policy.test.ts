import { describe, expect, it } from 'vitest';
import type { LearntHunk } from '../learnt/learnt-hunk.js';
import { globMatches } from './path-policy.js';
import { proposePolicy, proposeWithEvidence } from './propose-policy.js';

/** The same choice on `path` in two past merges: enough for a proposal. */
const twice = (path: string, choice = 'theirs'): LearntHunk[] =>
  ['m1', 'm2'].map((merge, k) => ({
    merge,
    time: 1_700_000_000 + k * 86_400,
    path,
    choice,
    kind: 'rewrote',
    lead: null,
    lines: [],
  }));

/** One hunk of `path` per choice, each in its own merge, a day apart, oldest first. */
const merges = (path: string, choices: readonly string[], from = 0): LearntHunk[] =>
  choices.map((choice, k) => ({
    merge: `m${from + k}`,
    time: 1_700_000_000 + (from + k) * 86_400,
    path,
    choice,
    kind: 'rewrote',
    lead: null,
    lines: [],
  }));

describe('proposePolicy', () => {
  it('collapses paths of one folder pattern decided alike into one glob, with the evidence of all their merges', () => {
    const rules = proposePolicy([
      ...merges('config/locales/en.yml', ['theirs', 'theirs']),
      ...merges('config/locales/fr.yml', ['theirs', 'theirs', 'theirs'], 2),
      ...merges('app/javascript/mail/locales/de.json', ['theirs', 'theirs']),
      ...merges('app/javascript/flow/locales/it.json', ['theirs', 'theirs'], 3),
    ]);
    expect(rules).toEqual([
      {
        glob: 'app/javascript/*/locales/*.json',
        decision: 'theirs',
        evidence: 'theirs in all 4 merges that conflicted in its 2 files, 2023-11-14 to 2023-11-18',
      },
      {
        glob: 'config/locales/*.yml',
        decision: 'theirs',
        evidence: 'theirs in all 5 merges that conflicted in its 2 files, 2023-11-14 to 2023-11-18',
      },
    ]);
    expect(globMatches(rules[0]!.glob, 'app/javascript/admin/locales/pt.json')).toBe(true);
  });

  it('never collapses over a path of the pattern decided otherwise, nor proposes a side for a path the maintainer combined', () => {
    const { rules, unsettled } = proposeWithEvidence([
      ...merges('config/locales/en.yml', ['theirs', 'theirs']),
      ...merges('config/locales/fr.yml', ['theirs', 'theirs']),
      // Kept its own side three times, then combined both sides in the latest merge: no side is proposed.
      ...merges('config/locales/nl.yml', ['ours', 'ours', 'ours', 'combined']),
    ]);
    expect(rules.map((r) => r.glob)).toEqual(['config/locales/en.yml', 'config/locales/fr.yml']);
    expect(unsettled).toEqual([{ path: 'config/locales/nl.yml', tally: 'ours 3, combined 1' }]);
  });

  it('weighs recent merges: the latest run of merges proposes, never a side a later merge did not keep', () => {
    const rules = proposePolicy([
      // Seven recent merges kept upstream's side after four older ones kept the fork's.
      ...merges('src/a.ts', [
        'ours',
        'ours',
        'ours',
        'ours',
        'theirs',
        'theirs',
        'theirs',
        'theirs',
        'theirs',
        'theirs',
        'theirs',
      ]),
      // The latest merge kept the fork's side after five that kept upstream's: nothing to propose.
      ...merges('src/b.ts', ['theirs', 'theirs', 'theirs', 'theirs', 'theirs', 'ours']),
      // Six recent merges kept upstream's side, but an older one had the maintainer's own text: no side.
      ...merges('lib/d.ts', ['other text', 'theirs', 'theirs', 'theirs', 'theirs', 'theirs', 'theirs']),
      // Two recent ones against three older: too little weight.
      ...merges('lib/c.ts', ['ours', 'ours', 'ours', 'theirs', 'theirs']),
    ]);
    expect(rules).toEqual([
      {
        glob: 'src/a.ts',
        decision: 'theirs',
        evidence:
          'theirs in the latest 7 of 11 merges that conflicted there, 2023-11-18 to 2023-11-24; before, 2023-11-14 to 2023-11-17: ours 4',
      },
    ]);
  });

  it('proposes a path from history as a glob that matches that path only, never a wildcard', () => {
    const paths = ['*', 'src/[id].ts', 'a{b,c}.txt', '!(x).md', 'plain.txt'];
    const rules = proposePolicy(paths.flatMap((p) => twice(p)));
    expect(rules.map((r) => r.decision)).toEqual(paths.map(() => 'theirs'));
    const star = rules.find((r) => r.glob === '\\*');
    expect(star, JSON.stringify(rules)).toBeDefined();
    for (const rule of rules) {
      const own = paths.find((p) => globMatches(rule.glob, p));
      expect(own, rule.glob).toBeDefined();
      // Only its own path among them, and not the ordinary files a glob character would take in.
      expect(paths.filter((p) => globMatches(rule.glob, p))).toEqual([own]);
      for (const innocent of ['README.md', 'src/i.ts', 'ab.txt', 'y.md'])
        expect(globMatches(rule.glob, innocent)).toBe(false);
    }
    expect(rules.find((r) => r.glob === 'plain.txt')).toBeDefined();
  });

  it('a lockfile from history is proposed under its escaped path too', () => {
    const [rule] = proposePolicy([{ ...twice('pkgs/[x]/package-lock.json')[0]! }]);
    expect(rule?.glob).toBe('pkgs/\\[x\\]/package-lock.json');
    expect(globMatches(rule!.glob, 'pkgs/[x]/package-lock.json')).toBe(true);
    expect(globMatches(rule!.glob, 'pkgs/x/package-lock.json')).toBe(false);
  });
});
