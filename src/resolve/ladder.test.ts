import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Git } from '../git/index.js';
import { ResolutionCache } from './cache/resolution-cache.js';
import { resolveFileText, resolveThreeWay } from './ladder.js';
import { pathRules } from './policy/path-policy.js';
import { hasMarkers } from './parse/markers.js';
import type { ResolutionRule } from './rules/index.js';
import type { HunkResolution } from './types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const hunk = (ours: string, base: string, theirs: string): string =>
  `<<<<<<< HEAD\n${ours}||||||| base\n${base}=======\n${theirs}>>>>>>> other\n`;

describe('resolveFileText', () => {
  it("a policy union that breaks the file's syntax is not taken, and no later rung (the model) decides the hunk", async () => {
    const asked: number[] = [];
    const text = `{\n${hunk('  "a": 2\n', '  "a": 1\n', '  "a": 3\n')}}\n`;
    const result = await resolveFileText(text, {
      path: 'x.json',
      rules: [],
      policy: pathRules({ '*.json': 'union ours-first' })[0],
      fallback: async (_f, hs) => {
        asked.push(...hs.map((h) => h.index));
        return hs.map((h) => ({ hunkIndex: h.index, text: '  "a": 3\n', rung: 'model', by: 'model' }));
      },
    });
    expect(result.resolutions).toEqual([]);
    expect(result.remaining.map((h) => h.index)).toEqual([1]);
    expect(asked).toEqual([]);
    // A union that parses is taken as the policy's.
    const list = `[\n  0,\n${hunk('  2,\n', '  1,\n', '  3,\n')}  9\n]\n`;
    const taken = await resolveFileText(list, {
      path: 'x.json',
      rules: [],
      policy: pathRules({ '*.json': 'union ours-first' })[0],
    });
    expect(taken.text).toBe('[\n  0,\n  2,\n  3,\n  9\n]\n');
  });

  it('refuses deterministic answers that break the syntax where the sides parse (rules, cache), and the syntax rung takes entities apart', async () => {
    const broken: ResolutionRule = {
      name: 'broken',
      description: 'test',
      enabledByDefault: true,
      cost: 'superlinear',
      resolve: () => 'def f(:\n',
    };
    const text = `x = 1\n${hunk('def f(a):\n', 'def f():\n', 'def f(b):\n')}`;
    const refused = await resolveFileText(text, { path: 'm.py', rules: [broken] });
    expect(refused.resolutions).toEqual([]);
    expect(refused.remaining.map((h) => h.index)).toEqual([1]);
    // In a file with no grammar the same answer is taken.
    expect((await resolveFileText(text, { path: 'm.txt', rules: [broken] })).resolutions.map((r) => r.by)).toEqual([
      'broken',
    ]);
    // A repeated JSON key is refused the same way.
    const dup: ResolutionRule = { ...broken, resolve: ({ ours, theirs }) => ours + theirs };
    const json = `{\n${hunk('  "v": 1\n', '  "v": 0\n', '  "v": 2\n')}}\n`;
    expect((await resolveFileText(json, { path: 'package.json', rules: [dup] })).resolutions).toEqual([]);
  });

  it('runs the syntax rung on hunks the rules leave, when switched on and the sides are known', async () => {
    const base = 'def a():\n    return 1\n\ndef b():\n    return 2\n';
    const ours = 'def a():\n    return 10\n\ndef b():\n    return 2\n';
    const theirs = 'def a():\n    return 1\n\ndef b():\n    return 20\n';
    const text = hunk(
      '    return 10\n\ndef b():\n    return 2\n',
      '    return 1\n\ndef b():\n    return 2\n',
      '    return 1\n\ndef b():\n    return 20\n',
    );
    const conflicted = `def a():\n${text}`;
    const off = await resolveFileText(conflicted, { path: 'm.py', rules: [], sides: { base, ours, theirs } });
    expect(off.remaining).toHaveLength(1);
    const on = await resolveFileText(conflicted, {
      path: 'm.py',
      rules: [],
      sides: { base, ours, theirs },
      syntax: { code: true, data: false },
    });
    expect(on.resolutions.map((r) => [r.rung, r.by])).toEqual([['syntax', 'syntax-merge']]);
    expect(on.text).toBe('def a():\n    return 10\n\ndef b():\n    return 20\n');
  });

  it('resolves hunks a rule is sure of and leaves the others byte for byte', async () => {
    const text = `top\n${hunk('same\n', 'old\n', 'same\n')}middle\n${hunk('ours\n', 'old\n', 'theirs\n')}end\n`;
    const result = await resolveFileText(text, { path: 'f.txt' });
    expect(result.resolutions).toEqual([{ text: 'same\n', rung: 'rule', by: 'identical-sides', hunkIndex: 1 }]);
    expect(result.remaining.map((h) => h.index)).toEqual([2]);
    expect(result.text).toBe(`top\nsame\nmiddle\n${hunk('ours\n', 'old\n', 'theirs\n')}end\n`);
  });

  it('calls the fallback only for open hunks and ignores answers with markers or for other hunks', async () => {
    const text = `${hunk('a\n', 'o\n', 'a\n')}x\n${hunk('b\n', 'o\n', 'c\n')}y\n${hunk('d\n', 'o\n', 'e\n')}`;
    const seen: number[][] = [];
    const result = await resolveFileText(text, {
      path: 'f',
      fallback: async (_file, hunks): Promise<HunkResolution[]> => {
        seen.push(hunks.map((h) => h.index));
        return [
          { hunkIndex: 1, text: 'hijack\n', rung: 'model', by: 'm' },
          { hunkIndex: 2, text: 'bc\n', rung: 'model', by: 'm' },
          { hunkIndex: 3, text: '<<<<<<< still\n', rung: 'model', by: 'm' },
        ];
      },
    });
    expect(seen).toEqual([[2, 3]]);
    expect(result.resolutions.map((r) => [r.hunkIndex, r.by])).toEqual([
      [1, 'identical-sides'],
      [2, 'm'],
    ]);
    expect(result.remaining.map((h) => h.index)).toEqual([3]);
  });

  it('shows each rule the rest of the file around the hunk', async () => {
    const seen: Array<string | undefined> = [];
    const spy: ResolutionRule = {
      name: 'spy',
      description: 'records',
      enabledByDefault: false,
      cost: 'superlinear',
      resolve: (_s, c) => (seen.push(c.outside), null),
    };
    await resolveFileText(`top\n${hunk('a\n', 'o\n', 'b\n')}end\n`, { path: 'f', rules: [spy] });
    expect(seen).toEqual(['top\nend\n']);
  });

  it('stores resolutions in the cache and reuses them on the next run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sc-ladder-'));
    dirs.push(dir);
    const cache = new ResolutionCache(dir);
    const text = hunk('b\n', 'o\n', 'c\n');
    const first = await resolveFileText(text, {
      path: 'f',
      cache,
      fallback: async (_f, hs) =>
        hs.map((h) => ({ hunkIndex: h.index, text: 'human\n', rung: 'person', by: 'person' })),
    });
    expect(first.text).toBe('human\n');
    const second = await resolveFileText(text, { path: 'f', cache });
    expect(second.resolutions[0]).toMatchObject({ rung: 'cache', by: 'person:person', text: 'human\n' });
    await cache.invalidate(second.resolutions[0]!.cacheKey!, 'blamed by check test');
    const third = await resolveFileText(text, { path: 'f', cache });
    expect(third.remaining).toHaveLength(1);

    // a rule's cached answer is not reused once the rule is turned off
    const ws = hunk('x \n', 'o\n', 'x\n');
    expect((await resolveFileText(ws, { path: 'g', cache })).resolutions[0]?.by).toBe('whitespace-only');
    expect((await resolveFileText(ws, { path: 'g', cache })).resolutions[0]?.rung).toBe('cache');
    expect((await resolveFileText(ws, { path: 'g', cache, rules: [] })).remaining).toHaveLength(1);
  });

  it('does not give an answer a failed check blamed again: not from the cache, not from the rule that gave it, not from the model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sc-ladder-'));
    dirs.push(dir);
    const cache = new ResolutionCache(dir);
    const ws = hunk('x \n', 'o\n', 'x\n');
    const first = await resolveFileText(ws, { path: 'g', cache });
    expect(first.resolutions[0]).toMatchObject({ rung: 'rule', by: 'whitespace-only' });
    await cache.invalidate(first.resolutions[0]!.cacheKey!, 'test failed');
    const model = async (_f: unknown, hs: Array<{ index: number }>): Promise<HunkResolution[]> =>
      hs.map((h) => ({ hunkIndex: h.index, text: first.resolutions[0]!.text, rung: 'model', by: 'm' }));
    const again = await resolveFileText(ws, { path: 'g', cache, fallback: model });
    expect(again.resolutions).toEqual([]);
    expect(again.remaining).toHaveLength(1);
    // Another answer (a person's, say) is taken and cached.
    const person = await resolveFileText(ws, {
      path: 'g',
      cache,
      fallback: async (_f, hs) => hs.map((h) => ({ hunkIndex: h.index, text: 'x\n\n', rung: 'person', by: 'person' })),
    });
    expect(person.resolutions[0]).toMatchObject({ rung: 'person' });
    expect((await resolveFileText(ws, { path: 'g', cache })).resolutions[0]).toMatchObject({
      rung: 'cache',
      text: 'x\n\n',
    });
  });

  it('replays a cached resolution in the line endings of the file it goes into', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sc-ladder-'));
    dirs.push(dir);
    const cache = new ResolutionCache(dir);
    const crlf = hunk('b\n', 'o\n', 'c\n').replace(/\n/g, '\r\n');
    await resolveFileText(crlf, {
      path: 'f',
      cache,
      fallback: async (_f, hs) =>
        hs.map((h) => ({ hunkIndex: h.index, text: 'b\r\nc\r\n', rung: 'person', by: 'person' })),
    });
    const lf = await resolveFileText(`top\n${hunk('b\n', 'o\n', 'c\n')}`, { path: 'f', cache });
    expect(lf.text).toBe('top\nb\nc\n');
    const back = await resolveFileText(crlf, { path: 'f', cache });
    expect(back.text).toBe('b\r\nc\r\n');
  });
});

describe('resolveThreeWay', () => {
  it('merges with git first, then runs the rules on what git left', async () => {
    const git = new Git({ cwd: tmpdir() });
    try {
      const base = 'l1\nl2\nl3\n';
      const result = await resolveThreeWay(
        git,
        { base, ours: 'l1\nL2  \nl3\n', theirs: 'l1\nL2\nl3\n' },
        { path: 'f' },
      );
      expect(result.gitConflicts).toBe(1);
      expect(result.text).toBe('l1\nL2  \nl3\n');
      expect(result.resolutions[0]?.by).toBe('whitespace-only');
    } finally {
      git.close();
    }
  });
});

describe('hasMarkers', () => {
  it('sees opening and closing markers but not RST underlines', () => {
    expect(hasMarkers('a\n<<<<<<< x\n')).toBe(true);
    expect(hasMarkers('a\r\n>>>>>>>\r\n')).toBe(true);
    expect(hasMarkers('Title\n=======\n')).toBe(false);
  });
});
