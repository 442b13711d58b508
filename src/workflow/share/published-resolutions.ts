import type { Git } from '../../git/index.js';
import { fetchRefs } from '../../git/remote-refs.js';
import type { Logger } from '../../log/logger.js';
import type { RejectedObjects } from '../../store/sync/rejected-objects.js';
import type { SyncRecord } from '../../store/sync/record.js';
import type { RunSync } from '../../store/sync/run-sync.js';
import { printableName } from '../../util/safe-print.js';

/** The refs under which a run's resolution trees are published, one per conflict. */
export function treesPrefix(run: string): string {
  return `refs/splintercat/${run}/trees/`;
}

/**
 * The resolutions other machines of a shared run published, as this machine takes them: each
 * with whether its tree is in this clone yet. A record whose tree the remote does not hold
 * after a fetch is refused (trees are published before their records: it never comes).
 */
export class PublishedResolutions {
  /** Resolution trees known to be in this clone (an object once here stays). */
  private readonly trees = new Set<string>();
  /** Conflicts whose published resolution names a tree the remote does not hold: resolved here instead. */
  private readonly treeless = new Set<string>();
  /** Conflicts resolved elsewhere whose tree is not here, said once each. */
  private readonly missingSaid = new Set<string>();

  constructor(
    private readonly deps: {
      git: Git;
      sync: RunSync;
      run: string;
      remote: string;
      machine: string;
      log: Logger;
      rejected: RejectedObjects;
    },
  ) {}

  /** The resolutions other machines published: the records, and the engine refs holding their trees. */
  async pull(): Promise<Map<string, SyncRecord> | null> {
    // Resolution trees are published before their records: new records come with their trees.
    const objects = `refs/splintercat-remotes/objects/${this.deps.run}/trees/`;
    if (!(await this.deps.sync.pull([`+${treesPrefix(this.deps.run)}*:${objects}*`]))) return null;
    return this.resolutionsHere();
  }

  /**
   * The conflicts with a resolution another machine published, each true when its tree is in this clone (to take
   * in now), false while its objects are not (fetched by a later pull; never resolved again here).
   * `fresh`: read from the remote now, else the records as last read.
   */
  async published(fresh: boolean): Promise<Map<string, boolean>> {
    const records = fresh ? await this.pull() : null;
    const resolutions = [...(records ?? (await this.resolutionsHere()))].filter(
      // This machine's own resolutions are its state's to judge (one a check blamed is open again).
      ([, record]) => record.by !== this.deps.machine,
    );
    const here = async (tree: string): Promise<boolean> => {
      if (!this.trees.has(tree) && (await this.deps.git.revParse(`${tree}^{tree}`)) !== null) this.trees.add(tree);
      return this.trees.has(tree);
    };
    // Records can arrive without their trees (read by `status`, or before a fetch failed): fetched now.
    let missing = 0;
    for (const [, record] of resolutions) if (!(await here(String(record.key.tree)))) missing++;
    let fetched = false;
    if (fresh && missing > 0) {
      const objects = `refs/splintercat-remotes/objects/${this.deps.run}/trees/`;
      fetched = await fetchRefs(this.deps.git, this.deps.remote, [`+${treesPrefix(this.deps.run)}*:${objects}*`]);
    }
    const out = new Map<string, boolean>();
    for (const [id, record] of resolutions) {
      const present = await here(String(record.key.tree));
      // Trees are published before their records: one the remote's trees still lack after a
      // fetch never comes, and the conflict it claims would wait on it for ever.
      if (!present && fetched) this.treeless.add(id);
      if (this.treeless.has(id)) {
        this.deps.rejected.add(
          `${this.deps.sync.refs.records}:${id}`,
          `a resolution of ${printableName(id)} by ${printableName(record.by)} whose tree ${printableName(String(record.key.tree))} the remote does not hold`,
        );
        continue;
      }
      out.set(id, present);
      if (present || this.missingSaid.has(id)) continue;
      this.missingSaid.add(id);
      this.deps.log.decision(
        { cell: id },
        `[share] ${id} was resolved on ${printableName(record.by)}, but its tree is not in this clone yet: left for that resolution, not handed to anyone`,
      );
    }
    return out;
  }

  /** The published resolutions among the records this clone holds (no network). */
  private async resolutionsHere(): Promise<Map<string, SyncRecord>> {
    const out = new Map<string, SyncRecord>();
    for (const record of (await this.deps.sync.records()).values())
      if (record.kind === 'resolution') out.set(String(record.key.conflict), record);
    return out;
  }
}
