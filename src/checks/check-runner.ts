import type { WriteStream } from 'node:fs';
import { basename, join } from 'node:path';
import type { Readable } from 'node:stream';
import type { SandboxMode } from '../config/schema.js';
import { ConfigError } from '../errors/index.js';
import type { Logger } from '../log/logger.js';
import { nullLogger } from '../log/logger.js';
import { redactSecrets } from '../log/redact.js';
import { systemClock, type Clock } from '../util/clock.js';
import { scrubEnv } from './check-env.js';
import { assertDirectory, preflightProblems, type PreflightProblem } from './check-preflight.js';
import { assertLogsOutOfReach, spawnCheck, writableDirs, type SandboxView } from './check-launch.js';
import { captureOutput } from './check-output.js';
import { closePipes, watchdog } from './check-watchdog.js';
import { createCheckLog, unknownCheck } from './log-file.js';
import { probeBwrap, sandboxInfo, type BwrapProbe } from './sandbox.js';
import { toolchainPaths } from './sandbox-view.js';
import { CHECK_TAG_VARIABLE, type CheckRegistry } from './check-registry.js';
import { readSetupStamp, setupKey, setupStampPath, writeSetupStamp } from './setup-stamp.js';
import { setupTrust } from './setup-trust.js';
import { untrustedToolEnv } from './untrusted-tool-env.js';
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
  /** The environment checks start from (default: this process's), scrubbed of secrets before use. */
  env?: NodeJS.ProcessEnv;
  /** Secret values (the resolved `llm.api_key`): removed from the environment and redacted from all output. */
  secrets?: readonly string[];
  /** Variables kept although named like secrets (`check.env_passthrough`). */
  envPassthrough?: readonly string[];
  /** `check.sandbox`; default auto (bubblewrap when it works here). */
  sandbox?: SandboxMode;
  /** Directories a sandboxed check may write besides its worktree and a private /tmp (`check.writable`). */
  writable?: readonly string[];
  /** Paths a sandboxed check may read besides its worktree, the system and the toolchain (`check.readable`). */
  readable?: readonly string[];
  /**
   * `check.setup_network`: setup reaches the network (to install dependencies); checks never do.
   * A setup with the network runs its package managers with the tree's configuration neutralised.
   */
  setupNetwork?: boolean;
  /** `check.setup`: prepares a worktree before its first check and whenever `setupWhen` files change. */
  setup?: string;
  /** `check.setup_when`: globs relative to the worktree. */
  setupWhen?: readonly string[];
  /** A model is configured, so checks may execute a model's code: running them unconfined is warned about. */
  modelConfigured?: boolean;
  /** Whether bubblewrap works here (default: probed once per process). */
  probeSandbox?: () => BwrapProbe;
  /** Where each running check's process group is recorded, so a later run can end one left behind. */
  registry?: CheckRegistry;
  /**
   * The run's out-of-tree build directory (`check.build_dir`/NAME): each worktree a check runs in
   * builds in its own subdirectory (named as the worktree), created, writable in the sandbox, and
   * given as $SPLINTERCAT_BUILD_DIR. Make and its kin decide what to rebuild by file times, so two
   * source trees must never share outputs.
   */
  buildDir?: string | null;
}

/** The variable naming the run's out-of-tree build directory in a check's environment. */
const BUILD_DIR_VARIABLE = 'SPLINTERCAT_BUILD_DIR';

/** Where and how one process runs. */
interface Launch {
  label: string;
  command: string;
  cwd: string;
  network: boolean;
  /** Package managers run with the tree's own configuration neutralised (`untrustedToolEnv`). */
  neutralTools?: boolean;
  signal: AbortSignal | undefined;
  onOutput: ((chunk: string) => void) | undefined;
}

