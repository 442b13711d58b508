import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Git } from '../../git/index.js';
import { decodeBytes, encodeText, type TextEncoding } from './encoding.js';

export interface MergeFileInput {
  base: string;
  ours: string;
  theirs: string;
  /** Marker labels, as `git merge-file -L` takes them. */
  labels?: { ours?: string; base?: string; theirs?: string };
  /** `diff3` (default, the ladder needs the base) or `merge` or `zdiff3`. */
  style?: 'merge' | 'diff3' | 'zdiff3';
  markerSize?: number;
  /** How the texts hold the file's bytes (default utf8): they are written and read back with it. */
  encoding?: TextEncoding;
}

export interface MergeFileResult {
  text: string;
  /** How many conflict hunks git left (0 = clean). */
  conflicts: number;
}

/**
 * Three-way merge of texts with `git merge-file -p`: git's own semantics (the
 * same xdiff merge as `git merge`), so the ladder only sees what git could not do.
 */
export async function mergeFileTexts(git: Git, input: MergeFileInput): Promise<MergeFileResult> {
  const dir = await mkdtemp(join(tmpdir(), 'splintercat-merge-file-'));
  try {
    const paths = { ours: join(dir, 'ours'), base: join(dir, 'base'), theirs: join(dir, 'theirs') };
    const encoding = input.encoding ?? 'utf8';
    await Promise.all([
      writeFile(paths.ours, encodeText(input.ours, encoding)),
      writeFile(paths.base, encodeText(input.base, encoding)),
      writeFile(paths.theirs, encodeText(input.theirs, encoding)),
    ]);
    const style = input.style ?? 'diff3';
    // Without -p, git writes the result into the `ours` file: read back as bytes, nothing is re-encoded.
    const args = ['merge-file'];
    if (style === 'diff3') args.push('--diff3');
    if (style === 'zdiff3') args.push('--zdiff3');
    if (input.markerSize !== undefined) args.push(`--marker-size=${input.markerSize}`);
    const labels = input.labels ?? {};
    args.push('-L', labels.ours ?? 'ours', '-L', labels.base ?? 'base', '-L', labels.theirs ?? 'theirs');
    args.push(paths.ours, paths.base, paths.theirs);
    // merge-file exits with the number of conflicts (capped at 127); negative = error.
    const okExitCodes = Array.from({ length: 128 }, (_, i) => i);
    const result = await git.run(args, { okExitCodes });
    return { text: decodeBytes(await readFile(paths.ours), encoding), conflicts: result.exitCode };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
