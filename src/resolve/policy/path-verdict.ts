import type { LearntHunk } from '../learnt/learnt-hunk.js';

/** A person's choice (as `eval` names it) as the `resolve.paths` decision that writes it; undefined for the others. */
export const decisionOfChoice: Readonly<Record<string, string>> = {
  ours: 'ours',
  theirs: 'theirs',
  'ours then theirs': 'union ours-first',
  'theirs then ours': 'union theirs-first',
};

/** A path (or a glob's paths) must have conflicted in at least this many merges, the latest decided alike, to be proposed. */
export const MIN_MERGES = 2;
/** Each older merge weighs this much of the one after it, so the fork's recent practice leads. */
const RECENCY = 0.8;
/** Where older merges decided otherwise, the latest agreeing ones must weigh at least this share. */
const RECENT_SHARE = 0.8;

/** What the merges that conflicted on some paths did there, and the decision they propose, if any. */
export interface Verdict {
  /** The `resolve.paths` decision, or null when the history does not settle it. */
  decision: string | null;
  /** The choice it writes (`theirs`, `ours then theirs`, ...). */
  choice: string | null;
  /** Merges that conflicted there, oldest first, each with the one choice its hunks agree on or `mixed`. */
  votes: Array<{ time: number; choice: string }>;
  /** How many of the latest merges agree with the decision. */
  streak: number;
}

const day = (time: number): string => new Date(time * 1000).toISOString().slice(0, 10);

/**
 * The decision the merges that conflicted on `hunks` propose: the latest merge's choice when it
 * writes a decision, the latest `MIN_MERGES` or more agree on it, and older merges that did
 * otherwise weigh little (recent merges count more). Never a decision a later merge did not keep:
 * only the unbroken run of the latest merges speaks for it, and older merges that differ may only
 * have kept a side or both (one that combined, or wrote text of neither side, leaves it unsettled). A union is never proposed where taking
 * both sides did not parse in a merge of its evidence.
 */
export function verdictOf(hunks: readonly LearntHunk[]): Verdict {
  const byMerge = new Map<string, { time: number; choices: Set<string> }>();
  for (const h of hunks) {
    const m = byMerge.get(h.merge) ?? { time: h.time, choices: new Set<string>() };
    m.choices.add(h.choice);
    byMerge.set(h.merge, m);
  }
  const votes = [...byMerge.values()]
    .sort((a, b) => a.time - b.time)
    .map((m) => ({ time: m.time, choice: m.choices.size === 1 ? ([...m.choices][0] as string) : 'mixed' }));
  const latest = votes[votes.length - 1]?.choice ?? 'mixed';
  let streak = 0;
  while (streak < votes.length && votes[votes.length - 1 - streak]?.choice === latest) streak++;
  const none = { decision: null, choice: null, votes, streak };
  const decision = decisionOfChoice[latest];
  if (decision === undefined || streak < MIN_MERGES) return none;
  if (decision.startsWith('union') && hunks.some((h) => h.unionParses === false)) return none;
  let all = 0;
  let agree = 0;
  for (let i = 0; i < votes.length; i++) {
    const w = RECENCY ** i;
    all += w;
    if (i < streak) agree += w;
  }
  if (streak < votes.length && agree / all < RECENT_SHARE) return none;
  // Where the maintainer once wrote text of their own or combined the sides, only a unanimous history speaks.
  if (votes.slice(0, votes.length - streak).some((v) => !(v.choice in decisionOfChoice))) return none;
  return { decision, choice: latest, votes, streak };
}

/** The verdict's evidence in one phrase: how many merges did what there, and when. */
export function evidenceOf(v: Verdict, where: string): string {
  const span = (list: ReadonlyArray<{ time: number }>): string => {
    const [first, last] = [day(list[0]?.time ?? 0), day(list[list.length - 1]?.time ?? 0)];
    return first === last ? first : `${first} to ${last}`;
  };
  if (v.streak === v.votes.length)
    return `${v.choice} in all ${v.votes.length} merges that conflicted ${where}, ${span(v.votes)}`;
  const older = v.votes.slice(0, v.votes.length - v.streak);
  const counts = new Map<string, number>();
  for (const o of older) counts.set(o.choice, (counts.get(o.choice) ?? 0) + 1);
  const before = [...counts].map(([c, n]) => `${c} ${n}`).join(', ');
  return `${v.choice} in the latest ${v.streak} of ${v.votes.length} merges that conflicted ${where}, ${span(v.votes.slice(-v.streak))}; before, ${span(older)}: ${before}`;
}

/** Per merge choice, counted over every merge that conflicted there (ours, theirs, union, combined, ...). */
export function tallyOf(v: Verdict): string {
  const counts = new Map<string, number>();
  for (const o of v.votes) counts.set(o.choice, (counts.get(o.choice) ?? 0) + 1);
  return [...counts].map(([c, n]) => `${c} ${n}`).join(', ');
}