/**
 * Runs the named shell commands of `check.commands` through `sh -c`: one process group
 * per run (so `make` and every compiler it starts die together), output streamed to the
 * console and to a timestamped log, a timeout enforced by SIGTERM then SIGKILL.
 * Checks see an environment without secrets, their output is redacted of secret values
 * everywhere (console, log, tail), and where bubblewrap works they run sandboxed: no
 * network, read-only outside their worktree, the log directory, /tmp and `writable`.
 * A failing check is a value (`success: false`), never an exception.
 */
export class CheckRunner implements CheckRunnerLike {
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly env: Record<string, string>;
  private readonly secrets: string[];
  /** What a sandboxed run may read besides its worktree: the toolchain on PATH and `check.readable`. */
  private readonly readable: string[];
  private sandboxed: boolean | undefined;
  /** Per worktree: the setup in progress or last done, so concurrent runs there set it up once. */
  private readonly setups = new Map<string, Promise<CheckResult | null>>();

  constructor(private readonly options: CheckRunnerOptions) {
    this.log = options.logger ?? nullLogger;
    this.clock = options.clock ?? systemClock;
    const scrubbed = scrubEnv(options.env ?? process.env, {
      secrets: options.secrets ?? [],
      passthrough: options.envPassthrough ?? [],
    });
    this.env = scrubbed.env;
    this.secrets = scrubbed.secrets;
    this.readable = [...toolchainPaths(this.env.PATH, this.env.HOME), ...(options.readable ?? [])];
    if (scrubbed.removed.length > 0)
      this.log.debug({ removed: scrubbed.removed }, 'checks run without these environment variables (secrets)');
  }

  names(): string[] {
    return Object.keys(this.options.commands);
  }

  /** The command of a check, or a UsageError listing the defined ones. */
  command(name: string): string {
    const command = this.options.commands[name];
    if (command === undefined) throw unknownCheck(name, this.names());
    return command;
  }

  /**
   * Problems that would make checks fail before they start: a missing workdir, an undefined
   * check, shell syntax (`sh -n`). Programs are not guessed from the command: `sh -c` runs
   * any shell code. Throws a ConfigError when `check.sandbox: bwrap` cannot work here.
   */
  preflight(names: string[] = this.names()): PreflightProblem[] {
    this.useSandbox();
    const commands: Array<[string, string | undefined]> = names.map((name) => [name, this.options.commands[name]]);
    if (this.options.setup) commands.push(['setup', this.options.setup]);
    return preflightProblems(this.options.workdir, commands, this.names());
  }

  async run(name: string, options: RunCheckOptions = {}): Promise<CheckResult> {
    const command = this.command(name);
    const cwd = options.cwd ?? this.options.workdir;
    assertDirectory(cwd, `check '${name}'`);
    this.useSandbox();
    const onOutput = options.onOutput ?? this.options.onOutput;
    if (this.options.setup) {
      const failed = await this.prepare(cwd, name, options.signal, onOutput, options.untrusted ?? []);
      if (failed !== null) return failed;
    }
    return this.execute({ label: name, command, cwd, network: false, signal: options.signal, onOutput });
  }

  /**
   * Run a package-manager command of the fork's configuration on a tree it does not trust (a
   * lockfile's regenerate command): as a check runs, sandboxed with a scrubbed environment, the
   * network only when `network`, and the tree's package-manager configuration neutralised (no
   * lifecycle script, no git or binary the tree names), so upstream cannot steer it into running
   * its code. No setup runs first.
   */
  async runTool(
    label: string,
    command: string,
    options: { cwd: string; network: boolean; signal?: AbortSignal },
  ): Promise<CheckResult> {
    assertDirectory(options.cwd, label);
    this.useSandbox();
    return this.execute({
      label,
      command,
      cwd: options.cwd,
      network: options.network,
      neutralTools: true,
      signal: options.signal,
      onOutput: this.options.onOutput,
    });
  }

