import { hostname } from 'node:os';
import type { Git } from '../../git/index.js';
import { fetchRefs, listRemoteRefs } from '../../git/remote-refs.js';
import { systemClock, type Clock } from '../../util/clock.js';
import { recordId, type NewRecord, type SyncRecord } from './record.js';
import {
  addRecords,
  readRecord,
  recordListing,
  treeEntries,
  unionEntries,
  writeRecordsCommit,
  type ReadRecord,
} from './record-tree.js';
import { RejectedObjects } from './rejected-objects.js';
import { alongWith, publishRefs, type MirrorOutcome, type MirroredRefs, type PushedAlong } from './ref-mirror.js';

/**
 * A run's records shared through an ordinary git remote.
 *
 * Record format. The records of run NAME are one ref, `refs/splintercat/NAME/records`, a commit
 * whose tree holds one file per record, `KIND/II/ID.json` (II: the id's first two digits), the
 * record's canonical JSON (`{kind, id, key, body, by, at}`, keys sorted). The id is sha256 of the
 * kind and the canonical key, so the same fact recorded twice, on one machine or several, is one
 * path: idempotent. A records commit has the commits it combined as parents and a tree that is
 * the union of theirs: append-only, nothing is ever removed. Two trees holding one path with
 * different text (one fact with different details) keep the preferred record (the earlier, then
 * the smaller text), the same choice on every machine.
 *
 * Compare-and-swap. Records are written to the local ref first (a local compare-and-swap,
 * `update-ref` with the old value), so work goes on while the remote is unreachable. `publish`
 * reads the remote's ref (`ls-remote`), fetches it, combines it with the local ref (the union
 * above, or a fast-forward when one holds the other), and pushes the result with
 * `--force-with-lease=REF:OLD` naming the value it read (absent: must not exist). If the remote
 * moved in between, the push is rejected and the round starts again from a new read; nothing the
 * other machine pushed is lost, because the next round combines it. An unreachable remote ends
 * the call with the records still local (`pending` counts them), published by a later call.
 *
 * Other refs of a run (the engine's state and manual cells under `refs/imerge/NAME/`, which
 * git-imerge reads as they are, and each machine's own snapshot of its run state and journal at
 * `refs/splintercat/NAME/machines/M`) are mirrored by `publishRefs`: ref by ref, three-way against
 * the value last seen on the remote, pushed as one atomic compare-and-swap, in the same push as
 * the records when `publish` is given them. Claims (a ref per conflict, created only if absent,
 * renewed with the old value) are the same primitive, `pushRefs` with `expect`.
 */

export interface RunSyncOptions {
  /** A git remote of the repository (name or URL). */
  remote: string;
  /** This machine's name in the records it adds (default: the host name). */
  machine?: string;
  clock?: Clock;
  /** Rounds of read, combine, push before publish gives up on a remote that keeps moving. */
  maxRounds?: number;
  /** Called between reading the remote and pushing to it (where another machine's push makes this one's rejected). */
  beforePush?: (round: number) => Promise<void>;
  /** Where the objects from the remote that are not used are named (the log, `status`). */
  rejected?: RejectedObjects;
}

export type PublishOutcome =
  | { ok: true; rounds: number; pushed: boolean; records: number }
  | { ok: false; reason: 'unreachable' | 'contended'; rounds: number; pending: number };

/** The ref names of run `run`: on the remote, and where this repository keeps what it last saw there. */
export function syncRefs(run: string, remote: string): { records: string; seen: string; agreed: string } {
  const agreed = `refs/splintercat-remotes/${remote.replace(/[^A-Za-z0-9._-]/g, '_')}/`;
  return { records: `refs/splintercat/${run}/records`, seen: `${agreed}${run}/records`, agreed };
}

export class RunSync {
  readonly refs: ReturnType<typeof syncRefs>;
  private readonly machine: string;
  private readonly clock: Clock;
  /** Records read so far, by path and blob id: a blob never changes, and a run's records are read again at every pull. */
  private readonly parsed = new Map<string, ReadRecord>();
  /** The objects of the remote this process left out, each named once. */
  readonly rejected: RejectedObjects;
  /** The records of the records commit read last (a commit never changes). */
  private lastRead: { commit: string | null; records: Map<string, SyncRecord> } | null = null;

