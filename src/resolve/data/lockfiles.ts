import picomatch from 'picomatch';
import type { CheckRunner } from '../../checks/check-runner.js';
import { createCheckRunner } from '../../checks/from-config.js';
import type { Config } from '../../config/index.js';
import type { Logger } from '../../log/logger.js';

/** Lockfiles written by package managers: merged by regenerating them, never line by line. */
const lockfileNames = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'Cargo.lock',
  'Gemfile.lock',
  'go.sum',
  'poetry.lock',
  'uv.lock',
  'Pipfile.lock',
  'composer.lock',
]);

/** Whether the path is a package manager's lockfile (by its name). */
export function isLockfile(path: string): boolean {
  return lockfileNames.has(path.slice(path.lastIndexOf('/') + 1));
}

/**
 * The `resolve.regenerate` command for a path: the first glob that matches
 * it (a glob without a slash matches the file name in any folder, as in
 * .gitattributes). Null when none does.
 */
export function regenerateCommandFor(
  path: string,
  regenerate: Readonly<Record<string, string>>,
): { glob: string; command: string } | null {
  for (const [glob, command] of Object.entries(regenerate)) {
    const match = picomatch(glob, { dot: true, basename: !glob.includes('/') });
    if (match(path)) return { glob, command };
  }
  return null;
}

/** The note a lockfile without a command carries to the model or the person. */
export function lockfileNote(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const example =
    name === 'package-lock.json'
      ? 'npm install --package-lock-only --ignore-scripts'
      : name === 'Cargo.lock'
        ? 'cargo generate-lockfile'
        : 'the package manager command that rewrites it';
  return `${path} is a lockfile: it is decided whole, never merged hunk by hunk. Configure resolve.regenerate to rewrite it once its manifest is resolved, e.g. resolve.regenerate: { "${name}": "${example}" }; until then a person takes one side's whole file.`;
}

/** Runs a regenerate command through the shell in a directory (injected: the workflow's runner, a test's). */
export type RegenerateRunner = (command: string, cwd: string) => Promise<{ exitCode: number | null; output: string }>;

export type RegenerateOutcome =
  | { status: 'regenerated'; path: string; command: string }
  | { status: 'failed'; path: string; command: string; exitCode: number | null; output: string }
  | { status: 'not-configured'; path: string; note: string };

/**
 * Regenerate one lockfile in the worktree with its configured command. The
 * caller runs this once the other conflicted files (the manifests) are
 * resolved, then stages the lockfile when it is `regenerated`.
 */
export async function regenerateLockfile(
  path: string,
  cwd: string,
  regenerate: Readonly<Record<string, string>>,
  run: RegenerateRunner,
): Promise<RegenerateOutcome> {
  const configured = regenerateCommandFor(path, regenerate);
  if (!configured) return { status: 'not-configured', path, note: lockfileNote(path) };
  const result = await run(configured.command, cwd);
  if (result.exitCode === 0) return { status: 'regenerated', path, command: configured.command };
  return {
    status: 'failed',
    path,
    command: configured.command,
    exitCode: result.exitCode,
    output: result.output.slice(-2_000),
  };
}

/**
 * The runner of the workflow and `resolve`: the command runs as a check does (`createCheckRunner`:
 * sandboxed where bubblewrap works, an environment without secrets or HOME's dotfiles, killed after
 * `check.timeout`, its log in `log.dir`), with the network only under `check.setup_network`,
 * and the tree's package-manager configuration neutralised: the tree it runs in holds upstream's
 * `.npmrc` and manifests, which must not steer the fork's command into running upstream's code.
 */
export function sandboxedRegenerateRunner(config: Config, options: { logger?: Logger } = {}): RegenerateRunner {
  let runner: CheckRunner | undefined;
  return async (command, cwd) => {
    runner ??= createCheckRunner(config, options.logger ? { logger: options.logger } : {});
    const result = await runner.runTool('regenerate', command, { cwd, network: config.check.setup_network });
    return { exitCode: result.success ? 0 : (result.exitCode ?? null), output: result.tail.join('\n') };
  };
}
