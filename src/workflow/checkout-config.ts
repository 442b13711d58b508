import { join } from 'node:path';
import { CONFIG_FILE_NAME, type ConfigSource } from '../config/index.js';
import { Git } from '../git/index.js';

/** What git leaves while an operation that brings in others' content is in progress. */
const IN_PROGRESS = ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'REBASE_HEAD'];

/**
 * The configuration file of the checkout at `dir` as the person had it before a merge in progress:
 * during a merge (cherry-pick, revert, rebase) the working tree's `splintercat.yaml` may be
 * upstream's, brought in by the merge, and it names the server the key is sent to and the
 * commands run. Then the committed one (HEAD's) counts, or none when the merge brought the file.
 * Undefined when nothing is in progress, or the file is untracked (the person's own): read it as it is.
 * `merging`: the caller knows a merge is under way (a merge driver runs before git records it).
 */
export async function configBeforeMerge(dir: string, merging = false): Promise<ConfigSource | null | undefined> {
  const git = new Git({ cwd: dir });
  try {
    const inside = await git.run(['rev-parse', '--is-inside-work-tree'], { okExitCodes: [0, 128] });
    if (inside.exitCode !== 0 || inside.stdout.trim() !== 'true') return undefined;
    const path = join(dir, CONFIG_FILE_NAME);
    const staged = await git.text(['ls-files', '-s', '--', `:(literal)${CONFIG_FILE_NAME}`]);
    if (!merging && staged.split('\n').every((l) => !/^\d+ \S+ [123]\t/.test(l))) {
      const pending = await Promise.all(IN_PROGRESS.map((ref) => git.revParse(ref)));
      if (pending.every((oid) => oid === null)) return undefined;
    }
    const committed = await git.revParse(`HEAD:./${CONFIG_FILE_NAME}`);
    if (committed !== null) {
      const text = await git.readBlobText(committed);
      return text === null ? null : { path, text };
    }
    // Not committed: the person's own file when git does not track it, else the merge's.
    return staged === '' ? undefined : null;
  } finally {
    git.close();
  }
}
