import type { Block } from './grid.js';

/** Does block-relative (i1, i2) merge cleanly? Known cells count as mergeable (git-imerge's is_mergeable). */
export type MergeableProbe = (block: Block, i1: number, i2: number) => Promise<boolean>;

/** Start probing a cell ahead of need (results are cached); never changes any decision. */
export type Prefetch = (block: Block, i1: number, i2: number) => void;

/**
 * Smallest i in [lo, hi) with f(i) false, by bisection; hi if none (git-imerge's find_first_false).
 * `prefetch`, when given, starts both possible next probes while the current one runs, so two
 * levels of the search finish per round trip; the decisions (and the result) are the sequential ones.
 */
export async function findFirstFalse(
  f: (i: number) => Promise<boolean>,
  lo: number,
  hi: number,
  prefetch?: (i: number) => void,
): Promise<number> {
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (prefetch) {
      if (lo < mid) prefetch(Math.floor((lo + mid) / 2));
      if (mid + 1 < hi) prefetch(Math.floor((mid + 1 + hi) / 2));
    }
    if (await f(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The merge frontier within a block: sub-blocks (sharing the block's origin) believed completely
 * mergeable, normalised as git-imerge does (non-empty, no redundant block, sorted by len1).
 */
export class MergeFrontier {
  readonly blocks: Block[];

  constructor(
    readonly block: Block,
    blocks: Block[] = [],
  ) {
    this.blocks = normalizeBlocks(blocks);
  }

  get isEmpty(): boolean {
    return this.blocks.length === 0;
  }

  /** True iff the frontier covers the whole block. */
  isComplete(): boolean {
    const b = this.blocks[0];
    return this.blocks.length === 1 && b !== undefined && b.len1 === this.block.len1 && b.len2 === this.block.len2;
  }

  /** Refine the frontier given that the merge at block-relative (i1, i2) fails. */
  removeFailure(i1: number, i2: number): MergeFrontier {
    const newBlocks: Block[] = [];
    let shrunk = false;
    for (const b of this.blocks) {
      if (i1 < b.len1 && i2 < b.len2) {
        if (i1 > 1) newBlocks.push(b.slice({ stop: i1 }, {}));
        if (i2 > 1) newBlocks.push(b.slice({}, { stop: i2 }));
        shrunk = true;
      } else newBlocks.push(b);
    }
    return shrunk ? new MergeFrontier(this.block, newBlocks) : this;
  }

  /** The frontiers on each side of an outlined block of this frontier (git-imerge's partition). */
  partition(block: Block): [MergeFrontier, MergeFrontier] {
    const left: Block[] = [];
    const right: Block[] = [];
    for (const b of this.blocks) {
      if (b.len1 === block.len1 && b.len2 === block.len2) continue;
      if (b.len1 < block.len1 && b.len2 > block.len2) left.push(b.slice({}, { start: block.len2 - 1 }));
      else if (b.len1 > block.len1 && b.len2 < block.len2) right.push(b.slice({ start: block.len1 - 1 }, {}));
      else throw new Error('MergeFrontier partitioned with inappropriate block');
    }
    return [
      new MergeFrontier(this.block.slice({ stop: block.len1 }, { start: block.len2 - 1 }), left),
      new MergeFrontier(this.block.slice({ start: block.len1 - 1 }, { stop: block.len2 }), right),
    ];
  }

  /** The blocks beyond this (outlined) frontier; each one's (1,1) is a candidate blocker. */
  blockerBlocks(): Block[] {
    if (this.isEmpty) return [this.block];
    const chain: Block[] = [];
    if ((this.blocks[0] as Block).len2 < this.block.len2) chain.push(this.block.slice(0, {}));
    chain.push(...this.blocks);
    if ((this.blocks[this.blocks.length - 1] as Block).len1 < this.block.len1) chain.push(this.block.slice({}, 0));
    const out: Block[] = [];
    for (let k = 0; k + 1 < chain.length; k++) {
      const b1 = chain[k] as Block;
      const b2 = chain[k + 1] as Block;
      out.push(this.block.slice({ start: b1.len1 - 1, stop: b2.len1 }, { start: b2.len2 - 1, stop: b1.len2 }));
    }
    return out;
  }

  /** The blocker block whose (1,1) is grid cell (i1, i2), or null when (i1, i2) was not blocking. */
  affectedBlockerBlock(i1: number, i2: number): Block | null {
    for (const b of this.blockerBlocks()) {
      const rel = b.convertOriginal(i1, i2);
      if (rel === null) continue;
      return rel[0] === 1 && rel[1] === 1 ? b : null;
    }
    return null;
  }
}

function contains(a: Block, b: Block): boolean {
  return a.len1 >= b.len1 && a.len2 >= b.len2;
}

function normalizeBlocks(blocks: Block[]): Block[] {
  const sorted = [...blocks].sort((a, b) => a.len1 - b.len1);
  const ret: Block[] = [];
  for (const b of sorted) {
    if (b.len1 === 0 || b.len2 === 0) continue;
    for (;;) {
      const last = ret[ret.length - 1];
      if (!last) {
        ret.push(b);
        break;
      }
      if (contains(last, b)) break;
      if (contains(b, last)) ret.pop();
      else {
        ret.push(b);
        break;
      }
    }
  }
  return ret;
}

/**
 * The frontier of merges already known in `block`: a staircase path from the top-right to the
 * bottom-left through known, unblocked cells (git-imerge's map_known_frontier, with its backtracking).
 */
export function mapKnownFrontier(block: Block): MergeFrontier {
  const path: [number, number, boolean][] = [];
  // Whether the far edge can be reached from a cell depends on the cell alone, so a cell the search
  // backed out of is never entered again: the same first path, found in time linear in the cells
  // (a grid rebuilt from history, known only here and there, took minutes of backtracking).
  const dead = new Uint8Array(block.len1 * block.len2);
  const ok = (i1: number, i2: number): boolean =>
    i1 >= 0 &&
    i2 >= 0 &&
    i1 < block.len1 &&
    i2 < block.len2 &&
    dead[i1 * block.len2 + i2] === 0 &&
    block.known(i1, i2) &&
    !block.isBlocked(i1, i2);
  let i1 = block.len1 - 1;
  let i2 = 0;
  let down = true;
  for (;;) {
    if (down) {
      if (i2 === block.len2 - 1) down = false;
      else if (ok(i1, i2 + 1)) {
        path.push([i1, i2, true]);
        i2 += 1;
      } else down = false;
    } else if (i1 === 0) {
      path.push([i1, i2, false]);
      const blocks: Block[] = [];
      for (let k = 0; k + 1 < path.length; k++) {
        const [, , downOld] = path[k] as [number, number, boolean];
        const [n1, n2, downNew] = path[k + 1] as [number, number, boolean];
        if (downOld && !downNew) blocks.push(block.slice({ stop: n1 + 1 }, { stop: n2 + 1 }));
      }
      return new MergeFrontier(block, blocks);
    } else if (ok(i1 - 1, i2)) {
      path.push([i1, i2, false]);
      down = true;
      i1 -= 1;
    } else {
      dead[i1 * block.len2 + i2] = 1;
      for (;;) {
        const prev = path.pop();
        if (!prev) throw new Error('Block is improperly formed: no path across its known merges');
        [i1, i2, down] = prev;
        if (down) {
          down = false;
          break;
        }
        dead[i1 * block.len2 + i2] = 1;
      }
    }
  }
}

/**
 * The frontier blocks of `block` found by bisection (git-imerge's find_frontier_blocks): assumes
 * mergeability is monotone, probes the far corner first, then bisects column and row edges.
 * Records a blocker at (1,1) when nothing in the block merges.
 */
export async function findFrontierBlocks(
  block: Block,
  isMergeable: MergeableProbe,
  prefetch?: Prefetch,
): Promise<Block[]> {
  const out: Block[] = [];
  if (block.len1 <= 1 || block.len2 <= 1 || block.isBlocked(1, 1)) return out;
  const m = (a: number, b: number): Promise<boolean> => isMergeable(block, a, b);
  const pre = (a: number, b: number): void => prefetch?.(block, a, b);
  pre(1, 1);
  if (await m(block.len1 - 1, block.len2 - 1)) return [block];
  if (!(await m(1, 1))) {
    block.cell(1, 1).blocked = true;
    return out;
  }
  let i1 = 1;
  let i2 = await findFirstFalse((i) => m(i1, i), 2, block.len2, prefetch && ((i) => pre(i1, i)));
  for (;;) {
    if (i2 === 1) break;
    if (i1 === block.len1 - 1 || (await m(block.len1 - 1, i2 - 1))) {
      out.push(block.slice({ stop: block.len1 }, { stop: i2 }));
      break;
    }
    const row = i2 - 1;
    pre(block.len1 - 1, row);
    i1 = await findFirstFalse((i) => m(i, row), i1 + 1, block.len1 - 1, prefetch && ((i) => pre(i, row)));
    out.push(block.slice({ stop: i1 }, { stop: i2 }));
    if (i2 - 1 === 1 || !(await m(i1, 1))) break;
    const col = i1;
    i2 = await findFirstFalse((i) => m(col, i), 2, i2 - 1, prefetch && ((i) => pre(col, i)));
  }
  return out;
}
