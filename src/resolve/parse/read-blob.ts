import type { Git } from '../../git/index.js';

/**
 * A blob's text by object id or `rev:path`; null when it does not exist or is not a blob
 * (as `git cat-file blob` answers). Read through the Git's long-lived `cat-file --batch`
 * process, so the ladder's three stage reads per file start no process.
 */
export async function readBlob(git: Git, spec: string): Promise<string | null> {
  // The batch reader takes one spec per line.
  if (spec.includes('\n')) {
    const result = await git.run(['cat-file', 'blob', spec], { okExitCodes: [0, 128] });
    return result.exitCode === 0 ? result.stdout : null;
  }
  const object = await git.readObject(spec);
  return object?.type === 'blob' ? object.content.toString('utf8') : null;
}

/** A blob's bytes by object id or `rev:path`; null when it does not exist or is not a blob. */
export async function readBlobBytes(git: Git, spec: string): Promise<Buffer | null> {
  if (spec.includes('\n')) {
    const text = await readBlob(git, spec);
    return text === null ? null : Buffer.from(text, 'utf8');
  }
  const object = await git.readObject(spec);
  return object?.type === 'blob' ? object.content : null;
}
