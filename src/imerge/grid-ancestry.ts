import { appendFile, mkdir, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Git } from '../git/index.js';
import type { Grid } from './grid.js';
import { objectsDirectory } from './loose-objects.js';
import { CELL, EDGE, KNOWN, OURS, UNRESOLVED, UNVOUCHED, WalkGraph } from './walk-graph.js';

/**
 * The merge bases of two cells of the grid, computed in memory.
 *
 * Each `merge-tree` asks git for the merge base of the two commits it merges. On git 2.39 (no
 * `merge-tree --merge-base`) that is a walk through every ancestor of one side that is not an
 * ancestor of the other, and late in a merge that is most of the grid, so late merges would cost far
 * more than early ones. Here the same walk (git's paint-down-to-common, ordered by
 * generation) runs over the grid's commits held in memory, with their parents and trees. When it
 * finds exactly one merge base B, the merger hands `merge-tree` two stand-in commits, each side's
 * tree with B as its only parent: git then finds B at once, and its result is the one it would have
 * computed (a merge with one base is a function of the three trees).
 *
 * The walk is exact, or it gives up (null, and the merger lets git walk):
 * - It follows real parents, except on the two branches' commits (the grid's edges), where it
 *   follows only the edge's previous commit (checked to be a parent), and below the grid's merge
 *   base, where it stops. A common ancestor reached only through a dropped edge is never a
 *   best one: on one edge, it is below the lower of the two edge commits reached, itself a common
 *   ancestor; across the edges, it is a common ancestor of the two tips, so below their merge base,
 *   the grid's (0, 0). That holds only when the tips have exactly one merge base, the grid's (0, 0):
 *   checked once per pair of tips, otherwise no walk.
 * - Any other commit it visits must be a cell of the grid or a merge this merger wrote; anything
 *   else (a commit outside the grid, one whose parents are not known) gives up.
 *
 * What is known of each commit is kept in a file in the git directory (facts about immutable
 * objects, so never stale): each commit is read from git once, the merges written here not at all.
 */
export class GridAncestry {
  /** `git merge-base --all` of a pair of tips ("TIP1 TIP2"), comma-separated. */
  private readonly tipBases = new Map<string, string>();
  private pending: string[] = [];
  // Every commit met has a number (one lookup by id per commit read or named): what is known of it
  // (its tree, its parents by number, whether it is a cell, an edge, a merge written here) and the
  // walk's graph are kept by number (WalkGraph). Late in a 300 x 80 grid a process learns 11,000
  // commits; looking each up by id in several maps cost more than the walk itself.
  private readonly ids = new Map<string, number>();
  private readonly oids: string[] = [];
  private readonly trees: (string | undefined)[] = [];
  private readonly parentsKnown: (number[] | undefined)[] = [];
  private readonly graph = new WalkGraph();

  private constructor(private readonly file: string) {}

