import type { Git } from '../../git/index.js';
import { alignHunk } from '../eval/align.js';
import { personChoice } from '../eval/left-hunks.js';
import { mergeFileTexts } from '../parse/merge-file.js';
import { parseConflictText, printWithResolutions } from '../parse/markers.js';
import { parseProblems } from '../syntax/validate-text.js';
import { keepsBothSides } from './combined.js';
import { lineHashes, shapeOf, type ShapeKind } from './hunk-shape.js';

/** One hunk git could not merge in a past merge, and what the maintainer wrote for it. */
export interface LearntHunk {
  /** The merge commit. */
  merge: string;
  /** Its committer time, in seconds since the epoch. */
  time: number;
  path: string;
  /**
   * `PersonChoice`: ours, theirs, ours then theirs, theirs then ours, base, other text (unaligned
   * hunks are not kept), or `combined`: other text that keeps lines only each side wrote.
   */
  choice: string;
  kind: ShapeKind;
  lead: 'ours' | 'theirs' | null;
  /** `lineHashes` of its sides: what a later conflict is compared with. */
  lines: number[];
  /**
   * For a hunk the maintainer answered with both sides: whether the file with every hunk taken
   * both ways in that order (what a `union` policy writes) parses. False: a union is not what they did.
   */
  unionParses?: boolean;
}

/** A conflicted file of a past merge, with the maintainer's result. */
export interface PastFile {
  path: string;
  base: string | null;
  ours: string | null;
  theirs: string | null;
  resolved: string | null;
}

/**
 * Every hunk git could not merge in one file of a past merge (`git merge-file --diff3` of its
 * three versions), with what the maintainer wrote in its place (`personChoice`, as `eval` reads
 * it, with text that keeps both sides' lines told apart as `combined`). A file one side deleted, or the merge deleted, has no hunks to learn from.
 */
export async function learnFile(git: Git, merge: { oid: string; time: number }, file: PastFile): Promise<LearntHunk[]> {
  if (file.ours === null || file.theirs === null || file.resolved === null) return [];
  const merged = await mergeFileTexts(git, { base: file.base ?? '', ours: file.ours, theirs: file.theirs });
  const parsed = parseConflictText(merged.text, { path: file.path });
  const resolved = file.resolved;
  const learnt = parsed.hunks.flatMap((hunk): LearntHunk[] => {
    const person = personChoice(parsed, hunk, resolved);
    if (person === 'unaligned') return [];
    const sides = { base: hunk.base, ours: hunk.ours, theirs: hunk.theirs };
    const region = person === 'other text' ? alignHunk(parsed, hunk, resolved) : null;
    const choice = region !== null && keepsBothSides(sides, region.text) ? 'combined' : person;
    const shape = shapeOf(sides);
    return [
      {
        merge: merge.oid,
        time: merge.time,
        path: file.path,
        choice,
        kind: shape.kind,
        lead: shape.lead,
        lines: lineHashes(sides),
      },
    ];
  });
  for (const order of ['ours then theirs', 'theirs then ours']) {
    const union = learnt.filter((h) => h.choice === order);
    if (union.length === 0) continue;
    const both = new Map(
      parsed.hunks.map((h) => [h.index, order === 'ours then theirs' ? h.ours + h.theirs : h.theirs + h.ours]),
    );
    const problems = await parseProblems(file.path, printWithResolutions(parsed, both), [
      file.base,
      file.ours,
      file.theirs,
    ]);
    for (const h of union) h.unionParses = problems.length === 0;
  }
  return learnt;
}
