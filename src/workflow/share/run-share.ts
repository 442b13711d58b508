import type { Git } from '../../git/index.js';
import { cellId, type Cell } from '../../imerge/cell.js';
import type { Logger } from '../../log/logger.js';
import type { RunStore } from '../../store/run-store.js';
import type { RunState } from '../../store/run-state.js';
import { listRemoteRefs } from '../../git/remote-refs.js';
import { Claims, type HeldClaim } from '../../store/sync/claims.js';
import { RunSync } from '../../store/sync/run-sync.js';
import { RejectedObjects } from '../../store/sync/rejected-objects.js';
import type { SyncRecord } from '../../store/sync/record.js';
import type { Clock } from '../../util/clock.js';
import { printableName } from '../../util/safe-print.js';
import { personOf, readShare, type ShareSettings } from './share-file.js';
import { remoteChange } from './remote-change.js';
import { shareCache } from './cache-share.js';
import { freshRecords, recordTrees, snapshotFiles } from './publication.js';
import { PublishedResolutions, treesPrefix } from './published-resolutions.js';
import type { ResolutionCache } from '../../resolve/cache/resolution-cache.js';

/** How often a machine's snapshot and the engine's refs are published while a drive goes on. */
const SNAPSHOT_EVERY_MS = 30_000;

/** How long a claim lasts unless renewed (sync.lease) and a drive waits for others' work (sync.wait), in seconds; what is shared besides the run. */
export interface ShareOptions {
  lease: number;
  wait?: number;
  /** check.commands: a published check result names its command's digest. */
  commands?: Record<string, string>;
  /** The resolution cache, shared through the remote with the run's full publications. */
  cache?: ResolutionCache | null;
  /** Called between reading the remote and pushing to it (where another machine's push makes this one's rejected). */
  beforePush?: (round: number) => Promise<void>;
}

/** What `select` found: the cells this machine works on now, and the conflicts others hold. */
export interface Selection {
  mine: Cell[];
  heldByOthers: HeldClaim[];
  /** A free conflict turned out resolved by another machine: take the published resolutions in. */
  adoptable?: boolean;
}

/**
 * A run shared through a git remote, as one machine sees it: it publishes the run (records,
 * engine refs, this machine's snapshot) at each durable step, takes the resolutions other
 * machines published, and claims the conflicts it works on. A remote that cannot be reached
 * never stops the run: the work stays local and is published by a later step (said once in the log).
 */
export class RunShare {
  readonly sync: RunSync;
  readonly claims: Claims;
  /** The objects of the remote this process skipped, each named once in the log (and in `status`). */
  readonly rejected: RejectedObjects;
  private held = new Map<string, HeldClaim>();
  private warned = false;
  private publishing: Promise<void> = Promise.resolve();
  private queued: RunState | null = null;
  private queuedFull = false;
  private fullAt: number | null = null;
  /** Whether this process has taken in the claims an earlier process of this machine left (read once). */
  private ownClaimsRead = false;
  /** The claims the last `select` read, to wait for a change from. */
  private seenClaims = new Map<string, HeldClaim>();
  /** What the other machines published, and whether its trees are here. */
  private readonly resolutions: PublishedResolutions;

  constructor(
    private readonly git: Git,
    private readonly store: RunStore,
    readonly run: string,
    readonly settings: ShareSettings,
    person: { name: string; email: string },
    times: ShareOptions | number,
    private readonly log: Logger,
    clock?: Clock,
  ) {
    const shared = { remote: settings.remote, machine: settings.machine, ...(clock ? { clock } : {}) };
    const options: ShareOptions = typeof times === 'number' ? { lease: times } : times;
    const { lease, wait, commands, cache, beforePush } = options;
    // What the remote holds that is not used (too large, of the wrong type, malformed): said once each.
    this.rejected = new RejectedObjects(
      (r, line) => log.warn({ where: r.where, why: r.why }, line),
      store.paths(run).rejected,
    );
    const rejected = this.rejected;
    this.sync = new RunSync(git, run, { ...shared, rejected, ...(beforePush ? { beforePush } : {}) });
    this.claims = new Claims(git, run, { ...shared, person, leaseSeconds: lease, rejected });
    this.resolutions = new PublishedResolutions({ git, sync: this.sync, run, log, rejected, ...shared });
    this.person = person;
    this.waitSeconds = wait ?? 0;
    this.commands = commands ?? {};
    this.cache = cache ?? null;
  }

