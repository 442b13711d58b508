import type { LearntSuggestions, Suggestion, WorkingTreeFileResult } from '../../resolve/index.js';
import { takeCommand, takeOfChoice } from '../../resolve/index.js';
import type { HandoffFile, HandoffHunk } from '../../store/run-state.js';
import { hunksKeyed } from '../../store/stored-hunks.js';

/**
 * The hunks a file is handed over with: each by the number `splintercat take` knows it by, where
 * it is now, the one command per answer (ours, theirs, both in each order, base where there is one), and, when the
 * target's past merges say something clear, the suggestion with its evidence and its command.
 */
function handoffHunks(result: WorkingTreeFileResult, learnt: LearntSuggestions | null): HandoffHunk[] {
  return result.remaining.map((h) => {
    const hunk = h.number ?? h.index;
    const take: Record<string, string> = {
      ours: takeCommand('ours', result.path, hunk),
      theirs: takeCommand('theirs', result.path, hunk),
      both: takeCommand('both', result.path, hunk),
      'both theirs-first': takeCommand('both', result.path, hunk, 'theirs-first'),
      // Both sides added the file: git's empty base section is no version of it, so there is no base to take.
      ...(h.sides?.base !== null && h.sides?.base !== undefined && result.decision?.kind !== 'add/add'
        ? { base: takeCommand('base', result.path, hunk) }
        : {}),
    };
    const s = h.sides ? learnt?.suggest(result.path, h.sides) : null;
    const chosen = s ? takeOfChoice(s.choice) : null;
    return {
      hunk,
      startLine: h.startLine,
      endLine: h.endLine,
      take,
      ...(s && chosen
        ? {
            suggestion: {
              choice: s.choice,
              command: takeCommand(chosen.choice, result.path, hunk, chosen.order),
              evidence: s.evidence,
              basis: s.basis,
              agree: s.agree,
              of: s.of,
            },
          }
        : {}),
    };
  });
}

/** The hand-off of a file with its hunks, when it has any left. */
export function withHunks(
  file: HandoffFile,
  result: WorkingTreeFileResult,
  learnt: LearntSuggestions | null,
): HandoffFile {
  // A generated file is decided whole (its hand-off says how), never hunk by hunk.
  if (result.remaining.length === 0 || result.generated) return file;
  return { ...file, ...hunksKeyed(handoffHunks(result, learnt)) };
}

/** A suggestion as the model reads it: the choice and its evidence. */
export function suggestionHint(s: Suggestion | null): string | null {
  return s ? `suggested: ${s.choice}. Evidence: ${s.evidence}.` : null;
}
