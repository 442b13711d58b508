import { ResolutionCache, type CacheEntry } from '../../resolve/cache/resolution-cache.js';
import type { HandoffFile } from '../../store/handoff-state.js';

/** Where a remembered file decision was made, in words (`run up, cell 1-1`). */
function whereMade(entry: CacheEntry): string {
  const parts = [
    entry.provenance.merge && `run ${entry.provenance.merge}`,
    entry.provenance.cell && `cell ${entry.provenance.cell}`,
    entry.imported && 'another clone',
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : 'an earlier merge';
}

/**
 * The person's earlier keep-or-delete choices for the same path, where the sides differ from any
 * they answered (the very same sides are given again by the memory, never asked): the choice they
 * made every time is suggested with its command and its evidence; where they chose both ways, the
 * evidence is stated and nothing is suggested. Files without a keep-or-delete choice are as they were.
 */
export async function withFileSuggestions(files: HandoffFile[], cache: ResolutionCache | null): Promise<HandoffFile[]> {
  const asked = files.filter((f) => f.choices?.keep !== undefined && f.choices.delete !== undefined);
  if (cache === null || asked.length === 0) return files;
  const remembered = (await cache.list()).filter((e) => e.file !== undefined && !ResolutionCache.isBlamedEntry(e));
  return files.map((f) => {
    if (!asked.includes(f)) return f;
    const earlier = remembered.filter((e) => e.file?.path === f.path);
    const deleted = earlier.filter((e) => e.file?.deleted === true);
    const kept = earlier.filter((e) => e.file?.deleted !== true);
    if (earlier.length === 0) return f;
    const list = (es: CacheEntry[]): string =>
      es.slice(0, 3).map(whereMade).join('; ') + (es.length > 3 ? '; ...' : '');
    const evidence = [
      deleted.length > 0 && `deleted it ${deleted.length} time(s) (${list(deleted)})`,
      kept.length > 0 && `kept it ${kept.length} time(s) (${list(kept)})`,
    ]
      .filter(Boolean)
      .join(' and ');
    const choice = kept.length === 0 ? 'delete' : deleted.length === 0 ? 'keep' : null;
    const line =
      choice === null
        ? ` Earlier, for other sides of this file, the person ${evidence}: no suggestion.`
        : ` Suggested: \`${f.choices?.[choice]}\`: for other sides of this file, the person ${evidence}.`;
    return { ...f, instructions: `${f.instructions}${line}` };
  });
}
