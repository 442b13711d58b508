import type { Git } from '../git/index.js';
import { CommitWriter, IncrementalMerge, listImerges, mergeTree, removeImerge } from '../imerge/index.js';
import { cellId, compareCells, dominates, type Cell } from '../imerge/cell.js';
import type { GridEngine, GridEngineFactory } from './ports.js';

/** The workflow's view of one splintercat/git-imerge incremental merge. */
class ImergeGridEngine implements GridEngine {
  constructor(
    private readonly im: IncrementalMerge,
    private readonly jobs: number,
    private readonly commits: CommitWriter,
    private readonly git: Git,
  ) {}

  size(): { i1: number; i2: number } {
    return { i1: this.im.grid.len1 - 1, i2: this.im.grid.len2 - 1 };
  }

  async autofill(options: { signal?: AbortSignal } = {}): Promise<Cell[]> {
    const result = await this.im.autofill({ jobs: this.jobs, ...(options.signal ? { signal: options.signal } : {}) });
    return result.blockers.map(([i1, i2]) => ({ i1, i2 })).sort(compareCells);
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
    for (let i1 = 1; i1 < grid.len1; i1++) {
      for (let i2 = 1; i2 < grid.len2; i2++) {
        const c = grid.cell(i1, i2);
        if (c.manual && c.oid !== null) out.push({ cell: { i1, i2 }, commit: c.oid });
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
    for (let i1 = 1; i1 < grid.len1; i1++) {
      for (let i2 = 1; i2 < grid.len2; i2++) {
        if (!cells.some((c) => dominates({ i1, i2 }, c))) continue;
        const cell = grid.cell(i1, i2);
        cell.oid = null;
        cell.manual = false;
        cell.blocked = false;
      }
    }
    await this.im.save();
  }

  finish(message?: string): Promise<string> {
    return this.im.finish(message !== undefined ? { message } : {});
  }

  async diagram(): Promise<string> {
    return this.im.diagram();
  }
}

/**
 * Opens the run's merge: loads it when its refs exist (resume), starts it otherwise. Every
 * engine it opens writes its manual-merge commits in-process through one CommitWriter, so
 * the identity is read from git once per run.
 */
export function imergeEngines(git: Git, jobs: number): GridEngineFactory {
  const commits = new CommitWriter(git);
  return {
    async open(options) {
      const existing = await listImerges(git);
      const im = existing.includes(options.name)
        ? await IncrementalMerge.load(git, options.name)
        : await IncrementalMerge.start(git, {
            name: options.name,
            goal: options.goal,
            tip1: options.tip1,
            tip2: options.tip2,
            branch: options.branch,
            firstParent: options.firstParent,
          });
      return new ImergeGridEngine(im, jobs, commits, git);
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
