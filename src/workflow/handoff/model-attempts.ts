import type { ModelRung } from '../../agents/index.js';

/** One line per model conversation that did not settle its file: what it tried and why it was refused. */
export function modelAttempts(transcripts: ModelRung['outcomes']): string[] {
  return transcripts.flatMap(({ path, outcome }) => {
    if (outcome.ok) return [];
    return [`${outcome.modelId ?? 'the model'} tried ${path} and was refused (${outcome.reason}): ${outcome.message}`];
  });
}
