import type { ModelRung } from '../../agents/index.js';
import { takeCandidateCommand } from '../../resolve/take/take-command.js';
import { printableName } from '../../util/safe-print.js';

/** Lines of each candidate's hunk texts shown in the hand-off; the whole text is what `take candidate` writes. */
const EXCERPT_LINES = 8;

/**
 * One line per model conversation that did not settle its file (what it tried and why it was refused),
 * then each file whose resolution was not confirmed: why, the reviewer's lines at issue, and every
 * candidate with the command that takes it and the start of its text.
 */
export function modelAttempts(transcripts: ModelRung['outcomes'], withheld: ModelRung['withheld'] = []): string[] {
  const refused = transcripts.flatMap(({ path, outcome }) => {
    if (outcome.ok) return [];
    return [`${outcome.modelId ?? 'the model'} tried ${path} and was refused (${outcome.reason}): ${outcome.message}`];
  });
  return [...refused, ...withheld.map(withheldText)];
}

function withheldText(w: ModelRung['withheld'][number]): string {
  const lines = [`the resolution of ${printableName(w.path)} is not taken as the model's: ${w.why}`];
  if (w.reviewer !== null) for (const l of w.lines) lines.push(`  ${w.reviewer} objects to line ${l.line}: ${l.why}`);
  w.candidates.forEach((c, i) => {
    lines.push(`  candidate ${i + 1} (by ${c.modelId}): ${takeCandidateCommand(i + 1, w.path)}`);
    const text = c.hunks
      .join('\n')
      .split('\n')
      .filter((l) => l.trim() !== '');
    for (const l of text.slice(0, EXCERPT_LINES)) lines.push(`    | ${l}`);
    if (text.length > EXCERPT_LINES) lines.push(`    | ... (${text.length - EXCERPT_LINES} more lines)`);
  });
  return lines.join('\n');
}
