import type { LogErrorMatcher } from './matcher.js';

/**
 * Build tools' own summaries, rank 8-9: they only say that a step failed, so they are used when nothing better
 * is found.
 */
export const buildToolSummaries: LogErrorMatcher[] = [
  // ninja: FAILED: target   (the real error follows; used only when nothing better is found)
  (lines, i) => {
    const m = /^FAILED:\s+(.+)$/.exec(lines[i] as string);
    return m
      ? { type: 'compile_error', location: m[1] as string, cause: `ninja target failed: ${m[1]}`, rank: 8 }
      : null;
  },
  // make: *** [Makefile:12: target] Error 1
  (lines, i) => {
    const m = /^(?:g?make)(?:\[\d+\])?:\s+\*\*\*\s+\[(?:(.+?):(\d+):\s+)?(.+?)\]\s+Error\s+(\d+)/.exec(
      lines[i] as string,
    );
    return m
      ? {
          type: 'compile_error',
          location: m[1] ? `${m[1]}:${m[2]}` : (m[3] as string),
          cause: `make target '${m[3]}' failed (exit ${m[4]})`,
          rank: 9,
        }
      : null;
  },
];
