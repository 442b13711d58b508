/**
 * How long to wait before looking again for something that has not come after `waitedMs`: a
 * tenth of that time, never less than `firstMs` nor more than `longestMs` (unless `firstMs` is
 * more). A result is then seen at most about a tenth of its wait late, while a wait of an hour
 * costs a few dozen looks, not thousands.
 */
export function lookDelay(waitedMs: number, firstMs: number, longestMs: number): number {
  return Math.max(firstMs, Math.min(longestMs, Math.round(waitedMs / 10)));
}
