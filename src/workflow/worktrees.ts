import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Config } from '../config/index.js';
import { SplintercatError } from '../errors/index.js';
import type { Git } from '../git/index.js';
import { linkedWorktreeGitDir, repairWorktreePointer } from '../git/worktree-git-dir.js';
import { removeTree } from '../util/remove-tree.js';
import { cellId, type Cell } from '../imerge/cell.js';
import { listUnmerged, type UnmergedEntry } from '../resolve/index.js';
import { recordPresented } from './handoff/snapshot.js';
import { lexists, otherCheckout, runWorktreesDir, type Removal, type RemovalProgress } from './worktree-paths.js';
import { forgetConflict, freeSpareId, spareIds } from './worktree-spares.js';
import { mapPool } from '../util/pool.js';

/** Worktrees removed at once (`removeAll`). */
const REMOVALS_AT_ONCE = 8;

/**
 * Worktrees owned by splintercat under the run's directory (`runWorktreesDir`), so conflicts are presented and checks run without ever touching the user's
 * working tree. Each is detached; reusing one keeps ignored build outputs
 * (incremental builds stay fast) but drops every tracked or untracked change.
 */
export class WorktreePool {
  /** The tail of the queue of worktree creations (see `checkout`). */
  private creating: Promise<unknown> = Promise.resolve();
  /** Stale registrations (of a killed run) are pruned before this pool's first creation only. */
  private pruned = false;
  private commonDir: string | undefined;

  /** `spares`: resolved conflicts' worktrees kept for the next ones (worktree-spares.ts). */
  constructor(
    private readonly git: Git,
    private readonly root: string,
    commonDir?: string,
    private readonly spares = 0,
  ) {
    this.commonDir = commonDir;
  }

  /** The pool of run `name` under the configuration of the run (see `runWorktreesDir`). */
  static async forRun(git: Git, config: Config, name: string): Promise<WorktreePool> {
    const common = await git.gitDir();
    return new WorktreePool(git, runWorktreesDir(config, common, name), common, config.merge.parallel);
  }

  /**
   * A Git on worktree `id` whose git directory is the repository's record of it, never what the
   * worktree's `.git` says (a check may have rewritten it); that pointer is put right for the
   * person who runs git there. Null when the repository has no record of the worktree.
   */
  async gitOf(id: string): Promise<Git | null> {
    this.commonDir ??= await this.git.gitDir();
    const path = this.path(id);
    const gitDir = linkedWorktreeGitDir(this.commonDir, path);
    if (gitDir === null) return null;
    repairWorktreePointer(path, gitDir);
    return this.git.at(path, { worktree: true, gitDir });
  }

  /** `gitOf`, or a clear error when git has no record of the worktree. */
  async worktreeGit(id: string): Promise<Git> {
    const git = await this.gitOf(id);
    if (git === null)
      throw new SplintercatError('worktree_unknown', {
        what: `The worktree ${this.path(id)} is not registered in the repository`,
        why: 'It was removed or moved by hand, or `git worktree prune` dropped it',
        fix: ['Run `splintercat doctor --repair`, then `splintercat continue`'],
      });
    return git;
  }

  /** The worktree the checks of cells and of the final merge run in. */
  readonly checkId = 'check';

  /**
   * The worktrees where each side's own commits (its tip, the fork or upstream commit of a cell)
   * are checked as baselines: apart from the cells' worktree, so judging a failure never throws
   * away the cells' incremental build, and each side's commits build on each other's outputs.
   */
  readonly sideCheckIds = { fork: 'check-fork', upstream: 'check-upstream' } as const;

  /** The worktree where the conflict of `cell` is presented and resolved. */
  conflictId(cell: Cell): string {
    return `resolve-${cellId(cell)}`;
  }

  /** The path of worktree `id` (not necessarily existing). */
  path(id: string): string {
    return join(this.root, id);
  }

