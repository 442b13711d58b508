import type { Git } from '../../git/index.js';
import { sideChoices } from '../learnt/hunk-shape.js';
import { learnFile, type LearntHunk } from '../learnt/learnt-hunk.js';
import { strongEnough, suggestFor } from '../learnt/suggest.js';
import { keepsBothSides } from '../learnt/combined.js';
import type { ConflictedFile, ConflictHunk } from '../types.js';
import { alignHunk, matchesRegion } from './align.js';
import type { PersonChoice } from './left-hunks.js';
import type { EvalCase } from './score-case.js';
import type { LearntCounts } from './learnt-counts.js';

/**
 * What every case's merge teaches (each hunk git could not merge, with the person's choice),
 * by repository. Cases of one merge are learnt once per file; undated cases are counted apart.
 */
export async function learnCases(git: Git, cases: readonly EvalCase[], counts: LearntCounts) {
  const byRepo = new Map<string, LearntHunk[]>();
  for (const c of cases) {
    if (c.merge === undefined || c.time === undefined) {
      counts.undated++;
      continue;
    }
    const hunks = await learnFile(git, { oid: c.merge, time: c.time }, c);
    const list = byRepo.get(c.repo ?? '') ?? [];
    list.push(...hunks);
    byRepo.set(c.repo ?? '', list);
  }
  return byRepo;
}

/**
 * The scorer `scoreCase` calls for the hunks the ladder left: each hunk's suggestion from the
 * merges of the same repository strictly earlier than the case's (no peeking), compared with
 * what the person wrote.
 */
export function learntScorer(byRepo: ReadonlyMap<string, readonly LearntHunk[]>, counts: LearntCounts) {
  return (
    c: EvalCase,
    hunks: readonly ConflictHunk[],
    choices: readonly PersonChoice[],
    file: ConflictedFile,
  ): void => {
    if (c.time === undefined) return;
    const time = c.time;
    const history = (byRepo.get(c.repo ?? '') ?? []).filter((h) => h.time < time);
    hunks.forEach((hunk, i) => {
      const person = choices[i] as PersonChoice;
      const kept = (sideChoices as readonly string[]).includes(person);
      counts.left++;
      if (kept) counts.kept++;
      const s = suggestFor(history, c.path, { base: hunk.base, ours: hunk.ours, theirs: hunk.theirs });
      if (!s) return;
      const basis = (counts.byBasis[s.basis] ??= { suggested: 0, equal: 0 });
      counts.suggested++;
      basis.suggested++;
      if (kept) counts.suggestedKept++;
      // A combination is the person's when its text is theirs; "combined too" when theirs also keeps both sides' lines.
      const region = s.choice === 'combined' && c.resolved !== null ? alignHunk(file, hunk, c.resolved) : null;
      const equal =
        s.choice === 'combined' ? region !== null && matchesRegion(region, s.text ?? '', c.path) : s.choice === person;
      if (region !== null && (equal || (person === 'other text' && keepsBothSides(hunk, region.text))))
        basis.combinedToo = (basis.combinedToo ?? 0) + 1;
      if (equal) {
        counts.equal++;
        basis.equal++;
      }
      if (person === 'unaligned') counts.unaligned++;
      for (const row of counts.apply) {
        if (!strongEnough(s, row.threshold, row.minMerges)) continue;
        row.applied++;
        if (equal) row.equal++;
        else if (person !== 'unaligned') row.wrong++;
      }
    });
  };
}

/** The suggestions table of `eval` (Markdown). */
export function formatLearnt(c: LearntCounts): string[] {
  const pct = (n: number, d: number): string => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);
  const scored = c.suggested - c.unaligned;
  const zero = c.apply.filter((r) => r.wrong === 0 && r.applied > 0).sort((a, b) => b.applied - a.applied)[0];
  return [
    '',
    'Suggestions learnt from earlier merges (only merges earlier in time than the one replayed), for the hunks the ladder left:',
    '| hunks left | person kept a side | suggested | of those kept | equal | precision | coverage of kept |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    `| ${c.left} | ${c.kept} | ${c.suggested} | ${c.suggestedKept} | ${c.equal} | ${pct(c.equal, scored)} | ${pct(c.suggestedKept, c.kept)} |`,
    '',
    `By basis: ${Object.entries(c.byBasis)
      .map(
        ([b, x]) =>
          `${b} ${x.suggested} suggested, ${x.equal} equal${b === 'combined' ? ` (the person combined both sides in ${x.combinedToo ?? 0})` : ''}`,
      )
      .join('; ')}.`,
    '',
    '`resolve.learnt: apply` at each threshold (share of the merges that spoke that agree, and how many agree at least):',
    '| threshold | min merges | applied | equal | wrong |',
    '|---:|---:|---:|---:|---:|',
    ...c.apply.map((r) => `| ${r.threshold} | ${r.minMerges} | ${r.applied} | ${r.equal} | ${r.wrong} |`),
    zero
      ? `The most taken at 0 wrong: threshold ${zero.threshold}, min merges ${zero.minMerges} (${zero.applied} applied).`
      : 'No threshold applies any suggestion at 0 wrong.',
    ...(c.undated > 0 ? [`${c.undated} case(s) without a merge date: not learnt from, not suggested for.`] : []),
    "precision = equal / (suggested - suggested where the person's text could not be located); coverage = suggested where the person kept a side / hunks where the person kept a side.",
  ];
}
