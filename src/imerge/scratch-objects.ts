import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
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
 * - A long autofill (a chain of merges down one edge, which keeps one core busy) packs what it has
 *   written so far in the background every EARLY_PACK_COMMITS commits, on the core the chain leaves
 *   idle, so the `persist` that must finish before the refs are saved packs only the rest. A short
 *   autofill still makes a single pack, so the number of packs the roll-ups see hardly grows.
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
  /** The background pack under way, if any (its failure leaves its objects for the next pack). */
  private packing: Promise<void> | null = null;
  private commitsSincePack = 0;

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
    if (++this.commitsSincePack >= EARLY_PACK_COMMITS && this.packing === null) {
      this.commitsSincePack = 0;
      this.packing = this.pack()
        .catch(() => undefined)
        .finally(() => {
          this.packing = null;
        });
    }
    return object.oid;
  }

  /** Put everything written here so far into the repository (after a background pack, if one runs). */
  async persist(): Promise<void> {
    while (this.packing) await this.packing;
    this.commitsSincePack = 0;
    await this.pack();
  }

  /** Put what was written here and not yet packed into the repository, as one pack. */
  private async pack(): Promise<void> {
    const fresh = (await looseObjectIds(this.dir)).filter((oid) => !this.kept.has(oid));
    if (fresh.length === 0) return;
    // Run in the repository (its temporary files beside the pack, on the same device), reading here.
    await this.repository.run(['pack-objects', '-q', '--window=10', '--depth=10', join(this.objects, 'pack', 'pack')], {
      input: `${fresh.join('\n')}\n`,
      env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: alternates(this.dir, this.repository) },
    });
    for (const oid of fresh) this.kept.add(oid);
  }

  /**
   * Stop the merge processes and delete the scratch directory (call `persist` first, which waits
   * for a background pack). The deletion runs while the caller goes on; until it ends, a process
   * exit still deletes the directory.
   */
  async close(): Promise<void> {
    this.git.close();
    await rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
    process.removeListener('exit', this.cleanUp);
  }
}

const PREFIX = 'splintercat-objects-';
/** About 600 objects (a merge writes a commit and three or four trees): a pack of a tenth of a second or two. */
export const EARLY_PACK_COMMITS = 128;

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