  /**
   * The ancestry of `grid`'s commits, or null when the walk would not be exact (an edge that is not
   * a first-parent line, tips with several merge bases). Reads from git only what the file lacks.
   */
  static async open(git: Git, name: string, grid: Grid): Promise<GridAncestry | null> {
    const ancestry = new GridAncestry(await ancestryFile(git, name));
    await ancestry.readFile();
    const cellOids: string[] = [];
    for (let i1 = 0; i1 < grid.len1; i1++) {
      for (let i2 = 0; i2 < grid.len2; i2++) {
        const oid = grid.cell(i1, i2).oid;
        if (oid !== null) cellOids.push(oid);
      }
    }
    const cellIds = cellOids.map((oid) => ancestry.idOf(oid));
    const missing = [...new Set(cellIds.filter((id) => !ancestry.graph.is(id, KNOWN)))];
    const read = await Promise.all(missing.map((id) => git.readCommitCapped(ancestry.oids[id] as string)));
    for (const [k, object] of read.entries()) {
      if (object?.type !== 'commit') return null;
      const { tree, parents } = parseCommit(object.content);
      ancestry.learn(ancestry.oids[missing[k] as number] as string, tree, parents, false);
    }
    for (const id of cellIds) ancestry.graph.mark(id, CELL);
    // The edges: each commit must have the previous one among its parents (a first-parent line;
    // its first commit may reach the merge base through another parent, as a fork's merge of
    // upstream does).
    const base = grid.cell(0, 0).oid as string;
    ancestry.graph.markEdge(ancestry.idOf(base), -1);
    const line = (at: (k: number) => string, len: number): boolean => {
      for (let k = 1; k < len; k++) {
        const id = ancestry.idOf(at(k));
        const previous = ancestry.idOf(at(k - 1));
        if (!ancestry.parentsKnown[id]?.includes(previous)) return false;
        ancestry.graph.markEdge(id, previous);
      }
      return true;
    };
    if (
      !line((k) => grid.cell(k, 0).oid as string, grid.len1) ||
      !line((k) => grid.cell(0, k).oid as string, grid.len2)
    )
      return null;
    const tip1 = grid.cell(grid.len1 - 1, 0).oid as string;
    const tip2 = grid.cell(0, grid.len2 - 1).oid as string;
    const key = `${tip1} ${tip2}`;
    let bases = ancestry.tipBases.get(key);
    if (bases === undefined) {
      bases = (await git.mergeBases(tip1, tip2)).join(',');
      ancestry.tipBases.set(key, bases);
      ancestry.pending.push(`b ${key} ${bases || '-'}`);
    }
    await ancestry.flush();
    return bases === base ? ancestry : null;
  }

  /** Record a merge commit this merger wrote (its parents are cells of the grid). */
  recordMerge(oid: string, tree: string, parents: string[]): void {
    this.learn(oid, tree, parents, true);
  }

  /** The tree of a known commit. */
  treeOf(oid: string): string | undefined {
    const id = this.ids.get(oid);
    return id === undefined ? undefined : this.trees[id];
  }

  /**
   * The best common ancestors of a and b, exactly as `git merge-base --all` gives them, and how many
   * commits git's own walk would read, counted up to `countUpTo` (past it, some number above it);
   * null when the walk reaches a commit it cannot vouch for (then ask git).
   */
  mergeBases(a: string, b: string, countUpTo = 0): { bases: string[]; walked: number } | null {
    const ia = this.idOf(a);
    const ib = this.idOf(b);
    const ga = this.generationOf(ia);
    const gb = this.generationOf(ib);
    if (ga < 0 || gb < 0) return null;
    if (ia === ib) return { bases: [a], walked: 1 };
    // Every ancestor of a vouched-for commit is vouched for (a generation needs its parents'), so
    // the walk never meets a commit whose parents it does not know.
    const { bases, walked } = this.graph.paintDownToCommon(ia, ib, countUpTo);
    return { bases: bases.map((id) => this.oids[id] as string), walked };
  }

