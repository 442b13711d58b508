/** Map over items with at most `limit` calls in flight; results keep the input order. */
export async function mapPool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

/**
 * Map over items in two stages, each with at most `limit` calls in flight: `prepare` runs
 * ahead of `run` (in input order), so an item is usually ready when a `run` slot frees up.
 * Results keep the input order; a failure in either stage rejects the whole map.
 */
export async function mapPipelined<T, P, R>(
  items: readonly T[],
  limit: number,
  prepare: (item: T, index: number) => Promise<P>,
  run: (prepared: P, item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const ready = items.map(() => {
    let settle!: { resolve: (p: P) => void; reject: (e: unknown) => void };
    const promise = new Promise<P>((resolve, reject) => (settle = { resolve, reject }));
    // Awaited by `run` later; a rejection nobody reaches (the map already failed) is not unhandled.
    promise.catch(() => undefined);
    return { promise, ...settle };
  });
  const preparing = mapPool(items, limit, async (item, index) => {
    const slot = ready[index] as (typeof ready)[number];
    try {
      slot.resolve(await prepare(item, index));
    } catch (error) {
      slot.reject(error);
    }
  });
  const results = await mapPool(items, limit, async (item, index) =>
    run(await (ready[index] as (typeof ready)[number]).promise, item, index),
  );
  await preparing;
  return results;
}