  /**
   * A worktree at `commit`, created on first use, forcibly reset to it afterwards. `clean`: remove
   * ignored files too (build outputs), so what runs there starts from scratch.
   */
  async checkout(id: string, commit: string, options: { clean?: boolean } = {}): Promise<string> {
    const path = this.path(id);
    const known = existsSync(path) ? await this.gitOf(id) : null;
    if (known === null) {
      // One creation at a time: git's `worktree add` and `worktree prune` are not safe against a
      // concurrent `add` in the same repository (prune deletes the half-made admin directory of
      // another add; add reads it), and conflicts are resolved in parallel (merge.parallel).
      const create = this.creating.then(async () => {
        // A run killed while creating it leaves a directory git does not know: start over; but
        // never over a checkout of another repository (another clone's worktree).
        if (await this.holdsOtherCheckout(path)) throw otherCheckout(path);
        removeTree(path);
        mkdirSync(this.root, { recursive: true });
        if (!this.pruned) await this.git.run(['worktree', 'prune']);
        this.pruned = true;
        if (await this.adoptSpare(id, path)) return null;
        await this.git.run(['worktree', 'add', '--force', '--detach', path, commit]);
        return path;
      });
      this.creating = create.catch(() => undefined);
      if ((await create) !== null) return path;
    }
    // A spare taken for this conflict holds another's files, ignored ones too: all of them go.
    const wt = known ?? (await this.worktreeGit(id));
    const clean = options.clean || known === null;
    try {
      // Only splintercat uses these worktrees, under the run's lock: a lock file is a leftover of a killed run.
      rmSync(join(wt.boundGitDir as string, 'index.lock'), { force: true });
      await this.savePersonsWork(id, wt);
      await wt.run(['merge', '--abort'], { okExitCodes: [0, 1, 128] });
      await wt.run(['reset', '--quiet', '--hard']);
      await wt.run(['checkout', '--quiet', '--force', '--detach', commit]);
      await wt.run(['clean', '-q', clean ? '-fdx' : '-fd']);
    } finally {
      wt.close();
    }
    return path;
  }

  /**
   * Present the conflict of cell (above ⊕ left) in worktree `id`: HEAD at `above`,
   * `git merge --no-commit` of `left` with diff3 markers. Returns the unmerged paths and
   * their index stages (for the ladder, which then need not list them again).
   */
  async presentMerge(
    id: string,
    above: string,
    left: string,
  ): Promise<{ path: string; unmerged: string[]; entries: UnmergedEntry[] }> {
    if (await this.isProtected(id, above, left)) {
      // A person works here on this very merge: their edits are the conflict's state, never reset.
      const entries = await listUnmerged(await this.worktreeGit(id));
      return { path: this.path(id), unmerged: entries.map((e) => e.path), entries };
    }
    const path = await this.checkout(id, above);
    const wt = await this.worktreeGit(id);
    await wt.run(
      [
        '-c',
        'merge.conflictStyle=diff3',
        '-c',
        'rerere.enabled=false',
        'merge',
        '--no-commit',
        '--no-ff',
        '--no-edit',
        left,
      ],
      {
        okExitCodes: [0, 1],
      },
    );
    const entries = await listUnmerged(wt);
    await recordPresented(
      wt,
      entries.map((e) => e.path),
    );
    return { path, unmerged: entries.map((e) => e.path), entries };
  }

  /**
   * Mark worktree `id` as a person's, for the merge of `above` and `left` it presents: from now on
   * `presentMerge` of that merge keeps what is in it (their edits, staged or not) instead of fresh
   * markers, whatever resumes the run (`continue`, after `doctor --repair`/`--rebuild`, a retry).
   */
  async protect(id: string, above: string, left: string): Promise<void> {
    const marker = await this.markerPath(id);
    if (marker !== null) writeFileSync(marker, `${above} ${left}\n`);
  }

  /**
   * Before a person's worktree is reset for another merge (its parents changed), everything in it
   * is committed to `refs/splintercat/saved/ID` (HEAD as parent), so nothing they wrote is lost.
   */
  private async savePersonsWork(id: string, wt: Git): Promise<void> {
    const marker = await this.markerPath(id);
    if (marker === null || !existsSync(marker)) return;
    await wt.run(['add', '-A'], { okExitCodes: [0, 1, 128] });
    const tree = await wt.text(['write-tree']).catch(() => null);
    if (tree !== null) {
      const commit = await wt.text([
        'commit-tree',
        tree,
        '-p',
        'HEAD',
        '-m',
        `splintercat: a person's work in ${id}, saved before the worktree was reset`,
      ]);
      await wt.run(['update-ref', `refs/splintercat/saved/${id}`, commit]);
    }
    rmSync(marker, { force: true });
  }

