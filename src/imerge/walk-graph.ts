/**
 * The graph the grid ancestry walks (grid-ancestry.ts), by commit number, and the walk itself: git's
 * paint-down-to-common over commits held in memory.
 */

export const UNRESOLVED = -1;
export const UNVOUCHED = -2;
/** What is known of a commit (WalkGraph.kind): its tree and parents; written by this merger; a cell of the grid; an edge commit. */
export const KNOWN = 1;
export const OURS = 2;
export const CELL = 4;
export const EDGE = 8;

/**
 * The walk's graph in typed arrays, by commit number: late in a 300 x 80 grid a process numbers
 * 11,000 commits and a `continue` walks for a hundred merges or more, so nothing is
 * allocated per commit walked. What is known of each commit is a set of bits (`kind`). Parents
 * are lists in one array (`parentOff`, `parentCount`: UNRESOLVED until looked up, UNVOUCHED when
 * not known); generations are -1 until computed, -2 when not vouched for; the
 * flags and bucket lists are all clear between walks. A generation is below the number of commits,
 * so the buckets (`heads`, `tails`) are sized as the rest.
 */
export class WalkGraph {
  size = 0;
  gens = new Int32Array(0);
  flags = new Uint8Array(0);
  next = new Int32Array(0);
  heads = new Int32Array(0);
  tails = new Int32Array(0);
  parentOff = new Int32Array(0);
  parentCount = new Int32Array(0);
  kind = new Uint8Array(0);
  /** An edge commit's one parent followed (-1: none, the merge base). */
  edgeParent = new Int32Array(0);
  parentList = new Int32Array(1024);
  private parentsUsed = 0;
  /** The commits a walk reached (reused). */
  private readonly touched: number[] = [];

  /**
   * git's paint-down-to-common from commits ia and ib: the best common ancestors, and how many
   * commits git's walk would read, counted up to `countUpTo`. Every ancestor of ia and ib must have
   * its parents and generation set.
   */
  paintDownToCommon(ia: number, ib: number, countUpTo: number): { bases: number[]; walked: number } {
    const { flags, gens, next, heads, tails, parentOff, parentCount, parentList, touched } = this;
    const ga = gens[ia] as number;
    const gb = gens[ib] as number;
    touched.length = 0;
    // A bucket queue by generation, each bucket a list through `next`: parents always have a lower
    // generation, so each commit is taken once, after everything above it, with its final flags.
    const enqueue = (id: number): void => {
      const gen = gens[id] as number;
      const tail = tails[gen] as number;
      if (tail === -1) heads[gen] = id;
      else next[tail] = id;
      tails[gen] = id;
      touched.push(id);
    };
    flags[ia] = PARENT1;
    flags[ib] = PARENT2;
    enqueue(ia);
    enqueue(ib);
    // Queued commits that carry each side's paint and are not stale (live1, live2). A best common
    // ancestor not found yet would be a commit reached by both sides' paint, neither stale; paint
    // only travels from queued commits to their parents. So once no queued commit carries one side's
    // paint unstale, no further base can appear: the bases are known. git's own walk goes on until
    // every queued commit is stale (nonStale); late in a grid that is most of the grid (about 6,000
    // commits per merge on a 300 x 80 grid), nearly all of them reachable from one side only. This
    // walk goes on past the bases only to count git's, up to `countUpTo`.
    let live1 = 1;
    let live2 = 1;
    let nonStale = 2;
    const result: number[] = [];
    for (
      let top = Math.max(ga, gb);
      top >= 0 && nonStale > 0 && ((live1 > 0 && live2 > 0) || touched.length <= countUpTo);
      top--
    ) {
      let id = heads[top] as number;
      heads[top] = -1;
      tails[top] = -1;
      while (id !== -1) {
        let f = flags[id] as number;
        if (!(f & STALE)) {
          nonStale--;
          if (f & PARENT1) live1--;
          if (f & PARENT2) live2--;
          if ((f & BOTH) === BOTH) {
            result.push(id);
            f |= STALE;
          }
        }
        const carry = f & (BOTH | STALE);
        const end = (parentOff[id] as number) + (parentCount[id] as number);
        for (let k = parentOff[id] as number; k < end; k++) {
          const p = parentList[k] as number;
          const had = flags[p] as number;
          const want = had | carry;
          if (had === want) continue;
          flags[p] = want;
          if (had === 0) enqueue(p);
          // The parent is queued (it has a lower generation than the commit taken): recount it.
          if (!(had & STALE)) {
            if (had !== 0) nonStale--;
            if (had & PARENT1) live1--;
            if (had & PARENT2) live2--;
          }
          if (!(want & STALE)) {
            nonStale++;
            if (want & PARENT1) live1++;
            if (want & PARENT2) live2++;
          }
        }
        const after = next[id] as number;
        next[id] = -1;
        id = after;
      }
    }
    this.clearWalk();
    return { bases: result, walked: touched.length };
  }

  /** Clear the flags and bucket lists of every commit the walk touched, as the next walk expects them. */
  private clearWalk(): void {
    const { flags, gens, next, heads, tails } = this;
    for (const id of this.touched) {
      flags[id] = 0;
      next[id] = -1;
      const gen = gens[id] as number;
      heads[gen] = -1;
      tails[gen] = -1;
    }
  }

  is(id: number, bits: number): boolean {
    return ((this.kind[id] as number) & bits) !== 0;
  }

  mark(id: number, bits: number): void {
    this.kind[id] = (this.kind[id] as number) | bits;
  }

  markEdge(id: number, parent: number): void {
    this.mark(id, EDGE);
    this.edgeParent[id] = parent;
  }

  /** Number one more commit (the arrays grow by doubling). */
  add(): void {
    if (this.size === this.gens.length) this.grow(Math.max(1024, this.size * 2));
    const id = this.size++;
    this.gens[id] = -1;
    this.parentCount[id] = UNRESOLVED;
  }

  setParents(id: number, parents: number[]): void {
    if (this.parentsUsed + parents.length > this.parentList.length) {
      const grown = new Int32Array(Math.max(this.parentList.length * 2, this.parentsUsed + parents.length));
      grown.set(this.parentList);
      this.parentList = grown;
    }
    this.parentOff[id] = this.parentsUsed;
    this.parentCount[id] = parents.length;
    this.parentList.set(parents, this.parentsUsed);
    this.parentsUsed += parents.length;
  }

  private grow(capacity: number): void {
    const int32 = (old: Int32Array<ArrayBuffer>, fill: number): Int32Array<ArrayBuffer> => {
      const a = new Int32Array(capacity).fill(fill);
      a.set(old);
      return a;
    };
    this.gens = int32(this.gens, -1);
    this.next = int32(this.next, -1);
    this.heads = int32(this.heads, -1);
    this.tails = int32(this.tails, -1);
    this.parentOff = int32(this.parentOff, 0);
    this.parentCount = int32(this.parentCount, UNRESOLVED);
    this.edgeParent = int32(this.edgeParent, -1);
    const uint8 = (old: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> => {
      const a = new Uint8Array(capacity);
      a.set(old);
      return a;
    };
    this.flags = uint8(this.flags);
    this.kind = uint8(this.kind);
  }
}

const PARENT1 = 1;
const PARENT2 = 2;
const BOTH = PARENT1 | PARENT2;
const STALE = 4;
