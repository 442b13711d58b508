import { MODEL_ROLES, type ModelRole } from '../store/model-role.js';
import { RUNGS, type Rung } from '../store/rung.js';
import type { Side } from '../store/side.js';
import type { FailureSummary } from '../checks/types.js';
import type { CheckReading } from './check-reading.js';
import type { Validation } from './validation.js';
import type { ConflictStatus, Handoff, RunState } from '../store/run-state.js';
import type { TimeLeft } from '../workflow/time-left.js';

/**
 * The report's view model: everything `status`, `report` (HTML, Markdown) and `ui` show,
 * as plain JSON built by `buildReportModel` from the run state, the journal and what git
 * still knows. Renderers only format it; they never read the repository.
 */
export const REPORT_MODEL_VERSION = 1;

export type { Rung };
type Role = ModelRole;
export const roles = MODEL_ROLES;
export const rungs = RUNGS;

export interface CommitRef {
  oid: string;
  subject: string;
}

/** Something a cell carries beyond its diagram state: a conflict's outcome, a failed check. */
export interface CellMark {
  i1: number;
  i2: number;
  /** The conflict at this cell (`I1-I2`), if there is one. */
  conflict: string | null;
  status: ConflictStatus | null;
  /** The most involved rung among its hunks (the latest in `RUNGS`: a person, the model, ...); null while open. */
  rung: Rung | null;
  /** Who resolved it: rule names, model ids, `person` (distinct, in hunk order). */
  by: string[];
  /** The latest check that failed on this cell (`build (attempt 1)`), or null. */
  failedCheck: string | null;
  /** That failure is history: a later check on the cell passed, or its conflict was resolved again since. */
  superseded: boolean;
}

export interface GridView {
  /** Cells per axis including the edges: column 0 and row 0 hold the commits themselves. */
  len1: number;
  len2: number;
  /** Branch names as the diagram labels them: fork (i, columns) and upstream (j, rows). */
  forkTip: string;
  upstreamTip: string;
  /** The cell letters of grid-codes.ts, row after row, run-length encoded. */
  cells: string;
  marks: CellMark[];
  /** The commits of each axis: index 0 is the merge base, index i is commit i; empty when unknown. */
  forkAxis: CommitRef[];
  upstreamAxis: CommitRef[];
  /** Where the cells came from: the live refs, the merge commits left in history, or the size alone. */
  source: 'refs' | 'history' | 'size';
}

export interface CheckView {
  /** Position in the run's checks (the UI serves the log by it). */
  index: number;
  name: string;
  target: RunState['checks'][number]['target'];
  cell: string | null;
  commit: string | null;
  success: boolean;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  attempt: number;
  at: string;
  logFile: string;
  /** The log's absolute path (relative logs are under the run's workdir). */
  logPath: string;
  summary: FailureSummary | null;
  /** The failing tests its log names (null: none could be named) and how many ran; null when not read. */
  tests: { failing: string[] | null; ran: number | null } | null;
  /** A failure on a cell or the final merge, compared with the baselines: blamed on the resolutions or not, and why. */
  judgement: {
    verdict: string;
    blamed: boolean;
    blamedTests: string[];
    inherited: string[];
    incomplete: boolean;
    reason: string;
  } | null;
  /** The failure excerpt, or the end of the log when it passed (null when the log is gone). */
  excerpt: string | null;
  /** How to read it: passed, passed against the baselines, not validated, failed (blamed), a failing baseline. */
  reading: CheckReading;
}

interface BaselineView {
  side: Side;
  /** The fork or upstream commit checked (`2-0`, `0-3`), or null for a tip. */
  cell: string | null;
  commit: string;
  check: string;
  passed: boolean;
  /** The failing tests by name; null when it failed and none could be named (its whole outcome is the baseline). */
  failing: string[] | null;
  ran: number | null;
  logFile: string;
}

export interface CurrentCheck {
  name: string;
  cell: string | null;
  attempt: number;
  startedAt: string;
  elapsedMs: number;
}

