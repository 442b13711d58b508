/**
 * What the frontier allows on the generated grid, computed from where its conflicts are: conflict
 * (a, b) of bench/_grid.ts blocks every cell at or after it on both axes, so it can be worked on
 * only once every conflict (a', b') with a' <= a and b' <= b is resolved. The longest such chain
 * is the least number of conflicts in a row; a schedule where each of `workers` takes a conflict
 * of the frontier as soon as one is free, with every conflict costing the same, gives the best
 * speed-up that many workers can reach.
 */
export interface FrontierBound {
  /** The longest chain of conflicts that wait for each other. */
  chain: number;
  /** Rounds of the schedule per worker count (1 worker: one conflict a round). */
  rounds: Map<number, number>;
  /** The widest frontier of the 1-worker order. */
  widest: number;
}

export function frontierBound(pairs: [number, number][], workers: number[]): FrontierBound {
  const waitsFor = (k: number, j: number): boolean =>
    j !== k &&
    (pairs[j] as [number, number])[0] <= (pairs[k] as [number, number])[0] &&
    (pairs[j] as [number, number])[1] <= (pairs[k] as [number, number])[1];
  const depth = pairs.map(() => 1);
  for (let k = 0; k < pairs.length; k++)
    for (let j = 0; j < k; j++) if (waitsFor(k, j)) depth[k] = Math.max(depth[k] as number, (depth[j] as number) + 1);
  const schedule = (w: number): { rounds: number; widest: number } => {
    const done = new Set<number>();
    let rounds = 0;
    let widest = 0;
    while (done.size < pairs.length) {
      const frontier = pairs
        .map((_, k) => k)
        .filter((k) => !done.has(k) && pairs.every((_, j) => done.has(j) || !waitsFor(k, j)));
      widest = Math.max(widest, frontier.length);
      for (const k of frontier.slice(0, w)) done.add(k);
      rounds++;
    }
    return { rounds, widest };
  };
  return {
    chain: Math.max(0, ...depth),
    rounds: new Map(workers.map((w) => [w, schedule(w).rounds])),
    widest: schedule(1).widest,
  };
}
