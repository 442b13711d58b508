import { describe, expect, it } from 'vitest';
import { alignHunks, hunkContexts, type RecordedHunk } from './hunk-identity.js';

const hunk = ['<<<<<<< HEAD', 'x fork', '=======', 'x up', '>>>>>>> up'];
/** Four sections, each with the same hunk between its own lines. */
const file = (open: readonly number[]): string =>
  [1, 2, 3, 4].flatMap((n) => [`section ${n}`, ...(open.includes(n) ? hunk : ['x taken']), `end ${n}`]).join('\n');
/** Where the hunks of a text are (marker lines, 1-based). */
const at = (text: string) =>
  text.split('\n').flatMap((l, i) => (l.startsWith('<<<<<<<') ? [{ startLine: i + 1, endLine: i + 5 }] : []));

describe('which hunk is which', () => {
  const handed = hunkContexts(file([1, 2, 3, 4]), at(file([1, 2, 3, 4])));
  const recorded = (taken: number[]): RecordedHunk[] =>
    handed.map((c, i) => ({ key: 'same', ...c, ...(taken.includes(i + 1) ? { taken: true } : {}) }));
  const current = (open: number[]) => hunkContexts(file(open), at(file(open))).map((c) => ({ key: 'same', ...c }));
  const matched = (steps: ReturnType<typeof alignHunks>): number[] =>
    steps.flatMap((s) => (s.kind === 'match' ? [s.recorded + 1] : []));

  it('reads the lines around each hunk, never into its neighbour', () => {
    expect(handed[1]).toEqual({ before: 'end 1\nsection 2', after: 'end 2\nsection 3' });
  });

  it('identical hunks: the taken ones are skipped, one settled by hand is told by the lines around it', () => {
    expect(matched(alignHunks(recorded([1]), current([2, 3, 4])))).toEqual([2, 3, 4]);
    expect(matched(alignHunks(recorded([]), current([1, 2, 4])))).toEqual([1, 2, 4]);
    expect(matched(alignHunks(recorded([2]), current([3])))).toEqual([3]);
  });

  it('a taken hunk is open again only where it is back as it was', () => {
    expect(matched(alignHunks(recorded([1, 2, 3]), current([1, 2, 3, 4])))).toEqual([1, 2, 3, 4]);
    const steps = alignHunks(recorded([1, 2, 3]), [{ key: 'other', before: '', after: '' }, ...current([4])]);
    expect(matched(steps)).toEqual([4]);
    expect(steps.filter((s) => s.kind === 'new')).toEqual([{ kind: 'new', current: 0 }]);
  });
});
