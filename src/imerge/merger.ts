import { availableParallelism } from 'node:os';
import type { Git } from '../git/index.js';
import type { Merger } from './autofill.js';
import type { GridAncestry } from './grid-ancestry.js';
import { objectsDirectory, writeCommitObject } from './loose-objects.js';
import { mergeTree } from './merge-tree.js';
import { MergeTreeBatch } from './merge-tree-batch.js';
import { ScratchObjects } from './scratch-objects.js';

/** Author and committer identity lines, read once from `git var` (honours GIT_* env and config). */
interface Identity {
  author: string;
  committer: string;
  objects: string;
}

/**
 * The git implementation of Merger: `git merge-tree --write-tree` for merges; commit objects are
 * written directly as loose objects (SHA-1 of the object, zlib, atomic rename), which halves the
 * processes spawned per merge. Never touches the index, the working tree or hooks. Merge results
 * are cached per pair of commits (a merge of two fixed commits is a pure function).
 *
 * Given the grid's ancestry (grid-ancestry.ts), a merge whose single merge base is known is made
 * from two stand-in commits (scratch-objects.ts), each side's tree with that base as only parent, so git
 * does not walk the grid's history to find the base again: the same three trees, the same result.
 * While it has an ancestry, everything its merges write (trees, merge commits) waits in that scratch
 * object directory: call `persist` before refs name them, and `release` when done with the ancestry.
 * Merges go through long-lived `merge-tree --stdin` processes (merge-tree-batch.ts) where git allows.
 */
export class GitMerger implements Merger {
  private readonly cache = new Map<string, Promise<string | null>>();
  private identity?: Promise<Identity>;
  merges = 0;
  /** Every merge-tree run, in order (for replays and benchmarks). */
  readonly log: [string, string][] = [];
  /** Merges made from stand-ins for a known merge base (the rest asked git for the base). */
  knownBase = 0;
  private ancestry: GridAncestry | null = null;
  private scratch: ScratchObjects | null = null;
  /** The long-lived merge-tree processes, for the Git merges run in (the scratch directory's, or the repository's). */
  private batch: { git: Git; merges: MergeTreeBatch } | null = null;

  /**
   * `shortWalk`: up to this many commits walked, the base is left to git (default SHORT_WALK; the
   * differential tests use 0, so every merge with a known base goes through stand-ins).
   */
  constructor(
    private readonly git: Git,
    private readonly signal?: AbortSignal,
    private readonly options: { shortWalk?: number } = {},
  ) {}

  /** Use the grid's ancestry for merge bases from now on (null: let git find every base). */
  async useAncestry(ancestry: GridAncestry | null): Promise<void> {
    if (ancestry) this.scratch ??= new ScratchObjects(this.git, await objectsDirectory(this.git));
    this.ancestry = ancestry;
  }

  /** Put the merge commits written so far, and their trees, into the repository (before a ref names one). */
  async persist(): Promise<void> {
    await this.scratch?.persist();
  }

  /**
   * Forget the ancestry and delete the scratch objects (merges already made stay cached). Merge
   * commits not yet persisted are persisted first.
   */
  async release(): Promise<void> {
    this.batch?.merges.close();
    this.batch = null;
    const scratch = this.scratch;
    if (!scratch) return;
    this.ancestry = null;
    this.scratch = null;
    try {
      await scratch.persist();
    } finally {
      // The directory is deleted while the caller goes on (saving the refs, checking out).
      void scratch.close();
    }
  }

  mergeTree(c1: string, c2: string): Promise<string | null> {
    const key = `${c1} ${c2}`;
    let p = this.cache.get(key);
    if (!p) {
      this.merges++;
      this.log.push([c1, c2]);
      p = this.merge(c1, c2);
      p.catch(() => this.cache.delete(key));
      this.cache.set(key, p);
    }
    return p;
  }

  private async merge(c1: string, c2: string): Promise<string | null> {
    let [ours, theirs] = [c1, c2];
    // The scratch directory is there exactly while an ancestry is.
    const scratch = this.scratch;
    const shortWalk = this.options.shortWalk ?? SHORT_WALK;
    const walk = this.ancestry?.mergeBases(c1, c2, shortWalk);
    const tree1 = this.ancestry?.treeOf(c1);
    const tree2 = this.ancestry?.treeOf(c2);
    // A short walk costs git less than the in-memory walk's answer saves (see SHORT_WALK).
    if (scratch && walk?.bases.length === 1 && tree1 && tree2 && walk.walked > shortWalk) {
      const base = walk.bases[0] as string;
      [ours, theirs] = [scratch.standIn(tree1, base), scratch.standIn(tree2, base)];
      this.knownBase++;
    }
    // Every merge through the same Git, stand-ins or not: its merge-tree processes, else its shells.
    const git = scratch?.git ?? this.git;
    const r =
      (await this.batchFor(git).merge(ours, theirs, this.signal)) ?? (await mergeTree(git, ours, theirs, this.signal));
    return r.clean ? r.tree : null;
  }

  private batchFor(git: Git): MergeTreeBatch {
    if (this.batch?.git !== git) {
      this.batch?.merges.close();
      this.batch = { git, merges: new MergeTreeBatch(git, MERGE_LANES) };
    }
    return this.batch.merges;
  }

  async commit(tree: string, parents: string[], message: string): Promise<string> {
    const id = await this.readIdentity();
    const commit = { tree, parents, author: id.author, committer: id.committer, message: `${message}\n` };
    const oid = this.scratch ? this.scratch.commit(commit) : await writeCommitObject(id.objects, commit);
    this.ancestry?.recordMerge(oid, tree, parents);
    return oid;
  }

  private readIdentity(): Promise<Identity> {
    this.identity ??= Promise.all([
      this.git.queryText(['var', 'GIT_AUTHOR_IDENT']),
      this.git.queryText(['var', 'GIT_COMMITTER_IDENT']),
      objectsDirectory(this.git),
    ]).then(([author, committer, objects]) => ({ author, committer, objects }));
    return this.identity;
  }
}

/** merge-tree processes at most: one per core, at least two (a merge waiting on the disk leaves the other core busy). */
const MERGE_LANES = Math.max(2, availableParallelism());

/**
 * Up to this many commits, the walk for the merge base is left to git: a walk that short costs git
 * less than building the stand-ins, so a lower limit makes no merge faster.
 */
const SHORT_WALK = 1500;
