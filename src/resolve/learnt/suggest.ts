import type { HunkSides } from '../rules/rule.js';
import {
  absoluteChoice,
  lineHashes,
  relativeChoice,
  shapeOf,
  sideChoices,
  similarity,
  type HunkShape,
  type ShapeKind,
  type SideChoice,
} from './hunk-shape.js';
import type { LearntHunk } from './learnt-hunk.js';
import { combinedText } from './combined.js';
import { shortOid } from '../../util/short-oid.js';

/** What a suggestion keeps: a side, both in an order, or both sides combined (`take combined`). */
export type SuggestedChoice = SideChoice | 'combined';

/** A suggestion for one hunk, with the evidence for it. */
export interface Suggestion {
  choice: SuggestedChoice;
  /**
   * `similar`: earlier conflicts on the same lines; `habit`: earlier conflicts of the same shape in
   * the same place; `combined`: either of those, where the maintainer combined both sides.
   */
  basis: 'similar' | 'habit' | 'combined';
  /** For `combined`: this hunk's two sides combined, what `take combined` writes (a text to edit from). */
  text?: string;
  /** Where the evidence was looked for: a path, `dir/*.ext`, `dir/**`, `**` (habit), or the paths of the similar conflicts. */
  scope: string;
  /** Merges whose maintainer chose this, of the merges that spoke (most recent first, at most `RECENT`). */
  agree: number;
  of: number;
  /** The most recent merges that spoke: commit and day. */
  merges: Array<{ merge: string; date: string }>;
  /** One sentence a person (and the model) reads. */
  evidence: string;
}

/** How many of the most recent merges speak for a habit. */
export const RECENT = 10;
/** A habit is suggested when at least this share of the merges that spoke agree. */
export const SUGGEST_SHARE = 0.6;
/**
 * A habit rests on at least this many merges agreeing: replayed on real forks, every habit resting
 * on a single merge was wrong.
 */
export const MIN_HABIT_MERGES = 2;
/** Each older merge that spoke weighs this much of the one after it, so the fork's recent practice leads. */
const RECENCY = 0.8;
/** Earlier conflicts at least this similar (shared lines over all lines) speak first. */
const SIMILAR = 0.3;

const sideWords: Record<SuggestedChoice, string> = {
  combined: 'both sides combined (lines each side wrote, edited where they meet)',
  ours: "ours (the fork's lines)",
  theirs: "theirs (upstream's lines)",
  'ours then theirs': "both, the fork's lines first",
  'theirs then ours': "both, upstream's lines first",
};

const shapeWords: Record<ShapeKind, string> = {
  added: 'where both sides added lines at the same place',
  deleted: 'where one side deleted the lines the other changed',
  rewrote: 'where one side rewrote the lines and the other made a smaller change',
  'rewrote, other added': 'where one side rewrote the lines and the other added lines of its own',
  'same lines': 'where both sides replaced the same lines',
};

/** What the habit says in words, relative to the lead where the shape has one. */
function habitWords(relative: string, shape: HunkShape): string {
  if (shape.lead === null || relative === 'combined') return sideWords[relative as SuggestedChoice] ?? relative;
  const lead = shape.kind === 'deleted' ? 'the side that kept lines' : 'the side that rewrote them';
  const other = shape.kind === 'deleted' ? 'the deletion' : 'the other side';
  const words: Record<string, string> = {
    lead,
    other,
    'lead then other': `both, ${lead} first`,
    'other then lead': `both, ${other} first`,
  };
  return words[relative] ?? relative;
}

const day = (time: number): string => new Date(time * 1000).toISOString().slice(0, 10);

/** The days of the oldest and newest merge that spoke. */
function span(votes: ReadonlyArray<{ time: number }>): string {
  const times = votes.map((v) => v.time);
  const [first, last] = [day(Math.min(...times)), day(Math.max(...times))];
  return first === last ? first : `${first} to ${last}`;
}

/** The scopes a path's habits are looked for in, narrowest first: the file, its folder's files of its kind, its folder, everywhere. */
export function scopesOf(path: string): Array<{ glob: string; test: (p: string) => boolean }> {
  const slash = path.lastIndexOf('/');
  const dir = slash < 0 ? '' : path.slice(0, slash + 1);
  const name = path.slice(slash + 1);
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot) : null;
  const inDir = (p: string): boolean => p.startsWith(dir) && !p.slice(dir.length).includes('/');
  const scopes = [{ glob: path, test: (p: string) => p === path }];
  if (ext) scopes.push({ glob: `${dir}*${ext}`, test: (p) => inDir(p) && p.endsWith(ext) });
  if (dir !== '') scopes.push({ glob: `${dir}**`, test: (p) => p.startsWith(dir) });
  scopes.push({ glob: '**', test: () => true });
  return scopes;
}

/** Per merge (most recent first, at most RECENT): the one (relative) choice its hunks agree on, or `mixed`. */
function mergeVotes(hunks: readonly LearntHunk[], choiceOf: (h: LearntHunk) => string) {
  const byMerge = new Map<string, { time: number; choices: Set<string> }>();
  for (const h of hunks) {
    const m = byMerge.get(h.merge) ?? { time: h.time, choices: new Set<string>() };
    m.choices.add(choiceOf(h));
    byMerge.set(h.merge, m);
  }
  return [...byMerge]
    .sort((a, b) => b[1].time - a[1].time)
    .slice(0, RECENT)
    .map(([merge, m]) => ({
      merge,
      time: m.time,
      choice: m.choices.size === 1 ? ([...m.choices][0] as string) : 'mixed',
    }));
}

