import type { Git } from '../../git/index.js';
import { decideFileConflict } from '../file-level.js';
import { resolveConflictedFile, type LadderFallback } from '../ladder.js';
import { normalizeForPath, normalizeWhitespace } from '../normalize.js';
import { mergeFileTexts } from '../parse/merge-file.js';
import { parseConflictText, printOutsideHunk } from '../parse/markers.js';
import type { ResolutionRule } from '../rules/index.js';
import type { ConflictedFile, ConflictHunk } from '../types.js';
import { alignHunk, fileContainsLines } from './align.js';
import { emptyHunkCounts, type EvalReport, type HunkCounts } from './metrics.js';

/** One conflicted file of one historical merge, with what the human committed. */
export interface EvalCase {
  id: string;
  path: string;
  /** null when the version does not exist (no base, side deleted, merge deleted the file). */
  base: string | null;
  ours: string | null;
  theirs: string | null;
  resolved: string | null;
}

export interface ScoreOptions {
  git: Git;
  /** The ladder's rules (enabled set). */
  rules: readonly ResolutionRule[];
  /** Every rule, each also scored alone. */
  allRules: readonly ResolutionRule[];
  fallback?: LadderFallback;
}

/** Score one case into `report` (accumulating). */
export async function scoreCase(c: EvalCase, options: ScoreOptions, report: EvalReport): Promise<void> {
  report.cases++;
  report.files.seen++;
  if (c.ours === null || c.theirs === null) {
    scoreFileLevel(c, report);
    return;
  }
  const merged = await mergeFileTexts(options.git, { base: c.base ?? '', ours: c.ours, theirs: c.theirs });
  const file = parseConflictText(merged.text, { path: c.path });
  report.hunksSeen += file.hunks.length;

  const contexts = file.hunks.map((hunk) => ({ path: c.path, eol: file.eol, outside: printOutsideHunk(file, hunk.index) }));
  for (const rule of options.allRules) {
    const counts = (report.standalone[rule.name] ??= emptyHunkCounts());
    for (const [i, hunk] of file.hunks.entries()) {
      const text = rule.resolve({ base: hunk.base, ours: hunk.ours, theirs: hunk.theirs }, contexts[i] as (typeof contexts)[number]);
      if (text !== null) judge(counts, file, hunk, text, c.resolved);
    }
  }

  const result = await resolveConflictedFile(file, { path: c.path, rules: options.rules, fallback: options.fallback });
  for (const r of result.resolutions) {
    const hunk = file.hunks[(r.hunkIndex ?? 0) - 1] as ConflictHunk;
    judge(report.ladder, file, hunk, r.text, c.resolved);
    judge((report.byRule[r.by] ??= emptyHunkCounts()), file, hunk, r.text, c.resolved);
  }
  if (result.remaining.length === 0) {
    report.files.resolved++;
    compareWhole(report, result.text, c.resolved, c.path);
  }
}

function scoreFileLevel(c: EvalCase, report: EvalReport): void {
  const decision = decideFileConflict({
    path: c.path,
    base: c.base === null ? undefined : { mode: '100644', text: c.base },
    ours: c.ours === null ? undefined : { mode: '100644', text: c.ours },
    theirs: c.theirs === null ? undefined : { mode: '100644', text: c.theirs },
  });
  if (decision.resolution === null) return;
  report.files.resolved++;
  const chosen = decision.resolution.action === 'delete' ? null : decision.resolution.action === 'keep-ours' ? c.ours : c.theirs;
  if (chosen === null || c.resolved === null) {
    if (chosen === c.resolved) {
      report.files.exact++;
      report.files.whitespaceMatch++;
    } else report.files.wrong++;
    return;
  }
  compareWhole(report, chosen, c.resolved, c.path);
}

function compareWhole(report: EvalReport, text: string, resolved: string | null, path: string): void {
  if (resolved === null) {
    report.files.wrong++;
    return;
  }
  if (text === resolved) report.files.exact++;
  if (normalizeForPath(text, path) === normalizeForPath(resolved, path)) report.files.whitespaceMatch++;
  else report.files.wrong++;
}

/**
 * Compare one hunk resolution with the human's text for that hunk, when it can
 * be located. A resolution that cannot be located but whose lines occur nowhere
 * in the human's file is wrong all the same (it is not what they committed).
 */
export function judge(counts: HunkCounts, file: ConflictedFile, hunk: ConflictHunk, text: string, resolved: string | null): void {
  counts.resolved++;
  const region = resolved === null ? null : alignHunk(file, hunk, resolved);
  if (region === null) {
    if (resolved !== null && !fileContainsLines(resolved, text)) counts.wrong++;
    else counts.unaligned++;
    return;
  }
  // The region also holds the blank lines between the anchors and the hunk.
  const ours = region.before + text + region.after;
  if (ours === region.text) counts.exact++;
  if (normalizeForPath(ours, file.path) === normalizeForPath(region.text, file.path)) counts.whitespaceMatch++;
  else counts.wrong++;
  if (dropsSide(hunk, text, region.text)) counts.sidesDropped++;
}

/**
 * True when a line one side added (relative to the base) is in the human's
 * resolution but not in ours: the resolution threw away work the human kept.
 */
export function dropsSide(hunk: ConflictHunk, text: string, human: string): boolean {
  const lines = (s: string): Set<string> => new Set(normalizeWhitespace(s).split('\n').filter((l) => l !== ''));
  const base = lines(hunk.base ?? '');
  const got = lines(text);
  const kept = lines(human);
  for (const side of [hunk.ours, hunk.theirs]) {
    for (const line of lines(side)) {
      if (!base.has(line) && kept.has(line) && !got.has(line)) return true;
    }
  }
  return false;
}
