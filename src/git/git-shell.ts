import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitError } from './git-error.js';
import { RequestQueue, type ReadAnswer } from './request-queue.js';

/** What one git command printed and how it exited. */
export interface ShellResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs each line it reads as a command, then marks the end of its output on stdout (with the exit
 * code) and on stderr. The command's stdin is /dev/null unless the line redirects it: the shell's
 * own stdin carries the requests.
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
  private readonly queue: RequestQueue<ShellResult>;

  constructor(
    cwd: string,
    env: NodeJS.ProcessEnv,
    private readonly gitBinary = 'git',
  ) {
    const marker = randomBytes(16).toString('hex');
    this.queue = new RequestQueue({
      start: () => spawn('sh', ['-c', LOOP, 'git-shell', marker], { cwd, env }),
      read: resultReader(marker),
      exitError: (code, stderr) => new GitError(['sh', '-c', 'git ...'], code, stderr, cwd),
    });
  }

  /** Commands queued or running. */
  get pending(): number {
    return this.queue.pending;
  }

  /**
   * Run `git ARGS` (exit codes are data, as execFile's); rejects only when the shell itself fails.
   * `env`: more environment for this command; `inputFile`: a file the command reads as its stdin.
   */
  run(
    args: readonly string[],
    options: { env?: Readonly<Record<string, string>>; inputFile?: string } = {},
  ): Promise<ShellResult> {
    const env = Object.entries(options.env ?? {});
    const words = [...args, ...env.flat(), ...(options.inputFile !== undefined ? [options.inputFile] : [])];
    if (words.some((a) => /[\n\0]/.test(a)))
      return Promise.reject(
        new Error(`a git shell runs one line per command, without NUL bytes: ${JSON.stringify(args)}`),
      );
    const bad = env.find(([name]) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name));
    if (bad) return Promise.reject(new Error(`not an environment variable's name: ${JSON.stringify(bad[0])}`));
    const assignments = env.map(([name, value]) => `${name}=${quote(value)} `).join('');
    const input = options.inputFile !== undefined ? ` <${quote(options.inputFile)}` : '';
    return this.queue.request(`${assignments}${[this.gitBinary, ...args].map(quote).join(' ')}${input}\n`);
  }

  /** Stop the shell; queued commands are rejected. */
  close(error: unknown = new Error('git shell closed')): void {
    this.queue.close(error);
  }
}

/** Reads one command's result: its stdout and stderr up to the marker LOOP prints after each, and the exit code. */
function resultReader(marker: string): ReadAnswer<ShellResult> {
  const outEnd = Buffer.from(`\x01${marker} `);
  const errEnd = Buffer.from(`\x01${marker}\n`);
  return (unread) => {
    const out = unread.stdout.indexOf(outEnd);
    const err = unread.stderr.indexOf(errEnd);
    if (out < 0 || err < 0) return undefined;
    const newline = unread.stdout.indexOf(10, out + outEnd.length);
    if (newline < 0) return undefined;
    const result = {
      exitCode: Number(unread.stdout.subarray(out + outEnd.length, newline).toString('utf8')),
      stdout: unread.stdout.subarray(0, out).toString('utf8'),
      stderr: unread.stderr.subarray(0, err).toString('utf8'),
    };
    unread.stdout = unread.stdout.subarray(newline + 1);
    unread.stderr = unread.stderr.subarray(err + errEnd.length);
    return result;
  };
}

/** A word the shell reads back exactly as given. */
function quote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Write a command's input to a new temporary file, readable only by this user; the caller removes it. */
export function writeInputFile(input: string): string {
  const file = join(tmpdir(), `splintercat-input-${process.pid}-${randomBytes(8).toString('hex')}`);
  writeFileSync(file, input, { mode: 0o600, flag: 'wx' });
  return file;
}
