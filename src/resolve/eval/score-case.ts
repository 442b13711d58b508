import type { Git } from '../../git/index.js';
import { generatedFile } from '../data/generated-files.js';
import { decideFileConflict } from '../file-level.js';
import { resolveConflictedFile, type LadderFallback } from '../ladder.js';
import { RUNGS } from '../../store/rung.js';
import { normalizeForPath, normalizeWhitespace } from '../normalize.js';
import { mergeFileTexts } from '../parse/merge-file.js';
import { parseConflictText, printOutsideHunk } from '../parse/markers.js';
import type { ResolutionRule } from '../rules/index.js';
import type { SyntaxSwitches } from '../syntax/syntax-merge.js';
import type { ConflictedFile, ConflictHunk, HunkResolution } from '../types.js';
import { alignHunk, fileContainsLines, matchesRegion } from './align.js';
import { languageOfPath } from './language.js';
import { emptyFileCounts, emptyHunkCounts, type EvalReport, type FileCounts, type HunkCounts } from './metrics.js';
import { fileChoice, personChoice, type PersonChoice } from './left-hunks.js';
import { editedOutside } from './outside.js';
import { dropsWhatPersonKept } from './drops-kept.js';
import { canonicalUnordered } from './unordered.js';

/** One conflicted file of one historical merge, with what the person committed. */
export interface EvalCase {
  id: string;
  path: string;
  /** null when the version does not exist (no base, side deleted, merge deleted the file). */
  base: string | null;
  ours: string | null;
  theirs: string | null;
  resolved: string | null;
  /** The merge the case comes from, its committer time (seconds) and repository, when known: learnt suggestions read only earlier merges. */
  merge?: string;
  time?: number;
  repo?: string;
}

export interface ScoreOptions {
  git: Git;
  /** The ladder's rules (enabled set). */
  rules: readonly ResolutionRule[];
  /** Every rule, each also scored alone. */
  allRules: readonly ResolutionRule[];
  fallback?: LadderFallback;
  /** The syntax-aware rung's switches (default off). */
  syntax?: SyntaxSwitches;
  /** Scores suggestions learnt from earlier merges for the hunks the ladder leaves. */
  learnt?: (
    c: EvalCase,
    hunks: readonly ConflictHunk[],
    choices: readonly PersonChoice[],
    file: ConflictedFile,
  ) => void;
}