  /**
   * Whether `path` is a checkout this repository has no record of (a `.git` there, but no
   * registration in this repository's `worktrees/`): another repository's, or another clone's.
   */
  private async holdsOtherCheckout(path: string): Promise<boolean> {
    if (!lexists(join(path, '.git'))) return false;
    this.commonDir ??= await this.git.gitDir();
    return linkedWorktreeGitDir(this.commonDir, path) === null;
  }

  /** Is worktree `id` a person's, for this merge? */
  private async isProtected(id: string, above: string, left: string): Promise<boolean> {
    const marker = await this.markerPath(id);
    if (marker === null || !existsSync(marker)) return false;
    return readFileSync(marker, 'utf8').trim() === `${above} ${left}`;
  }

  /** The file marking worktree `id` as a person's, in its git directory; null when git has no record of it. */
  private async markerPath(id: string): Promise<string | null> {
    if (!existsSync(this.path(id))) return null;
    this.commonDir ??= await this.git.gitDir();
    const gitDir = linkedWorktreeGitDir(this.commonDir, this.path(id));
    return gitDir === null ? null : join(gitDir, 'splintercat-person');
  }

  /**
   * Present the merge of cell (above ⊕ left) in worktree `id` with `tree` (its recorded
   * resolution) in place of the markers, for a person to amend; a person's worktree for
   * this merge is left as it is.
   */
  async presentResolution(id: string, above: string, left: string, tree: string): Promise<string> {
    if (await this.isProtected(id, above, left)) return this.path(id);
    const { path, entries } = await this.presentMerge(id, above, left);
    const wt = await this.worktreeGit(id);
    try {
      await wt.run(['read-tree', '--reset', '-u', tree]);
      await recordPresented(
        wt,
        entries.map((e) => e.path),
      );
    } finally {
      wt.close();
    }
    return path;
  }

  /** Stage everything in worktree `id` and write its tree; the worktree's HEAD does not move. */
  async writeTree(id: string): Promise<string> {
    const wt = await this.worktreeGit(id);
    try {
      await wt.run(['add', '-A']);
      return await wt.text(['write-tree']);
    } finally {
      wt.close();
    }
  }

  /**
   * Remove the check worktrees and the worktrees of these conflicts, then prune; then the
   * run's directory and its parent, each when nothing else is left in it.
   */
  async removeRun(conflicts: readonly Cell[], progress?: RemovalProgress): Promise<Removal> {
    const checks = [this.checkId, ...Object.values(this.sideCheckIds), ...spareIds(this.root)];
    const removal = await this.removeAll([...checks, ...conflicts.map((c) => this.conflictId(c))], progress);
    for (const dir of [this.root, dirname(this.root)]) {
      try {
        rmdirSync(dir);
      } catch {
        break; // not empty (someone else's files, another run's worktrees) or already gone
      }
    }
    return removal;
  }

  /** How many worktrees (or what is left of one) the run has on disk. */
  held(): number {
    return existsSync(this.root) ? readdirSync(this.root).length : 0;
  }