  /** Run `check.setup` in `cwd` unless the key of its `setup_when` files is the one it last ran with there. */
  private prepare(
    cwd: string,
    forCheck: string,
    signal: AbortSignal | undefined,
    onOutput: Launch['onOutput'],
    untrusted: readonly string[],
  ): Promise<CheckResult | null> {
    const previous = this.setups.get(cwd) ?? Promise.resolve(null);
    const next = previous
      .catch(() => null)
      .then(async () => {
        const command = this.options.setup as string;
        const patterns = this.options.setupWhen ?? [];
        const stamp = setupStampPath(cwd, this.options.outputDir);
        if (readSetupStamp(stamp) === (await setupKey(cwd, command, patterns))) return null;
        this.log.info(
          { cwd, command: redactSecrets(command, this.secrets), check: forCheck },
          `setting up ${cwd} (check.setup) before check '${forCheck}'`,
        );
        const trust = setupTrust(command, patterns, untrusted);
        if (trust.runs.length > 0) return this.refuseSetup(command, forCheck, trust.runs);
        const network = this.options.setupNetwork === true && trust.reads.length === 0;
        if (this.options.setupNetwork === true && !network)
          this.log.info(
            { files: trust.reads },
            'setup runs without the network: files it reads hold a model resolution',
          );
        // With the network, upstream's scripts could send what the sandbox shows them: none is run.
        const neutralTools = network;
        const result = await this.execute({ label: 'setup', command, cwd, network, neutralTools, signal, onOutput });
        if (!result.success) return { ...result, setupFor: forCheck };
        // After the setup: it may rewrite a lockfile, which must not make the next check set up again.
        writeSetupStamp(stamp, await setupKey(cwd, command, patterns), this.clock.now());
        return null;
      });
    this.setups.set(cwd, next);
    return next;
  }

  /** A setup that would run a file holding a model's resolution is not run: a failed result saying why. */
  private async refuseSetup(command: string, forCheck: string, files: string[]): Promise<CheckResult> {
    const said = `splintercat: check.setup was not run: it names ${files.join(', ')}, which hold(s) a model's resolution; setup never runs a file a model wrote. Resolve ${files.length === 1 ? 'it' : 'them'} yourself, or give check.setup a script the model cannot write.`;
    const { path, out } = this.createLog('setup');
    await new Promise<void>((done) => out.end(`${said}\n`, done));
    this.log.warn({ files, check: forCheck }, said);
    return {
      name: 'setup',
      command: redactSecrets(command, this.secrets),
      success: false,
      exitCode: null,
      signal: null,
      timedOut: false,
      durationMs: 0,
      logFile: path,
      tail: [said],
      setupFor: forCheck,
    };
  }

  /** Whether runs go through bubblewrap; decided once per runner (the probe once per process). */
  private useSandbox(): boolean {
    if (this.sandboxed !== undefined) return this.sandboxed;
    const mode = this.options.sandbox ?? 'auto';
    const probe = mode === 'off' ? null : (this.options.probeSandbox ?? probeBwrap)();
    if (probe !== null && !probe.ok && mode === 'bwrap') {
      throw new ConfigError([{ path: 'check.sandbox', message: `bwrap is required, but ${probe.reason}` }], undefined, {
        what: 'check.sandbox is bwrap, but bubblewrap cannot run here',
        why: probe.reason,
        fix: [
          'Install it: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap (Fedora)',
          'Or set check.sandbox: auto (sandbox when available) or off (checks run unconfined)',
        ],
        where: 'splintercat.yaml (check.sandbox)',
      });
    }
    this.sandboxed = probe?.ok === true;
    if (!this.sandboxed && this.options.modelConfigured) {
      this.log.warn(
        { sandbox: mode, ...(probe && !probe.ok ? { reason: probe.reason } : {}) },
        `checks run unconfined (check.sandbox: ${mode}${probe && !probe.ok ? `; ${probe.reason}` : ''}): a model's resolution is code a check executes, with network and write access everywhere this user can write. Install bubblewrap to sandbox them.`,
      );
    }
    return this.sandboxed;
  }