/** Score one case into `report` (accumulating). */
export async function scoreCase(c: EvalCase, options: ScoreOptions, report: EvalReport): Promise<void> {
  report.cases++;
  const language = languageOfPath(c.path);
  const byLanguage = (report.filesByLanguage[language] ??= emptyFileCounts());
  const byKind = (report.filesByKind[caseKind(c)] ??= emptyFileCounts());
  for (const counts of [report.files, byLanguage, byKind]) counts.seen++;
  if (c.ours === null || c.theirs === null) {
    await scoreFileLevel(c, report, [byLanguage, byKind]);
    return;
  }
  const merged = await mergeFileTexts(options.git, { base: c.base ?? '', ours: c.ours, theirs: c.theirs });
  const file = parseConflictText(merged.text, { path: c.path });
  report.hunksSeen += file.hunks.length;
  const hunksOfLanguage = (report.hunksByLanguage[language] ??= { ...emptyHunkCounts(), seen: 0 });
  hunksOfLanguage.seen += file.hunks.length;
  // As the ladder: a generated file is decided whole (regenerated, or one side's file), no hunk alone.
  if (generatedFile(c.path, [c.ours, c.theirs, c.base]) !== null) {
    const kind = 'generated (decided whole)';
    report.left.files[kind] = (report.left.files[kind] ?? 0) + 1;
    return;
  }

  const contexts = file.hunks.map((hunk) => ({
    path: c.path,
    eol: file.eol,
    outside: printOutsideHunk(file, hunk.index),
    files: c,
  }));
  for (const rule of options.allRules) {
    const counts = (report.standalone[rule.name] ??= emptyHunkCounts());
    for (const [i, hunk] of file.hunks.entries()) {
      const text = rule.resolve(
        { base: hunk.base, ours: hunk.ours, theirs: hunk.theirs },
        contexts[i] as (typeof contexts)[number],
      );
      if (text !== null) await judge(counts, file, hunk, text, c.resolved);
    }
  }

  const result = await resolveConflictedFile(file, {
    path: c.path,
    rules: options.rules,
    fallback: options.fallback,
    sides: c,
    syntax: options.syntax,
  });
  for (const r of result.resolutions) {
    const hunk = file.hunks[(r.hunkIndex ?? 0) - 1] as ConflictHunk;
    await judge(
      [report.ladder, hunksOfLanguage, (report.byRule[r.by] ??= emptyHunkCounts())],
      file,
      hunk,
      r.text,
      c.resolved,
    );
  }
  if (result.remaining.length === 0) {
    const byRung = (report.filesByRung[fileRung(result.resolutions)] ??= emptyFileCounts());
    const outside = c.resolved !== null && editedOutside(file, c.resolved);
    const buckets = [report.files, byLanguage, byKind, byRung];
    await compareWhole(buckets, result.text, c.resolved, c.path, outside);
    if (dropsWhatPersonKept(c, result.text)) {
      for (const counts of buckets) counts.dropsKept++;
      noteDrop(report, c, [...new Set(result.resolutions.map((r) => r.by))].join(', '));
    }
  } else if (c.resolved !== null) {
    const resolved = c.resolved;
    const choices = result.remaining.map((hunk) => personChoice(file, hunk, resolved));
    for (const choice of choices) report.left.hunks[choice] = (report.left.hunks[choice] ?? 0) + 1;
    options.learnt?.(c, result.remaining, choices, file);
    if (caseKind(c) === 'content') {
      const kind = fileChoice(choices, editedOutside(file, resolved));
      report.left.files[kind] = (report.left.files[kind] ?? 0) + 1;
    }
  }
}

/** Keeps the first files that drop what the person kept, to name them. */
function noteDrop(report: EvalReport, c: EvalCase, by: string): void {
  const list = (report.dropsKept ??= []);
  if (list.length < 20) list.push({ id: c.id, by });
}

/** The rung a resolved file is credited to: the latest rung (in ladder order) that took one of its hunks. */
function fileRung(resolutions: readonly HunkResolution[]): string {
  const rungs = new Set(resolutions.map((r) => r.rung));
  return RUNGS.findLast((r) => rungs.has(r)) ?? 'file';
}

/** What kind of conflict the case is, from which versions exist. */
function caseKind(c: EvalCase): string {
  if (c.ours === null || c.theirs === null) return 'one side deleted';
  return c.base === null ? 'add/add' : 'content';
}

async function scoreFileLevel(c: EvalCase, report: EvalReport, buckets: readonly FileCounts[]): Promise<void> {
  const decision = decideFileConflict({
    path: c.path,
    base: c.base === null ? undefined : { mode: '100644', text: c.base },
    ours: c.ours === null ? undefined : { mode: '100644', text: c.ours },
    theirs: c.theirs === null ? undefined : { mode: '100644', text: c.theirs },
  });
  if (decision.resolution === null) return;
  const all = [report.files, ...buckets, (report.filesByRung.file ??= emptyFileCounts())];
  const chosen =
    decision.resolution.action === 'delete' ? null : decision.resolution.action === 'keep-ours' ? c.ours : c.theirs;
  if (dropsWhatPersonKept(c, chosen)) {
    for (const counts of all) counts.dropsKept++;
    noteDrop(report, c, `file-level ${decision.resolution.action}`);
  }
  if (chosen === null || c.resolved === null) {
    for (const counts of all) {
      counts.resolved++;
      if (chosen === c.resolved) {
        counts.exact++;
        counts.whitespaceMatch++;
        counts.equal++;
      } else counts.wrong++;
    }
    return;
  }
  await compareWhole(all, chosen, c.resolved, c.path, false);
}

