import { SplintercatError, UsageError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import { autoCompleteFrontier, type AutofillEvent } from './autofill.js';
import { readCommitInfo } from './commit-info.js';
import { commitTree, type WriteCommit } from './commit-writer.js';
import { assertRebasable, simplifyToGoal } from './finish-goals.js';
import { renderDiagram } from './diagram.js';
import { mapKnownFrontier } from './frontier.js';
import type { Grid } from './grid.js';
import { GridAncestry } from './grid-ancestry.js';
import { compactionLimits, compactRepository, extendCommitGraph } from './housekeeping.js';
import { conflictPaths, mergeTree } from './merge-tree.js';
import { chooseImergeName, listImerges, removeImerge } from './names.js';
import { GitMerger } from './merger.js';
import { assertGoal, initialState, type StartOptions } from './start-merge.js';
import { readState, stateRef, writeState, type StateBlob } from './state.js';
import type { ConflictCell, ConflictDetails } from './types.js';
import { cellId } from './cell.js';

/**
 * While an autofill runs, it saves the grid at most this often; it always saves when it stops.
 * Each save is a pack and a ref transaction, and each pack brings the next roll-up nearer, so saving
 * after every step (as git-imerge does) costs more than it protects. A kill loses at most this much
 * merging, which the next run redoes.
 */
const AUTOFILL_SAVE_INTERVAL_MS = 2000;

export interface AutofillOptions {
  jobs?: number;
  /** Inject the merger (e.g. to inspect its log); default: a new GitMerger on this repository. */
  merger?: GitMerger;
  onProgress?: (event: AutofillEvent) => void;
  signal?: AbortSignal;
}

/** The result of an autofill: complete, or the cell to merge by hand plus every recorded blocker. */
export interface AutofillResult {
  complete: boolean;
  /** The cell git-imerge would present for a manual merge (leftmost blocker block's corner). */
  next: [number, number] | null;
  blockers: [number, number][];
  /** merge-tree runs made by this autofill (probes and merges). */
  merges: number;
}

/**
 * One incremental merge, stored exactly as git-imerge 1.2.0 stores it (refs/imerge/NAME/...).
 * All merges are in memory; the working tree is never touched by this class.
 */
export class IncrementalMerge {
  private constructor(
    private readonly git: Git,
    readonly name: string,
    private state: StateBlob,
    readonly grid: Grid,
    private refs: Map<string, string>,
  ) {}

  get goal(): string {
    return this.state.goal;
  }
  get tip1(): string {
    return this.state.tip1;
  }
  get tip2(): string {
    return this.state.tip2;
  }
  get branch(): string {
    return this.state.branch;
  }

  /** Start a new incremental merge of tip2 into tip1 and save its initial state (no merges yet). */
  static async start(git: Git, options: StartOptions): Promise<IncrementalMerge> {
    const { name } = options;
    const { state, grid } = await initialState(git, options);
    const im = new IncrementalMerge(git, name, state, grid, new Map());
    await im.save();
    if ((await listImerges(git)).length > 1) await git.run(['config', 'imerge.default', name]);
    return im;
  }

  /** Load a merge started by splintercat or by git-imerge (name defaults as git-imerge chooses it). */
  static async load(git: Git, name?: string): Promise<IncrementalMerge> {
    const chosen = await chooseImergeName(git, name);
    const { state, grid, refs } = await readState(git, chosen);
    return new IncrementalMerge(git, chosen, state, grid, refs);
  }

  /** Persist grid and state blob atomically (one ref transaction with old values). */
  async save(): Promise<void> {
    this.refs = await writeState(this.git, this.name, this.state, this.grid, this.refs);
  }

  /** Fill every cell that merges cleanly (git-imerge's algorithm), stopping at a blocker. */
  async autofill(options: AutofillOptions = {}): Promise<AutofillResult> {
    const merger = options.merger ?? new GitMerger(this.git, options.signal);
    // Housekeeping, as below: a git that cannot write the commit-graph (a lock held) only merges slower.
    const [, ancestry] = await Promise.all([
      extendCommitGraph(this.git, this.grid).catch(() => undefined),
      // Without it (an unreadable cell, a grid that is not first-parent lines) git finds each base.
      GridAncestry.open(this.git, this.name, this.grid).catch(() => null),
    ]);
    await merger.useAncestry(ancestry);
    let savedAt = performance.now();
    const outcome = await autoCompleteFrontier({
      grid: this.grid,
      name: this.name,
      merger,
      goal: this.state.goal,
      manual: this.state.manual,
      jobs: Math.max(1, options.jobs ?? 2),
      onProgress: options.onProgress,
      signal: options.signal,
      save: async (final) => {
        if (!final && performance.now() - savedAt < AUTOFILL_SAVE_INTERVAL_MS) return;
        // Merge commits still in the merger's scratch directory go into the repository first.
        await merger.persist();
        await this.save();
        savedAt = performance.now();
      },
    }).finally(() => Promise.all([merger.release(), ancestry?.flush()]));
    // Housekeeping only: when it cannot run (say a concurrent git holds packed-refs.lock), the
    // next autofill packs instead.
    await compactRepository(this.git, this.name, compactionLimits(this.refs.size)).catch(() => undefined);
    return {
      complete: outcome.complete,
      next: outcome.complete ? null : outcome.blocker,
      blockers: this.grid.blockers(),
      merges: merger.merges,
    };
  }

  /** True when the known frontier covers the whole grid. */
  isComplete(): boolean {
    return mapKnownFrontier(this.grid.block()).isComplete();
  }

  /** The commit recorded at (i1, i2), or null. */
  cellCommit(i1: number, i2: number): string | null {
    return this.grid.cell(i1, i2).oid;
  }

  private parents(i1: number, i2: number): { above: string; left: string } {
    if (i1 < 1 || i2 < 1 || i1 >= this.grid.len1 || i2 >= this.grid.len2) {
      throw new UsageError('imerge_bad_cell', {
        what: `Cell ${cellId({ i1, i2 })} is not inside the grid`,
        fix: `Use 1 <= i1 < ${this.grid.len1}, 1 <= i2 < ${this.grid.len2}`,
      });
    }
    const above = this.grid.cell(i1, i2 - 1).oid;
    const left = this.grid.cell(i1 - 1, i2).oid;
    if (above === null || left === null) {
      throw new SplintercatError('imerge_parents_not_ready', {
        what: `The parents of merge ${cellId({ i1, i2 })} are not ready`,
        why: `Cell ${i1}-${i2 - 1} or ${i1 - 1}-${i2} has no merge yet`,
        fix: 'Run autofill first, or resolve the cell git-imerge suggests',
      });
    }
    return { above, left };
  }

  /** A blocked cell's parents and axis commits (no merge: what a resolver that merges in a worktree needs). */
  async conflictCell(i1: number, i2: number): Promise<ConflictCell> {
    const { above, left } = this.parents(i1, i2);
    const [commit1, commit2] = await Promise.all([
      readCommitInfo(this.git, this.grid.cell(i1, 0).oid as string),
      readCommitInfo(this.git, this.grid.cell(0, i2).oid as string),
    ]);
    return { name: this.name, i1, i2, above, left, commit1, commit2 };
  }

  /** Everything about a blocked cell, its conflicted paths included, computed in memory. */
  async conflictDetails(i1: number, i2: number): Promise<ConflictDetails> {
    const { above, left } = this.parents(i1, i2);
    const [cell, result] = await Promise.all([this.conflictCell(i1, i2), mergeTree(this.git, above, left)]);
    return { ...cell, conflictTree: result.tree, paths: result.clean ? [] : conflictPaths(result) };
  }

  /**
   * Record a resolution of (i1, i2) given as a tree: writes `manual/I1-I2` (parents [above, left],
   * message `imerge 'NAME': manual merge I1-I2`) and unblocks the cell. No working tree involved.
   */
  async recordMerge(i1: number, i2: number, tree: string, writeCommit?: WriteCommit): Promise<string> {
    return (await this.recordMerges([{ i1, i2, tree }], writeCommit))[0] as string;
  }

  /**
   * Record several resolutions as `recordMerge` does each, saved in one ref transaction: all of
   * them are in the grid, or none. Returns their commits in the order given. `writeCommit`:
   * how the commits are written (default `git commit-tree`, one process each).
   */
  async recordMerges(
    merges: Array<{ i1: number; i2: number; tree: string }>,
    writeCommit: WriteCommit = commitTree(this.git),
  ): Promise<string[]> {
    if (merges.length === 0) return [];
    const commits: string[] = [];
    for (const { i1, i2, tree } of merges) {
      const { above, left } = this.parents(i1, i2);
      commits.push(
        await writeCommit(tree, [above, left], `imerge '${this.name}': manual merge ${cellId({ i1, i2 })}\n`),
      );
    }
    merges.forEach(({ i1, i2 }, k) => this.markRecorded(i1, i2, commits[k] as string));
    await this.save();
    return commits;
  }

  /**
   * Record an existing two-parent commit as the manual merge of its parents (git-imerge's
   * incorporate_manual_merge; swapped parents are put back in order). Returns its cell.
   */
  async recordCommit(commit: string): Promise<[number, number]> {
    const object = await this.git.readCommitCapped(`${commit}^{commit}`);
    if (object === null)
      throw new SplintercatError('imerge_merge_unusable', {
        what: `${commit} is not a commit (or is over the size a commit may have)`,
        fix: 'Commit the merge of the two cells that `imerge continue` prepared',
      });
    const { oid } = object;
    const parents = [
      ...object.content
        .toString('utf8')
        .split('\n\n', 1)[0]!
        .matchAll(/^parent ([0-9a-f]+)$/gm),
    ].map((m) => m[1] as string);
    const unusable = (why: string): SplintercatError =>
      new SplintercatError('imerge_merge_unusable', {
        what: `Commit ${oid} cannot be used as a manual merge: ${why}`,
        fix: 'Commit the merge of the two cells that `imerge continue` prepared',
      });
    if (parents.length !== 2) throw unusable(parents.length < 2 ? 'it is not a merge' : 'it is an octopus merge');
    const find = (c: string): [number, number] | null => {
      for (let b = 0; b < this.grid.len2; b++)
        for (let a = 0; a < this.grid.len1; a++) if (this.grid.cell(a, b).oid === c) return [a, b];
      return null;
    };
    let first = find(parents[0] as string);
    let second = find(parents[1] as string);
    if (!first || !second) throw unusable('its parents are not known merge commits');
    let swapped = false;
    if (first[0] < second[0]) {
      [first, second] = [second, first];
      swapped = true;
    }
    if (first[0] !== second[0] + 1 || first[1] !== second[1] - 1)
      throw unusable('it is not a pairwise merge of adjacent parents');
    let recorded = oid;
    if (swapped) {
      const raw = object.content.toString('utf8');
      const fixed = raw.replace(/^((?:parent [0-9a-f]+\n)+)/m, `parent ${parents[1]}\nparent ${parents[0]}\n`);
      recorded = await this.git.text(['hash-object', '-t', 'commit', '-w', '--stdin'], { input: fixed });
    }
    const cell: [number, number] = [first[0], second[1]];
    await this.recordCell(cell[0], cell[1], recorded);
    return cell;
  }

  private async recordCell(i1: number, i2: number, commit: string): Promise<void> {
    this.markRecorded(i1, i2, commit);
    await this.save();
  }

  private markRecorded(i1: number, i2: number, commit: string): void {
    const c = this.grid.cell(i1, i2);
    c.oid = commit;
    c.manual = true;
    // A recorded merge unblocks its cell (git-imerge clears the blocker at the affected block's corner).
    c.blocked = false;
  }

  /**
   * Finish a complete merge as git-imerge's `finish` (= simplify + remove) does: write the goal's
   * result to the branch (finish-goals.ts), then remove the imerge refs. Returns the commit the
   * branch now points at.
   */
  async finish(options: { branch?: string; force?: boolean; goal?: string; message?: string } = {}): Promise<string> {
    const commit = await this.simplify(options);
    await this.remove();
    return commit;
  }

  /**
   * git-imerge's `simplify`: on a complete merge, switch to `goal` if given (saved, as git-imerge
   * saves it), write the goal's commits and set the branch (only if that keeps history, unless
   * `force`); the merge state is kept.
   */
  async simplify(options: { branch?: string; force?: boolean; goal?: string; message?: string } = {}): Promise<string> {
    if (!this.isComplete()) {
      throw new SplintercatError('imerge_incomplete', {
        what: `Merge ${this.name} is not yet complete!`,
        fix: `Run: splintercat imerge continue --name ${this.name}`,
      });
    }
    if (options.goal !== undefined) {
      assertGoal(options.goal);
      if (options.goal === 'rebase')
        await assertRebasable(
          this.git,
          Array.from({ length: this.grid.len2 - 1 }, (_, k) => this.grid.cell(0, k + 1).oid as string),
        );
      if (options.goal !== this.state.goal) {
        this.state = { ...this.state, goal: options.goal };
        await this.save();
      }
    }
    const ref = `refs/heads/${options.branch ?? this.branch}`;
    const old = await this.git.revParse(`${ref}^{commit}`);
    const { commit, apex } = await simplifyToGoal({
      git: this.git,
      name: this.name,
      grid: this.grid,
      goal: this.state.goal,
      tip1: this.tip1,
      tip2: this.tip2,
      ...(options.message !== undefined ? { message: options.message } : {}),
    });
    if (old !== null && !options.force && !(await this.git.isAncestor(old, apex))) {
      throw new SplintercatError('imerge_not_fast_forward', {
        what: `${ref} cannot be updated to ${apex} without discarding history`,
        fix: ['Choose another branch with --branch', 'Or pass --force if you are sure'],
      });
    }
    await this.git.updateRefs([{ ref, newOid: commit, oldOid: old }], 'imerge: recording final merge');
    return commit;
  }

  /** git-imerge's frontier diagram. */
  diagram(): string {
    return renderDiagram(this.grid, this.tip1, this.tip2);
  }

  /**
   * Remove this merge: every ref under refs/imerge/NAME/, the scratch branch and imerge.default.
   * The working tree is not touched (the CLI leaves the scratch branch first).
   */
  async remove(): Promise<void> {
    await removeImerge(this.git, this.name);
    this.refs = new Map();
  }

  /** The state ref (for callers that watch it). */
  get stateRef(): string {
    return stateRef(this.name);
  }
}