  private async execute(launch: Launch): Promise<CheckResult> {
    const { label, cwd } = launch;
    const command = redactSecrets(launch.command, this.secrets);
    const sandboxed = this.useSandbox();
    const buildDir = this.options.buildDir ? join(this.options.buildDir, basename(cwd)) : null;
    // The log directory is not among them: a check must not replace what splintercat reads back.
    const writable = writableDirs(this.options.writable ?? [], buildDir, sandboxed);
    if (sandboxed) assertLogsOutOfReach(this.options.outputDir, [cwd, ...writable]);
    const { path: logFile, out } = this.createLog(label);
    const started = Date.now();
    this.log.info({ check: label, command, cwd, logFile, sandboxed }, `check '${label}' started`);

    const registry = this.options.registry;
    const tag = registry?.newTag();
    const env = this.launchEnv(tag, buildDir, launch);
    const child = spawnCheck(launch, env, sandboxed ? this.sandboxView(writable) : null);
    // Recorded at once: a splintercat killed with -9 from here on leaves a group the next run can end.
    if (registry && tag !== undefined && child.pid !== undefined)
      registry.add({ pgid: child.pid, tag, name: label, startedAt: new Date(started).toISOString() });
    const sandbox = sandboxed ? sandboxInfo(child) : null;
    const output = captureOutput([child.stdout, child.stderr] as Readable[], out, {
      secrets: this.secrets,
      outputDir: this.options.outputDir,
      onOutput: launch.onOutput,
    });

    const watch = watchdog(child, sandbox, launch.signal, this.options);
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
      child.on('error', (e) => {
        out.write(`splintercat: could not start ${sandboxed ? 'bwrap' : '/bin/sh'}: ${e.message}\n`);
        done({ code: 127, signal: null });
      });
      // 'exit', not 'close': a background job may hold the output pipes open for as long as it lives.
      child.on('exit', (c, s) => done({ code: c, signal: s }));
    });
    await watch.stop();
    if (registry && child.pid !== undefined) registry.remove(child.pid);
    await closePipes(child);
    const durationMs = Date.now() - started;
    const timedOut = watch.timedOut();
    const tail = await output.close(
      timedOut ? `\nsplintercat: TIMEOUT after ${this.options.timeoutSec} seconds; process group killed\n` : '',
    );

    const result: CheckResult = {
      name: label,
      command,
      success: !timedOut && code === 0,
      exitCode: code,
      signal,
      timedOut,
      durationMs,
      logFile,
      tail,
      sandboxed,
    };
    this.log.info(
      { check: label, success: result.success, exitCode: code, durationMs, logFile },
      `check '${label}' ${result.success ? 'passed' : 'failed'}`,
    );
    return result;
  }

  /**
   * A check's environment: scrubbed, its tag (to recognise a leftover), the run's build directory,
   * and for a setup with the network or a regenerate command, package managers neutralised.
   */
  private launchEnv(tag: string | undefined, buildDir: string | null, launch: Launch): Record<string, string> {
    const env = {
      ...this.env,
      ...(tag === undefined ? {} : { [CHECK_TAG_VARIABLE]: tag }),
      ...(buildDir ? { [BUILD_DIR_VARIABLE]: buildDir } : {}),
    };
    return launch.neutralTools === true ? untrustedToolEnv(env, launch.cwd, this.options.outputDir) : env;
  }

  /** What a sandboxed check sees: `writable`, the toolchain and `check.readable`; the log directory hidden. */
  private sandboxView(writable: string[]): SandboxView {
    // Inside the worktree a check writes (the main checkout, for `splintercat check`): shown empty to it.
    return { writable, readable: this.readable, hidden: [this.options.outputDir], home: this.env.HOME };
  }

  /** A new log file, created exclusively: parallel runs started in the same second take the next free suffix. */
  private createLog(label: string): { path: string; out: WriteStream } {
    return createCheckLog(this.options.outputDir, label, this.clock.now(), this.options.workdir);
  }
}
