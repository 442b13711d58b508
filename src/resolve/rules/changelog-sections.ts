import type { ResolutionRule } from './rule.js';
import { compareVersions } from './version-order.js';

/** Release notes by file name: CHANGELOG, CHANGES, HISTORY, NEWS, RELEASES (any case, any extension). */
const CHANGELOG_NAME = /^(change[-_ ]?log|changes|history|news|releases?)(\.[a-z]+)?$/i;

/** A release heading's version: dotted numbers, an optional pre-release, an optional leading `v` or `Version`. */
const VERSION = String.raw`(?:[Vv]ersion\s+|[Rr]elease\s+)?\[?(?<version>v?\d+(?:\.\d+)+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?)\]?`;
/** What may follow the version on its heading line: nothing, or a date, a name, a link after a separator. */
const AFTER = String.raw`(?=$|[\s(/,:])`;
const ATX = new RegExp(String.raw`^#{1,6}\s+${VERSION}${AFTER}`);
const SETEXT_TEXT = new RegExp(String.raw`^${VERSION}${AFTER}`);
const SETEXT_RULE = /^(?:={3,}|-{3,}|~{3,})\s*$/;
/** Lines that may stand before a section's heading: blank lines and reStructuredText link targets. */
const PREAMBLE = /^\s*$|^\.\. _[^:]+:\s*$/;

/** A release date written on the heading line (`1.2.0 / 2022-02-15`, `## [1.2.0] - 2022-02-15`). */
const DATE = /\b(\d{4}-\d{2}-\d{2})\b/;

interface Heading {
  line: number;
  version: string;
  date: string | null;
}

/** The release headings of a text, in order: `## 1.2.0 ...`, or a `1.2.0 / date` line underlined with `===`. */
export function releaseHeadings(text: string): Heading[] {
  const lines = text.split(/\r?\n/);
  const found: Heading[] = [];
  for (const [i, line] of lines.entries()) {
    const atx = ATX.exec(line);
    const setext = atx ? null : SETEXT_TEXT.exec(line);
    const underlined = setext !== null && SETEXT_RULE.test(lines[i + 1] ?? '');
    const version = atx?.groups?.version ?? (underlined ? setext?.groups?.version : undefined);
    if (version !== undefined) found.push({ line: i, version, date: DATE.exec(line)?.[1] ?? null });
  }
  return found;
}

/** The headings of a side that adds only whole release sections (it opens with a heading), else null. */
function sectionHeadings(text: string): Heading[] | null {
  const headings = releaseHeadings(text);
  const first = text.split(/\r?\n/).findIndex((line) => !PREAMBLE.test(line));
  return headings.length === 0 || headings[0]?.line !== first ? null : headings;
}

/**
 * Whether every release of `high` is newer than every release of `low`: a higher
 * version and, where both carry a date, not an earlier one. Where the version
 * order and the calendar disagree (a new major's beta above an older line's
 * later patch) people place or annotate the sections by judgement: null.
 */
function allAbove(high: readonly Heading[], low: readonly Heading[]): boolean | null {
  for (const a of high)
    for (const b of low) {
      const c = compareVersions(a.version, b.version, 'tag');
      if (c === null || (c > 0 && a.date !== null && b.date !== null && a.date < b.date)) return null;
      if (c <= 0) return false;
    }
  return true;
}

/** Whether the text's release headings run from newest to oldest, each version once. */
function newestFirst(text: string): boolean {
  const versions = releaseHeadings(text).map((h) => h.version);
  return versions.every((v, i) => i === 0 || compareVersions(versions[i - 1] as string, v, 'tag') === 1);
}

/** `upper` then `lower`, with one blank line between them where neither side brings one. */
function stack(upper: string, lower: string, eol: string): string {
  const blankBetween = /(\r?\n){2}$/.test(upper) || /^\s*\r?\n/.test(lower);
  return blankBetween ? upper + lower : upper + eol + lower;
}

/** `side`'s file with its (single) copy of `inserted` replaced by `merged`; null unless it occurs exactly once. */
function replaceOnce(file: string | null, inserted: string, merged: string): string | null {
  if (file === null) return null;
  const at = file.indexOf(inserted);
  if (at < 0 || file.indexOf(inserted, at + 1) >= 0) return null;
  return file.slice(0, at) + merged + file.slice(at + inserted.length);
}

/**
 * Both sides added whole release sections at the same place of a newest-first
 * changelog (distinct versions, one side's all newer than the other's, by
 * version and by date): keep both, newest first, so the file stays in release
 * order. It abstains unless the whole file, with the merge in place, on either
 * side, still lists every release once from newest to oldest, and where the
 * sides' releases interleave, or a side adds text that is not a whole section.
 * The whole file is read, not only the releases around the merge: where a
 * changelog has slipped out of order, merged sections were also folded into
 * others or dropped by hand, which no rule can tell.
 */
export const changelogSections: ResolutionRule = {
  name: 'changelog-sections',
  description: 'both sides added release sections to a newest-first changelog; keep both, newest first',
  enabledByDefault: true,
  cost: 'superlinear',
  decidesContained: ['release-sections'],
  resolve: ({ base, ours, theirs }, context) => {
    const name = context.path.slice(context.path.lastIndexOf('/') + 1);
    if (!CHANGELOG_NAME.test(name) || base !== '' || context.files === undefined) return null;
    if (!ours.endsWith('\n') || !theirs.endsWith('\n')) return null;
    const [o, t] = [sectionHeadings(ours), sectionHeadings(theirs)];
    if (o === null || t === null) return null;
    const oursFirst = allAbove(o, t);
    const theirsFirst = oursFirst === false ? allAbove(t, o) : false;
    if (oursFirst !== true && theirsFirst !== true) return null;
    const merged = oursFirst ? stack(ours, theirs, context.eol) : stack(theirs, ours, context.eol);
    const fromOurs = replaceOnce(context.files.ours, ours, merged);
    const fromTheirs = replaceOnce(context.files.theirs, theirs, merged);
    if (fromOurs === null || fromTheirs === null || !newestFirst(fromOurs) || !newestFirst(fromTheirs)) return null;
    return merged;
  },
};