async function compareWhole(
  buckets: readonly FileCounts[],
  text: string,
  resolved: string | null,
  path: string,
  outside: boolean,
): Promise<void> {
  const exact = text === resolved;
  const ws = resolved !== null && (exact || normalizeForPath(text, path) === normalizeForPath(resolved, path));
  let orderOnly = false;
  if (!ws && resolved !== null) {
    const [a, b] = await Promise.all([canonicalUnordered(path, text), canonicalUnordered(path, resolved)]);
    orderOnly = a !== null && a === b;
  }
  for (const counts of buckets) {
    counts.resolved++;
    if (exact) counts.exact++;
    if (ws) {
      counts.whitespaceMatch++;
      counts.equal++;
    } else if (orderOnly) counts.orderOnly++;
    else if (outside) counts.outsideEdited++;
    else counts.wrong++;
  }
}

/**
 * Compare one hunk resolution with the person's text for that hunk, when it can
 * be located. A resolution that cannot be located but whose lines occur nowhere
 * in the person's file is wrong all the same (it is not what they committed).
 */
export async function judge(
  into: HunkCounts | readonly HunkCounts[],
  file: ConflictedFile,
  hunk: ConflictHunk,
  text: string,
  resolved: string | null,
): Promise<void> {
  const all = Array.isArray(into) ? into : [into as HunkCounts];
  const add = (field: keyof HunkCounts): void => {
    for (const counts of all) counts[field]++;
  };
  add('resolved');
  const region = resolved === null ? null : alignHunk(file, hunk, resolved);
  if (resolved === null || region === null) {
    add(resolved !== null && !fileContainsLines(resolved, text) ? 'wrong' : 'unaligned');
    return;
  }
  // The region also holds the blank lines between the anchors and the hunk.
  const ours = region.before + text + region.after;
  if (ours === region.text) add('exact');
  const ws = matchesRegion(region, text, file.path);
  if (ws) {
    add('whitespaceMatch');
    add('equal');
  } else if (await sameUpToOrder(file.path, resolved, region.start, region.end, ours)) add('orderOnly');
  else add('wrong');
  if (dropsSide(hunk, text, region.text)) add('sidesDropped');
}

/** Whether the person's file, with `text` in place of its [start, end), differs from it only in the order of unordered siblings. */
async function sameUpToOrder(
  path: string,
  resolved: string,
  start: number,
  end: number,
  text: string,
): Promise<boolean> {
  const [a, b] = await Promise.all([
    canonicalUnordered(path, resolved.slice(0, start) + text + resolved.slice(end)),
    personCanonical(path, resolved),
  ]);
  return a !== null && a === b;
}

/** The person's file in canonical form, kept for the case being scored: every rule's hunks compare with it. */
let lastPerson: { path: string; text: string; canonical: Promise<string | null> } | null = null;
function personCanonical(path: string, text: string): Promise<string | null> {
  if (lastPerson?.path !== path || lastPerson.text !== text)
    lastPerson = { path, text, canonical: canonicalUnordered(path, text) };
  return lastPerson.canonical;
}

/**
 * True when a line one side added (relative to the base) is in the person's
 * resolution but not in ours: the resolution threw away work the person kept.
 */
export function dropsSide(hunk: ConflictHunk, text: string, person: string): boolean {
  const lines = (s: string): Set<string> =>
    new Set(
      normalizeWhitespace(s)
        .split('\n')
        .filter((l) => l !== ''),
    );
  const base = lines(hunk.base ?? '');
  const got = lines(text);
  const kept = lines(person);
  for (const side of [hunk.ours, hunk.theirs]) {
    for (const line of lines(side)) {
      if (!base.has(line) && kept.has(line) && !got.has(line)) return true;
    }
  }
  return false;
}