/** One entry of the timeline: a planner/fallback decision, a failure summary, a blame, an outcome. */
export interface TimelineEntry {
  seq: number;
  at: string;
  kind: 'strategy' | 'recovery' | 'decision' | 'failure' | 'blame' | 'handoff' | 'outcome' | 'finalized';
  /** planner, fallback, runner, person, parser, model. */
  by: string;
  title: string;
  reasoning: string;
  conflicts: string[];
  /** How many identical decisions in a row this entry stands for (1 when alone). */
  times: number;
}

export interface ConflictHunkView {
  index: number;
  ours: string;
  base: string | null;
  theirs: string;
  labels: { ours?: string; base?: string; theirs?: string };
}

interface ConflictFileView {
  path: string;
  kind: string;
  hunks: Array<{ index: number; status: string; rung: Rung | null; by: string | null }>;
  /** The conflicted text's hunks (from the merge of the two parent cells); empty when unknown. */
  conflictHunks: ConflictHunkView[];
}

export interface ToolCallView {
  turn: number | null;
  tool: string;
  input: string;
  ok: boolean;
  output: string;
}

export interface TranscriptView {
  path: string;
  modelId: string | null;
  ok: boolean;
  failure: { reason: string; message: string } | null;
  turns: number;
  reasoning: string[];
  toolCalls: ToolCallView[];
}

export interface ConflictView {
  id: string;
  i1: number;
  i2: number;
  status: ConflictStatus;
  attempts: number;
  resolvedInAttempt: number | null;
  blame: string | null;
  /** Files the person changed at its hand-off beyond the conflict's own files (theirs, kept and checked). */
  outsideEdits: string[];
  rung: Rung | null;
  /** The fork commit (`i1`) and the upstream commit (`i2`) this cell merges. */
  forkCommit: CommitRef | null;
  upstreamCommit: CommitRef | null;
  files: ConflictFileView[];
  resolution: { commit: string; tree: string | null; diff: string | null; diffTruncated: boolean } | null;
  transcripts: TranscriptView[];
  usage: { calls: number; inputTokens: number; outputTokens: number; costUsd: number };
  /** Indexes (CheckView.index) of the checks run on this cell. */
  checks: number[];
  /** Why hunks or the diff are missing, if they are. */
  note: string | null;
}

export interface UsageView {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  unpricedCalls: number;
}

/** One file a side lost lines of, in "What the merge dropped". */
export interface DropFileView {
  path: string;
  /** The cell whose resolution decided the file last; null for a file git merged cleanly. */
  cell: string | null;
  /** Who decided it: the rung and its rule or model, or a person and their choice. */
  decidedBy: string;
  /** The recorded reason for the drop (a policy, a person's explicit take); null: flagged for review. */
  reason: string | null;
  /** What was lost, in words (`drops 3 lines the fork added`). */
  words: string;
  lost: number;
  /** The first lines lost (untrusted text: escaped where printed). */
  lines: Array<{ kind: 'dropped' | 'restored' | 'rewritten'; line: number; text: string }>;
}

/** What the merge dropped of each side's change: from the whole merge's audit once it is made, else the resolutions'. */
export interface DropsView {
  source: 'final' | 'resolutions';
  fork: DropFileView[];
  upstream: DropFileView[];
  /** Files whose drops have no recorded reason. */
  unreasoned: number;
  /** Files not audited: over the size cap, binary, or past the cap of files audited at the end. */
  notAudited: number;
}

