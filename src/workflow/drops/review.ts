import type { ConflictFileState, HandoffFile } from '../../store/run-state.js';
import { printableName } from '../../util/safe-print.js';
import { decidedBy } from './drop-reason.js';
import { dropMessages } from './drop-text.js';

/**
 * The hand-off of resolutions that drop a side's change with no recorded reason
 * (`resolve.review_drops: ask`): the file as the rung resolved it, what it dropped, and what to do.
 */
export function dropsReviewHandoff(files: readonly ConflictFileState[]): HandoffFile[] {
  return files.map((f) => {
    const lost = dropMessages(f.path, f.drops, `the resolution by ${decidedBy(f)}`).join(' ');
    return {
      path: f.path,
      kind: f.kind,
      instructions:
        `${lost} — resolve.review_drops asks you to confirm it: keep ${printableName(f.path)} as it is, ` +
        'or edit it to keep what must stay, then run splintercat continue',
    };
  });
}
