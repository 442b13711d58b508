import { diff3Merge } from 'node-diff3';

/**
 * A clean three-way merge of token sequences with node-diff3 (its own LCS, a
 * different alignment from git's xdiff); null when any region still conflicts.
 * Adjacent changes count as conflicts, as in git.
 */
export function cleanDiff3(ours: string[], base: string[], theirs: string[]): string[] | null {
  const regions = diff3Merge(ours, base, theirs, { excludeFalseConflicts: true }) as Array<
    { ok: string[] } | { conflict: { a: string[]; o: string[]; b: string[] } }
  >;
  const out: string[] = [];
  for (const region of regions) {
    if ('conflict' in region) return null;
    out.push(...region.ok);
  }
  return out;
}
