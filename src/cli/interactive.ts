import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { CheckResult, CheckRunnerLike, RunCheckOptions } from '../checks/types.js';
import { SplintercatError } from '../errors/index.js';
import type { ResolutionApprover, ResolutionProposal } from '../workflow/ports.js';
import { terminalText } from '../util/safe-print.js';

/**
 * `--interactive`: yes/no questions on the terminal (stderr), answers read a line at a
 * time from stdin, so a script can pipe them in. End of input answers "no".
 */
export class Prompter {
  private readonly rl: Interface;
  private readonly lines: string[] = [];
  private readonly waiting: Array<(line: string | null) => void> = [];
  private ended = false;

  constructor(
    input: Readable,
    private readonly output: Writable,
  ) {
    this.rl = createInterface({ input, terminal: false });
    this.rl.on('line', (line) => {
      const waiter = this.waiting.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      for (const waiter of this.waiting.splice(0)) waiter(null);
    });
  }

  /** Ask until the answer is yes or no; `details` are printed once before the question. */
  async confirm(question: string, details: string[] = []): Promise<boolean> {
    // A command, a path or a model's text: shown, never acted on by the terminal.
    if (details.length > 0) this.output.write(terminalText(`${details.join('\n')}\n`));
    for (;;) {
      this.output.write(terminalText(`${question} [y/n] `));
      const line = await this.nextLine();
      if (line === null) {
        this.output.write('\n(no more input: answering no)\n');
        return false;
      }
      const answer = line.trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') return true;
      if (answer === 'n' || answer === 'no') return false;
      this.output.write('Please answer y or n.\n');
    }
  }

  close(): void {
    this.rl.close();
  }

  private nextLine(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

/**
 * Every check command (the workflow's and the resolver's `run_check`) is shown and must be
 * approved before it runs. Declining calls `stop` (the run halts at its next safe point and
 * `splintercat continue` asks again) and rejects the run of the check.
 */
export function approvingChecks(
  inner: CheckRunnerLike,
  prompter: Prompter,
  commands: Record<string, string>,
  stop: () => void,
): CheckRunnerLike {
  return {
    names: () => inner.names(),
    async run(name: string, options?: RunCheckOptions): Promise<CheckResult> {
      const where = options?.cwd ?? 'the working directory';
      const ok = await prompter.confirm(`Run check '${name}'?`, [
        ``,
        `splintercat wants to run check '${name}' in ${where}:`,
        `  $ ${commands[name] ?? '(not configured)'}`,
      ]);
      if (!ok) {
        stop();
        throw new SplintercatError('check_declined', {
          what: `The check '${name}' was declined`,
          why: '--interactive asks before every command; the answer was no',
          fix: 'Run `splintercat continue --interactive` to be asked again, or `splintercat continue` to run checks without asking',
        });
      }
      return inner.run(name, options);
    },
  };
}

/** Show each resolution (rungs and diff) and ask whether to record it. */
export function terminalApprover(prompter: Prompter): ResolutionApprover {
  return {
    approveResolution(proposal: ResolutionProposal): Promise<boolean> {
      const details = [
        '',
        `Resolution of conflict ${proposal.conflict}:`,
        ...proposal.summary.map((s) => `  ${s}`),
        '',
        proposal.diff.trimEnd(),
        '',
      ];
      return prompter.confirm(`Record this resolution of ${proposal.conflict}? (no = leave it to you)`, details);
    },
  };
}
