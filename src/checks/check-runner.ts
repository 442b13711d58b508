import { spawn } from 'node:child_process';
import { accessSync, constants, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, statSync, type WriteStream } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { SplintercatError, UsageError } from '../errors/index.js';
import type { Logger } from '../log/logger.js';
import { nullLogger } from '../log/logger.js';
import { systemClock, type Clock } from '../util/clock.js';
import type { CheckResult, CheckRunnerLike, RunCheckOptions } from './types.js';

export interface CheckRunnerOptions {
  /** Where checks run unless a call gives another cwd. */
  workdir: string;
  /** Where logs go (`NAME-YYYYMMDD-HHMMSS.log`); created if missing, never cleaned. */
  outputDir: string;
  commands: Record<string, string>;
  timeoutSec: number;
  /** Seconds between SIGTERM and SIGKILL. */
  killGraceSec: number;
  logger?: Logger;
  clock?: Clock;
  /** Default output stream (the console) for every run. */
  onOutput?: ((chunk: string) => void) | undefined;
}

/** A check that cannot run, found before a merge starts. */
export interface PreflightProblem {
  name: string;
  message: string;
}

const TAIL_LINES = 30;

/**
 * Runs the named shell commands of `check.commands`: one process group per run
 * (so `make` and every compiler it starts die together), output streamed to the
 * console and to a timestamped log, a timeout enforced by SIGTERM then SIGKILL.
 * A failing check is a value (`success: false`), never an exception.
 */
export class CheckRunner implements CheckRunnerLike {
  private readonly log: Logger;
  private readonly clock: Clock;

  constructor(private readonly options: CheckRunnerOptions) {
    this.log = options.logger ?? nullLogger;
    this.clock = options.clock ?? systemClock;
  }

  names(): string[] {
    return Object.keys(this.options.commands);
  }

  /** The command of a check, or a UsageError listing the defined ones. */
  command(name: string): string {
    const command = this.options.commands[name];
    if (command === undefined) {
      const defined = this.names();
      throw new UsageError('check_unknown', {
        what: `Check '${name}' is not defined`,
        why: defined.length > 0 ? `Defined checks: ${defined.join(', ')}` : 'No checks are defined (check.commands is empty)',
        fix: `Add it to splintercat.yaml:\n  check:\n    commands:\n      ${name}: "make -j2"`,
      });
    }
    return command;
  }

  /** Problems that would make checks fail before they start: missing workdir or program. */
  preflight(names: string[] = this.names()): PreflightProblem[] {
    const problems: PreflightProblem[] = [];
    if (!isDirectory(this.options.workdir)) problems.push({ name: '*', message: `the working directory ${this.options.workdir} does not exist` });
    for (const name of names) {
      const command = this.options.commands[name];
      if (command === undefined) {
        problems.push({ name, message: `not defined in check.commands (defined: ${this.names().join(', ') || 'none'})` });
        continue;
      }
      const program = firstProgram(command);
      if (program && !programExists(program, this.options.workdir)) {
        problems.push({ name, message: `the program '${program}' of "${command}" is not installed or not on PATH` });
      }
    }
    return problems;
  }

