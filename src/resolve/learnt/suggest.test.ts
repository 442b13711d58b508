import { describe, expect, it } from 'vitest';
import { combinedText, keepsBothSides } from './combined.js';
import { absoluteChoice, lineHashes, relativeChoice, shapeOf, similarity } from './hunk-shape.js';
import type { LearntHunk } from './learnt-hunk.js';
import { scopesOf, strongEnough, suggestFor } from './suggest.js';

const day = (d: number): number => Date.UTC(2024, 0, d) / 1000;

/** A past hunk of merge `m` (day `d`) in `path`, shaped like `sides`, where the maintainer chose `choice`. */
function past(
  m: number,
  path: string,
  choice: string,
  sides = { base: 'v = 1\n', ours: 'v = 2\n', theirs: 'v = 3\n' },
): LearntHunk {
  const shape = shapeOf(sides);
  return { merge: `m${m}`, time: day(m), path, choice, kind: shape.kind, lead: shape.lead, lines: lineHashes(sides) };
}

describe('the shape of a conflict', () => {
  it('tells added, deleted, rewrote and same-lines conflicts apart, with the side that leads', () => {
    expect(shapeOf({ base: '', ours: 'a\n', theirs: 'b\n' })).toEqual({ kind: 'added', lead: null });
    expect(shapeOf({ base: 'a\nb\n', ours: '', theirs: 'a\nB\n' })).toEqual({ kind: 'deleted', lead: 'theirs' });
    expect(shapeOf({ base: 'x\n', ours: 'y\n', theirs: 'z\n' })).toEqual({ kind: 'same lines', lead: null });
    const rewrite = { base: 'a\nb\nc\nd\n', ours: 'a\nb\nc\n', theirs: 'new 1\nnew 2\nnew 3\nd\n' };
    expect(shapeOf(rewrite)).toEqual({ kind: 'rewrote', lead: 'theirs' });
    expect(shapeOf({ ...rewrite, ours: 'a\nb\nc\nd\nmine\n' })).toEqual({
      kind: 'rewrote, other added',
      lead: 'theirs',
    });
  });

  it('reads a choice relative to the lead and back', () => {
    expect(relativeChoice('theirs then ours', 'theirs')).toBe('lead then other');
    expect(absoluteChoice('lead then other', 'ours')).toBe('ours then theirs');
    expect(relativeChoice('other text', 'ours')).toBe('other text');
    expect(relativeChoice('ours', null)).toBe('ours');
  });

  it('measures how alike two conflicts are by their lines', () => {
    const a = lineHashes({ base: 'alpha line\nbeta line\n', ours: 'gamma line\n', theirs: 'delta line\n' });
    const b = lineHashes({ base: 'alpha line\nbeta line\n', ours: 'gamma line\n', theirs: 'other line\n' });
    expect(similarity(a, a)).toBe(1);
    expect(similarity(a, b)).toBeCloseTo(3 / 5);
    expect(similarity(a, [])).toBe(0);
  });
});

