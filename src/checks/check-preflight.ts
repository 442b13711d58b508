/**
 * What must hold before a check starts: its directory exists and its command parses as shell code.
 * Looked at before a merge starts, so a missing workdir or a mistyped command fails at once, not mid-merge.
 */

import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { SplintercatError } from '../errors/index.js';

/** A check that cannot run, found before a merge starts. */
export interface PreflightProblem {
  name: string;
  message: string;
}

/**
 * The problems of `workdir` and of each `[name, command]` (undefined: not in check.commands, whose
 * names are `defined`): a missing directory, an undefined check, shell syntax (`sh -n`).
 */
export function preflightProblems(
  workdir: string,
  commands: Array<[string, string | undefined]>,
  defined: string[],
): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  if (!isDirectory(workdir)) problems.push({ name: '*', message: `the working directory ${workdir} does not exist` });
  for (const [name, command] of commands) {
    if (command === undefined) {
      problems.push({
        name,
        message: `not defined in check.commands (defined: ${defined.join(', ') || 'none'})`,
      });
      continue;
    }
    const syntax = shellSyntaxError(command);
    if (syntax !== null) problems.push({ name, message: `shell syntax error in "${command}": ${syntax}` });
  }
  return problems;
}

/** `sh -n`: the command parses as shell code (null), or the shell's complaint. */
function shellSyntaxError(command: string): string | null {
  const result = spawnSync('/bin/sh', ['-n', '-c', command], {
    encoding: 'utf8',
    timeout: 5000,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (result.status === 0) return null;
  return (
    result.stderr
      .trim()
      .split('\n')[0]
      ?.replace(/^\/bin\/sh: (\d+: )?/, '') || `sh -n exited with ${result.status ?? result.signal}`
  );
}

/** A run's directory must exist: a SplintercatError naming what would have run there. */
export function assertDirectory(cwd: string, what: string): void {
  if (isDirectory(cwd)) return;
  throw new SplintercatError('workdir_missing', {
    what: `Cannot run ${what}: the directory ${cwd} does not exist`,
    fix: 'Check target.workdir (and merge.worktrees) in splintercat.yaml',
  });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
