import type { Git } from '../git/index.js';
import { TOOL_IDENTITY } from '../git/tool-identity.js';
import { CommitWriter, GitMerger, IncrementalMerge, listImerges, mergeTree, removeImerge } from '../imerge/index.js';
import { cellId, compareCells, dominates, type Cell } from '../imerge/cell.js';
import type { GridEngine, GridEngineFactory } from './ports.js';

/** The workflow's view of one splintercat/git-imerge incremental merge. */
class ImergeGridEngine implements GridEngine {
  constructor(
    private readonly im: IncrementalMerge,
    private readonly jobs: number,
    private readonly commits: CommitWriter,
    private readonly git: Git,
    /** The Git the grid's merge commits are written through (its identity is theirs). */
    private readonly cellGit: Git,
  ) {}

  size(): { i1: number; i2: number } {
    return { i1: this.im.grid.len1 - 1, i2: this.im.grid.len2 - 1 };
  }

  async autofill(options: { signal?: AbortSignal } = {}): Promise<Cell[]> {
    const { signal } = options;
    const merger = new GitMerger(this.cellGit, signal);
    const result = await this.im.autofill({ jobs: this.jobs, merger, ...(signal ? { signal } : {}) });
    return result.blockers.map(([i, j]) => ({ i1: i, i2: j })).sort(compareCells);
  }

  /**
   * Per row, the cells at or behind the frontier: those a merged cell of the same or a later row, as
   * far along or further, dominates. An outlined rectangle of the grid is mergeable as a whole though
   * only its edges are merged, so counting merged cells alone would leave most of a finished grid
   * unexplored.
   */
  filledCells(): number[] {
    const grid = this.im.grid;
    const rows = new Array<number>(grid.len1 - 1).fill(0);
    let reach = 0;
    for (let i = grid.len1 - 1; i >= 1; i--) {
      for (let j = grid.len2 - 1; j > reach; j--)
        if (grid.cell(i, j).oid !== null) {
          reach = j;
          break;
        }
      rows[i - 1] = reach;
    }
    return rows;
  }

  async cellCommit(cell: Cell): Promise<string | null> {
    if (cell.i1 >= this.im.grid.len1 || cell.i2 >= this.im.grid.len2) return null;
    return this.im.cellCommit(cell.i1, cell.i2);
  }

  conflictCell(cell: Cell) {
    return this.im.conflictCell(cell.i1, cell.i2);
  }

  recordMerge(cell: Cell, tree: string): Promise<string> {
    return this.im.recordMerge(cell.i1, cell.i2, tree, this.commits.write);
  }

  recordMerges(merges: Array<{ cell: Cell; tree: string }>): Promise<string[]> {
    return this.im.recordMerges(
      merges.map(({ cell, tree }) => ({ i1: cell.i1, i2: cell.i2, tree })),
      this.commits.write,
    );
  }

  recordedMerges(): Array<{ cell: Cell; commit: string }> {
    const grid = this.im.grid;
    const out: Array<{ cell: Cell; commit: string }> = [];
    for (let i = 1; i < grid.len1; i++) {
      for (let j = 1; j < grid.len2; j++) {
        const c = grid.cell(i, j);
        if (c.manual && c.oid !== null) out.push({ cell: { i1: i, i2: j }, commit: c.oid });
      }
    }
    return out.sort((a, b) => compareCells(a.cell, b.cell));
  }

  async probeCommit(cells: Cell[]): Promise<string | null> {
    const commits: string[] = [];
    for (const cell of [...cells].sort(compareCells)) {
      const commit = await this.cellCommit(cell);
      if (commit === null) return null;
      if (!commits.includes(commit)) commits.push(commit);
    }
    let probe = commits[0] ?? null;
    for (const next of commits.slice(1)) {
      const merged = await mergeTree(this.git, probe as string, next);
      if (!merged.clean) return null;
      probe = await this.commits.write(
        merged.tree,
        [probe as string, next],
        `splintercat: probe of ${cells.map(cellId).join(', ')}\n`,
      );
    }
    return probe;
  }

  /**
   * Forget resolutions: clear each cell and every inner cell that dominates it (they
   * were merged on top of it), then save; the next autofill meets the conflict again.
   */
  async forget(cells: Cell[]): Promise<void> {
    const grid = this.im.grid;
    for (let i = 1; i < grid.len1; i++) {
      for (let j = 1; j < grid.len2; j++) {
        if (!cells.some((c) => dominates({ i1: i, i2: j }, c))) continue;
        const cell = grid.cell(i, j);
        cell.oid = null;
        cell.manual = false;
        cell.blocked = false;
      }
    }
    await this.im.save();
  }

  finish(message?: string, branch?: string): Promise<string> {
    return this.im.finish({
      ...(message !== undefined ? { message } : {}),
      ...(branch !== undefined ? { branch } : {}),
    });
  }

  async diagram(): Promise<string> {
    return this.im.diagram();
  }
}

/** The engine's two tips by side: its `tip1` is the fork's, its `tip2` upstream's. */
export function sideTips(im: { tip1: string; tip2: string }): { forkTip: string; upstreamTip: string } {
  return { forkTip: im.tip1, upstreamTip: im.tip2 };
}

/**
 * Opens the run's merge: loads it when its refs exist (resume), starts it otherwise. Every
 * engine it opens writes its manual-merge commits in-process through one CommitWriter, so
 * the identity is read from git once per run. `shared`: the run is shared with other clones,
 * whose grids must hold the very same commits: the grid's merge commits are then written by
 * splintercat, dated as the later tip (sharedCellIdentity), not by this clone's person now.
 */
export function imergeEngines(git: Git, jobs: number, sharing: { shared?: boolean } = {}): GridEngineFactory {
  const plain = { git, commits: new CommitWriter(git) };
  return {
    async open(options) {
      let cells = plain;
      if (sharing.shared) {
        const cellGit = git.at(git.cwd, { env: await sharedCellIdentity(git, options.forkTip, options.upstreamTip) });
        cells = { git: cellGit, commits: new CommitWriter(cellGit) };
      }
      const existing = await listImerges(git);
      const im = existing.includes(options.name)
        ? await IncrementalMerge.load(git, options.name)
        : await IncrementalMerge.start(git, {
            name: options.name,
            goal: options.goal,
            tip1: options.forkTip,
            tip2: options.upstreamTip,
            branch: options.branch,
            firstParent: options.firstParent,
          });
      return new ImergeGridEngine(im, jobs, cells.commits, git, cells.git);
    },
    async discard(name) {
      if (
        (await git.forEachRef(`refs/imerge/${name}/`)).length > 0 ||
        (await git.revParse(`refs/heads/imerge/${name}`)) !== null
      )
        await removeImerge(git, name);
    },
  };
}

/**
 * The author and committer of a shared run's grid commits, the same on every clone: splintercat,
 * dated as the later of the two tips. Every clone then writes the same commit for the same cell
 * (same tree, parents and message), so the engine's refs of two clones agree.
 */
async function sharedCellIdentity(git: Git, forkTip: string, upstreamTip: string): Promise<Record<string, string>> {
  const times = await Promise.all(
    [forkTip, upstreamTip].map((tip) => git.queryText(['log', '-1', '--format=%ct', tip, '--'])),
  );
  const date = `${Math.max(...times.map(Number))} +0000`;
  return { ...TOOL_IDENTITY, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
}
