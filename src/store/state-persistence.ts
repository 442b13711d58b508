/** Durable storage of the state: `save` must be atomic and durable before it returns. */
export interface StatePersistence<S> {
  load(): S | null;
  save(state: S): void;
}
