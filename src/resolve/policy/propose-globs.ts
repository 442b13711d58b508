import type { LearntHunk } from '../learnt/learnt-hunk.js';
import { globMatches } from './path-policy.js';
import { verdictOf, type Verdict } from './path-verdict.js';

/**
 * A path from history as a `resolve.paths` glob that matches that path only: each character
 * picomatch gives a meaning (`*?[]{}()!+@`, the backslash) escaped, so a file named `*` proposes
 * `\\*`, never a rule for every file.
 */
export function literalGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@|]/g, '\\$&');
}

/**
 * The globs a path could be proposed under with others: its folder's files of its extension
 * (`config/locales/*.yml`), and the same with one folder of its path a wildcard
 * (`app/javascript/*\/locales/*.json`). None for a file at the top: a glob without a slash
 * matches the name in every folder.
 */
function candidateGlobs(path: string): string[] {
  const parts = path.split('/');
  const name = parts.pop() as string;
  const dot = name.lastIndexOf('.');
  if (parts.length === 0 || dot <= 0) return [];
  const file = `*${literalGlob(name.slice(dot))}`;
  const dirs = parts.map(literalGlob);
  const out = [[...dirs, file].join('/')];
  for (let i = 0; i < dirs.length; i++) out.push([...dirs.slice(0, i), '*', ...dirs.slice(i + 1), file].join('/'));
  return out;
}

export interface GlobVerdict {
  glob: string;
  /** The paths of history it covers, each decided alike on its own. */
  paths: string[];
  verdict: Verdict;
}

/**
 * Paths that history decided alike, collapsed into one glob where they share a folder pattern:
 * a glob is proposed only when it covers at least two paths, every path of history it matches
 * has that same decision on its own (none combined, none decided otherwise, none unsettled), and
 * the merges of all its paths together propose it too. The glob covering most paths wins.
 */
export function collapseIntoGlobs(
  hunks: readonly LearntHunk[],
  decided: ReadonlyMap<string, string | null>,
): GlobVerdict[] {
  const out: GlobVerdict[] = [];
  const covered = new Set<string>();
  const candidates = new Map<string, string>();
  for (const [path, decision] of decided)
    if (decision !== null) for (const g of candidateGlobs(path)) candidates.set(g, decision);
  const ranked = [...candidates]
    .map(([glob, decision]) => ({ glob, decision, paths: [...decided.keys()].filter((p) => globMatches(glob, p)) }))
    .filter((c) => c.paths.length >= 2 && c.paths.every((p) => decided.get(p) === c.decision))
    .sort((a, b) => b.paths.length - a.paths.length || a.glob.split('*').length - b.glob.split('*').length);
  for (const c of ranked) {
    if (c.paths.some((p) => covered.has(p))) continue;
    const members = new Set(c.paths);
    const verdict = verdictOf(hunks.filter((h) => members.has(h.path)));
    if (verdict.decision !== c.decision) continue;
    for (const p of c.paths) covered.add(p);
    out.push({ glob: c.glob, paths: c.paths.sort(), verdict });
  }
  return out;
}
