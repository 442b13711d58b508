import type { Clock } from '../util/clock.js';
import type { RunStoreDeps } from './run-store.js';

/** What doctor's validate, repair and rebuild take besides the run directory and git. */
export interface DoctorDeps extends RunStoreDeps {
  clock?: Clock;
  /** The run's worktree directory (see workflow/worktrees.ts runWorktreesDir): its worktrees are checked too. */
  worktreesDir?: string;
}
