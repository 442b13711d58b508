import { alignHunk } from '../eval/align.js';
import { hasMarkers } from '../parse/markers.js';
import { parseConflictText } from '../parse/markers.js';
import type { ConflictHunk } from '../types.js';
import type { CacheProvenance, ResolutionCache } from './resolution-cache.js';

export interface LearnInput {
  path: string;
  /** The file as it was handed to the person: the hunks no rung resolved still in markers. */
  presented: string;
  /** The file as the person left it. */
  resolved: string;
  provenance?: CacheProvenance;
  markerSize?: number;
  /** The answer known for hunk `i` where it cannot be located (what a take wrote for it), else null. */
  unlocated?: (hunk: ConflictHunk, i: number) => string | null;
}

/**
 * Learn a person's resolutions, hunk by hunk: each hunk of the presented file is located in
 * the person's file by the context around it, and what replaced it is cached (rung `person`),
 * so the same conflict met again at a later cell, retry or run is not asked again. A hunk
 * whose context the person also rewrote cannot be located and is not learnt, unless its answer
 * is known otherwise (`unlocated`: what a take wrote). Returns the
 * cache keys of the hunks stored (so a later blame can evict them).
 */
export async function learnPersonResolution(cache: ResolutionCache, input: LearnInput): Promise<string[]> {
  return (await learnPersonHunks(cache, input)).filter((k): k is string => k !== null);
}

/**
 * As `learnPersonResolution`, one entry per hunk of the presented file in order: its cache
 * key, or null where it was not learnt (not located, or the cache refused the answer).
 */
export async function learnPersonHunks(cache: ResolutionCache, input: LearnInput): Promise<Array<string | null>> {
  if (hasMarkers(input.resolved, input.markerSize)) return [];
  const file = parseConflictText(input.presented, {
    path: input.path,
    ...(input.markerSize ? { markerSize: input.markerSize } : {}),
  });
  const stored: Array<string | null> = [];
  for (const [i, hunk] of file.hunks.entries()) {
    const region = alignHunk(file, hunk, input.resolved);
    // The region holds the blank lines between its anchors and the hunk: they are context, not answer.
    const located =
      region !== null &&
      region.text.startsWith(region.before) &&
      region.text.endsWith(region.after) &&
      region.text.length >= region.before.length + region.after.length;
    const answer = located
      ? region.text.slice(region.before.length, region.text.length - region.after.length)
      : (input.unlocated?.(hunk, i) ?? null);
    if (answer === null) {
      stored.push(null);
      continue;
    }
    const key = cache.key({ base: hunk.base, ours: hunk.ours, theirs: hunk.theirs });
    const entry = await cache.put(key, {
      resolution: answer,
      rung: 'person',
      by: 'person',
      provenance: { file: input.path, ...input.provenance },
    });
    stored.push(entry !== null ? key : null);
  }
  return stored;
}