  private readonly cache: ResolutionCache | null;

  /** The run's check commands (check.commands), whose digests the published check records carry. */
  private readonly commands: Record<string, string>;

  /** Seconds a drive waits for another machine's work when every open conflict is held (sync.wait). */
  readonly waitSeconds: number;

  readonly person: { name: string; email: string };

  /** The share of run `name` when it has one (`merge --remote`, `share`, `join`), else null. */
  static async open(
    git: Git,
    store: RunStore,
    name: string,
    times: ShareOptions | number,
    log: Logger,
    clock?: Clock,
  ): Promise<RunShare | null> {
    const settings = readShare(store, name);
    if (!settings) return null;
    return new RunShare(git, store, name, settings, await personOf(git), times, log, clock);
  }

  /**
   * Every open conflict is held elsewhere: wait (at most `waitSeconds`) until the remote's claims or
   * records change, so the drive goes on as soon as a conflict is freed or a resolution published.
   * False when it did not (no wait configured, the time ran out, the remote cannot be read).
   */
  async awaitOthers(signal?: AbortSignal): Promise<boolean> {
    if (this.waitSeconds <= 0) return false;
    await this.flush();
    // Against the claims `select` read and the records last pulled: a change since then wakes it at once.
    const before = new Map([...this.seenClaims].map(([id, claim]) => [this.claims.ref(id), claim.oid]));
    const records = await this.git.revParse(this.sync.refs.seen);
    if (records !== null) before.set(this.sync.refs.records, records);
    const patterns = [this.sync.refs.records, `refs/splintercat/${this.run}/claims/*`];
    const deadline = Date.now() + this.waitSeconds * 1000;
    return remoteChange(this.git, this.settings.remote, patterns, before, deadline, signal);
  }

  /** Publish after a durable step, in the background: steps coming faster than pushes are coalesced. */
  schedule(state: RunState, full = false): void {
    const first = this.queued === null;
    this.queued = state;
    this.queuedFull ||= full;
    if (!first) return;
    this.publishing = this.publishing.then(async () => {
      const [latest, wholly] = [this.queued as RunState, this.queuedFull];
      this.queued = null;
      this.queuedFull = false;
      await this.publish(latest, { full: wholly }).catch((error: unknown) => this.unreachable(String(error)));
    });
  }

  /** Wait for the scheduled publications. */
  async flush(): Promise<void> {
    await this.publishing;
    if (this.queued) {
      this.schedule(this.queued, this.queuedFull);
      await this.publishing;
    }
  }

  /**
   * Publish the run as this machine holds it, in one atomic push: the records, the resolution
   * trees they name, and the release of the claims whose conflicts are now resolved; then renew
   * the open claims that are due. The engine's refs and this machine's snapshot (for `join` and
   * git-imerge readers, not needed by the other machines' work) go along with `full`, on the
   * first publication of a process, and at most every SNAPSHOT_EVERY_MS otherwise.
   */
  async publish(state: RunState, options: { full?: boolean } = {}): Promise<boolean> {
    const publisher = { person: this.person, machine: this.settings.machine, commands: this.commands };
    const fresh = await freshRecords(this.git, this.sync, this.run, state, publisher);
    if (fresh.length > 0) await this.sync.add(fresh);
    const full = options.full || this.fullAt === null || performance.now() - this.fullAt > SNAPSHOT_EVERY_MS;
    if (full) await this.sync.saveSnapshot(snapshotFiles(this.store, this.run, state));
    const trees = await recordTrees(this.git, this.sync, this.run, state);
    const releases = await this.releasable(state);
    // Nothing new for the remote: no network.
    if (!full && trees.settled && releases.length === 0 && !(await this.sync.unpublished())) return true;
    const mirrored = [trees.refs, ...(full ? [...this.sync.engineRefs(), this.sync.snapshotRefs()] : [])];
    const along = this.claims.releasing(releases, (ids) =>
      ids.forEach((id) => {
        this.held.delete(id);
        this.seenClaims.delete(id);
      }),
    );
    const objects = `+${treesPrefix(this.run)}*:refs/splintercat-remotes/objects/${this.run}/trees/*`;
    const outcome = await this.sync.publish({ mirrored, along, alsoFetch: [objects] });
    if (!outcome.ok) {
      const detail = `the push did not apply, ${outcome.pending} record(s) pending`;
      await this.unreachable(detail, outcome.reason === 'contended');
      return false;
    }
    if (full) this.fullAt = performance.now();
    if (full && this.cache) await this.shareCache(this.cache);
    if (this.warned)
      this.log.info({ remote: this.settings.remote }, `published the pending records to ${this.settings.remote}`);
    this.warned = false;
    await this.renewClaims();
    return true;
  }

