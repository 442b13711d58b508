import { join } from 'node:path';
import type { RunState } from '../../store/run-state.js';
import type { Ctx } from '../nodes/common.js';

/** Where the files are kept as they were handed to a person (hunks no rung resolved still in markers), to learn their answers. */
export function presentedDir(ctx: Ctx, state: RunState, conflict: string): string {
  return join(ctx.store.paths(state.name).dir, 'presented', conflict);
}
