import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { RunState } from '../../store/run-state.js';
import type { Ctx } from '../nodes/common.js';

/** Where the files are kept as they were handed to a person (hunks no rung resolved still in markers), to learn their answers. */
function presentedDir(ctx: Ctx, state: RunState, conflict: string): string {
  return join(ctx.store.paths(state.name).dir, 'presented', conflict);
}

/**
 * Where one file is kept as presented: under its own path, or, for a path too long to sit under
 * the run's directory (a 4,053-byte path from upstream), under a digest of it.
 */
export function presentedFile(ctx: Ctx, state: RunState, conflict: string, path: string): string {
  const dir = presentedDir(ctx, state, conflict);
  const long = Buffer.byteLength(path) > 1024 || path.split('/').some((part) => Buffer.byteLength(part) > 200);
  return long ? join(dir, '.long', createHash('sha256').update(path).digest('hex')) : join(dir, path);
}
