import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Git } from '../git/index.js';
import { removeLeftovers } from '../util/leftovers.js';
import { type CommitObject, type LooseObject, commitText, looseObject, looseObjectPaths, storeLooseObject } from './loose-objects.js';

const STAND_IN_IDENT = 'splintercat <splintercat@invalid> 0 +0000';

/**
 * A scratch object directory outside the repository, which git reads as an alternate
 * (GIT_ALTERNATE_OBJECT_DIRECTORIES) in the merges of an autofill. Two kinds of commits go there:
 * - stand-ins (merger.ts): throw-away, nothing refers to them, so they never enter the repository;
 * - the autofill's merge commits, until `persist` copies them into the repository, which the
 *   autofill does before every save of the grid's refs (a ref never names an object the repository
 *   lacks).
 * In memory (/dev/shm) a file costs 0.01 ms to create instead of 0.3 to 0.6 ms on this machine's
 * disk, time that stopped the event loop between one merge and the next. merge-tree still writes
 * its trees into the repository: an alternate is only read from.
 */
export class ScratchObjects {
  /** Runs the merges: the repository's Git with the scratch directory as an alternate. */
  readonly git: Git;
  /** The scratch object directory (deleted by `close`). */
  readonly dir: string;
  private readonly standIns = new Map<string, string>();
  private unsaved: LooseObject[] = [];
  private readonly cleanUp = (): void => rmSync(this.dir, { recursive: true, force: true });

  constructor(repository: Git) {
    const root = scratchRoot();
    // The directories of processes killed before they could delete them.
    removeLeftovers(root, (name) => (name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length).split('-')[0]) : null));
    this.dir = mkdtempSync(join(root, `${PREFIX}${process.pid}-`));
    const inherited = repository.env.GIT_ALTERNATE_OBJECT_DIRECTORIES;
    this.git = repository.at(repository.cwd, {
      worktree: true,
      env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: inherited ? `${this.dir}${delimiter}${inherited}` : this.dir },
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
        commitText({ tree, parents: [base], author: STAND_IN_IDENT, committer: STAND_IN_IDENT, message: 'splintercat: stand-in for a merge with a known base\n' }),
      );
      storeLooseObject(this.dir, object);
      oid = object.oid;
      this.standIns.set(key, oid);
    }
    return oid;
  }

  /** Write a commit that belongs in the repository: here at once, there at the next `persist`. */
  commit(commit: CommitObject): string {
    const object = looseObject('commit', commitText(commit));
    storeLooseObject(this.dir, object);
    this.unsaved.push(object);
    return object.oid;
  }

  /** Copy the commits written since the last call into the repository's `objectsDir`, all at once. */
  async persist(objectsDir: string): Promise<void> {
    const objects = this.unsaved;
    this.unsaved = [];
    try {
      await Promise.all(objects.map((object) => store(objectsDir, object)));
    } catch (error) {
      this.unsaved.push(...objects);
      throw error;
    }
  }

  /** Stop the merge processes and delete the scratch directory (call `persist` first). */
  close(): void {
    this.git.close();
    process.removeListener('exit', this.cleanUp);
    this.cleanUp();
  }
}

/** storeLooseObject through the thread pool: many at once cost about what one does. */
async function store(objectsDir: string, { oid, deflated }: LooseObject): Promise<void> {
  const { dir, file, tmp } = looseObjectPaths(objectsDir, oid);
  if (await stat(file).then(() => true, () => false)) return;
  await mkdir(dir, { recursive: true });
  await writeFile(tmp, deflated, { mode: 0o444 });
  await rename(tmp, file);
}

const PREFIX = 'splintercat-objects-';

/** Memory-backed /dev/shm where there is one to write to, else the system's temporary directory. */
function scratchRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK | constants.X_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