  private async shareCache(cache: ResolutionCache): Promise<void> {
    const taken = await shareCache(this.git, this.settings.remote, cache, (where, why) =>
      this.rejected.add(where, why),
    );
    if (taken)
      this.log.decision({ entries: taken }, `[cache] ${taken} resolution(s) taken in from ${this.settings.remote}`);
  }

  /** The resolutions other machines published: the records, and the engine refs holding their trees. */
  pull(): Promise<Map<string, SyncRecord> | null> {
    return this.resolutions.pull();
  }

  /**
   * Of the blocked cells (in grid order), those this machine works on: the ones it holds, and the
   * first that nobody holds (or whose holder's lease ran out), claimed now. A conflict with a
   * published resolution is never claimed (taken in once its tree is here). An unreachable remote
   * leaves the cells this machine held or last saw free (offline).
   */
  async select(blockers: Cell[]): Promise<Selection> {
    // A claim is taken only once the run is published: whoever takes it over can join from there.
    if (this.fullAt === null && !(await this.onRemote())) await this.flush();
    const claims = await this.claims.list();
    this.seenClaims = claims ?? new Map();
    if (claims === null) return this.offline(blockers);
    // Records read after the claims: a holder releases its claim in the push that publishes the
    // resolution, so a conflict found free here and resolved there is seen resolved.
    const published = await this.resolutions.published(true);
    const mine: Cell[] = [];
    const heldByOthers: HeldClaim[] = [];
    let taken = false;
    let adoptable = false;
    for (const cell of blockers) {
      const id = cellId(cell);
      const claim = claims.get(id) ?? null;
      const resolution = published.get(id);
      if (resolution !== undefined) {
        // Resolved by someone: taken in as published, never handed to a person again.
        adoptable ||= resolution;
        if (claim?.machine === this.settings.machine) this.held.set(id, claim);
        continue;
      }
      if (claim?.machine === this.settings.machine) {
        this.held.set(id, claim);
        mine.push(cell);
        continue;
      }
      if (taken) continue;
      const outcome = await this.claims.take(id, claim);
      if (outcome.ok) {
        this.held.set(id, outcome.claim);
        mine.push(cell);
        taken = true;
        this.logTaken(id, outcome.claim, outcome.tookOver);
      } else if (outcome.reason === 'held') heldByOthers.push(outcome.holder);
    }
    return { mine, heldByOthers, adoptable };
  }

  /**
   * The remote cannot be read: this clone goes on with the conflicts it held and the first one the
   * claims it last read showed free, never one another machine held then (it may hold it still) nor
   * one resolved already.
   */
  private async offline(blockers: Cell[]): Promise<Selection> {
    await this.unreachable('the claims cannot be read');
    const seen = await this.claims.lastSeen();
    const published = await this.resolutions.published(false);
    const mine: Cell[] = [];
    const heldByOthers: HeldClaim[] = [];
    let free: Cell | null = null;
    for (const cell of blockers) {
      const id = cellId(cell);
      const claim = seen.get(id);
      if (published.has(id)) continue;
      if (this.held.has(id) || claim?.machine === this.settings.machine) mine.push(cell);
      else if (claim !== undefined) heldByOthers.push(claim);
      else free ??= cell;
    }
    if (free !== null) mine.push(free);
    const left = heldByOthers.map((c) => `${printableName(c.conflict)} (${describe(c)})`);
    if (left.length > 0)
      this.log.decision(
        { remote: this.settings.remote, held: heldByOthers.map((c) => c.conflict) },
        `[share] working only on conflicts this clone held or last saw free: not on ${left.join(', ')}, held elsewhere when the claims were last read`,
      );
    return { mine, heldByOthers };
  }

