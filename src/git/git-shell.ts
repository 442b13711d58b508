import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { GitError } from './git-error.js';
import { holdOpen, stopProcess } from './process-ref.js';

/** What one git command printed and how it exited. */
export interface ShellResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

interface Request {
  args: readonly string[];
  resolve: (result: ShellResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Runs each line it reads as a command, then marks the end of its output on stdout (with the exit
 * code) and on stderr. The command's stdin is /dev/null: the shell's own stdin carries the requests.
 */
const LOOP = `while IFS= read -r line; do eval "$line" </dev/null; rc=$?; printf '\\001%s\\n' "$1" >&2; printf '\\001%s %s\\n' "$1" "$rc"; done`;

/**
 * One long-lived `sh` that starts git commands for this process. Node starts a process by forking
 * itself, blocking the event loop for each git command, so an autofill's merges could not overlap.
 * `sh` is small and forks in a fraction of that time, off the
 * event loop. Commands run one at a time, in order; the output of each is delimited by a random
 * marker no git output contains.
 */
export class GitShell {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly queue: Request[] = [];
  private stdout: Buffer = Buffer.alloc(0);
  private stderr: Buffer = Buffer.alloc(0);
  private readonly marker = randomBytes(16).toString('hex');
  private readonly outEnd = Buffer.from(`\x01${this.marker} `);
  private readonly errEnd = Buffer.from(`\x01${this.marker}\n`);

  constructor(
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
    private readonly gitBinary = 'git',
  ) {}

  /** Commands queued or running. */
  get pending(): number {
    return this.queue.length;
  }

  /** Run `git ARGS` (exit codes are data, as execFile's); rejects only when the shell itself fails. */
  run(args: readonly string[]): Promise<ShellResult> {
    if (args.some((a) => /[\n\0]/.test(a)))
      return Promise.reject(
        new Error(`a git shell runs one line per command, without NUL bytes: ${JSON.stringify(args)}`),
      );
    const child = this.ensure();
    return new Promise((resolve, reject) => {
      this.queue.push({ args, resolve, reject });
      if (this.queue.length === 1) holdOpen(child, true);
      child.stdin.write(`${[this.gitBinary, ...args].map(quote).join(' ')}\n`);
    });
  }

  /** Stop the shell; queued commands are rejected. */
  close(error: unknown = new Error('git shell closed')): void {
    stopProcess(this.child);
    this.child = undefined;
    while (this.queue.length > 0) this.queue.shift()?.reject(error);
  }

  private ensure(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn('sh', ['-c', LOOP, 'git-shell', this.marker], { cwd: this.cwd, env: this.env });
    child.stdout.on('data', (chunk: Buffer) => {
      this.stdout = this.stdout.length === 0 ? chunk : Buffer.concat([this.stdout, chunk]);
      this.drain();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = this.stderr.length === 0 ? chunk : Buffer.concat([this.stderr, chunk]);
      this.drain();
    });
    child.stdin.on('error', () => undefined); // a shell that died is reported by 'close'
    child.on('error', (error) => this.close(error));
    child.on('close', (code) => {
      if (this.child === child) this.child = undefined;
      if (this.queue.length > 0)
        this.close(new GitError(['sh', '-c', 'git ...'], code ?? undefined, this.stderr.toString('utf8'), this.cwd));
    });
    holdOpen(child, false);
    this.child = child;
    return child;
  }

  private drain(): void {
    for (;;) {
      const head = this.queue[0];
      if (!head) return;
      const out = this.stdout.indexOf(this.outEnd);
      const err = this.stderr.indexOf(this.errEnd);
      if (out < 0 || err < 0) return;
      const newline = this.stdout.indexOf(10, out + this.outEnd.length);
      if (newline < 0) return;
      const exitCode = Number(this.stdout.subarray(out + this.outEnd.length, newline).toString('utf8'));
      const result = {
        exitCode,
        stdout: this.stdout.subarray(0, out).toString('utf8'),
        stderr: this.stderr.subarray(0, err).toString('utf8'),
      };
      this.stdout = this.stdout.subarray(newline + 1);
      this.stderr = this.stderr.subarray(err + this.errEnd.length);
      this.queue.shift();
      if (this.queue.length === 0 && this.child) holdOpen(this.child, false);
      head.resolve(result);
    }
  }
}

/** A word the shell reads back exactly as given. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
