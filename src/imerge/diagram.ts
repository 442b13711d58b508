import type { Grid } from './grid.js';
import { mapKnownFrontier, type MergeFrontier } from './frontier.js';

const WITHIN = 0x10;
const RIGHT = 0x20;
const BOTTOM = 0x40;
// Block.MERGE_* codes of git-imerge.
const UNKNOWN = 0;
const MANUAL = 1;
const AUTOMATIC = 2;
const BLOCKED = 3;
const UNBLOCKED = 4;

function cellCode(grid: Grid, i1: number, i2: number): number {
  const c = grid.cell(i1, i2);
  if (c.oid === null) return c.blocked ? BLOCKED : UNKNOWN;
  if (c.blocked) return UNBLOCKED;
  return c.manual ? MANUAL : AUTOMATIC;
}

function frontierDiagram(grid: Grid, frontier: MergeFrontier): number[][] {
  const d = Array.from({ length: grid.len1 }, (_, i1) =>
    Array.from({ length: grid.len2 }, (_, i2) => cellCode(grid, i1, i2)),
  );
  const blocks = frontier.blocks;
  const or = (i1: number, i2: number, v: number): void => {
    (d[i1] as number[])[i2] = ((d[i1] as number[])[i2] as number) | v;
  };
  let next = blocks[0];
  or(0, grid.len2 - 1, BOTTOM);
  for (let i2 = 1; i2 < grid.len2; i2++) if (!next || i2 >= next.len2) or(0, i2, RIGHT);
  let prev: (typeof blocks)[number] | undefined;
  for (let n = 0; n < blocks.length; n++) {
    const b = blocks[n] as (typeof blocks)[number];
    next = blocks[n + 1];
    for (let i1 = 0; i1 < b.len1; i1++) {
      for (let i2 = 0; i2 < b.len2; i2++) {
        let v = WITHIN;
        if (i1 === b.len1 - 1 && (!next || i2 >= next.len2)) v |= RIGHT;
        if (i2 === b.len2 - 1 && (!prev || i1 >= prev.len1)) v |= BOTTOM;
        or(i1, i2, v);
      }
    }
    prev = b;
  }
  prev = blocks[blocks.length - 1];
  for (let i1 = 1; i1 < grid.len1; i1++) if (!prev || i1 >= prev.len1) or(i1, 0, BOTTOM);
  or(grid.len1 - 1, 0, RIGHT);
  return d;
}

function format(node: number): string {
  const legend = ['?', '*', '.', '#', '@', '-', '|', '+'];
  const merge = node & 7;
  if (merge !== MANUAL && merge !== BLOCKED && merge !== UNBLOCKED) {
    const edge = node & (BOTTOM | RIGHT);
    if (edge === (BOTTOM | RIGHT)) return '+';
    if (edge === RIGHT) return '|';
    if (edge === BOTTOM) return '-';
  }
  return legend[merge] as string;
}

function withAxes(cols: string[][], tip1: string, tip2: string): string {
  const len1 = cols.length;
  const len2 = (cols[0] as string[]).length;
  let f = '   ';
  for (let i1 = 0; i1 < len1; i1 += 5) f += String(i1).padStart(5);
  const r = (len1 - 1) % 5;
  if (r === 0) f += '\n';
  else f += `${r === 1 ? ' ' : ''}${' '.repeat(Math.max(0, r - 1))}${len1 - 1}\n`;
  f += '   ';
  for (let i1 = 0; i1 < len1; i1 += 5) f += '|'.padStart(5);
  if (r === 0) f += '\n';
  else if (r === 1) f += ' /\n';
  else f += `${' '.repeat(r - 1)}|\n`;
  for (let i2 = 0; i2 < len2; i2++) {
    f += i2 % 5 === 0 || i2 === len2 - 1 ? `${String(i2).padStart(4)} - ` : '       ';
    for (let i1 = 0; i1 < len1; i1++) f += (cols[i1] as string[])[i2];
    f += tip1 && i2 === 0 ? ` - ${tip1}\n` : '\n';
  }
  if (tip2) f += `       |\n     ${tip2}\n`;
  return f;
}

/**
 * git-imerge's diagram node of every cell, as columns `codes[i1][i2]`: the low three bits are the
 * merge state (0 unknown, 1 manual, 2 automatic, 3 blocked, 4 unblocked), 0x20 marks a right and
 * 0x40 a bottom edge of the known frontier's rectangles (0x10: inside one). `diagramChar` prints one.
 */
export function diagramCodes(grid: Grid): number[][] {
  return frontierDiagram(grid, mapKnownFrontier(grid.block()));
}

/** The character git-imerge's diagram shows for a node of `diagramCodes`. */
export function diagramChar(node: number): string {
  return format(node);
}

/** The character git-imerge's diagram shows for each cell, as columns: `cells[i1][i2]`. */
export function diagramCells(grid: Grid): string[][] {
  return diagramCodes(grid).map((col) => col.map(format));
}

/** Lay out diagram columns (`cols[i1][i2]`, one character each) with git-imerge's axes and tip names. */
export function diagramWithAxes(cols: string[][], tip1: string, tip2: string): string {
  return withAxes(cols, tip1, tip2);
}

/** git-imerge's `diagram` output (frontier view, no colour) including its key. */
export function renderDiagram(grid: Grid, tip1: string, tip2: string): string {
  const cols = diagramCells(grid);
  return (
    `${withAxes(cols, tip1, tip2)}\n` +
    'Key:\n' +
    '  |,-,+ = rectangles forming current merge frontier\n' +
    '  * = merge done manually\n' +
    '  . = merge done automatically\n' +
    '  # = conflict that is currently blocking progress\n' +
    '  @ = merge was blocked but has been resolved\n' +
    '  ? = no merge recorded\n\n'
  );
}
