import type { Logger } from '../log/logger.js';
import { addEvent, computeProgress, emptyTally, progressLine, type JournalTally } from '../report/progress.js';
import type { RunEvent } from '../store/run-events.js';
import type { RunState } from '../store/run-state.js';

/** Where the display writes: stderr, or a stream that says whether it is a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * The progress of a merge while it runs. On a terminal: one line at the bottom of stderr,
 * redrawn every second and after every event, cleared while a log line is written above it.
 * Not on a terminal: one plain log line per step of the workflow (each node that ends).
 */
export class ProgressDisplay {
  private tally: JournalTally = emptyTally();
  private state: RunState | null = null;
  private shown = '';
  private timer: NodeJS.Timeout | null = null;
  private log: Logger | null = null;

  constructor(
    private readonly out: ProgressStream,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get terminal(): boolean {
    return this.out.isTTY === true;
  }

  /** Where the plain lines go when not on a terminal (the run's logger: console and log file). */
  useLogger(log: Logger): void {
    this.log = log;
  }

  /** The run moved: a state was saved (event null) or an event journalled (`replayed`: by an earlier process). */
  update(state: RunState, event: RunEvent | null, replayed = false): void {
    this.state = state;
    if (event) this.tally = addEvent(this.tally, event);
    if (replayed) return;
    if (this.terminal) {
      this.timer ??= setInterval(() => this.draw(), 1000).unref();
      this.draw();
    } else if (event?.type === 'node_finished') {
      this.log?.info({ progress: true }, `progress: ${this.line()}`);
    }
  }

  /** A console stream for the logger: on a terminal the progress line is lifted while a line is written. */
  consoleStream(): { write(chunk: string): void } {
    return {
      write: (chunk: string) => {
        const line = this.shown;
        this.clear();
        this.out.write(chunk);
        if (line !== '') this.draw();
      },
    };
  }

  /** Remove the line for good (before the outcome is printed). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.clear();
  }

  private line(): string {
    if (!this.state) return '';
    // This process drives the run: it is running until it ends, whatever the last saved state says.
    const state: RunState = this.state.status === 'done' ? this.state : { ...this.state, status: 'running' };
    return progressLine(computeProgress(state, this.tally, { now: this.now(), live: true }));
  }

  private draw(): void {
    const width = Math.max(20, (this.out.columns ?? 120) - 1);
    const text = this.line();
    const line = text.length > width ? `${text.slice(0, width - 1)}…` : text;
    this.out.write(`\r\x1b[2K${line}`);
    this.shown = line;
  }

  private clear(): void {
    if (this.shown === '') return;
    this.out.write('\r\x1b[2K');
    this.shown = '';
  }
}