  private logTaken(id: string, claim: HeldClaim, over: HeldClaim | null): void {
    if (over)
      this.log.decision(
        { cell: id },
        `[share] took ${id} over from ${describe(over)}: its lease ran out at ${printableName(over.expires)}`,
      );
    else this.log.decision({ cell: id }, `[share] claimed ${id} until ${claim.expires}`);
  }

  /** Whether the run has been on the remote as this clone knows: it published a snapshot there, or joined from one. */
  private async onRemote(): Promise<boolean> {
    const published = `${this.sync.refs.agreed}splintercat/${this.run}/machines/`;
    const joined = `refs/splintercat-remotes/snapshots/${this.run}/`;
    return (await this.git.forEachRef(published)).length > 0 || (await this.git.forEachRef(joined)).length > 0;
  }

  /** This machine's claims whose conflicts are resolved (to release with the resolution's publication). */
  private async releasable(state: RunState): Promise<HeldClaim[]> {
    // Claims an earlier process of this machine took (before a hand-off) are this one's to settle.
    if (!this.ownClaimsRead) {
      const listed = await this.claims.list();
      for (const claim of listed?.values() ?? [])
        if (claim.machine === this.settings.machine && !this.held.has(claim.conflict))
          this.held.set(claim.conflict, claim);
      this.ownClaimsRead = listed !== null;
    }
    const resolved = new Set(state.conflicts.filter((c) => c.status === 'resolved').map((c) => c.id));
    // Another machine's claim on a conflict resolved here holds nothing: released too (by its blob,
    // so a claim renewed meanwhile stays), never left on the remote for ever.
    const stale = [...this.seenClaims.values()].filter((c) => resolved.has(c.conflict) && !this.held.has(c.conflict));
    return [...[...this.held].filter(([id]) => resolved.has(id)).map(([, claim]) => claim), ...stale];
  }

  /** Renew the claims still held once renewing is due (their conflicts are open: the resolved ones were released). */
  private async renewClaims(): Promise<void> {
    for (const [id, claim] of [...this.held]) {
      if (!this.claims.due(claim)) continue;
      const renewed = await this.claims.renew(claim);
      if (renewed) this.held.set(id, renewed);
    }
  }

  /**
   * Say that this step's publication did not reach the remote: "cannot be reached" only when the
   * remote does not answer a listing either (once, until it is back); a remote that moved under the
   * push (another clone published first) or refused it is said so, and retried by a later step.
   */
  private async unreachable(detail: string, contended = false): Promise<void> {
    const remote = this.settings.remote;
    const answers = contended || (await listRemoteRefs(this.git, remote, [this.sync.refs.records])) !== null;
    if (answers) {
      const what = contended ? 'changed meanwhile or refused the push' : `answers, but ${detail}`;
      this.log.decision({ remote }, `[share] ${remote} ${what}: retrying at the next step`);
      return;
    }
    if (this.warned) return;
    this.warned = true;
    this.log.decision(
      { remote },
      `[share] ${remote} cannot be reached (${detail}): the work goes on here and is published when it can be`,
    );
  }
}

/** `Name <email> on MACHINE`, each part printable: a claim is any teammate's blob, its fields any text. */
export function describe(claim: Pick<HeldClaim, 'name' | 'email' | 'machine'>): string {
  const who =
    claim.name || claim.email
      ? `${printableName(claim.name)}${claim.email ? ` <${printableName(claim.email)}>` : ''}`
      : 'someone';
  return `${who} on ${printableName(claim.machine)}`;
}
