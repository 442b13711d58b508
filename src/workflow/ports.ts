import type { PreflightProblem } from '../checks/check-preflight.js';
import type { CheckRunnerLike, CheckResult, FailureSummary } from '../checks/types.js';
import type { Config } from '../config/index.js';
import type { Git } from '../git/index.js';
import type { ConflictCell } from '../imerge/types.js';
import type { Logger } from '../log/logger.js';
import type { LadderSetup } from '../resolve/index.js';
import type { ModelGateway } from '../agents/index.js';
import type { Cell } from '../imerge/cell.js';
import type { RunStore } from '../store/run-store.js';
import type { Clock } from '../util/clock.js';
import type { WorktreePool } from './worktrees.js';
import type { RunShare } from './share/run-share.js';

/**
 * What the workflow needs from the incremental-merge engine (src/imerge), so the
 * nodes stay orchestration only. `imerge-adapter.ts` provides it over the engine.
 */
export interface GridEngine {
  /** Commits on each axis: `i1` the fork's, `i2` upstream's. */
  size(): { i1: number; i2: number };
  /** Fill every cell that merges cleanly; the blocked cells left (frontier corners), in grid order. */
  autofill(options?: { signal?: AbortSignal }): Promise<Cell[]>;
  /** Per fork commit (the grid's rows, the first commit first), the inner cells of its row at or behind the frontier. */
  filledCells(): number[];
  /** The commit of a filled cell, or null. */
  cellCommit(cell: Cell): Promise<string | null>;
  /** A blocked cell's parents and axis commits (the conflict itself is presented in a worktree). */
  conflictCell(cell: Cell): Promise<ConflictCell>;
  /** Record a resolution of a blocked cell from a tree; returns the manual-merge commit. */
  recordMerge(cell: Cell, tree: string): Promise<string>;
  /** Record resolutions of independent blocked cells at once (all or none); returns their commits in the order given. */
  recordMerges(merges: Array<{ cell: Cell; tree: string }>): Promise<string[]>;
  /** The resolutions recorded in the grid (manual merges of inner cells), in grid order. */
  recordedMerges(): Array<{ cell: Cell; commit: string }>;
  /**
   * A commit whose tree holds exactly what these filled cells hold (their resolutions and all they
   * are built on), for checking several independent resolutions at once: the cell itself for one,
   * else the cells' commits merged in memory. Null when a cell is not filled or the merge conflicts.
   */
  probeCommit(cells: Cell[]): Promise<string | null>;
  /** Drop recorded resolutions and every cell built on them, so they can be resolved again. */
  forget(cells: Cell[]): Promise<void>;
  /**
   * Finish the merge (goal merge: one two-parent commit on `branch`, with `message`); returns its id.
   * The branch is the run's own: the engine's state blob may come from another clone's push.
   */
  finish(message?: string, branch?: string): Promise<string>;
  diagram(): Promise<string>;
}

export interface GridEngineFactory {
  /** Start the merge, or load it when its refs already exist (resume). */
  open(options: {
    name: string;
    forkTip: string;
    upstreamTip: string;
    branch: string;
    goal: string;
    firstParent: boolean;
  }): Promise<GridEngine>;
  /** Remove what is left of a merge's refs (none is fine): after a kill between finishing and removing them. */
  discard(name: string): Promise<void>;
}

/** Everything the nodes use, passed in (never imported globally); `createRunDeps` builds it. */
export interface WorkflowContext {
  git: Git;
  config: Config;
  engines: GridEngineFactory;
  /** Checks run in a directory given per call (a splintercat-owned worktree). */
  checks: CheckRunnerLike;
  worktrees: WorktreePool;
  ladder: LadderSetup;
  /** null = offline (deterministic ladder, extractor and fallback policy only). */
  gateway: ModelGateway | null;
  /** The configured checks that cannot run (missing program, no workdir), found before a merge starts. */
  preflight: (names: string[]) => PreflightProblem[];
  /** The deterministic failure summary; `cwd`: where the check ran (paths shown relative to it); `blamed`: the tests blamed on the resolutions, named first. */
  extractFailure: (log: string, result: CheckResult, options?: { cwd?: string; blamed?: string[] }) => FailureSummary;
  /** The run directories (`.git/splintercat/NAME/`). */
  store: RunStore;
  clock: Clock;
  log: Logger;
  /** `--interactive`: asked before a resolution is recorded; absent = every resolution is accepted. */
  approver?: ResolutionApprover | null;
  /** The run's out-of-tree build directory (`check.build_dir`/NAME), or none. */
  buildDir?: string | null;
  /** A run shared through a remote: other machines' resolutions taken, conflicts claimed before work. */
  share?: RunShare | null;
}

/** The context of one drive of a run: its dependencies and its grid engine, opened once (on first use). */
export interface RunContext extends WorkflowContext {
  engine(): Promise<GridEngine>;
}

/** A resolution the ladder produced for one blocked cell, as shown to the user for approval. */
export interface ResolutionProposal {
  /** `I1-I2`. */
  conflict: string;
  /** `path: hunk 1 by rule (one-side-unchanged), hunk 2 by model (...)`, one line per file. */
  summary: string[];
  /** The conflicted files as resolved, against the fork side and against the upstream side of the cell (`git diff` text). */
  diff: string;
}

export interface ResolutionApprover {
  /** true = record it; false = hand the conflict to the person instead. */
  approveResolution(proposal: ResolutionProposal): Promise<boolean>;
}
