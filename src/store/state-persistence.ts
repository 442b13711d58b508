/** Where a state machine keeps its position inside the state it persists. */
export interface MachineCursor<N extends string> {
  /** The node to run next; 'end' once the machine finished. */
  node: N | 'end';
  /** Nodes completed so far (across resumes). */
  step: number;
  status: 'running' | 'stopped' | 'needs_person' | 'failed' | 'done';
  reason: string | null;
}

/** Reads and writes the cursor in a state value (the run state keeps it in phase/step/status). */
export interface CursorLens<S, N extends string> {
  get(state: S): MachineCursor<N>;
  set(state: S, cursor: MachineCursor<N>): S;
}

/** Durable storage of the state: `save` must be atomic and durable before it returns. */
export interface StatePersistence<S> {
  load(): S | null;
  save(state: S): void;
}
