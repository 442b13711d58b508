import type { Git } from '../../git/index.js';
import { bound } from './tool-context.js';

const SHOW = ['show', '--no-color', '--no-ext-diff'];
const TIMEOUT_MS = 15_000;
const MAX_CHARS = 6000;

/**
 * What each commit changed in `files` (`git show --format= OID -- FILES`, bounded), for the
 * resolver's first prompt; undefined for a commit not given, one that did not touch the files,
 * or one git cannot show. Both commits are shown by one git process, each part introduced by a
 * NUL and the commit's id; should that output not split cleanly, each commit is asked alone.
 */
export async function commitDiffs(
  git: Git,
  oids: { ours?: string; theirs?: string },
  files: string[],
): Promise<{ ours?: string; theirs?: string }> {
  const { ours, theirs } = oids;
  if (!ours || !theirs || ours === theirs)
    return { ours: await commitDiff(git, ours, files), theirs: await commitDiff(git, theirs, files) };
  const parts = await showBoth(git, [ours, theirs], files);
  if (!parts) return { ours: await commitDiff(git, ours, files), theirs: await commitDiff(git, theirs, files) };
  return { ours: usable(parts.get(ours) ?? ''), theirs: usable(parts.get(theirs) ?? '') };
}

/** One commit's diff of `files`, alone. */
async function commitDiff(git: Git, oid: string | undefined, files: string[]): Promise<string | undefined> {
  if (!oid) return undefined;
  try {
    return usable(await git.text([...SHOW, '--format=', oid, '--', ...files], { timeoutMs: TIMEOUT_MS }));
  } catch {
    return undefined;
  }
}

/** Each commit's part of one `git show`, as `git show --format=` would print it alone; null when the output does not split cleanly. */
async function showBoth(git: Git, oids: string[], files: string[]): Promise<Map<string, string> | null> {
  let out: string;
  try {
    out = await git.text([...SHOW, '--format=%x00%H', ...oids, '--', ...files], { timeoutMs: TIMEOUT_MS });
  } catch {
    return null;
  }
  // A commit that did not touch the files is left out of the output altogether.
  if (out !== '' && !out.startsWith('\0')) return null;
  const parts = new Map<string, string>();
  for (const part of out.split('\0').slice(1)) {
    const newline = part.indexOf('\n');
    const oid = newline < 0 ? part : part.slice(0, newline);
    if (!oids.includes(oid) || parts.has(oid)) return null;
    // The id line is followed by an empty line, then the diff; the part ends with the newline `text` would strip.
    let text = newline < 0 ? '' : part.slice(newline + 1);
    if (text.startsWith('\n')) text = text.slice(1);
    parts.set(oid, text.endsWith('\n') ? text.slice(0, -1) : text);
  }
  return parts;
}

function usable(out: string): string | undefined {
  return out.trim() === '' ? undefined : bound(out, MAX_CHARS);
}