export interface ReportModel {
  version: typeof REPORT_MODEL_VERSION;
  generatedAt: string;
  /** The journal position the model reflects (the live view asks for newer). */
  lastSeq: number;
  run: {
    name: string;
    status: RunState['status'];
    statusReason: string | null;
    /** The node to run next ('end' when finished). */
    phase: string;
    goal: RunState['goal'];
    upstream: { ref: string; oid: string };
    fork: { branch: string; oid: string };
    startedAt: string;
    /** When it stopped (null while a process drives it). */
    endedAt: string | null;
    elapsedMs: number;
    /** True when a live process holds the run's lock. */
    live: boolean;
    resultCommit: string | null;
    strategy: { kind: string; batchSize: number | null; decidedBy: string; reasoning: string } | null;
    handoff: Handoff | null;
  };
  progress: {
    conflicts: number;
    resolved: number;
    /** Conflicts not resolved yet (pending, resolving, needs_person, blamed). */
    left: number;
    byStatus: Partial<Record<ConflictStatus, number>>;
    /** Hunks resolved, by the rung that resolved them. */
    hunksByRung: Record<Rung, number>;
    /** Hunks still open (pending or needing the person). */
    hunksOpen: number;
    /** Blocked cells known in the grid right now. */
    blockers: number;
  };
  grid: GridView | null;
  currentCheck: CurrentCheck | null;
  /** Where the run is and how long is left (progress.ts): the same numbers as the progress line while it runs. */
  outlook: ProgressView;
  /** What the planner predicted when it chose the strategy (its check time, and each alternative's), against the run. */
  plan: {
    conflicts: number;
    /** The strategy the prediction is of (absent in runs recorded before it was stored). */
    strategy?: string;
    checkMs: number;
    fullMs: number;
    ms: number;
    alternatives: Array<{ strategy: string; batchSize: number | null; ms: number; checks: number }>;
  } | null;
  /** Each strategy the run used, in order (the first the planner's choice, then each switch with its reason). */
  strategies: StrategyStep[];
  /** The estimates journalled at hand-offs (the first and every tenth), against what happened. */
  estimates: EstimateView[];
  checks: CheckView[];
  /** Each check's outcome on the tips (and the cells' own commits where one was needed): failures never blamed on a resolution. */
  baselines: BaselineView[];
  /** Whether the merged tree is validated, and against what (null while no check ran on it). */
  validation: Validation | null;
  /** Failures a person accepted as expected at a step of the merge (`continue --accept-failure`): never blamed. */
  accepted: Array<{ check: string; conflicts: string[]; failing: string[] | null; logFile: string; at: string }>;
  attempts: Array<{
    number: number;
    strategy: string;
    batchSize: number | null;
    resolutions: number;
    checksRun: number;
    failed: boolean;
    /**
     * failed: a check failed and was blamed; passed: finished (or the run is done) with its checks passing;
     * against_baseline: passed, some check failing only as its baselines do; not_validated: nothing blamed, but some
     * check could not validate what it covered; open: still going.
     */
    result: 'failed' | 'passed' | 'against_baseline' | 'not_validated' | 'open';
    recovery: string | null;
    startedAt: string;
    finishedAt: string | null;
  }>;
  timeline: TimelineEntry[];
  conflicts: ConflictView[];
  drops: DropsView;
  usage: Record<Role, UsageView> & { total: UsageView };
}

/** Progress a person can plan a day around: where the merge is, and how long is left. */
export interface ProgressView {
  done: number;
  /** Conflicts met and not settled (open, waiting for a person, blamed), and blocked cells not yet met. */
  left: number;
  /** Conflicts expected in all (from the grid explored so far, workflow/estimate.ts); null for a finished run. */
  expected: number | null;
  /** The range of `expected` (high null when nothing bounds it yet). */
  range: { low: number; high: number | null } | null;
  /** The check running now, and for how long. */
  check: { name: string; cell: string | null; elapsedMs: number } | null;
  /** Since the run started (a person's time included). */
  elapsedMs: number;
  /** The time the run itself worked. */
  activeMs: number;
  /** Check time so far, on every commit checked. */
  checkMs: number;
  /** Estimated time left: the conflicts still expected at the measured cost of each part, and the final validation. */
  leftMs: number | null;
  /** What `leftMs` counts (null when unknown or nothing is left). */
  leftParts: TimeLeft | null;
  /** What the planner predicted for its strategy (check time), and for how many conflicts. */
  predicted: { strategy: string; ms: number; conflicts: number } | null;
}

/** One strategy the run used: from when, who chose it and why. */
export interface StrategyStep {
  at: string;
  strategy: string;
  by: string;
  reasoning: string;
}

/** An estimate made at a hand-off, and what happened (null while the run has not ended). */
export interface EstimateView {
  handoff: number;
  at: string;
  /** Conflicts resolved when it was made. */
  done: number;
  expected: number;
  low: number;
  high: number | null;
  leftMs: number | null;
  /** Whether the person's pace was measured and counted in `leftMs`. */
  personCounted: boolean;
  handoffsLeft: number;
  actualConflicts: number | null;
  actualLeftMs: number | null;
}