  /** Append what was learnt since the last flush to the file (best effort: it is only a cache). */
  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const lines = this.pending;
    this.pending = [];
    try {
      await mkdir(dirname(this.file), { recursive: true });
      await appendFile(this.file, `${lines.join('\n')}\n`);
    } catch {
      // a read-only .git only costs the next process a re-read
    }
  }

  private learn(oid: string, tree: string, parents: string[], ours: boolean): void {
    if (this.know(oid, tree, parents, ours))
      this.pending.push(`${ours ? 'm' : 'c'} ${oid} ${tree}${parents.map((p) => ` ${p}`).join('')}`);
  }

  /** Keep what is known of a commit (false: it was known already). */
  private know(oid: string, tree: string, parents: string[], ours: boolean): boolean {
    const id = this.idOf(oid);
    if (this.graph.is(id, KNOWN)) return false;
    this.trees[id] = tree;
    this.parentsKnown[id] = parents.map((p) => this.idOf(p));
    this.graph.mark(id, ours ? KNOWN | OURS : KNOWN);
    return true;
  }

  private async readFile(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return;
    }
    for (const line of text.split('\n')) {
      const f = line.split(' ');
      if ((f[0] === 'm' || f[0] === 'c') && f.length >= 3) {
        this.know(f[1] as string, f[2] as string, f.slice(3), f[0] === 'm');
      } else if (f[0] === 'b' && f.length === 4) {
        this.tipBases.set(`${f[1]} ${f[2]}`, f[3] === '-' ? '' : (f[3] as string));
      }
    }
  }

  /** The number of a commit in the walk's graph (its parents are looked up when first needed). */
  private idOf(oid: string): number {
    let id = this.ids.get(oid);
    if (id === undefined) {
      id = this.oids.length;
      this.ids.set(oid, id);
      this.oids.push(oid);
      this.trees.push(undefined);
      this.parentsKnown.push(undefined);
      this.graph.add();
    }
    return id;
  }

  /**
   * Look up the parents the walk follows, once: an edge's one (none for the merge base); a cell's
   * or a merge's own. None known for any other commit: the walk does not vouch for what lies
   * beyond it. Returns whether they are known.
   */
  private resolveParents(id: number): boolean {
    const g = this.graph;
    const known = g.parentCount[id] as number;
    if (known !== UNRESOLVED) return known !== UNVOUCHED;
    const kind = g.kind[id] as number;
    let parents: number[] | undefined;
    if (kind & EDGE) parents = g.edgeParent[id] === -1 ? [] : [g.edgeParent[id] as number];
    else if (kind & (CELL | OURS)) parents = this.parentsKnown[id];
    if (parents === undefined) {
      g.parentCount[id] = UNVOUCHED;
      return false;
    }
    g.setParents(id, parents);
    return true;
  }

  /** 0 for the merge base, else one more than the highest parent's; -2 when not vouched for. */
  private generationOf(id: number): number {
    const g = this.graph;
    const known = g.gens[id] as number;
    if (known !== -1) return known;
    const stack = [id];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as number;
      if ((g.gens[top] as number) !== -1) {
        stack.pop();
        continue;
      }
      let gen = 0;
      let ready = true;
      if (!this.resolveParents(top)) gen = -2;
      else {
        const end = (g.parentOff[top] as number) + (g.parentCount[top] as number);
        for (let k = g.parentOff[top] as number; k < end; k++) {
          const p = g.parentList[k] as number;
          const pg = g.gens[p] as number;
          if (pg === -1) {
            ready = false;
            stack.push(p);
          } else if (pg === -2) gen = -2;
          else if (gen !== -2 && pg + 1 > gen) gen = pg + 1;
        }
      }
      if (ready) {
        g.gens[top] = gen;
        stack.pop();
      }
    }
    return g.gens[id] as number;
  }
}

/**
 * Where a merge's ancestry file lives: in the common git directory, one per merge name, apart from
 * `.git/splintercat/` (whose directories are the workflow's runs, and a run may be called `imerge`).
 */
export async function ancestryFile(git: Git, name: string): Promise<string> {
  return join(await objectsDirectory(git), '..', 'splintercat-imerge', `${encodeURIComponent(name)}.ancestry`);
}

/** Forget a merge's ancestry file (when the merge is removed). */
export async function removeAncestryFile(git: Git, name: string): Promise<void> {
  await unlink(await ancestryFile(git, name)).catch(() => undefined);
}

function parseCommit(content: Buffer): { tree: string; parents: string[] } {
  const header = content.subarray(0, Math.max(0, content.indexOf('\n\n'))).toString('utf8');
  let tree = '';
  const parents: string[] = [];
  for (const line of header.split('\n')) {
    if (line.startsWith('tree ')) tree = line.slice(5);
    else if (line.startsWith('parent ')) parents.push(line.slice(7));
  }
  return { tree, parents };
}
