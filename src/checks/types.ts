import type { TestFailures } from './test-output/types.js';

/** The outcome of one named check. A failing check is a value, not an exception. */
export interface CheckResult {
  name: string;
  command: string;
  success: boolean;
  /** The command's exit code; null when it was killed by a signal. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** Absolute path of the full log (`OUTPUT_DIR/NAME-YYYYMMDD-HHMMSS.log`). */
  logFile: string;
  /** The last lines of output (30 by default), secrets redacted. */
  tail: string[];
  /** It ran inside bubblewrap (no network, read-only outside its worktree). */
  sandboxed?: boolean;
  /** This is the worktree's setup (`check.setup`, name `setup`), which failed before this check could run. */
  setupFor?: string;
  /** A check run elsewhere (a CI runner): the failing tests as the job named them (its whole log is not here). */
  tests?: TestFailures | null;
  /** Where the whole log of a check run elsewhere is kept (the CI job's page). */
  url?: string | null;
}

export const failureTypes = ['compile_error', 'link_error', 'test_failure', 'timeout'] as const;
export type FailureType = (typeof failureTypes)[number];

/** What went wrong in a failed check, from the deterministic extractor or the summarizer model. */
export interface FailureSummary {
  error_type: FailureType;
  /** `file:line`, a test name, or null when unknown. */
  location: string | null;
  /** One sentence. */
  root_cause: string;
  /** The relevant lines of the log (bounded). */
  excerpt: string;
}

export interface RunCheckOptions {
  /** Run in this directory instead of the runner's workdir (e.g. a splintercat-owned worktree). */
  cwd?: string;
  /** The commit under test, when the directory holds it as committed (a runner elsewhere checks this commit). */
  commit?: string;
  /** Cancels the check (a runner elsewhere withdraws its request). */
  signal?: AbortSignal;
  /**
   * Stops waiting for a check run elsewhere and leaves its request there, for a later process to
   * wait on: the call rejects with CheckLeft. A check run here ignores it.
   */
  leave?: AbortSignal;
  /** Receives output as it arrives (the console stream). */
  onOutput?: (chunk: string) => void;
  /**
   * Files (relative to the cwd) that hold a model's resolution: `check.setup` never runs one it
   * names, and gets no network while one it reads (`setup_when`) is among them.
   */
  untrusted?: readonly string[];
}

/** What the workflow and the resolver's `run_check` tool need from the CheckRunner. */
export interface CheckRunnerLike {
  /** The configured check names. */
  names(): string[];
  run(name: string, options?: RunCheckOptions): Promise<CheckResult>;
  /** How many checks may be in flight at once; absent = 1 (checks here share one check worktree). */
  readonly parallel?: number;
  /** Checks run elsewhere on `options.commit`: no worktree needs to hold the commit. */
  readonly remote?: boolean;
}
