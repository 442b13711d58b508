import type { CellMark, GridView } from '../../model.js';
import { short } from './dom.js';

/** A cell as [i, j]. */
export type CellPos = [number, number];

export interface CellInfo {
  title: string;
  lines: string[];
}

const MEANING = [
  'not merged, by design: the result does not need this cell (or it is not reached yet)',
  'merged by hand',
  'merged automatically',
  'conflict blocking progress',
  'was blocked, since resolved',
];

/** The run-length cells (`12a3c...`: count then letter) as one code per cell, row after row. */
function decode(runs: string, total: number): Uint8Array {
  const out = new Uint8Array(total);
  const re = /(\d+)([a-z])/g;
  let at = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(runs)) !== null) {
    const n = Number(m[1]);
    const k = (m[2] as string).charCodeAt(0) - 97;
    out.fill(k, at, Math.min(total, at + n));
    at += n;
  }
  return out;
}

/** The grid as the page's data block gives it: cell codes, marks by cell, and the tooltip text of a cell. */
export class GridModel {
  readonly len1: number;
  readonly len2: number;
  readonly codes: Uint8Array;
  private readonly marks = new Map<string, CellMark>();

  constructor(readonly data: GridView) {
    this.len1 = data.len1;
    this.len2 = data.len2;
    this.codes = decode(data.cells, data.len1 * data.len2);
    for (const mk of data.marks) this.marks.set(mk.i1 + '-' + mk.i2, mk);
  }

  mark(i: number, j: number): CellMark | null {
    return this.marks.get(i + '-' + j) ?? null;
  }

  describe(i: number, j: number): CellInfo {
    const g = this.data;
    const code = this.codes[j * this.len1 + i] ?? 0;
    const merge = code % 5;
    const edge = Math.floor(code / 5);
    const title =
      i === 0 && j === 0
        ? 'Merge base'
        : j === 0
          ? 'Fork commit ' + i
          : i === 0
            ? 'Upstream commit ' + j
            : 'Cell ' + i + '-' + j;
    const lines: string[] = [];
    const c1 = g.forkAxis[i];
    const c2 = g.upstreamAxis[j];
    if (i > 0 || j === 0)
      lines.push(g.forkTip + ' #' + i + ': ' + (c1 ? short(c1.oid) + ' ' + c1.subject : '(commit not known)'));
    if (j > 0 || i === 0)
      lines.push(g.upstreamTip + ' #' + j + ': ' + (c2 ? short(c2.oid) + ' ' + c2.subject : '(commit not known)'));
    const mk = this.mark(i, j);
    let outcome: string;
    if (i === 0 || j === 0) outcome = i === 0 && j === 0 ? 'the common ancestor' : 'an original commit (grid edge)';
    else if (mk && mk.conflict) {
      if (mk.status === 'resolved')
        outcome = 'Conflict resolved by ' + (mk.rung || 'a rung') + (mk.by.length ? ' (' + mk.by.join(', ') + ')' : '');
      else if (mk.status === 'needs_person') outcome = 'Conflict: needs the person';
      else outcome = 'Conflict: ' + mk.status;
    } else outcome = MEANING[merge] + (edge ? '; on the merge frontier' : '');
    lines.push('Outcome: ' + outcome);
    if (mk && mk.failedCheck)
      lines.push(
        mk.superseded
          ? 'Check failed earlier: ' + mk.failedCheck + '; resolved again or passed since'
          : 'Last check failed: ' + mk.failedCheck,
      );
    if (mk && mk.conflict) lines.push('Enter or click: show conflict ' + mk.conflict);
    return { title, lines };
  }
}
