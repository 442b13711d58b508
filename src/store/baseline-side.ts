import type { Side } from './side.js';

/**
 * What a check ran on: a baseline tip, a cell, or the final merge. The baselines keep their stored
 * spelling (`-ours`, `-theirs`) so existing state files still read; messages say fork and upstream.
 */
export const CHECK_TARGETS = ['baseline-ours', 'baseline-theirs', 'cell', 'final'] as const;
export type CheckTarget = (typeof CHECK_TARGETS)[number];

/** The check target of a baseline on `side`. */
export function baselineTargetOf(side: Side): 'baseline-ours' | 'baseline-theirs' {
  return side === 'fork' ? 'baseline-ours' : 'baseline-theirs';
}

/** The side a check target is a baseline of, or null for a cell or the final merge. */
export function baselineSideOf(target: CheckTarget): Side | null {
  return target === 'baseline-ours' ? 'fork' : target === 'baseline-theirs' ? 'upstream' : null;
}
