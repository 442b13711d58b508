import type { Git } from '../../git/index.js';
import type { StageEntry } from '../../imerge/types.js';
import { decodeBytes, encodingOf } from './encoding.js';
import { readBlobBytes } from './read-blob.js';

/** The index stages of one unmerged path: 1 base, 2 ours, 3 theirs (each may be missing). */
export interface UnmergedEntry {
  path: string;
  base?: StageEntry;
  ours?: StageEntry;
  theirs?: StageEntry;
}

const GITLINK = '160000';

/**
 * Whether a side the person may keep is a submodule (a gitlink: a commit id, no file to read or
 * write). The base does not count: a submodule one side turned into a file is a file to keep.
 */
export function isGitlink(entry: UnmergedEntry): boolean {
  return entry.ours?.mode === GITLINK || entry.theirs?.mode === GITLINK;
}

/**
 * Stage one side of an unmerged path as git stores it: a submodule's commit id put in the index
 * (`git add` of its unpopulated directory fails), a file checked out with its bytes and mode, or
 * the deletion when that side has no such path.
 */
export async function stageSide(git: Git, entry: UnmergedEntry, side: 'ours' | 'theirs'): Promise<void> {
  const stage = entry[side];
  if (stage === undefined) await git.run(['rm', '--quiet', '--force', '--', entry.path]);
  else if (stage.mode === GITLINK)
    await git.run(['update-index', '--cacheinfo', `${stage.mode},${stage.oid},${entry.path}`]);
  else {
    await git.run(['checkout', `--${side}`, '--', entry.path]);
    await git.run(['add', '--', entry.path]);
  }
}

/** Every unmerged path of the index (`git ls-files -u`), optionally limited to `paths`. */
export async function listUnmerged(git: Git, paths: string[] = []): Promise<UnmergedEntry[]> {
  const { stdout } = await git.run(['ls-files', '-u', '-z', '--', ...paths]);
  const byPath = new Map<string, UnmergedEntry>();
  for (const record of stdout.split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, oid, stage] = record.slice(0, tab).split(' ');
    const path = record.slice(tab + 1);
    const entry = byPath.get(path) ?? { path };
    const value: StageEntry = { mode: mode as string, oid: oid as string, path };
    if (stage === '1') entry.base = value;
    else if (stage === '2') entry.ours = value;
    else if (stage === '3') entry.theirs = value;
    byPath.set(path, entry);
  }
  return [...byPath.values()];
}

/** The three versions' contents of an unmerged path (`:1:`, `:2:`, `:3:`), null where a stage is missing. */
export async function readStageTexts(
  git: Git,
  entry: UnmergedEntry,
): Promise<{ base: string | null; ours: string | null; theirs: string | null }> {
  const bytes = await readStageBytes(git, entry);
  const encoding = encodingOf(bytes.base, bytes.ours, bytes.theirs);
  const text = (b: Buffer | null): string | null => (b === null ? null : decodeBytes(b, encoding));
  return { base: text(bytes.base), ours: text(bytes.ours), theirs: text(bytes.theirs) };
}

/** The bytes of the three stages of an unmerged path (null: the stage is absent). */
export async function readStageBytes(
  git: Git,
  entry: UnmergedEntry,
): Promise<{ base: Buffer | null; ours: Buffer | null; theirs: Buffer | null }> {
  const read = async (s: StageEntry | undefined): Promise<Buffer | null> =>
    s === undefined ? null : readBlobBytes(git, s.oid);
  const [base, ours, theirs] = await Promise.all([read(entry.base), read(entry.ours), read(entry.theirs)]);
  return { base, ours, theirs };
}