  constructor(
    private readonly git: Git,
    readonly run: string,
    private readonly options: RunSyncOptions,
  ) {
    this.refs = syncRefs(run, options.remote);
    this.machine = options.machine ?? hostname();
    this.clock = options.clock ?? systemClock;
    this.rejected = options.rejected ?? new RejectedObjects();
  }

  /** Add records locally (no network); returns how many were new. A local compare-and-swap, retried when another process added meanwhile. */
  async add(records: NewRecord[]): Promise<number> {
    const at = this.clock.now().toISOString();
    const full: SyncRecord[] = records.map((r) => ({
      kind: r.kind,
      id: recordId(r.kind, r.key),
      key: r.key,
      body: r.body ?? {},
      by: this.machine,
      at,
    }));
    for (;;) {
      const old = await this.git.revParse(this.refs.records);
      const { entries, added } = await addRecords(this.git, await treeEntries(this.git, old), full);
      if (added === 0 && old !== null) return 0;
      const commit = await writeRecordsCommit(
        this.git,
        entries,
        old === null ? [] : [old],
        `splintercat records: +${added} by ${this.machine}`,
      );
      try {
        await this.git.updateRef(this.refs.records, commit, old);
        return added;
      } catch (error) {
        if ((await this.git.revParse(this.refs.records)) === old) throw error;
      }
    }
  }

  /** Every record held here (local and what was combined from the remote), by id. */
  async records(): Promise<Map<string, SyncRecord>> {
    const commit = await this.git.revParse(this.refs.records);
    if (this.lastRead && this.lastRead.commit === commit) return new Map(this.lastRead.records);
    const out = new Map<string, SyncRecord>();
    for (const [path, blob] of (await this.validEntries(commit, this.refs.records)).entries) {
      const read = this.parsed.get(`${path}\0${blob}`);
      if (read?.ok) out.set(read.record.id, read.record);
    }
    this.lastRead = { commit, records: out };
    return new Map(out);
  }

  /**
   * The entries of records commit `commit` that hold valid records (read within their size limit
   * and checked, record-shapes.ts); each other one, and a `commit` that is not a commit, named in
   * `rejected` as found at `where` and left out. `dropped`: how many were left out.
   */
  private async validEntries(
    commit: string | null,
    where: string,
  ): Promise<{ entries: Map<string, string>; dropped: number; commit: boolean }> {
    const listing = await recordListing(this.git, commit);
    if (!listing.ok) {
      this.rejected.add(where, listing.why, commit ?? '');
      return { entries: new Map(), dropped: 1, commit: false };
    }
    for (const r of listing.refused) this.rejected.add(`${where}:${r.path}`, r.why, r.oid);
    const entries = new Map<string, string>();
    let dropped = listing.refused.length;
    for (const [path, blob] of listing.entries) {
      const id = `${path}\0${blob}`;
      let read = this.parsed.get(id);
      if (read === undefined) this.parsed.set(id, (read = await readRecord(this.git, blob, path)));
      if (read.ok) entries.set(path, blob);
      else {
        dropped++;
        this.rejected.add(`${where}:${path}`, read.why, blob);
      }
    }
    return { entries, dropped, commit: true };
  }

  /** Whether the local records differ from the remote's as last seen (something to publish), without the network. */
  async unpublished(): Promise<boolean> {
    const [local, seen] = await Promise.all([this.git.revParse(this.refs.records), this.git.revParse(this.refs.seen)]);
    return local !== null && local !== seen;
  }

  /** Records held here that the remote did not hold when last seen. */
  async pending(): Promise<number> {
    const [local, seen] = await Promise.all([this.git.revParse(this.refs.records), this.git.revParse(this.refs.seen)]);
    const ours = await treeEntries(this.git, local);
    const theirs = await treeEntries(this.git, seen);
    let count = 0;
    for (const path of ours.keys()) if (!theirs.has(path)) count++;
    return count;
  }

  /**
   * Combine the remote's records into the local ref, without pushing. False when the remote cannot
   * be reached. `alsoFetch`: refspecs fetched in the same fetch when the records moved (what new
   * records name), so a pull that finds nothing new costs one listing and no fetch.
   */
  async pull(alsoFetch: readonly string[] = []): Promise<boolean> {
    const remote = await this.readRemote(alsoFetch);
    if (remote === undefined) return false;
    await this.combineLocal(remote);
    return true;
  }

