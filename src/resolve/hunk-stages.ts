import { SYNTAX_MERGE } from '../store/rung.js';
import { replayable } from './cache/replay.js';
import { withEol } from './cache/resolution-cache.js';
import type { HunksAtHand } from './ladder-types.js';
import { hasMarkers, printOutsideHunk } from './parse/markers.js';
import { policyResolution } from './policy/path-policy.js';
import { fitsParser } from './size-limits.js';
import { hunkTextsFromMerge, lineMerge, syntaxMerge } from './syntax/syntax-merge.js';
import type { ConflictHunk, HunkResolution } from './types.js';

/**
 * The hunk-level rungs of the ladder (`LADDER` in `ladder.ts` puts them in order; the rules' stage,
 * `byRules`, is there too). Each is given
 * the hunks still open and returns its answers for those it is sure of; none keeps state.
 */

/** The hunk's cache key as an answer's field, when a cache is in use (a check's blame finds the answer by it). */
export function keyOf(at: HunksAtHand, hunk: ConflictHunk): { cacheKey?: string } {
  const key = at.keys.get(hunk.index);
  return key === undefined ? {} : { cacheKey: key };
}

/** The fork's policy for the path (`resolve.paths`: a side, both), on every hunk; `person` answers none. */
export async function byPolicy(at: HunksAtHand, open: readonly ConflictHunk[]): Promise<HunkResolution[]> {
  const { policy } = at;
  return policy === null ? [] : open.flatMap((hunk) => policyResolution(hunk, policy) ?? []);
}

/** The cached answers that may be taken (`cachedAnswer`). */
export async function fromCache(at: HunksAtHand, open: readonly ConflictHunk[]): Promise<HunkResolution[]> {
  const out: HunkResolution[] = [];
  for (const hunk of open) {
    const answer = await cachedAnswer(at, hunk);
    if (answer) out.push(answer);
  }
  return out;
}

/**
 * The cached answer for a hunk, when one may be taken: live, replayable, without conflict markers
 * (the check the model's answers get: an entry may come from another clone), never an imported
 * one on a path the policy decides, and on a path it hands to a person, only a person's answer.
 */
async function cachedAnswer(at: HunksAtHand, hunk: ConflictHunk): Promise<HunkResolution | null> {
  const { file, rules, context, toPerson, log } = at;
  const key = at.keys.get(hunk.index);
  const hit = key === undefined ? null : await at.cache?.get(key);
  if (!hit || key === undefined) return null;
  // Another clone's answer never stands in for the fork's policy: on a path it decides (a person,
  // a regenerate command), only what this clone decided itself is replayed.
  if (hit.imported === true && at.policy) {
    log.decision(
      { path: file.path, hunk: hunk.index, by: `${hit.rung}:${hit.by}`, policy: at.policy.glob },
      "another clone's cached answer for a path the fork's policy decides: not taken",
    );
    return null;
  }
  if (toPerson && hit.rung !== 'person') return null;
  if (hasMarkers(hit.resolution) || hasMarkers(hit.resolution, file.markerSize)) {
    log.warn(
      { path: file.path, hunk: hunk.index, by: `${hit.rung}:${hit.by}`, imported: hit.imported === true },
      'cached resolution holds conflict markers; not taken',
    );
    return null;
  }
  const sides = { base: hunk.base, ours: hunk.ours, theirs: hunk.theirs };
  if (!replayable(hit, sides, rules, { ...context, outside: printOutsideHunk(file, hunk.index) })) return null;
  const text = withEol(hit.resolution, file.eol);
  // The merge record says whose answer it is: another clone's is not this clone's person's choice.
  const by = `${hit.rung}:${hit.by}${hit.imported === true ? ' (shared cache, from another clone)' : ''}`;
  return { text, rung: 'cache', by, hunkIndex: hunk.index, cacheKey: key };
}

/** The syntax-aware merge of the whole file, mapped onto the open hunks, when it is on and the versions fit the parser. */
export async function bySyntaxMerge(at: HunksAtHand, open: readonly ConflictHunk[]): Promise<HunkResolution[]> {
  const { file } = at;
  const sides = at.options.sides;
  const switches = at.options.syntax ?? { code: false, data: false };
  if (!(switches.code || switches.data) || !sides) return [];
  if (sides.ours === null || sides.theirs === null || !fitsParser(sides.base, sides.ours, sides.theirs)) return [];
  const versions = { base: sides.base ?? '', ours: sides.ours, theirs: sides.theirs };
  const pieces = await syntaxMerge(file.path, versions, lineMerge, switches);
  if (pieces === null) return [];
  const texts = hunkTextsFromMerge(file, pieces);
  return open.flatMap((hunk) => {
    const text = texts.get(hunk.index);
    return text === undefined
      ? []
      : [{ text, rung: 'syntax' as const, by: SYNTAX_MERGE, hunkIndex: hunk.index, ...keyOf(at, hunk) }];
  });
}

/** The learnt suggestions `resolve.learnt: apply` takes without asking. */
export async function byLearnt(at: HunksAtHand, open: readonly ConflictHunk[]): Promise<HunkResolution[]> {
  const { learnt } = at.options;
  return learnt ? open.flatMap((hunk) => learnt(hunk) ?? []) : [];
}

/** The fallback (the model, untrusted): only its answers without markers and not blamed count. */
export async function byModel(at: HunksAtHand, open: readonly ConflictHunk[]): Promise<HunkResolution[]> {
  const { file, cache, log } = at;
  if (!at.options.fallback) return [];
  const openIndexes = new Set(open.map((h) => h.index));
  const out: HunkResolution[] = [];
  for (const r of await at.options.fallback(file, [...open])) {
    if (r.hunkIndex === undefined || !openIndexes.has(r.hunkIndex)) continue;
    if (hasMarkers(r.text, file.markerSize)) {
      log.warn(
        { path: file.path, hunk: r.hunkIndex, by: r.by },
        'fallback resolution still holds conflict markers; hunk left open',
      );
      continue;
    }
    const key = at.keys.get(r.hunkIndex);
    if (key !== undefined && cache && (await cache.isBlamed(key, r.text))) {
      log.warn(
        { path: file.path, hunk: r.hunkIndex, by: r.by },
        'fallback answer was blamed by a failed check before; hunk left open',
      );
      continue;
    }
    openIndexes.delete(r.hunkIndex);
    out.push(key === undefined ? { ...r } : { ...r, cacheKey: key });
  }
  return out;
}