describe('suggestions from earlier merges', () => {
  it('says nothing without history, or when the merges disagree', () => {
    expect(suggestFor([], 'a.txt', { base: 'x\n', ours: 'y\n', theirs: 'z\n' })).toBeNull();
    const split = [past(1, 'locales/fr.json', 'ours'), past(2, 'locales/de.json', 'theirs')];
    expect(suggestFor(split, 'locales/it.json', { base: 'k\n', ours: 'l\n', theirs: 'm\n' })).toBeNull();
  });

  it('suggests the habit of the narrowest scope, in words, with the merges counted', () => {
    const history = [
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((m) => past(m, `locales/l${m}.json`, 'theirs')),
      past(10, 'locales/l10.json', 'other text'),
      past(11, 'src/a.c', 'ours'),
    ];
    const s = suggestFor(history, 'locales/fr.json', {
      base: 'hello = 1\n',
      ours: 'hello = 2\n',
      theirs: 'hello = 3\n',
    });
    expect(s).toMatchObject({ choice: 'theirs', basis: 'habit', scope: 'locales/*.json', agree: 9, of: 10 });
    expect(s?.evidence).toBe(
      "in 9 of the last 10 merge(s) that conflicted in locales/*.json where both sides replaced the same lines (2024-01-01 to 2024-01-10), the maintainer kept theirs (upstream's lines)",
    );
    expect(strongEnough(s!, 0.6, 1)).toBe(false); // a habit is never applied
  });

  it('counts at most the 10 most recent merges, and reads a rewrite relative to the side that rewrote', () => {
    const rewrite = (lead: 'ours' | 'theirs') => ({
      base: 'a\nb\nc\nd\n',
      ours: lead === 'ours' ? 'n1\nn2\nn3\nd\n' : 'a\nb\nc\nD\n',
      theirs: lead === 'theirs' ? 'n1\nn2\nn3\nd\n' : 'a\nb\nc\nD\n',
    });
    const history = [
      ...[1, 2, 3].map((m) => past(m, 'x.py', 'ours', rewrite('theirs'))),
      ...[4, 5, 6, 7, 8, 9, 10, 11, 12, 13].map((m) =>
        past(m, 'x.py', m % 2 ? 'ours' : 'theirs', rewrite(m % 2 ? 'ours' : 'theirs')),
      ),
    ];
    const here = { base: 'p\nq\nr\ns\n', ours: 'p\nq\nr\nS\n', theirs: 'z1\nz2\nz3\ns\n' };
    const s = suggestFor(history, 'x.py', here);
    expect(s).toMatchObject({ choice: 'theirs', agree: 10, of: 10, scope: 'x.py' });
    expect(s?.evidence).toMatch(/kept the side that rewrote them \(here: theirs \(upstream's lines\)\)$/);
  });

  it('earlier conflicts on the same lines speak first, and only they can be applied', () => {
    const sides = {
      base: 'version = "1.0.0"\nname = "lib"\n',
      ours: 'version = "1.0.0-fork"\nname = "lib"\n',
      theirs: 'version = "1.1.0"\nname = "lib"\n',
    };
    const history = [1, 2, 3].map((m) => past(m, 'setup.cfg', 'ours', sides));
    history.push(...[4, 5, 6, 7].map((m) => past(m, `other${m}.cfg`, 'theirs')));
    const s = suggestFor(history, 'pkg/setup.cfg', sides);
    expect(s).toMatchObject({ choice: 'ours', basis: 'similar', agree: 3, of: 3 });
    expect(s?.evidence).toMatch(
      /^in 3 of 3 earlier merge\(s\) that conflicted on these same lines \(most alike: setup\.cfg, merge m3 of 2024-01-03\)/,
    );
    expect(strongEnough(s!, 1, 3)).toBe(true);
    expect(strongEnough(s!, 1, 4)).toBe(false);
  });

  it('looks in the file, its folder by extension, its folder, then everywhere', () => {
    expect(scopesOf('src/a/b.c').map((s) => s.glob)).toEqual(['src/a/b.c', 'src/a/*.c', 'src/a/**', '**']);
    expect(scopesOf('Makefile').map((s) => s.glob)).toEqual(['Makefile', '**']);
  });
});

describe('a habit earns its place', () => {
  const sides = { base: 'hello = 1\n', ours: 'hello = 2\n', theirs: 'hello = 3\n' };

  it('is never suggested on a single merge, whatever its number of hunks', () => {
    const one = [past(1, 'locales/a.json', 'theirs'), past(1, 'locales/b.json', 'theirs')];
    expect(suggestFor(one, 'locales/fr.json', sides)).toBeNull();
    const two = [...one, past(2, 'locales/c.json', 'theirs')];
    expect(suggestFor(two, 'locales/fr.json', sides)).toMatchObject({ basis: 'habit', agree: 2, of: 2 });
  });

  it('a wider scope speaks where the file itself has one merge only', () => {
    const history = [
      past(1, 'locales/fr.json', 'ours'),
      ...[2, 3, 4].map((m) => past(m, `locales/l${m}.json`, 'theirs')),
    ];
    expect(suggestFor(history, 'locales/fr.json', sides)).toMatchObject({ scope: 'locales/*.json', choice: 'theirs' });
  });

  it('weighs recent merges: a practice the fork changed is not suggested from its older merges', () => {
    // Three old merges kept ours; the two most recent kept theirs: 3 of 5, but not the recent practice.
    const history = [1, 2, 3].map((m) => past(m, 'conf/a.ini', 'ours'));
    history.push(past(4, 'conf/b.ini', 'theirs'), past(5, 'conf/c.ini', 'theirs'));
    expect(suggestFor(history, 'conf/x.ini', sides)).toBeNull();
  });
});

describe('a combination, where the maintainer combined both sides', () => {
  const sides = { base: 'version = 3\n', ours: 'version = 3\nfork_patch = p3\n', theirs: 'version = 4\n' };

  it('is suggested with the combined text and its evidence, and never applied without asking', () => {
    const history = [1, 2].map((m) => past(m, 'deps.txt', 'combined', sides));
    const s = suggestFor(history, 'deps.txt', sides);
    expect(s).toMatchObject({ choice: 'combined', basis: 'combined', agree: 2, of: 2 });
    expect(s?.text).toBe(combinedText(sides));
    expect(s?.evidence).toContain('the maintainer kept both sides combined');
    expect(s?.evidence).toContain('`take combined`');
    expect(strongEnough(s!, 0.5, 1)).toBe(false);
  });

  it('tells a combination from text of neither side, and combines the lines of both sides', () => {
    expect(keepsBothSides(sides, 'version = 4\nfork_patch = p3\n')).toBe(true);
    expect(keepsBothSides(sides, 'version = 5\n')).toBe(false);
    expect(keepsBothSides(sides, 'version = 4\n')).toBe(false);
    expect(combinedText(sides)).toBe('version = 4\nfork_patch = p3\n');
    // Sides of no common base: every line of both, the lines they share once.
    expect(combinedText({ base: null, ours: 'a\nshared\nb', theirs: 'c\nshared\n' })).toBe('a\nc\nshared\nb');
  });
});