  /**
   * Publish the local records: read, combine, compare-and-swap push, again while the remote moves.
   * `mirrored` refs (publishRefs) and the updates `along` decides go in the same atomic push, so
   * records never reach the remote before the objects they name; `alsoFetch` is fetched with the
   * remote's records when they are new here.
   */
  async publish(
    options: { mirrored?: readonly MirroredRefs[]; along?: PushedAlong; alsoFetch?: readonly string[] } = {},
  ): Promise<PublishOutcome> {
    // The records commit of the last round: what the push carried, or what the remote already held.
    let combined: string | null = null;
    const records: PushedAlong = {
      patterns: [this.refs.records],
      updates: async (listed) => {
        const remote = await this.adoptListed(listed.get(this.refs.records) ?? null, options.alsoFetch ?? []);
        if (remote === undefined) return undefined;
        const commit = (combined = await this.combineLocal(remote));
        return commit === remote || commit === null ? [] : [{ ref: this.refs.records, newOid: commit, expect: remote }];
      },
      applied: async (updates) => {
        const pushed = updates.find((u) => u.ref === this.refs.records);
        if (pushed?.newOid) await this.git.updateRef(this.refs.seen, pushed.newOid);
      },
    };
    const outcome = await publishRefs(this.git, this.options.remote, options.mirrored ?? [], {
      ...this.mirrorOptions(),
      along: options.along ? alongWith(records, options.along) : records,
    });
    if (!outcome.ok)
      return { ok: false, reason: outcome.reason, rounds: outcome.rounds, pending: await this.pending() };
    return {
      ok: true,
      rounds: outcome.rounds,
      pushed: outcome.pushed.includes(this.refs.records),
      records: (await treeEntries(this.git, combined)).size,
    };
  }

  /** This machine's snapshot ref: its run state and journal, written only by this machine. */
  machineRef(): string {
    return `refs/splintercat/${this.run}/machines/${this.machine.replace(/[^A-Za-z0-9._-]/g, '_')}`;
  }

  /** Record a snapshot of this machine's run (e.g. `state.json`, `events.jsonl`) locally, on top of the last. */
  async saveSnapshot(files: Record<string, string>): Promise<string> {
    const ref = this.machineRef();
    const old = await this.git.revParse(ref);
    const entries = new Map<string, string>();
    for (const [path, text] of Object.entries(files))
      entries.set(path, await this.git.queryText(['hash-object', '-w', '--stdin'], { input: text }));
    const commit = await writeRecordsCommit(
      this.git,
      entries,
      old === null ? [] : [old],
      `splintercat: ${this.machine}'s run`,
    );
    await this.git.updateRef(ref, commit, old);
    return commit;
  }

  /** This machine's snapshot ref, mirrored against the value last agreed. */
  snapshotRefs(): MirroredRefs {
    const ref = this.machineRef();
    return { prefix: ref, agreed: `${this.refs.agreed}${ref.slice('refs/'.length)}` };
  }

  /**
   * The engine's refs a shared run publishes (as git-imerge reads them): the state and the manual
   * cells, which are the grid's edges and its resolutions. Not the automatic cells: every clone
   * computes the same ones from these, and a remote holding thousands of refs makes every push and
   * listing of every machine slower (each push advertises and checks connectivity against them all).
   */
  engineRefs(): MirroredRefs[] {
    const prefix = `refs/imerge/${this.run}/`;
    const agreed = `${this.refs.agreed}imerge/${this.run}/`;
    return [
      { prefix: `${prefix}state`, agreed: `${agreed}state` },
      { prefix: `${prefix}manual/`, agreed: `${agreed}manual/` },
    ];
  }

  /** Publish this machine's snapshot (a compare-and-swap against the value last agreed). */
  publishSnapshot(): Promise<MirrorOutcome> {
    return publishRefs(this.git, this.options.remote, this.snapshotRefs(), this.mirrorOptions());
  }

  /** Publish the engine's refs (engineRefs), ref by ref. */
  publishEngine(): Promise<MirrorOutcome> {
    return publishRefs(this.git, this.options.remote, this.engineRefs(), this.mirrorOptions());
  }

