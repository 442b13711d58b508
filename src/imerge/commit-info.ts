import type { Git } from '../git/index.js';
import { OBJECT_LIMITS } from '../git/object-limits.js';
import type { CommitInfo } from './types.js';

/** The format whose output `CommitInfo` holds (and what a commit `parseCommitInfo` declines is read with). */
const FORMAT = '--format=%an%x00%ae%x00%aI%x00%s%x00%b';

/**
 * A commit's author, date, subject and body, as `git show -s --format=%an%x00%ae%x00%aI%x00%s%x00%b`
 * prints them, read through the long-lived cat-file reader (no process per commit). A commit
 * `parseCommitInfo` declines (a non-UTF-8 encoding, an unusual author line) is asked of git itself.
 */
export async function readCommitInfo(git: Git, oid: string): Promise<CommitInfo> {
  const read = await git.readCapped(oid, { type: 'commit', maxBytes: OBJECT_LIMITS.commit });
  // A commit over the limit is named, never read: `git show` would read all of it too.
  if (!read.ok && read.reason !== 'missing')
    return { oid, author: '', authorEmail: '', date: '', subject: `(a commit not read: ${read.reason})`, body: '' };
  const object = read.ok ? read.object : null;
  const parsed = object?.type === 'commit' ? parseCommitInfo(oid, object.content) : null;
  if (parsed) return parsed;
  const out = await git.text(['show', '-s', FORMAT, oid]);
  const [author, authorEmail, date, subject, body] = out.split('\0') as string[];
  return {
    oid,
    author: author ?? '',
    authorEmail: authorEmail ?? '',
    date: date ?? '',
    subject: subject ?? '',
    body: (body ?? '').trimEnd(),
  };
}

/** Git's isspace: space, tab, newline, carriage return (not \v, \f or Unicode spaces). */
const trimGitSpaceEnd = (s: string): string => s.replace(/[ \t\n\r]+$/, '');
const isBlankLine = (line: string): boolean => /^[ \t\n\r]*$/.test(line);

/**
 * Parse a commit object the way git's pretty-printer reads it (pretty.c, ident.c): the last
 * `author` header, split as split_ident_line does; `%s` = the first paragraph after leading
 * blank lines, each line right-trimmed, joined by spaces; `%b` = the rest after the blank lines
 * that follow it (trailing whitespace trimmed, as the caller always did). Null when git would
 * print something this does not reproduce: an `encoding` other than UTF-8 (git re-encodes),
 * or an author line without `<email>`, a date or a four-digit zone.
 */
export function parseCommitInfo(oid: string, content: Buffer): CommitInfo | null {
  const raw = content.toString('utf8');
  const end = raw.indexOf('\n\n');
  const headers = (end < 0 ? raw : raw.slice(0, end)).split('\n');
  const message = end < 0 ? '' : raw.slice(end + 2);
  let ident: string | null = null;
  let encoding: string | null = null;
  for (const line of headers) {
    if (line.startsWith('author ')) ident = line.slice('author '.length);
    else if (encoding === null && line.startsWith('encoding ')) encoding = line.slice('encoding '.length);
  }
  if (encoding !== null && !/^utf-?8$/i.test(encoding)) return null;
  const author = ident === null ? null : splitIdent(ident);
  if (author === null) return null;

  const lines = message.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  let i = 0;
  while (i < lines.length && isBlankLine(lines[i] as string)) i++;
  const subject: string[] = [];
  while (i < lines.length && !isBlankLine(lines[i] as string)) subject.push(trimGitSpaceEnd(lines[i++] as string));
  while (i < lines.length && isBlankLine(lines[i] as string)) i++;
  return { oid, ...author, subject: subject.join(' '), body: lines.slice(i).join('').trimEnd() };
}

/** `NAME <EMAIL> SECONDS ZONE` as %an, %ae and %aI print it; null for anything unusual. */
function splitIdent(line: string): { author: string; authorEmail: string; date: string } | null {
  const lt = line.indexOf('<');
  const gt = line.indexOf('>', lt + 1);
  if (lt < 0 || gt < 0) return null;
  // Git reads the date after the last '>' (a stray one may sit in the address).
  const when = /^ (\d{1,12}) ([+-])(\d\d)(\d\d)$/.exec(line.slice(line.lastIndexOf('>') + 1));
  if (!when) return null;
  const [, seconds, sign, hours, minutes] = when as unknown as [string, string, string, string, string];
  const offset = (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
  const local = new Date((Number(seconds) + offset * 60) * 1000);
  if (local.getUTCFullYear() > 9999) return null;
  const two = (n: number): string => String(n).padStart(2, '0');
  // Git 2.39 prints "-0000" with '+' (strtol reads 0); git 2.45 and later print 'Z' for any zero zone.
  const zone = `${offset === 0 ? '+' : sign}${hours}:${minutes}`;
  const date =
    `${String(local.getUTCFullYear()).padStart(4, '0')}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())}` +
    `T${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}${zone}`;
  return { author: trimGitSpaceEnd(line.slice(0, lt)), authorEmail: line.slice(lt + 1, gt), date };
}
