import type { Git } from '../git/index.js';
import type { Merger } from './autofill.js';
import { mergeTree } from './merge-tree.js';

/**
 * The git implementation of Merger: `git merge-tree --write-tree` and `git commit-tree`. Never
 * touches the index, the working tree or hooks. Merge results are cached per pair of commits
 * (a merge of two fixed commits is a pure function).
 */
export class GitMerger implements Merger {
  private readonly cache = new Map<string, Promise<string | null>>();
  merges = 0;

  constructor(
    private readonly git: Git,
    private readonly signal?: AbortSignal,
  ) {}

  mergeTree(c1: string, c2: string): Promise<string | null> {
    const key = `${c1} ${c2}`;
    let p = this.cache.get(key);
    if (!p) {
      this.merges++;
      p = mergeTree(this.git, c1, c2, this.signal).then((r) => (r.clean ? r.tree : null));
      p.catch(() => this.cache.delete(key));
      this.cache.set(key, p);
    }
    return p;
  }

  async commit(tree: string, parents: string[], message: string): Promise<string> {
    const args = ['commit-tree', tree];
    for (const p of parents) args.push('-p', p);
    return this.git.text(args, { input: `${message}\n` });
  }
}
