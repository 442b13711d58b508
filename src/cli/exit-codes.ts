/** The CLI's exit codes (design.md §9). */
export const ExitCode = {
  Done: 0,
  Failed: 1,
  Usage: 2,
  NeedsHuman: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
