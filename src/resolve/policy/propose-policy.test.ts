import { describe, expect, it } from 'vitest';
import type { LearntHunk } from '../learnt/learnt-hunk.js';
import { globMatches } from './path-policy.js';
import { proposePolicy } from './propose-policy.js';

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

describe('proposePolicy', () => {
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
