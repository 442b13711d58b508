/**
 * The benchmark's stand-in for a person: resolve every conflicted path of the working tree the same
 * way whichever tool presented it. A file with conflict markers keeps both sides of each hunk (ours,
 * then theirs; a diff3 base section is dropped); a conflicted path with no file in the working tree
 * (deleted on one side) is removed; then everything is staged.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Replace each conflict block of `text` by its ours side followed by its theirs side. */
export function keepBoth(text: string): string {
  const out: string[] = [];
  let section: 'none' | 'ours' | 'base' | 'theirs' = 'none';
  let ours: string[] = [];
  let theirs: string[] = [];
  for (const line of text.split(/(?<=\n)/)) {
    if (section === 'none' && line.startsWith('<<<<<<< ')) {
      section = 'ours';
      ours = [];
      theirs = [];
    } else if (section === 'ours' && line.startsWith('|||||||')) section = 'base';
    else if ((section === 'ours' || section === 'base') && /^=======\r?\n?$/.test(line)) section = 'theirs';
    else if (section === 'theirs' && line.startsWith('>>>>>>> ')) {
      out.push(...ours, ...theirs);
      section = 'none';
    } else if (section === 'ours') ours.push(line);
    else if (section === 'theirs') theirs.push(line);
    else if (section === 'none') out.push(line);
  }
  return out.join('');
}

/** Resolve and stage every unmerged path of the repository at `dir`; returns how many there were. */
export function resolveKeepBoth(dir: string, env: Record<string, string>): number {
  const git = (args: string[]): string =>
    execFileSync('git', args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 1 << 30 });
  const paths = [...new Set(git(['diff', '--name-only', '-z', '--diff-filter=U']).split('\0').filter(Boolean))];
  const gone: string[] = [];
  const present: string[] = [];
  for (const path of paths) {
    const abs = join(dir, path);
    if (!existsSync(abs)) {
      gone.push(path);
      continue;
    }
    writeFileSync(abs, keepBoth(readFileSync(abs, 'utf8')));
    present.push(path);
  }
  if (gone.length > 0) git(['rm', '-q', '--cached', '--', ...gone]);
  if (present.length > 0) git(['add', '--', ...present]);
  return paths.length;
}
