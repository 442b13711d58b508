import type { CheckResult } from './types.js';

/** The PASSED / FAILED text: what the resolver's run_check tool and `splintercat check` print. */
export function formatCheckResult(result: CheckResult): string {
  const seconds = (result.durationMs / 1000).toFixed(1);
  if (result.success) return `Check '${result.name}' PASSED\n\nCompleted in ${seconds} seconds\nLog: ${result.logFile}`;
  const lines = [`Check '${result.name}' ${result.timedOut ? 'TIMEOUT' : 'FAILED'}`];
  if (result.timedOut) lines.push(`Timed out after ${seconds} seconds (check.timeout); the process group was killed`);
  else
    lines.push(
      `Returncode: ${result.exitCode ?? `none (killed by ${result.signal ?? 'a signal'})`}`,
      `Completed in ${seconds} seconds`,
    );
  if (result.setupFor !== undefined)
    lines.push(
      `The worktree setup (check.setup) failed, so check '${result.setupFor}' did not run. Fix check.setup or the dependencies it installs; it runs again on the next check.`,
    );
  if (result.sandboxed && result.tail.some((line) => /Read-only file system/.test(line))) {
    lines.push(
      'The check ran sandboxed (bubblewrap): it may write only its worktree, /tmp and check.writable (HOME is an empty directory). Add the directory it writes (a cache such as ~/.cache) to check.writable, or set check.sandbox: off.',
    );
  }
  if (result.sandboxed && result.tail.some((line) => /No such file or directory/.test(line))) {
    lines.push(
      'The check ran sandboxed: it sees only its worktree, the system directories, the toolchain on PATH and check.readable. Add a path it needs to read (a toolchain outside PATH, the repository git directory) to check.readable.',
    );
  }
  if (result.exitCode === 127)
    lines.push(
      `The command was not found: "${result.command}". Install the program or fix check.commands.${result.name} in splintercat.yaml.`,
    );
  lines.push('', `Last ${result.tail.length} lines of output:`, ...result.tail, '', `Full log: ${result.logFile}`);
  return lines.join('\n');
}