  private mirrorOptions(): { maxRounds?: number; beforePush?: (round: number) => Promise<void> } {
    return {
      ...(this.options.maxRounds ? { maxRounds: this.options.maxRounds } : {}),
      ...(this.options.beforePush ? { beforePush: this.options.beforePush } : {}),
    };
  }

  /**
   * The remote's records commit, fetched here and kept as the value last seen (null: the remote
   * has none yet); undefined when the remote cannot be reached.
   */
  private async readRemote(alsoFetch: readonly string[] = []): Promise<string | null | undefined> {
    const listed = await listRemoteRefs(this.git, this.options.remote, [this.refs.records]);
    if (listed === null) return undefined;
    return this.adoptListed(listed.get(this.refs.records) ?? null, alsoFetch);
  }

  /**
   * The records commit the remote listed, fetched (with `alsoFetch`) when new here and kept as the
   * value last seen. A remote ref that is not a commit is named and kept out of the value last
   * seen; its id is still returned, so the next publication replaces it (a compare-and-swap on it).
   */
  private async adoptListed(oid: string | null, alsoFetch: readonly string[]): Promise<string | null | undefined> {
    if (oid === null) return null;
    let listed = oid;
    if ((await this.git.objectInfo(oid)) === null) {
      const before = await this.git.revParse(this.refs.seen);
      const fetched = await fetchRefs(this.git, this.options.remote, [
        `+${this.refs.records}:${this.refs.seen}`,
        ...alsoFetch,
      ]);
      if (!fetched) return undefined;
      // The ref may have moved between the listing and the fetch: compare-and-swap against what was fetched.
      listed = (await this.git.revParse(this.refs.seen)) ?? oid;
      // A tracking ref never keeps what was refused: the value seen before stays.
      if (!(await this.isCommit(listed)))
        await (before === null ? this.git.deleteRef(this.refs.seen) : this.git.updateRef(this.refs.seen, before));
      return listed;
    }
    if (await this.isCommit(listed)) await this.git.updateRef(this.refs.seen, listed);
    return listed;
  }

  /** Whether `oid` is a commit; when it is not, it is named as the remote's records ref and skipped. */
  private async isCommit(oid: string): Promise<boolean> {
    const info = await this.git.objectInfo(oid);
    if (info?.type === 'commit') return true;
    this.rejected.add(this.refs.records, info === null ? 'missing' : `a ${info.type}, not a commit`, oid);
    return false;
  }

  /**
   * The local ref moved to hold the remote's records too (a fast-forward, or a commit of the union);
   * returns it. What the remote holds that is not a valid record (record-shapes.ts) is left out: a
   * remote commit holding any is never taken as it is, but combined into a commit without them.
   */
  private async combineLocal(remote: string | null): Promise<string | null> {
    const theirs = remote === null ? null : await this.validEntries(remote, this.refs.records);
    for (;;) {
      const local = await this.git.revParse(this.refs.records);
      let next: string | null;
      if (remote === null || theirs === null || local === remote) next = local;
      else if (theirs.dropped === 0 && (local === null || (await this.git.isAncestor(local, remote)))) next = remote;
      else if (theirs.commit && local !== null && (await this.git.isAncestor(remote, local))) next = local;
      else {
        const ours = await treeEntries(this.git, local);
        const union = await unionEntries(this.git, [ours, theirs.entries]);
        const parents = [...(local === null ? [] : [local]), ...(theirs.commit ? [remote] : [])];
        // A remote commit is always a parent, so the push stays a fast-forward; a remote ref that is
        // not a commit adds nothing when the union is what is held here already.
        const unchanged =
          !theirs.commit &&
          local !== null &&
          union.size === ours.size &&
          [...union].every(([p, o]) => ours.get(p) === o);
        next = unchanged
          ? local
          : await writeRecordsCommit(this.git, union, parents, `splintercat records: combined by ${this.machine}`);
      }
      if (next === local) return local;
      try {
        await this.git.updateRef(this.refs.records, next as string, local);
        return next;
      } catch (error) {
        if ((await this.git.revParse(this.refs.records)) === local) throw error;
      }
    }
  }
}
