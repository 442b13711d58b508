import { describe, expect, it } from 'vitest';
import { diagramWithAxes } from '../imerge/diagram.js';
import { frontierWindow } from './grid-window.js';

/** Columns of a len1 x len2 diagram, all `?` inside the starred edges, then `set` applied. */
function columns(len1: number, len2: number, set: Array<[number, number, string]> = []): string[][] {
  const cols = Array.from({ length: len1 }, (_, i1) =>
    Array.from({ length: len2 }, (_, i2) => (i1 === 0 || i2 === 0 ? '*' : '?')),
  );
  for (const [i1, i2, ch] of set) (cols[i1] as string[])[i2] = ch;
  return cols;
}

describe('frontierWindow', () => {
  it('draws a grid short enough whole', () => {
    const cols = columns(6, 10);
    const full = diagramWithAxes(cols, 'main', 'up');
    expect(frontierWindow(cols, full)).toEqual({ text: full, hidden: 0 });
  });

  it('draws the first row, each blocker and the frontier edge with context, each gap said in one line', () => {
    const cols = columns(8, 1000, [
      [3, 400, '#'],
      [5, 700, '-'],
    ]);
    const full = diagramWithAxes(cols, 'main', 'up');
    const { text, hidden } = frontierWindow(cols, full);
    const lines = text.split('\n');
    expect(lines.length).toBeLessThan(40);
    expect(text).toMatch(/^ {3}0 - \*{8} - main$/m);
    expect(text).toMatch(/^ 398 - \*\?{7}$/m);
    expect(lines.find((l) => l.includes('#'))).toBe(' 400 - *??#????');
    expect(text).toMatch(/~ rows 3-397 \(395\) not shown/);
    expect(text).toMatch(/^ 698 - /m);
    expect(text).toMatch(/~ rows 703-996 \(294\) not shown/);
    expect(text).toMatch(/^ 997 - /m);
    expect(text).toMatch(/ {5}up\n?$/);
    expect(hidden).toBe(1000 - 3 - 5 - 5 - 3);
  });

  it('never draws more rows than asked, blockers before the frontier edge', () => {
    const blockers = Array.from({ length: 50 }, (_, k): [number, number, string] => [1 + (k % 7), 10 + 19 * k, '#']);
    const cols = columns(8, 1000, [...blockers, [2, 990, '-']]);
    const { text } = frontierWindow(cols, diagramWithAxes(cols, 'main', 'up'), 24);
    const rows = text.split('\n').filter((l) => /^( {4}|\s*\d+) - |^ {7}[*]/.test(l));
    expect(rows.length).toBeLessThanOrEqual(24);
    expect(text).toContain('#');
    expect(text).not.toMatch(/^ 988 - /m);
  });
});
