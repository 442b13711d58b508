import type { Block } from './grid.js';
import { compareIndexes, type Grid } from './grid.js';
import { findFrontierBlocks, mapKnownFrontier, MergeFrontier } from './frontier.js';
import { cellId } from './cell.js';

/** In-memory merge operations the autofill needs (see merger.ts for the git implementation). */
export interface Merger {
  /** Tree of the clean merge of c1 and c2, or null on conflict. */
  mergeTree(c1: string, c2: string): Promise<string | null>;
  /** Write a commit object. */
  commit(tree: string, parents: string[], message: string): Promise<string>;
}

/** One step of an autofill, for progress displays. */
export interface AutofillEvent {
  kind: 'probe' | 'merge' | 'conflict' | 'unexpected-conflict' | 'blocked';
  i1: number;
  i2: number;
  ok: boolean;
}

export interface AutofillContext {
  grid: Grid;
  name: string;
  merger: Merger;
  goal: string;
  /** git-imerge's --manual: never autofill. */
  manual: boolean;
  /** Independent merges run at most this many at a time (>= 1). */
  jobs: number;
  onProgress?: (event: AutofillEvent) => void;
  signal?: AbortSignal;
  /**
   * Persist the grid. Called after each step (`final` false: the callee may wait for a later one)
   * and once when the autofill stops, complete or at a blocker (`final` true: must save).
   */
  save: (final: boolean) => Promise<void>;
}

/** The outcome of an autofill: done, or stopped at the cell git-imerge would ask the person to merge. */
export type AutofillOutcome = { complete: true } | { complete: false; blocker: [number, number] };

class UnexpectedMergeFailure extends Error {
  constructor(
    readonly i1: number,
    readonly i2: number,
  ) {
    super(`unexpected conflict at ${cellId({ i1, i2 })}`);
  }
}

const autoMessage = (name: string, i1: number, i2: number): string =>
  `imerge '${name}': automatic merge ${cellId({ i1, i2 })}`;

