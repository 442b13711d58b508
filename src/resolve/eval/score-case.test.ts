import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Git } from '../../git/index.js';
import { parseConflictText } from '../parse/markers.js';
import { allRules, selectRules } from '../rules/index.js';
import { alignHunk, fileContainsLines } from './align.js';
import { emptyHunkCounts } from './metrics.js';
import { runEval } from './run-eval.js';
import { dropsSide, judge } from './score-case.js';

const conflicted = 'head\nctx1\n<<<<<<< a\nours\n||||||| b\nbase\n=======\ntheirs\n>>>>>>> c\nctx2\ntail\n';

describe('alignHunk', () => {
  it('finds the human text between unique context anchors', () => {
    const file = parseConflictText(conflicted);
    expect(alignHunk(file, file.hunks[0]!, 'head\nctx1\nmerged\nlines\nctx2\ntail\n')?.text).toBe('merged\nlines\n');
    expect(alignHunk(file, file.hunks[0]!, 'head\nctx1\nctx2\ntail\n')?.text).toBe('');
  });
  it('gives up when the context was rewritten or is ambiguous', () => {
    const file = parseConflictText(conflicted);
    expect(alignHunk(file, file.hunks[0]!, 'something else entirely\n')).toBeNull();
    expect(alignHunk(file, file.hunks[0]!, 'head\nctx1\nx\nctx2\nctx1\ny\nctx2\n')).toBeNull();
  });
  it('takes blank lines next to the hunk into the region, so a blank line the human dropped does not hide the hunk', () => {
    const file = parseConflictText(
      'def start():\n    pass\n\n<<<<<<< a\n\nclass A(X):\n||||||| b\nclass A(Y):\n=======\nclass A(X):\n>>>>>>> c\n\n    w = 1\n',
    );
    const region = alignHunk(file, file.hunks[0]!, 'def start():\n    pass\n\n\nclass A(X):\n    w = 1\n');
    expect(region).toMatchObject({ text: '\n\nclass A(X):\n', before: '\n', after: '\n' });
  });
  it('tells context lines apart by their indentation', () => {
    const file = parseConflictText(
      '    if a:\n        }\n<<<<<<< a\nX\n||||||| b\nB\n=======\nY\n>>>>>>> c\n    }\n}\n',
    );
    expect(alignHunk(file, file.hunks[0]!, '    if a:\n        }\nXY\n    }\n}\n')?.text).toBe('XY\n');
  });
});

describe('judge and dropsSide', () => {
  it('counts exact, whitespace and wrong matches and dropped sides', async () => {
    const file = parseConflictText(conflicted);
    const h = file.hunks[0]!;
    const counts = emptyHunkCounts();
    await judge(counts, file, h, 'ours\n', 'head\nctx1\nours\nctx2\ntail\n');
    await judge(counts, file, h, 'ours  \n', 'head\nctx1\nours\nctx2\ntail\n');
    await judge(counts, file, h, 'ours\n', 'head\nctx1\nours\ntheirs\nctx2\ntail\n');
    await judge(counts, file, h, 'ours\n', null);
    expect(counts).toEqual({
      resolved: 4,
      exact: 1,
      whitespaceMatch: 2,
      equal: 2,
      orderOnly: 0,
      wrong: 1,
      unaligned: 1,
      sidesDropped: 1,
    });
    expect(dropsSide(h, 'ours\ntheirs\n', 'ours\ntheirs\n')).toBe(false);
    expect(dropsSide(h, 'ours\n', 'theirs\n')).toBe(true);
  });
  it('counts an unalignable resolution as wrong when the human file has no such lines', async () => {
    const file = parseConflictText(conflicted);
    const h = file.hunks[0]!;
    const counts = emptyHunkCounts();
    await judge(counts, file, h, 'ours\n', 'rewritten\nours\n');
    await judge(counts, file, h, 'ours\n', 'rewritten\ntheirs\n');
    expect(counts).toMatchObject({ resolved: 2, unaligned: 1, wrong: 1 });
    expect(fileContainsLines('a\n  b  c\n\nd\n', 'b c\nd\n')).toBe(true);
    expect(fileContainsLines('a\nb\n', 'b\na\n')).toBe(false);
  });
});

describe('judge in an indentation-sensitive file', () => {
  it('does not count a line moved out of a block as a whitespace match', async () => {
    const file = parseConflictText(
      'def f():\n<<<<<<< a\n    x()\n    y()\n||||||| b\n    x()\n=======\n    x()\ny()\n>>>>>>> c\nend()\n',
      { path: 'm.py' },
    );
    const counts = emptyHunkCounts();
    await judge(counts, file, file.hunks[0]!, '    x()\ny()\n', 'def f():\n    x()\n    y()\nend()\n');
    await judge(counts, file, file.hunks[0]!, '    x()\n    y()  \n', 'def f():\n    x()\n    y()\nend()\n');
    expect(counts).toMatchObject({ resolved: 2, exact: 0, whitespaceMatch: 1, wrong: 1 });
  });
});

