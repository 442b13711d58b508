import { describe, expect, it } from 'vitest';
import { alignBlocks, blockContexts, type RecordedBlock } from './block-identity.js';

const block = ['<<<<<<< HEAD', 'x fork', '=======', 'x up', '>>>>>>> up'];
/** Four sections, each with the same block between its own lines. */
const file = (open: readonly number[]): string =>
  [1, 2, 3, 4].flatMap((n) => [`section ${n}`, ...(open.includes(n) ? block : ['x taken']), `end ${n}`]).join('\n');
/** Where the blocks of a text are (marker lines, 1-based). */
const at = (text: string) =>
  text.split('\n').flatMap((l, i) => (l.startsWith('<<<<<<<') ? [{ startLine: i + 1, endLine: i + 5 }] : []));

describe('which block is which', () => {
  const handed = blockContexts(file([1, 2, 3, 4]), at(file([1, 2, 3, 4])));
  const recorded = (taken: number[]): RecordedBlock[] =>
    handed.map((c, i) => ({ key: 'same', ...c, ...(taken.includes(i + 1) ? { taken: true } : {}) }));
  const current = (open: number[]) => blockContexts(file(open), at(file(open))).map((c) => ({ key: 'same', ...c }));
  const matched = (steps: ReturnType<typeof alignBlocks>): number[] =>
    steps.flatMap((s) => (s.kind === 'match' ? [s.recorded + 1] : []));

  it('reads the lines around each block, never into its neighbour', () => {
    expect(handed[1]).toEqual({ before: 'end 1\nsection 2', after: 'end 2\nsection 3' });
  });

  it('identical blocks: the taken ones are skipped, one settled by hand is told by the lines around it', () => {
    expect(matched(alignBlocks(recorded([1]), current([2, 3, 4])))).toEqual([2, 3, 4]);
    expect(matched(alignBlocks(recorded([]), current([1, 2, 4])))).toEqual([1, 2, 4]);
    expect(matched(alignBlocks(recorded([2]), current([3])))).toEqual([3]);
  });

  it('a taken block is open again only where it is back as it was', () => {
    expect(matched(alignBlocks(recorded([1, 2, 3]), current([1, 2, 3, 4])))).toEqual([1, 2, 3, 4]);
    const steps = alignBlocks(recorded([1, 2, 3]), [{ key: 'other', before: '', after: '' }, ...current([4])]);
    expect(matched(steps)).toEqual([4]);
    expect(steps.filter((s) => s.kind === 'new')).toEqual([{ kind: 'new', current: 0 }]);
  });
});