function checkAbort(signal?: AbortSignal): void {
  if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** Probe whether block-relative (i1,i2) merges cleanly: direct merge of block[i1,0] and block[0,i2]. */
async function isMergeable(ctx: AutofillContext, block: Block, i1: number, i2: number): Promise<boolean> {
  if (block.known(i1, i2)) return true;
  checkAbort(ctx.signal);
  const tree = await ctx.merger.mergeTree(block.cell(i1, 0).oid as string, block.cell(0, i2).oid as string);
  const [o1, o2] = block.original(i1, i2);
  ctx.onProgress?.({ kind: 'probe', i1: o1, i2: o2, ok: tree !== null });
  return tree !== null;
}

/**
 * Outline a block believed mergeable: its bottom row and right column, then the far corner computed
 * both ways (accepted only if the trees agree), as git-imerge's auto_outline. Nothing is recorded
 * unless every merge succeeds. The two edges are independent and run concurrently when jobs > 1.
 */
async function autoOutline(ctx: AutofillContext, block: Block): Promise<void> {
  const merges: [number, number, string][] = [];
  const { merger, name } = ctx;
  const doMerge = async (i1: number, c1: string, i2: number, c2: string, record: boolean): Promise<string> => {
    if (block.known(i1, i2)) return block.cell(i1, i2).oid as string;
    checkAbort(ctx.signal);
    const [o1, o2] = block.original(i1, i2);
    const tree = await merger.mergeTree(c1, c2);
    if (tree === null) {
      ctx.onProgress?.({ kind: 'unexpected-conflict', i1: o1, i2: o2, ok: false });
      throw new UnexpectedMergeFailure(i1, i2);
    }
    const commit = await merger.commit(tree, [c1, c2], autoMessage(name, o1, o2));
    ctx.onProgress?.({ kind: 'merge', i1: o1, i2: o2, ok: true });
    if (record) merges.push([i1, i2, commit]);
    return commit;
  };
  const bottom = async (): Promise<string> => {
    const i2 = block.len2 - 1;
    let left = block.cell(0, i2).oid as string;
    for (let i1 = 1; i1 < block.len1 - 1; i1++)
      left = await doMerge(i1, block.cell(i1, 0).oid as string, i2, left, true);
    return left;
  };
  const right = async (): Promise<string> => {
    const i1 = block.len1 - 1;
    let above = block.cell(i1, 0).oid as string;
    for (let i2 = 1; i2 < block.len2 - 1; i2++)
      above = await doMerge(i1, above, i2, block.cell(0, i2).oid as string, true);
    return above;
  };
  const [left, above] = await both(ctx.jobs, bottom, right);
  const i1 = block.len1 - 1;
  const i2 = block.len2 - 1;
  if (i1 > 1 && i2 > 1) {
    if (!block.known(i1, i2)) {
      const [o1, o2] = block.original(i1, i2);
      const way = async (c1: string, c2: string): Promise<string> => {
        checkAbort(ctx.signal);
        const tree = await merger.mergeTree(c1, c2);
        if (tree === null) {
          ctx.onProgress?.({ kind: 'unexpected-conflict', i1: o1, i2: o2, ok: false });
          throw new UnexpectedMergeFailure(i1, i2);
        }
        return tree;
      };
      const [t1, t2] = await both(
        ctx.jobs,
        () => way(block.cell(i1, 0).oid as string, left),
        () => way(above, block.cell(0, i2).oid as string),
      );
      // Both ways must agree, or the block is not really mergeable (git-imerge's vertex check).
      if (t1 !== t2) throw new UnexpectedMergeFailure(i1, i2);
      merges.push([i1, i2, await merger.commit(t1, [above, left], autoMessage(name, o1, o2))]);
      ctx.onProgress?.({ kind: 'merge', i1: o1, i2: o2, ok: true });
    }
  } else {
    await doMerge(i1, above, i2, left, true);
  }
  for (const [a, b, commit] of merges) {
    const cell = block.cell(a, b);
    // A new automatic merge never replaces a manual one.
    if (!cell.manual) cell.oid = commit;
  }
}

/**
 * Run two tasks; concurrently when jobs > 1. A failure of the first takes precedence, so the
 * outcome is the one a sequential run (first, then second) would give.
 */
async function both<A, B>(jobs: number, first: () => Promise<A>, second: () => Promise<B>): Promise<[A, B]> {
  if (jobs <= 1) return [await first(), await second()];
  const [r1, r2] = await Promise.allSettled([first(), second()]);
  if (r1.status === 'rejected') throw r1.reason;
  if (r2.status === 'rejected') throw r2.reason;
  return [r1.value, r2.value];
}

/** git-imerge's auto_outline_frontier: outline the frontier found by bisection, backtracking on surprises. */
async function autoOutlineFrontier(ctx: AutofillContext, block: Block, given?: MergeFrontier): Promise<boolean> {
  const prefetch =
    ctx.jobs > 1
      ? (b: Block, i1: number, i2: number): void => {
          if (i1 < b.len1 && i2 < b.len2 && !b.known(i1, i2)) {
            ctx.merger.mergeTree(b.cell(i1, 0).oid as string, b.cell(0, i2).oid as string).catch(() => undefined);
          }
        }
      : undefined;
  let frontier =
    given ??
    new MergeFrontier(block, await findFrontierBlocks(block, (b, i1, i2) => isMergeable(ctx, b, i1, i2), prefetch));
  for (;;) {
    if (frontier.isEmpty) return false;
    let best = frontier.blocks[0] as Block;
    for (const b of frontier.blocks) if (compareIndexes(b.original(0, 0), best.original(0, 0)) > 0) best = b;
    try {
      await autoOutline(ctx, best);
    } catch (error) {
      if (!(error instanceof UnexpectedMergeFailure)) throw error;
      // Non-monotone grid: a merge bisection expected to succeed failed. Shrink the frontier and retry.
      frontier = frontier.removeFailure(error.i1, error.i2);
      if (error.i1 === 1 && error.i2 === 1) best.cell(1, 1).blocked = true;
      continue;
    }
    const [f1, f2] = frontier.partition(best);
    if (!f1.isEmpty) await autoOutlineFrontier(ctx, f1.block, f1);
    if (!f2.isEmpty) await autoOutlineFrontier(ctx, f2.block, f2);
    return true;
  }
}

/** git-imerge's auto_fill_micromerge (goal full): merge only (1,1) of the block. */
async function autoFillMicromerge(ctx: AutofillContext, block: Block): Promise<boolean> {
  if (block.len1 <= 1 || block.len2 <= 1 || block.isBlocked(1, 1)) return false;
  checkAbort(ctx.signal);
  const above = block.cell(1, 0).oid as string;
  const left = block.cell(0, 1).oid as string;
  const [o1, o2] = block.original(1, 1);
  const tree = await ctx.merger.mergeTree(above, left);
  if (tree === null) {
    block.cell(1, 1).blocked = true;
    ctx.onProgress?.({ kind: 'conflict', i1: o1, i2: o2, ok: false });
    return false;
  }
  block.cell(1, 1).oid = await ctx.merger.commit(tree, [above, left], autoMessage(ctx.name, o1, o2));
  ctx.onProgress?.({ kind: 'merge', i1: o1, i2: o2, ok: true });
  return true;
}

async function autoExpandFrontier(ctx: AutofillContext, block: Block): Promise<boolean> {
  if (ctx.manual) return false;
  if (ctx.goal === 'full') return autoFillMicromerge(ctx, block);
  return autoOutlineFrontier(ctx, block);
}

/**
 * Fill the grid automatically as far as it goes (git-imerge's auto_complete_frontier), offering a
 * save after each step and saving when it stops. Stops at the leftmost blocker block's (1,1)
 * corner, the cell the person must merge.
 */
export async function autoCompleteFrontier(ctx: AutofillContext): Promise<AutofillOutcome> {
  for (;;) {
    const frontier = mapKnownFrontier(ctx.grid.block());
    const blocks = frontier.blockerBlocks();
    if (frontier.isComplete() || blocks.length === 0) {
      await ctx.save(true);
      return { complete: true };
    }
    blocks.sort((a, b) => compareIndexes(a.original(0, 0), b.original(0, 0)));
    let progressed = false;
    for (const b of blocks) {
      if (await autoExpandFrontier(ctx, b)) {
        progressed = true;
        break;
      }
    }
    await ctx.save(!progressed);
    if (!progressed) {
      const blocker = (blocks[0] as Block).original(1, 1);
      ctx.onProgress?.({ kind: 'blocked', i1: blocker[0], i2: blocker[1], ok: false });
      return { complete: false, blocker };
    }
  }
}
