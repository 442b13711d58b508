/**
 * The largest object of each kind splintercat reads from a shared remote (what another machine
 * with push access wrote). Each is far above what splintercat itself writes and far below what
 * would cost memory or time to read: an object over its limit is refused by its size alone
 * (`Git.readCapped`), before any of its content is read.
 */
export const OBJECT_LIMITS = {
  /** One record of a run's records tree (a few hundred bytes in practice). */
  record: 1024 * 1024,
  /** One claim on a conflict (a couple of hundred bytes). */
  claim: 64 * 1024,
  /** One entry of the resolution cache (a hunk's sides and its answer). */
  cacheEntry: 1024 * 1024,
  /** A machine snapshot's run state (`state.json`). */
  snapshotState: 32 * 1024 * 1024,
  /** A machine snapshot's journal (`events.jsonl`). */
  snapshotJournal: 32 * 1024 * 1024,
  /** A CI job's result record (`result.json`). */
  checkResult: 256 * 1024,
  /** The end of a CI job's log (`log.txt`): report-check writes at most 64 KiB of it. */
  checkLog: 64 * 1024 + 16 * 1024,
  /** The engine's state blob (`refs/imerge/NAME/state`: goal, tips, blockers), which a shared run fetches. */
  engineState: 16 * 1024 * 1024,
  /**
   * One commit of a merge's history or grid (headers and message). Cells under `refs/imerge/`
   * come from the remote, and upstream writes its own messages; real ones are a few KiB.
   */
  commit: 4 * 1024 * 1024,
  /** Entries listed in one records tree or cache tree. */
  treeEntries: 500_000,
} as const;