function tally(votes: ReadonlyArray<{ choice: string }>): { choice: string; count: number } | null {
  const counts = new Map<string, number>();
  for (const v of votes) counts.set(v.choice, (counts.get(v.choice) ?? 0) + 1);
  const top = [...counts].sort((a, b) => b[1] - a[1])[0];
  return top ? { choice: top[0], count: top[1] } : null;
}

/** The share of the votes (most recent first) for `choice`, each older merge weighing RECENCY of the one after it. */
function recentShare(votes: ReadonlyArray<{ choice: string }>, choice: string): number {
  let all = 0;
  let agree = 0;
  votes.forEach((v, i) => {
    const w = RECENCY ** i;
    all += w;
    if (v.choice === choice) agree += w;
  });
  return all === 0 ? 0 : agree / all;
}

/** Whether a choice is one a suggestion can make. */
const suggestable = (choice: string): choice is SuggestedChoice =>
  choice === 'combined' || (sideChoices as readonly string[]).includes(choice);

/** Earlier conflicts on the same lines (any path): the choice they weigh for, when it keeps sides. */
function bySimilar(history: readonly LearntHunk[], lines: readonly number[], shape: HunkShape): Suggestion | null {
  const near = history
    .map((h) => ({ h, s: similarity(lines, h.lines) }))
    .filter((x) => x.s >= SIMILAR)
    .sort((a, b) => b.s - a.s || b.h.time - a.h.time);
  if (near.length === 0) return null;
  const weight = new Map<string, number>();
  for (const { h, s } of near) {
    const c = absoluteChoice(relativeChoice(h.choice, h.lead), shape.lead);
    weight.set(c, (weight.get(c) ?? 0) + s);
  }
  const best = [...weight].sort((a, b) => b[1] - a[1])[0] as [string, number];
  if (!suggestable(best[0])) return null;
  const choice = best[0];
  const votes = mergeVotes(
    near.map((x) => x.h),
    (h) => absoluteChoice(relativeChoice(h.choice, h.lead), shape.lead),
  );
  const agree = votes.filter((v) => v.choice === choice).length;
  const first = near[0]?.h as LearntHunk;
  const paths = [...new Set(near.map((x) => x.h.path))];
  return {
    choice,
    basis: choice === 'combined' ? 'combined' : 'similar',
    scope: paths.slice(0, 3).join(', '),
    agree,
    of: votes.length,
    merges: votes.slice(0, 3).map((v) => ({ merge: v.merge, date: day(v.time) })),
    evidence: `in ${agree} of ${votes.length} earlier merge(s) that conflicted on these same lines (most alike: ${first.path}, merge ${shortOid(first.merge)} of ${day(first.time)}), the maintainer kept ${sideWords[choice]}`,
  };
}

/** Earlier conflicts of the same shape, in the narrowest scope that has some. */
function byHabit(history: readonly LearntHunk[], path: string, shape: HunkShape): Suggestion | null {
  const same = history.filter((h) => h.kind === shape.kind);
  for (const scope of scopesOf(path)) {
    const inScope = same.filter((h) => scope.test(h.path));
    const votes = mergeVotes(inScope, (h) => relativeChoice(h.choice, h.lead));
    // Too few merges here to say anything: a wider scope may have enough.
    if (votes.length < MIN_HABIT_MERGES) continue;
    const top = tally(votes);
    if (!top || top.count < MIN_HABIT_MERGES || recentShare(votes, top.choice) < SUGGEST_SHARE) return null;
    const choice = absoluteChoice(top.choice, shape.lead);
    if (!suggestable(choice)) return null;
    const kept = habitWords(top.choice, shape);
    const here = shape.lead === null || choice === 'combined' ? '' : ` (here: ${sideWords[choice]})`;
    return {
      choice,
      basis: choice === 'combined' ? 'combined' : 'habit',
      scope: scope.glob,
      agree: top.count,
      of: votes.length,
      merges: votes.slice(0, 3).map((v) => ({ merge: v.merge, date: day(v.time) })),
      evidence: `in ${top.count} of the last ${votes.length} merge(s) that conflicted in ${scope.glob} ${shapeWords[shape.kind]} (${span(votes)}), the maintainer kept ${kept}${here}`,
    };
  }
  return null;
}

/**
 * What the maintainer's earlier merges suggest for a hunk, or null when they say nothing clear:
 * earlier conflicts on the same lines first, then the habit for conflicts of the same shape in
 * the narrowest scope around the path that has some. Only `history` is read: the caller passes
 * the merges earlier than the one at hand.
 */
export function suggestFor(history: readonly LearntHunk[], path: string, sides: HunkSides): Suggestion | null {
  if (history.length === 0) return null;
  const shape = shapeOf(sides);
  // Similar conflicts that say nothing clear (the maintainer wrote text of neither side) leave the word to the habit.
  const s = bySimilar(history, lineHashes(sides), shape) ?? byHabit(history, path, shape);
  if (s?.choice !== 'combined') return s;
  return {
    ...s,
    text: combinedText(sides),
    evidence: `${s.evidence}; \`take combined\` writes this hunk's two sides combined, to edit as they did`,
  };
}

/**
 * Whether `resolve.learnt: apply` takes the suggestion without asking: only earlier conflicts
 * on the same lines count (a combination is a text to edit from, never taken unasked), at least `minMerges` of them and `threshold` of those that spoke
 * agreeing. A habit of a place is shown, never applied: replayed on the dev corpus and the real
 * fork histories, habits were wrong at every threshold.
 */
export function strongEnough(s: Suggestion, threshold: number, minMerges: number): boolean {
  return s.basis === 'similar' && s.agree >= minMerges && s.agree / s.of >= threshold;
}
