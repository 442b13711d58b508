import type { FailureSummary } from './types.js';

/** The one-line form of a failure summary. */
export function summaryLine(summary: FailureSummary): string {
  return `${summary.error_type}${summary.location ? ` at ${summary.location}` : ''}: ${summary.root_cause}`;
}
