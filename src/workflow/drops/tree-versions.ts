import type { Git } from '../../git/index.js';

/** A path's blob in one version: its id, or null when the path is absent there. */
type BlobId = string | null;

const ZERO = /^0+$/;

/**
 * The paths that differ between two trees (or commits), with their blob ids on each side, read
 * from `git diff-tree -r -z --raw` (a path is data there, whatever its characters).
 */
export async function changedBlobs(
  git: Git,
  from: string,
  to: string,
): Promise<Map<string, { from: BlobId; to: BlobId }>> {
  const { stdout } = await git.run(['diff-tree', '-r', '-z', '--raw', '--no-renames', from, to]);
  const fields = stdout.split('\0');
  const out = new Map<string, { from: BlobId; to: BlobId }>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const meta = (fields[i] as string).split(' ');
    const path = fields[i + 1] as string;
    const [oldOid = '', newOid = ''] = [meta[2], meta[3]];
    out.set(path, { from: ZERO.test(oldOid) ? null : oldOid, to: ZERO.test(newOid) ? null : newOid });
  }
  return out;
}

/** A blob's text: null for none; `too-large` past `maxBytes` (its content is never read). */
export async function blobText(git: Git, oid: BlobId, maxBytes: number): Promise<string | null | 'too-large'> {
  if (oid === null) return null;
  const read = await git.readBlobCapped(oid, maxBytes);
  if (read.ok) return read.text;
  return read.reason === 'missing' ? null : 'too-large';
}