describe('judge, order-insensitive', () => {
  it('counts a hunk that differs from the human only in the order of unordered siblings apart (order only)', async () => {
    const conflictedClass =
      'class A:\n    def a(self):\n        pass\n<<<<<<< ours\n    def o(self):\n        return 1\n||||||| base\n=======\n    def t(self):\n        return 2\n>>>>>>> theirs\n    def z(self):\n        pass\n';
    const file = parseConflictText(conflictedClass, { path: 'm.py' });
    const human =
      'class A:\n    def a(self):\n        pass\n    def t(self):\n        return 2\n    def o(self):\n        return 1\n    def z(self):\n        pass\n';
    const counts = emptyHunkCounts();
    await judge(
      counts,
      file,
      file.hunks[0]!,
      '    def o(self):\n        return 1\n    def t(self):\n        return 2\n',
      human,
    );
    expect(counts).toMatchObject({ resolved: 1, exact: 0, whitespaceMatch: 0, equal: 0, orderOnly: 1, wrong: 0 });
  });
  it('does not count reordered statements of an ordered container (a function body) as equal', async () => {
    const conflictedBody =
      'def f():\n    a()\n<<<<<<< ours\n    o()\n||||||| base\n=======\n    t()\n>>>>>>> theirs\n    z()\n';
    const file = parseConflictText(conflictedBody, { path: 'm.py' });
    const counts = emptyHunkCounts();
    await judge(counts, file, file.hunks[0]!, '    o()\n    t()\n', 'def f():\n    a()\n    t()\n    o()\n    z()\n');
    expect(counts).toMatchObject({ resolved: 1, equal: 0, orderOnly: 0, wrong: 1 });
  });
});

describe('runEval with a fallback (the --with-model hook)', () => {
  it('scores what the injected rung resolves alongside the rules', async () => {
    const git = new Git({ cwd: tmpdir() });
    try {
      const base = 'a\nb\nc\n';
      const report = await runEval(
        'inline',
        [
          { id: 'ws', path: 'w.txt', base, ours: 'a\nB \nc\n', theirs: 'a\nB\nc\n', resolved: 'a\nB\nc\n' },
          { id: 'real', path: 'r.txt', base, ours: 'a\nX\nc\n', theirs: 'a\nY\nc\n', resolved: 'a\nXY\nc\n' },
          { id: 'gone', path: 'g.txt', base, ours: null, theirs: base, resolved: null },
        ],
        {
          git,
          rules: selectRules(),
          allRules,
          fallback: async (_file, hunks) =>
            hunks.map((h) => ({ hunkIndex: h.index, text: 'XY\n', rung: 'model' as const, by: 'scripted-model' })),
        },
      );
      expect(report.hunksSeen).toBe(2);
      expect(report.byRule['whitespace-only']).toMatchObject({ resolved: 1, whitespaceMatch: 1 });
      expect(report.byRule['scripted-model']).toMatchObject({ resolved: 1, exact: 1, wrong: 0 });
      expect(report.files).toMatchObject({ seen: 3, resolved: 3, exact: 2, whitespaceMatch: 3, wrong: 0 });
      // a side deleted the file the other left alone: a file-level decision, counted apart from content conflicts
      expect(report.filesByKind.content).toMatchObject({ seen: 2, resolved: 2 });
      expect(report.filesByKind['one side deleted']).toMatchObject({ seen: 1, resolved: 1, exact: 1 });
    } finally {
      git.close();
    }
  });
});

describe('runEval: what the person did with the hunks the ladder left', () => {
  it('sorts each left hunk by the text the person chose, and each left content file by its hunks', async () => {
    const git = new Git({ cwd: tmpdir() });
    try {
      const base = 'a\nb\nc\nd\ne\nf\ng\n';
      const ours = 'a\nO1\nc\nd\ne\nO2\ng\n';
      const theirs = 'a\nT1\nc\nd\ne\nT2\ng\n';
      const report = await runEval(
        'inline',
        [
          { id: 'ours', path: 'o.txt', base, ours, theirs, resolved: ours },
          { id: 'mixed', path: 'm.txt', base, ours, theirs, resolved: 'a\nO1\nT1\nc\nd\ne\nT2\ng\n' },
          { id: 'new', path: 'n.txt', base, ours, theirs, resolved: 'a\nO1\nc\nd\ne\nNEW\ng\n' },
        ],
        { git, rules: selectRules(), allRules },
      );
      expect(report.files.resolved).toBe(0);
      expect(report.left.hunks).toEqual({ ours: 3, 'ours then theirs': 1, theirs: 1, 'other text': 1 });
      expect(report.left.files).toEqual({
        'every open hunk ours': 1,
        'both sides kept in some hunk': 1,
        'some hunk needs text of neither side': 1,
      });
    } finally {
      git.close();
    }
  });
});
