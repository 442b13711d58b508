import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Git } from '../git/index.js';
import { removeLeftovers } from '../util/leftovers.js';
import { type CommitObject, commitText, looseObject, looseObjectIds, storeLooseObject } from './loose-objects.js';

const STAND_IN_IDENT = 'splintercat <splintercat@invalid> 0 +0000';

/**
 * A scratch object directory outside the repository, in memory (/dev/shm) where there is one: the
 * object directory of an autofill's merges (GIT_OBJECT_DIRECTORY), with the repository's objects
 * as an alternate (GIT_ALTERNATE_OBJECT_DIRECTORIES, before any the user has). So all an autofill
 * writes lands here: merge-tree's trees and blobs, the merge commits, and the stand-ins
 * (merger.ts), throw-away commits nothing refers to.
 * - Why: creating a file on disk costs far more than in memory, and each merge writes about three
 *   objects, most of which are never needed again.
 * - `persist`, before every save of the grid's refs (a ref never names an object the repository
 *   lacks), puts everything written since the last one, stand-ins aside, into the repository as one
 *   pack (`git pack-objects`): one file instead of hundreds. Copying the loose files instead cost
 *   more than the merges saved. `compactRepository` rolls the packs up.
 * - The pack has deltas (a short search, chains of at most 10): the trees of neighbouring cells
 *   differ in an entry or two, so the pack is a fraction of the size for little more time, and the
 *   roll-ups, which copy the packs and keep their deltas, move that fraction of the bytes.
 */
export class ScratchObjects {
  /** Runs the merges: the repository's Git with this directory as its object directory. */
  readonly git: Git;
  /** The scratch object directory (deleted by `close`). */
  readonly dir: string;
  private readonly standIns = new Map<string, string>();
  /** Objects of this directory already in the repository, and the stand-ins, which never go there. */
  private readonly kept = new Set<string>();
  private readonly cleanUp = (): void => rmSync(this.dir, { recursive: true, force: true });

  /** `objects`: the repository's object directory (`git rev-parse --git-path objects`). */
  constructor(
    private readonly repository: Git,
    private readonly objects: string,
  ) {
    const root = scratchRoot();
    // The directories of processes killed before they could delete them.
    removeLeftovers(root, (name) => (name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length).split('-')[0]) : null));
    this.dir = mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
    this.git = repository.at(repository.cwd, {
      worktree: true,
      env: { GIT_OBJECT_DIRECTORY: this.dir, GIT_ALTERNATE_OBJECT_DIRECTORIES: alternates(objects, repository) },
    });
    // A process that ends without `close` (an error on the way out) leaves nothing behind; one
    // killed outright leaves its directory to the next one's sweep.
    process.once('exit', this.cleanUp);
  }

  /** A stand-in: a commit with `tree` and `base` as its only parent (the same pair gives the same commit). */
  standIn(tree: string, base: string): string {
    const key = `${tree} ${base}`;
    let oid = this.standIns.get(key);
    if (oid === undefined) {
      const object = looseObject(
        'commit',
        commitText({
          tree,
          parents: [base],
          author: STAND_IN_IDENT,
          committer: STAND_IN_IDENT,
          message: 'splintercat: stand-in for a merge with a known base\n',
        }),
      );
      storeLooseObject(this.dir, object);
      oid = object.oid;
      this.standIns.set(key, oid);
      this.kept.add(oid);
    }
    return oid;
  }

  /** Write a commit that belongs in the repository: here at once, there at the next `persist`. */
  commit(commit: CommitObject): string {
    const object = looseObject('commit', commitText(commit));
    storeLooseObject(this.dir, object);
    return object.oid;
  }

  /** Put what was written here since the last call into the repository, as one pack. */
  async persist(): Promise<void> {
    const fresh = (await looseObjectIds(this.dir)).filter((oid) => !this.kept.has(oid));
    if (fresh.length === 0) return;
    // Run in the repository (its temporary files beside the pack, on the same device), reading here.
    await this.repository.run(['pack-objects', '-q', '--window=10', '--depth=10', join(this.objects, 'pack', 'pack')], {
      input: `${fresh.join('\n')}\n`,
      env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: alternates(this.dir, this.repository) },
    });
    for (const oid of fresh) this.kept.add(oid);
  }

  /** Stop the merge processes and delete the scratch directory (call `persist` first). */
  close(): void {
    this.git.close();
    process.removeListener('exit', this.cleanUp);
    this.cleanUp();
  }
}

const PREFIX = 'splintercat-objects-';

/** `first`, then the alternates the user already gives `repository`. */
function alternates(first: string, repository: Git): string {
  const inherited = repository.env.GIT_ALTERNATE_OBJECT_DIRECTORIES;
  return inherited ? `${first}${delimiter}${inherited}` : first;
}

/** Memory-backed /dev/shm where there is one to write to, else the system's temporary directory. */
function scratchRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK | constants.X_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
