import { describe, expect, it } from 'vitest';
import { allRules } from './index.js';
import { tokenizeWords } from './remerge-words.js';
import type { ContainedValues, ResolutionRule } from './rule.js';

/** Whether a rule says it may decide these values that contain each other (`decidesContained`). */
const decides = (rule: ResolutionRule, values: ContainedValues): boolean =>
  (rule.decidesContained ?? []).includes(values);

/**
 * Every rule (enabled by default or not) on conflicts where both sides
 * changed one atom, a version, number, hash or identifier, into values that
 * contain each other as text. No rule may decide inside the atom: each
 * abstains, except a rule that decides `dependency-pins`, on a dependency pin,
 * which keeps the higher version. Each case is tried with either side as ours.
 */
const cases: Array<{ what: string; path: string; base: string; a: string; b: string; higher?: string }> = [
  {
    what: 'a version (issue reproduction)',
    path: 'requirements.txt',
    base: 'a==1.0\npackaging==23.1\nz==1.0\n',
    a: 'a==1.0\npackaging==24.0\nz==1.0\n',
    b: 'a==1.0\npackaging==24.1\nz==1.0\n',
    higher: 'a==1.0\npackaging==24.1\nz==1.0\n',
  },
  {
    what: 'a version that extends the other',
    path: 'package.json',
    base: '    "qs": "6.11.0",\n',
    a: '    "qs": "6.13.0",\n',
    b: '    "qs": "6.13.0-rc.1",\n',
    higher: '    "qs": "6.13.0",\n',
  },
  { what: 'a version outside a manifest', path: 'app.cfg', base: 'v = 23.1\n', a: 'v = 24.0\n', b: 'v = 24.1\n' },
  {
    what: 'an image tag and a longer one',
    path: 'Dockerfile',
    base: 'FROM python:3.10\n',
    a: 'FROM python:3.11\n',
    b: 'FROM python:3.11-slim\n',
  },
  {
    what: 'a number that prefixes the other',
    path: 'app.py',
    base: 'timeout = 10\n',
    a: 'timeout = 100\n',
    b: 'timeout = 1000\n',
  },
  {
    what: 'a decimal that prefixes the other',
    path: 'app.py',
    base: 'ratio = 0.5\n',
    a: 'ratio = 0.55\n',
    b: 'ratio = 0.555\n',
  },
  {
    what: 'a hash that extends the other',
    path: 'lock.yml',
    base: 'rev: abc1234\n',
    a: 'rev: def5678\n',
    b: 'rev: def5678abc\n',
  },
  {
    what: 'a pinned action whose comment did not move',
    path: '.github/workflows/ci.yml',
    base: `  - uses: o/a@${'a'.repeat(40)} # v1.0.0\n`,
    a: `  - uses: o/a@${'b'.repeat(40)} # v1.0.0\n`,
    b: `  - uses: o/a@${'c'.repeat(40)} # v1.1.0\n`,
  },
  {
    what: 'an identifier that extends the other',
    path: 'm.py',
    base: 'foo()\n',
    a: 'foo_bar()\n',
    b: 'foo_bar_baz()\n',
  },
  { what: 'a dotted name', path: 'm.py', base: 'import a.b\n', a: 'import a.b2\n', b: 'import a.b23\n' },
];

describe('every rule on atoms that contain each other', () => {
  for (const c of cases) {
    it(`decides nothing inside ${c.what}`, () => {
      for (const rule of allRules) {
        for (const [ours, theirs] of [
          [c.a, c.b],
          [c.b, c.a],
        ] as const) {
          const got = rule.resolve({ base: c.base, ours, theirs }, { path: c.path, eol: '\n' });
          const expected = decides(rule, 'dependency-pins') ? (c.higher ?? null) : null;
          expect(got, `${rule.name} on ${c.what}`).toBe(expected);
        }
      }
    });
  }
  it('writes no atom that neither side has, wherever a rule merges edits of different atoms', () => {
    const base = 'x = f(1.2, 3.4)\ny = 5\n';
    const ours = 'x = f(1.3, 3.4)\ny = 5\n';
    const theirs = 'x = f(1.2, 3.5)\ny = 6\n';
    const atoms = new Set([base, ours, theirs].flatMap((s) => tokenizeWords(s)));
    for (const rule of allRules) {
      const got = rule.resolve({ base, ours, theirs }, { path: 'm.py', eol: '\n' });
      if (got !== null) for (const t of tokenizeWords(got)) expect(atoms.has(t), `${rule.name}: ${t}`).toBe(true);
    }
  });
});

/**
 * Release sections both sides added to a changelog, whose versions contain each
 * other as text: only a rule that decides `release-sections` decides (by
 * version, never by text), and only where the versions differ; every other rule
 * on by default abstains.
 */
describe('every rule on release sections whose versions contain each other', () => {
  const section = (v: string, by = 'a'): string => `## ${v}\n\n* notes for ${v} by ${by}\n\n`;
  const releases: Array<{ a: string; b: string; newer: string | null }> = [
    { a: '1.10.0', b: '1.1.0', newer: '1.10.0' },
    { a: '1.2.0', b: '1.2.0-rc.1', newer: '1.2.0' },
    { a: '1.2.0-rc.10', b: '1.2.0-rc.1', newer: '1.2.0-rc.10' },
    { a: '1.2', b: '1.2.0', newer: null },
    { a: '2.0.0', b: '2.0.0', newer: null },
  ];
  for (const { a, b, newer } of releases) {
    it(`${a} against ${b}`, () => {
      const rest = section('1.0.0');
      for (const [ours, theirs] of [
        [section(a, 'ours'), section(b, 'theirs')],
        [section(b, 'ours'), section(a, 'theirs')],
      ] as const) {
        const files = { base: rest, ours: ours + rest, theirs: theirs + rest };
        const expected = newer === null ? null : ours.startsWith(`## ${newer}\n`) ? ours + theirs : theirs + ours;
        for (const rule of allRules.filter((r) => r.enabledByDefault)) {
          const got = rule.resolve({ base: '', ours, theirs }, { path: 'CHANGELOG.md', eol: '\n', files });
          expect(got, `${rule.name} on ${a} / ${b}`).toBe(decides(rule, 'release-sections') ? expected : null);
        }
      }
    });
  }
});
