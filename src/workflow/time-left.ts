// Kept apart from estimate.ts so the report's browser code can name the type without the journal's node imports.
export interface TimeLeft {
  /** The run's own time left, milliseconds: the conflicts still expected at the measured cost of each part. */
  ms: number;
  parts: {
    /** The run's own work per conflict (engine, ladder, model, worktree cleanup), check runs excluded. */
    runMs: number;
    /** Check runs on cells at the measured median, as many per conflict as the run has needed. */
    checksMs: number;
    /** The person's pace over the hand-offs expected; null until one `continue` is measured. */
    personMs: number | null;
    /** The final validation (the full checks). */
    finalMs: number;
    /**
     * The end: the merge commit, its record and the fork's checkout brought forward (tree-wide work,
     * like one autofill round's), then the removal of every worktree still held at the run's
     * measured pace.
     */
    finishMs: number;
  };
  /** Hand-offs still expected (at the share of hand-offs per conflict so far). */
  handoffsLeft: number;
}
