import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { Git } from '../../git/index.js';
import { parseConflictText } from '../parse/markers.js';
import { allRules, selectRules } from '../rules/index.js';
import { alignHunk } from './align.js';
import { emptyHunkCounts } from './metrics.js';
import { runEval } from './run-eval.js';
import { dropsSide, judge } from './score-case.js';

const conflicted = 'head\nctx1\n<<<<<<< a\nours\n||||||| b\nbase\n=======\ntheirs\n>>>>>>> c\nctx2\ntail\n';

describe('alignHunk', () => {
  it('finds the human text between unique context anchors', () => {
    const file = parseConflictText(conflicted);
    expect(alignHunk(file, file.hunks[0]!, 'head\nctx1\nmerged\nlines\nctx2\ntail\n')).toBe('merged\nlines\n');
    expect(alignHunk(file, file.hunks[0]!, 'head\nctx1\nctx2\ntail\n')).toBe('');
  });
  it('gives up when the context was rewritten or is ambiguous', () => {
    const file = parseConflictText(conflicted);
    expect(alignHunk(file, file.hunks[0]!, 'something else entirely\n')).toBeNull();
  });
});

describe('judge and dropsSide', () => {
  it('counts exact, whitespace and wrong matches and dropped sides', () => {
    const file = parseConflictText(conflicted);
    const h = file.hunks[0]!;
    const counts = emptyHunkCounts();
    judge(counts, file, h, 'ours\n', 'head\nctx1\nours\nctx2\ntail\n');
    judge(counts, file, h, 'ours  \n', 'head\nctx1\nours\nctx2\ntail\n');
    judge(counts, file, h, 'ours\n', 'head\nctx1\nours\ntheirs\nctx2\ntail\n');
    judge(counts, file, h, 'ours\n', null);
    expect(counts).toEqual({ resolved: 4, exact: 1, whitespaceMatch: 2, wrong: 1, unaligned: 1, sidesDropped: 1 });
    expect(dropsSide(h, 'ours\ntheirs\n', 'ours\ntheirs\n')).toBe(false);
    expect(dropsSide(h, 'ours\n', 'theirs\n')).toBe(true);
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
        ],
        {
          git,
          rules: selectRules(),
          allRules,
          fallback: async (_file, hunks) => hunks.map((h) => ({ hunkIndex: h.index, text: 'XY\n', rung: 'model' as const, by: 'scripted-model' })),
        },
      );
      expect(report.hunksSeen).toBe(2);
      expect(report.byRule['whitespace-only']).toMatchObject({ resolved: 1, whitespaceMatch: 1 });
      expect(report.byRule['scripted-model']).toMatchObject({ resolved: 1, exact: 1, wrong: 0 });
      expect(report.files).toMatchObject({ seen: 2, resolved: 2, exact: 1, whitespaceMatch: 2, wrong: 0 });
    } finally {
      git.close();
    }
  });
});
