import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CheckRunnerLike, FailureSummary } from '../checks/types.js';
import type { Git } from '../git/index.js';
import type { ConflictCell } from '../imerge/types.js';
import { replaceFileWithin } from '../util/replace-file.js';
import { nullLogger, type Logger } from '../log/logger.js';
import type { LadderFallback } from '../resolve/ladder.js';
import { printConflictedFile } from '../resolve/parse/markers.js';
import type { ConflictedFile, HunkResolution } from '../resolve/types.js';
import type { ModelGateway } from './model-gateway.js';
import type { UsageTotals } from './usage.js';
import { Sandbox } from './resolver/tool-sandbox.js';
import { resolveWithModel, type ResolverOutcome } from './resolver/resolver-agent.js';
import { cellId } from '../imerge/cell.js';
import { listUnmerged } from '../resolve/parse/stages.js';
import { recordCandidates } from '../resolve/take/candidate-store.js';
import { stagesId } from '../resolve/take/hunk-numbers.js';
import { auditLinesFor } from './review/audit-lines.js';
import { reviewResolution, type LineAtIssue } from './review/reviewer.js';
import { secondOpinion, type Candidate } from './review/second-opinion.js';

export interface ModelRungOptions {
  gateway: ModelGateway;
  /** Git of the repository (its tools read history through it). */
  git: Git;
  /**
   * The working tree the agent works in (the file is written there at
   * `file.path` for the conversation and put back afterwards; the ladder's
   * caller writes the final text). Omitted: a scratch repository per file
   * (eval, the merge driver), where only the file itself is visible.
   */
  workdir?: string;
  runCheck?: CheckRunnerLike | null;
  details?: ConflictCell | null;
  failure?: FailureSummary | string | null;
  maxTurns?: number;
  /** The fork's own instructions (`resolve.instructions`), sent with every request. */
  instructions?: string;
  /** What the fork's past merges suggest for a hunk (its evidence), given to the model beside the conflict. */
  hints?: ((path: string, hunk: ConflictedFile['hunks'][number]) => string | null) | null;
  log?: Logger;
  /** Independent resolutions per file (`llm.candidates`); above 1 they must agree. Default 1. */
  candidates?: number;
}

/** A file the model resolved whose resolution was not taken: why, the reviewer's lines, every candidate. */
export interface Withheld {
  path: string;
  why: string;
  reviewer: string | null;
  lines: LineAtIssue[];
  /** Each candidate with its text for each hunk, in hunk order (what the hand-off shows of it). */
  candidates: Array<Candidate & { hunks: string[] }>;
}

export interface ModelRung {
  /** The ladder's third rung: resolutions for the open hunks the model resolved. */
  fallback: LadderFallback;
  /** Tokens and cost so far, and the hunks the model resolved (for `eval --with-model`). */
  usage(): { inputTokens: number; outputTokens: number; costUsd: number; hunksResolved: number };
  /** What the reviewer's calls cost so far (zero without `llm.reviewer_model`). */
  reviewerUsage(): UsageTotals;
  /** Every conversation's outcome (transcripts for the report). */
  outcomes: { path: string; outcome: ResolverOutcome }[];
  /** Files whose resolution the candidates or the reviewer did not confirm (offered to the person as candidates). */
  withheld: Withheld[];
}

/**
 * Split a resolved file back into per-hunk texts, using the clean text between
 * hunks as anchors. Returns null when the model changed text outside the
 * conflict hunks (or anchors are ambiguous): then no hunk is taken from it.
 */
export function splitResolvedByHunks(file: ConflictedFile, resolved: string): Map<number, string> | null {
  const out = new Map<number, string>();
  let pos = 0;
  let pending: number | null = null;
  for (const seg of file.segments) {
    if (seg.kind === 'conflict') {
      if (pending !== null) return null;
      pending = seg.hunk.index;
      continue;
    }
    if (pending === null) {
      if (!resolved.startsWith(seg.text, pos)) return null;
      pos += seg.text.length;
      continue;
    }
    const at = resolved.indexOf(seg.text, pos);
    if (at < 0) return null;
    out.set(pending, resolved.slice(pos, at));
    pos = at + seg.text.length;
    pending = null;
  }
  if (pending !== null) {
    out.set(pending, resolved.slice(pos));
    pos = resolved.length;
  }
  return pos === resolved.length ? out : null;
}

/**
 * The LLM resolver as the ladder's third rung (`resolveConflictedFile(file,
 * { fallback: rung.fallback })`). One conversation per file and candidate
 * (`llm.candidates`); the validated file, once the candidates agree or the
 * reviewer accepts it (when either is configured), is split back into hunk
 * resolutions, else every candidate is kept for the person (`take candidate`). A failure (turn limit,
 * timeout, budget) leaves the hunks open for the person's rung; only an
 * authentication failure throws (the run must stop).
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
      const before = existsSync(target.abs) ? await readFile(target.abs) : null;
      await mkdir(dirname(target.abs), { recursive: true });
      const asked = Math.max(1, options.candidates ?? 1);
      const conflict = options.details ? `${cellId(options.details)}:${rel}` : rel;
      const resolved: Array<Candidate & { parts: Map<number, string> }> = [];
      try {
        for (let k = 0; k < asked; k += 1) {
          // Each candidate starts from the conflict as presented, never from another's answer.
          await writeFile(target.abs, printConflictedFile(file));
          const outcome = await resolveWithModel(
            {
              workdir,
              files: [rel],
              details: options.details ?? null,
              failure: options.failure ?? null,
              conflictId: conflict,
              ...(options.instructions ? { instructions: options.instructions } : {}),
              hints: hintsFor(rel, hunks, options.hints),
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
          outcomes.push({ path: rel, outcome });
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
        if (before === null) await rm(target.abs, { force: true });
        else replaceFileWithin(workdir, rel, before);
      }
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
