import type { Git } from '../../git/index.js';

/**
 * A blob's text by object id or `rev:path`; null when it does not exist.
 * Uses a plain `git cat-file blob` rather than the shared batch reader: that
 * reader's process is unref'd, so a CLI run waiting only on it can exit early.
 */
export async function readBlob(git: Git, spec: string): Promise<string | null> {
  const result = await git.run(['cat-file', 'blob', spec], { okExitCodes: [0, 128] });
  return result.exitCode === 0 ? result.stdout : null;
}
