import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../../log/logger.js';
import { printConflictedFile } from '../../resolve/parse/markers.js';
import type { ConflictedFile } from '../../resolve/types.js';
import { replaceFileWithin } from '../../util/replace-file.js';
import type { ModelRung, ModelRungOptions } from '../model-rung-types.js';
import { resolveWithModel } from '../resolver/resolver-agent.js';
import { splitResolvedByHunks } from '../split-by-hunks.js';
import type { Candidate } from './second-opinion.js';

/** A candidate with its text split back into the file's hunks. */
export type SplitCandidate = Candidate & { parts: Map<number, string> };

export interface CandidateRun {
  file: ConflictedFile;
  /** How many independent conversations to hold (`llm.candidates`). */
  asked: number;
  /** Where the file is written for the conversations, inside `workdir`. */
  abs: string;
  workdir: string;
  conflict: string;
  log: Logger;
  /** Every conversation's outcome is added here (transcripts for the journal and the report). */
  outcomes: ModelRung['outcomes'];
}

/**
 * Hold `asked` resolver conversations on one file, each from the conflict as presented (never
 * from another's answer), and return the resolutions that split back into its hunks. The file is
 * left as it was found; a budget refusal ends the runs early.
 */
export async function runCandidates(
  run: CandidateRun,
  options: ModelRungOptions,
  hints: Record<number, string>,
): Promise<SplitCandidate[]> {
  const { file, log } = run;
  const rel = file.path;
  const before = existsSync(run.abs) ? await readFile(run.abs) : null;
  await mkdir(dirname(run.abs), { recursive: true });
  const resolved: SplitCandidate[] = [];
  try {
    for (let k = 0; k < run.asked; k += 1) {
      await writeFile(run.abs, printConflictedFile(file));
      const outcome = await resolveWithModel(
        {
          workdir: run.workdir,
          files: [rel],
          details: options.details ?? null,
          failure: options.failure ?? null,
          conflictId: run.conflict,
          ...(options.instructions ? { instructions: options.instructions } : {}),
          hints,
        },
        {
          gateway: options.gateway,
          git: options.git,
          runCheck: options.runCheck ?? null,
          log,
          markerSize: file.markerSize,
          ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
        },
      );
      run.outcomes.push({ path: rel, outcome });
      if (!outcome.ok) {
        if (outcome.reason === 'budget') break;
        continue;
      }
      const text = outcome.files[rel];
      const parts = text === undefined ? null : splitResolvedByHunks(file, text);
      if (!parts || text === undefined) {
        log.warn(
          { path: rel },
          'model rung: the model changed text outside the conflict hunks; hunks left open for review',
        );
        continue;
      }
      resolved.push({ text, modelId: outcome.modelId, parts });
    }
  } finally {
    // The ladder's caller writes the final text; leave the file as it was (never through a link a check made).
    if (before === null) await rm(run.abs, { force: true });
    else replaceFileWithin(run.workdir, rel, before);
  }
  return resolved;
}
