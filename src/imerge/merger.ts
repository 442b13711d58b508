import type { Git } from '../git/index.js';
import type { Merger } from './autofill.js';
import type { GridAncestry } from './grid-ancestry.js';
import { objectsDirectory, writeCommitObject } from './loose-objects.js';
import { mergeTree } from './merge-tree.js';

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
 * from two stand-in commits, each side's tree with that base as only parent, so git does not walk
 * the grid's history to find the base again: the same three trees, the same result.
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
  private readonly standIns = new Map<string, Promise<string>>();

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
  useAncestry(ancestry: GridAncestry | null): void {
    this.ancestry = ancestry;
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
    const walk = this.ancestry?.mergeBases(c1, c2);
    const tree1 = this.ancestry?.treeOf(c1);
    const tree2 = this.ancestry?.treeOf(c2);
    // A short walk costs git less than writing the stand-ins (measured: early in a grid, stand-ins
    // for every merge made a `continue` slower).
    if (walk?.bases.length === 1 && tree1 && tree2 && walk.walked > (this.options.shortWalk ?? SHORT_WALK)) {
      const base = walk.bases[0] as string;
      [ours, theirs] = await Promise.all([this.standIn(tree1, base), this.standIn(tree2, base)]);
      this.knownBase++;
    }
    const r = await mergeTree(this.git, ours, theirs, this.signal);
    return r.clean ? r.tree : null;
  }

  async commit(tree: string, parents: string[], message: string): Promise<string> {
    const id = await (this.identity ??= this.readIdentity());
    const oid = await writeCommitObject(id.objects, { tree, parents, author: id.author, committer: id.committer, message: `${message}\n` });
    this.ancestry?.recordMerge(oid, tree, parents);
    return oid;
  }

  /**
   * A commit with `tree` and `base` as its only parent, for merge-tree's eyes only (never
   * referenced; the same tree and base give the same object, so nothing piles up twice).
   */
  private standIn(tree: string, base: string): Promise<string> {
    const key = `${tree} ${base}`;
    let oid = this.standIns.get(key);
    if (!oid) {
      oid = (this.identity ??= this.readIdentity()).then(({ objects }) =>
        writeCommitObject(objects, { tree, parents: [base], author: STAND_IN_IDENT, committer: STAND_IN_IDENT, message: 'splintercat: stand-in for a merge with a known base\n' }),
      );
      oid.catch(() => this.standIns.delete(key));
      this.standIns.set(key, oid);
    }
    return oid;
  }

  private async readIdentity(): Promise<Identity> {
    const [author, committer, objects] = await Promise.all([
      this.git.text(['var', 'GIT_AUTHOR_IDENT']),
      this.git.text(['var', 'GIT_COMMITTER_IDENT']),
      objectsDirectory(this.git),
    ]);
    return { author, committer, objects };
  }
}

/**
 * Up to this many commits, the walk for the merge base is left to git: about 1.5 ms of git's walk
 * (8 ms for a 5,000-commit walk of a 300 x 80 grid), what writing the two stand-ins costs on a
 * disk where creating a file takes 0.7 ms.
 */
const SHORT_WALK = 1500;

const STAND_IN_IDENT = 'splintercat <splintercat@invalid> 0 +0000';