  async run(name: string, options: RunCheckOptions = {}): Promise<CheckResult> {
    const command = this.command(name);
    const cwd = options.cwd ?? this.options.workdir;
    if (!isDirectory(cwd)) {
      throw new SplintercatError('workdir_missing', {
        what: `Cannot run check '${name}': the directory ${cwd} does not exist`,
        fix: 'Check target.workdir in splintercat.yaml',
      });
    }
    const logFile = this.openLogPath(name);
    const out = await openLog(logFile);
    const onOutput = options.onOutput ?? this.options.onOutput;
    const started = Date.now();
    this.log.info({ check: name, command, cwd, logFile }, `check '${name}' started`);

    const child = spawn('/bin/sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    let writeError: NodeJS.ErrnoException | null = null;
    out.on('error', (e: NodeJS.ErrnoException) => {
      writeError = e;
    });
    const onData = (chunk: Buffer): void => {
      const text = chunk.toString('utf8');
      out.write(chunk);
      onOutput?.(text);
      tail = (tail + text).slice(-64 * 1024);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);

    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const terminate = (): void => {
      signalGroup(child.pid, 'SIGTERM');
      killTimer ??= setTimeout(() => signalGroup(child.pid, 'SIGKILL'), this.options.killGraceSec * 1000);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, this.options.timeoutSec * 1000);
    const onAbort = (): void => terminate();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
      child.on('error', (e) => {
        out.write(`splintercat: could not start /bin/sh: ${e.message}\n`);
        done({ code: 127, signal: null });
      });
      child.on('close', (c, s) => done({ code: c, signal: s }));
    });
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    // The shell is gone; make sure nothing it started lingers (background jobs, grandchildren),
    // and return only once the group is gone, so no caller ever sees a survivor.
    signalGroup(child.pid, 'SIGKILL');
    if (killTimer) clearTimeout(killTimer);
    await groupGone(child.pid, 2000);
    const durationMs = Date.now() - started;
    if (timedOut) out.write(`\nsplintercat: TIMEOUT after ${this.options.timeoutSec} seconds; process group killed\n`);
    await new Promise<void>((done) => out.end(done));
    if (writeError !== null && (writeError as NodeJS.ErrnoException).code === 'ENOSPC') throw diskFull(this.options.outputDir, writeError);

    const result: CheckResult = {
      name,
      command,
      success: !timedOut && code === 0,
      exitCode: code,
      signal,
      timedOut,
      durationMs,
      logFile,
      tail: lastLines(tail, TAIL_LINES),
    };
    this.log.info({ check: name, success: result.success, exitCode: code, durationMs, logFile }, `check '${name}' ${result.success ? 'passed' : 'failed'}`);
    return result;
  }

  private openLogPath(name: string): string {
    try {
      mkdirSync(this.options.outputDir, { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') throw diskFull(this.options.outputDir, error);
      throw new SplintercatError('check_log_dir', {
        what: `Cannot create the check log directory ${this.options.outputDir}`,
        why: (error as Error).message,
        fix: 'Set check.output_dir to a writable directory',
        cause: error,
      });
    }
    const stamp = timestamp(this.clock.now());
    const safe = name.replace(/[^A-Za-z0-9._-]/g, '_');
    let path = join(this.options.outputDir, `${safe}-${stamp}.log`);
    for (let n = 2; existsSync(path); n++) path = join(this.options.outputDir, `${safe}-${stamp}-${n}.log`);
    return path;
  }
}

function openLog(path: string): Promise<WriteStream> {
  return new Promise((done, fail) => {
    const stream = createWriteStream(path, { flags: 'wx' });
    stream.once('open', () => done(stream));
    stream.once('error', (e: NodeJS.ErrnoException) => fail(e.code === 'ENOSPC' ? diskFull(path, e) : e));
  });
}

function diskFull(where: string, cause: unknown): SplintercatError {
  return new SplintercatError('disk_full', {
    what: `The disk is full: cannot write check output under ${where}`,
    fix: [`Free space (old logs in ${where} are safe to delete by hand)`, 'Or point check.output_dir at another disk'],
    cause,
  });
}

function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is already gone
  }
}

/**
 * Wait (polling, bounded) until no live process of the group is left: SIGKILL is delivered
 * asynchronously. Zombies waiting for their reaper are dead and do not count (Linux /proc).
 */
async function groupGone(pid: number | undefined, maxMs: number): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + maxMs;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after the last ')'.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') return true;
  }
  return false;
}

function timestamp(d: Date): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

function lastLines(text: string, n: number): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-n);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The program a shell command starts with (after `cd DIR &&` and VAR=value prefixes); null for shell builtins. */
export function firstProgram(command: string): string | null {
  const segment = command.split(/&&|\|\||;|\|/).map((s) => s.trim()).find((s) => !/^cd(\s|$)/.test(s)) ?? '';
  const words = segment.split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  const word = words[0];
  if (!word || /^(exit|true|false|test|\[|echo|printf|set|export|:|\(|\{|if|for|while|exec|env)$/.test(word)) return null;
  return word.replace(/^["']|["']$/g, '');
}

function programExists(program: string, cwd: string): boolean {
  const candidates = program.includes('/') ? [isAbsolute(program) ? program : join(cwd, program)] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, program));
  return candidates.some((path) => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  });
}
