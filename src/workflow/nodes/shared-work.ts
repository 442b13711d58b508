import type { Cell } from '../../imerge/cell.js';
import type { RunState } from '../../store/run-state.js';
import type { GridEngine } from '../ports.js';
import { adoptPublished, heldElsewhere } from '../share/adopt.js';
import type { Ctx, Result } from './common.js';

/** What this clone does with the blocked conflicts of a round. */
type Turn =
  | { kind: 'resolve'; cells: Cell[] }
  /** None is this clone's to resolve, and its own resolutions wait for their check first. */
  | { kind: 'check' }
  /** Another clone published work, or a claim changed: take it in, then look again. */
  | { kind: 'again' }
  /** Every open conflict is another clone's: the run stops until they publish. */
  | { kind: 'end'; result: Result };

/**
 * What the resolve node asks of a run shared through a remote (workflow/share/): the
 * resolutions other clones published, and which conflicts are this clone's to resolve (claimed).
 * A local run has the no-op one: nothing to adopt, every conflict its own.
 */
export interface SharedWork {
  /** The state with the resolutions other clones published recorded. */
  adopt(state: RunState): Promise<RunState>;
  /** Of the blocked cells (sorted), those to resolve now; `underTest` counts resolutions waiting for a check. */
  turn(state: RunState, sorted: Cell[], underTest: number): Promise<Turn>;
}

const localWork: SharedWork = {
  adopt: (state) => Promise.resolve(state),
  turn: (_state, sorted) => Promise.resolve({ kind: 'resolve', cells: sorted }),
};

/** The shared-run part of the resolve node: the remote's when the run is shared, else the no-op one. */
export function sharedWork(ctx: Ctx, engine: GridEngine): SharedWork {
  const share = ctx.share;
  if (!share) return localWork;
  return {
    adopt: (state) => adoptPublished(state, ctx, engine, share),
    async turn(state, sorted, underTest) {
      // Only conflicts this clone holds a claim on: the others are someone else's work.
      const selection = await share.select(sorted);
      if (selection.mine.length > 0) return { kind: 'resolve', cells: selection.mine };
      // Resolutions of this clone's own are checked before it waits for the others.
      if (underTest > 0) return { kind: 'check' };
      if (selection.adoptable || (await share.awaitOthers(ctx.signal))) return { kind: 'again' };
      return { kind: 'end', result: heldElsewhere(state, selection.heldByOthers) };
    },
  };
}
