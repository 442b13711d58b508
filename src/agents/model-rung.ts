import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../git/index.js';
import { nullLogger, type Logger } from '../log/logger.js';
import type { LadderFallback } from '../resolve/ladder.js';
import type { ConflictedFile, HunkResolution } from '../resolve/types.js';
import { Sandbox } from './resolver/tool-sandbox.js';
import { cellId } from '../imerge/cell.js';
import { listUnmerged } from '../resolve/parse/stages.js';
import { recordCandidates } from '../resolve/take/candidate-store.js';
import { stagesId } from '../resolve/take/hunk-numbers.js';
import { auditLinesFor } from './review/audit-lines.js';
import { reviewResolution } from './review/reviewer.js';
import { secondOpinion, type Candidate } from './review/second-opinion.js';
import { runCandidates } from './review/candidate-runs.js';

import type { ModelRung, ModelRungOptions, Withheld } from './model-rung-types.js';

export type { ModelRung, ModelRungOptions, Withheld };

/**
 * The LLM resolver as the ladder's third rung (`resolveConflictedFile(file,
 * { fallback: rung.fallback })`). One conversation per file and candidate
 * (`llm.candidates`); the validated file, once the candidates agree or the
 * reviewer accepts it (when either is configured), is split back into hunk
 * resolutions, else every candidate is kept for the person (`take candidate`).
 * A failure (turn limit, timeout, budget) leaves the hunks open for the
 * person's rung; only an authentication failure throws (the run must stop).
 */
export function createModelRung(options: ModelRungOptions): ModelRung {
  const log = (options.log ?? nullLogger).child({ rung: 'model' });
  const outcomes: ModelRung['outcomes'] = [];
  const withheld: Withheld[] = [];
  const reviewer = options.gateway.model('reviewer') !== null;
  let hunksResolved = 0;

  const fallback: LadderFallback = async (file, hunks) => {
    const scratch = options.workdir === undefined ? await mkdtemp(join(tmpdir(), 'splintercat-model-')) : null;
    const workdir = scratch ?? (options.workdir as string);
    const rel = file.path;
    try {
      if (scratch) await options.git.run(['init', '-q', scratch]);
      const sandbox = await Sandbox.create(workdir, [rel]);
      const target = await sandbox.forWrite(rel);
      if (!target.ok) {
        log.warn({ path: rel, error: target.error }, 'model rung: file path not usable; hunks left open');
        return [];
      }
      const asked = Math.max(1, options.candidates ?? 1);
      const conflict = options.details ? `${cellId(options.details)}:${rel}` : rel;
      const run = { file, asked, abs: target.abs, workdir, conflict, log, outcomes };
      const resolved = await runCandidates(run, options, hintsFor(rel, hunks, options.hints));
      const review = reviewer
        ? (c: Candidate) =>
            reviewResolution(
              { path: rel, hunks: file.hunks, resolution: c.text, drops: auditLinesFor(file, c.text) },
              { gateway: options.gateway, conflict, log },
            )
        : null;
      const opinion = await secondOpinion(
        asked,
        resolved.map(({ text, modelId }) => ({ text, modelId })),
        review,
      );
      if (!opinion) return [];
      if (!opinion.accepted) {
        const { why, reviewer: by, lines, candidates } = opinion;
        const shown = candidates.map((c) => ({
          ...c,
          hunks: [...(resolved.find((r) => r.text === c.text)?.parts.values() ?? [])],
        }));
        withheld.push({ path: rel, why, reviewer: by, lines, candidates: shown });
        log.decision({ path: rel, why: opinion.why }, 'model rung: resolution not confirmed; the person chooses');
        if (!scratch) await keepCandidates(options.git, rel, opinion.candidates, log);
        return [];
      }
      const parts = resolved.find((c) => c.text === opinion.text)?.parts ?? new Map<number, string>();
      const open = new Set(hunks.map((h) => h.index));
      const out: HunkResolution[] = [];
      for (const [index, t] of parts)
        if (open.has(index)) out.push({ text: t, rung: 'model', by: opinion.modelId, hunkIndex: index });
      hunksResolved += out.length;
      return out;
    } finally {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    }
  };

  return {
    fallback,
    outcomes,
    withheld,
    usage: () => {
      const t = options.gateway.usage.byRole().resolver;
      return { inputTokens: t.inputTokens, outputTokens: t.outputTokens, costUsd: t.costUsd, hunksResolved };
    },
    reviewerUsage: () => options.gateway.usage.byRole().reviewer,
  };
}

/** Keep the candidates in the working tree's git directory, tied to the path's index stages, for `take candidate`. */
async function keepCandidates(git: Git, rel: string, candidates: Candidate[], log: Logger): Promise<void> {
  try {
    const entry = (await listUnmerged(git, [rel]))[0];
    if (entry) await recordCandidates(await git.gitDir(false), rel, stagesId(entry), candidates);
  } catch (error) {
    log.warn({ path: rel, error: String(error) }, 'model rung: the candidates could not be kept for take');
  }
}

/** The past merges' evidence per open hunk of a file, for the prompt (empty without hints). */
function hintsFor(
  path: string,
  hunks: ConflictedFile['hunks'],
  hints: ModelRungOptions['hints'],
): Record<number, string> {
  const out: Record<number, string> = {};
  if (!hints) return out;
  for (const h of hunks) {
    const hint = hints(path, h);
    if (hint) out[h.index] = hint;
  }
  return out;
}
