import { extractFailure, type ExtractOptions } from './extract-failure.js';
import type { CheckResult, FailureSummary } from './types.js';

/**
 * The deterministic summary of a failed check's log, as the workflow makes it before any model
 * refines it: the first real error (`extractFailure`), else the check's name, exit code and last lines.
 */
export function summarizeCheckLog(
  log: string,
  result: Pick<CheckResult, 'name' | 'exitCode' | 'timedOut'>,
  options: Omit<ExtractOptions, 'timedOut'> = {},
): FailureSummary {
  return extractFailure(log, { timedOut: result.timedOut, ...options }) ?? fallbackSummary(log, result);
}

/** When no parser recognises the log: the check's name, exit code and last lines. */
function fallbackSummary(log: string, result: Pick<CheckResult, 'name' | 'exitCode' | 'timedOut'>): FailureSummary {
  const tail = log.split('\n').filter(Boolean).slice(-15).join('\n');
  return {
    error_type: result.timedOut ? 'timeout' : 'test_failure',
    location: null,
    root_cause: result.timedOut
      ? `check '${result.name}' timed out`
      : `check '${result.name}' failed with exit code ${result.exitCode ?? 'none'}`,
    excerpt: tail,
  };
}

/** The one-line form of a failure summary. */
export function summaryLine(summary: FailureSummary): string {
  return `${summary.error_type}${summary.location ? ` at ${summary.location}` : ''}: ${summary.root_cause}`;
}