  /**
   * Remove the worktree of each conflict whose resolution is recorded (`tree`, in the grid), so the
   * run's disk holds only the open conflicts' and the checks' worktrees whatever the number of
   * conflicts. A worktree handed to a person whose files are not the recorded tree holds edits the
   * run never took: it is kept, never removed, and returned in `kept`.
   */
  async releaseConflicts(
    done: ReadonlyArray<{ cell: Cell; tree: string | null }>,
    progress?: RemovalProgress,
  ): Promise<{ removed: string[]; kept: Array<{ id: string; first: boolean }>; removal: Removal }> {
    const removable: string[] = [];
    const kept: Array<{ id: string; first: boolean }> = [];
    for (const { cell, tree } of done) {
      const id = this.conflictId(cell);
      if (!lexists(this.path(id))) continue;
      if (await this.holdsUnrecordedWork(id, tree)) kept.push({ id, first: await this.markKept(id) });
      else removable.push(id);
    }
    const retired = removable.slice(0, Math.max(0, this.spares - spareIds(this.root).length));
    for (const id of retired) await this.retire(id);
    const gone = removable.filter((id) => !retired.includes(id));
    const removal = gone.length > 0 ? await this.removeAll(gone, progress) : { count: 0, ms: 0 };
    return { removed: removable, kept, removal };
  }

  /** Keep the worktree of a recorded conflict as a spare for the next one, forgetting this one. */
  private async retire(id: string): Promise<void> {
    const wt = await this.gitOf(id);
    if (wt === null) {
      await this.removeAll([id]);
      return;
    }
    try {
      await forgetConflict(wt);
    } finally {
      wt.close();
    }
    await this.git.run(['worktree', 'move', this.path(id), this.path(freeSpareId(this.root))]);
  }

  /** Give worktree `id` (at `path`) a spare, when there is one git knows; whether it did. */
  private async adoptSpare(id: string, path: string): Promise<boolean> {
    if (!id.startsWith('resolve-')) return false;
    for (const spare of spareIds(this.root)) {
      const known = await this.gitOf(spare);
      known?.close();
      if (known === null) {
        removeTree(this.path(spare));
        continue;
      }
      await this.git.run(['worktree', 'move', this.path(spare), path]);
      return true;
    }
    return false;
  }

  /** Mark worktree `id` as kept for a person's edits (in its git directory); whether it was not marked yet. */
  private async markKept(id: string): Promise<boolean> {
    const marker = await this.markerPath(id);
    if (marker === null) return false;
    const kept = join(dirname(marker), 'splintercat-kept');
    if (existsSync(kept)) return false;
    writeFileSync(kept, 'kept: it holds edits not in the recorded resolution\n');
    return true;
  }

  /**
   * Whether worktree `id` was handed to a person and what is in it now (staged or not, untracked
   * files too) is not `tree`, the resolution recorded for it: their edits would be lost with it.
   */
  private async holdsUnrecordedWork(id: string, tree: string | null): Promise<boolean> {
    const marker = await this.markerPath(id);
    if (marker === null || !existsSync(marker)) return false;
    const wt = await this.gitOf(id);
    if (wt === null) return false;
    try {
      rmSync(join(wt.boundGitDir as string, 'index.lock'), { force: true });
      await wt.run(['add', '-A'], { okExitCodes: [0, 1, 128] });
      const now = await wt.text(['write-tree']).catch(() => null);
      return now === null || now !== tree;
    } finally {
      wt.close();
    }
  }

  /** Remove the given worktrees of this pool, saying each as it goes (`progress`). */
  async removeAll(ids: string[], progress?: RemovalProgress): Promise<Removal> {
    const started = performance.now();
    // A path never created, or already gone, is git's to prune below: only what is on disk counts.
    const present = ids.filter((id) => lexists(this.path(id)));
    let removed = 0;
    // Removing waits on the disk, not the processor (files written back long ago cost a metadata
    // write each): several at once take about the time of one or two.
    await mapPool(present, REMOVALS_AT_ONCE, async (id) => {
      // Another repository's checkout at this path (another clone's worktree) is not this run's to remove.
      if (await this.holdsOtherCheckout(this.path(id))) return;
      // git may fail to remove it (a path past PATH_MAX inside): what is left goes below either way.
      if (existsSync(this.path(id)))
        await this.git.run(['worktree', 'remove', '--force', this.path(id)], { okExitCodes: [0, 128, 255] });
      // What git did not know (a creation killed half-way) is ours too: the path is the run's own.
      removeTree(this.path(id));
      progress?.(this.path(id), ++removed, present.length);
    });
    await this.git.run(['worktree', 'prune']);
    return { count: removed, ms: performance.now() - started };
  }
}
