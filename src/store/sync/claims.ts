import type { Git, RefUpdate } from '../../git/index.js';
import { fetchRefs, listRemoteRefs, pushRefs } from '../../git/remote-refs.js';
import { MAX_LEASE_SECONDS } from '../../config/schema.js';
import { systemClock, type Clock } from '../../util/clock.js';
import * as z from 'zod';
import { OBJECT_LIMITS } from '../../git/object-limits.js';
import { canonicalJson } from './record.js';
import { RejectedObjects } from './rejected-objects.js';
import type { PushedAlong } from './ref-mirror.js';

/** Who works on one conflict of a shared run, and until when unless renewed. */
export interface Claim {
  conflict: string;
  machine: string;
  name: string;
  email: string;
  /** ISO time the claim was taken or last renewed. */
  at: string;
  /** ISO time after which another machine may take it. */
  expires: string;
}

/** A claim as the remote holds it: its body and the blob id a compare-and-swap names. */
export interface HeldClaim extends Claim {
  oid: string;
}

export type TakeOutcome =
  | { ok: true; claim: HeldClaim; tookOver: HeldClaim | null }
  | { ok: false; reason: 'held'; holder: HeldClaim }
  | { ok: false; reason: 'unreachable' };

export interface ClaimsOptions {
  remote: string;
  machine: string;
  /** Who this machine works for (git's user.name and user.email). */
  person: { name: string; email: string };
  /** Seconds a claim lasts unless renewed. */
  leaseSeconds: number;
  clock?: Clock;
  /** Where claims that are not used (too large, not a blob, malformed) are named. */
  rejected?: RejectedObjects;
}

/** A claim as stored: what its readers rely on, typed; strings of a line's length, without NUL. */
const line = z
  .string()
  .max(512)
  .refine((s) => !s.includes('\0'));
const claimSchema = z.looseObject({
  conflict: z.string().regex(/^(0|[1-9][0-9]{0,5})-(0|[1-9][0-9]{0,5})$/),
  machine: line,
  name: line.default(''),
  email: line.default(''),
  at: line.default(''),
  expires: line.refine((s) => Number.isFinite(Date.parse(s))),
});

/**
 * Claims on the conflicts of run NAME: one ref per conflict, `refs/splintercat/NAME/claims/CONFLICT`,
 * pointing at a blob with the claim's JSON. Git's atomic ref update decides every race: a claim is
 * created only if the ref is absent, renewed or released only while it still holds this machine's
 * blob, and taken over after its expiry only by naming the old blob, so of two machines taking one
 * conflict at once exactly one push applies.
 */
export class Claims {
  private readonly clock: Clock;
  /** The claims on the remote this process left out, each named once. */
  readonly rejected: RejectedObjects;
  /** The refs of the last listing that hold no usable claim, by conflict: free to take, by naming the blob they hold. */
  private readonly refused = new Map<string, string>();

  constructor(
    private readonly git: Git,
    readonly run: string,
    private readonly options: ClaimsOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.rejected = options.rejected ?? new RejectedObjects();
  }

  ref(conflict: string): string {
    return `refs/splintercat/${this.run}/claims/${conflict}`;
  }

  get machine(): string {
    return this.options.machine;
  }

  /** Every claim on the remote, by conflict (expired ones included); null when it cannot be reached. */
  async list(): Promise<Map<string, HeldClaim> | null> {
    const prefix = `refs/splintercat/${this.run}/claims/`;
    const listed = await listRemoteRefs(this.git, this.options.remote, [`${prefix}*`]);
    if (listed === null) return null;
    const unread = await Promise.all(
      [...listed.values()].map(async (oid) => (await this.git.objectInfo(oid)) === null),
    );
    // Claims taken elsewhere are blobs this clone has not seen: fetched once, all together.
    if (unread.some(Boolean)) {
      if (!(await fetchRefs(this.git, this.options.remote, [`+${prefix}*:${this.seenPrefix()}*`]))) return null;
    }
    const out = new Map<string, HeldClaim>();
    this.refused.clear();
    for (const [ref, oid] of listed) {
      const conflict = ref.slice(prefix.length);
      const claim = await this.readClaim(oid);
      if (claim.ok && claim.claim.conflict === conflict) out.set(conflict, claim.claim);
      else {
        this.rejected.add(ref, claim.ok ? `a claim on ${claim.claim.conflict}, not on this conflict` : claim.why, oid);
        this.refused.set(conflict, oid);
      }
    }
    // What was refused is not remembered: a tracking ref never keeps it.
    await this.remember(
      new Map(
        [...listed]
          .map(([ref, oid]) => [ref.slice(prefix.length), oid] as const)
          .filter(([conflict]) => !this.refused.has(conflict)),
      ),
    );
    return out;
  }

  /**
   * The claims as this clone last listed them on the remote, for when it cannot be reached now: a
   * conflict another machine held then may be held still, so an outage never hands it to a second person.
   */
  async lastSeen(): Promise<Map<string, HeldClaim>> {
    const seen = this.seenPrefix();
    const out = new Map<string, HeldClaim>();
    for (const { ref, oid } of await this.git.forEachRef(seen)) {
      const conflict = ref.slice(seen.length);
      const claim = await this.readClaim(oid);
      if (claim.ok && claim.claim.conflict === conflict) out.set(conflict, claim.claim);
    }
    return out;
  }

  private seenPrefix(): string {
    return `refs/splintercat-remotes/claims/${this.run}/`;
  }

  /** Keep `listed` (conflict to blob) as the claims last seen: a claim gone from the remote is gone here too. */
  private async remember(listed: Map<string, string>): Promise<void> {
    const seen = this.seenPrefix();
    const local = new Map((await this.git.forEachRef(seen)).map((r) => [r.ref.slice(seen.length), r.oid]));
    const updates: RefUpdate[] = [];
    for (const [conflict, oid] of listed)
      if (local.get(conflict) !== oid && (await this.git.objectInfo(oid)) !== null)
        updates.push({ ref: `${seen}${conflict}`, newOid: oid });
    for (const conflict of local.keys())
      if (!listed.has(conflict)) updates.push({ ref: `${seen}${conflict}`, delete: true });
    // One by one: a ref this clone cannot hold (a name clashing with another's) leaves the others remembered.
    for (const update of updates) await this.git.updateRefs([update]).catch(() => undefined);
  }

  /** Whether a claim no longer holds (its lease passed). */
  expired(claim: Claim): boolean {
    // A time that does not parse (a forged `"never"`) holds nothing, nor one further off than any
    // lease a clone may take (a forged year 2999): neither is a lease at all.
    const left = Date.parse(claim.expires) - this.clock.now().getTime();
    return !(left > 0 && left <= MAX_LEASE_SECONDS * 1000);
  }

  /** Whether renewing `claim` is due: a third of its lease has passed (renewing at every step would cost a push each). */
  due(claim: Claim): boolean {
    const left = Date.parse(claim.expires) - this.clock.now().getTime();
    return left < (this.options.leaseSeconds * 1000 * 2) / 3;
  }

  /**
   * Take `conflict`: create its claim, or replace an expired one, or a ref the last listing found
   * holding no usable claim (naming its blob); refused while another machine's holds.
   */
  async take(conflict: string, current?: HeldClaim | null): Promise<TakeOutcome> {
    const existing = current === undefined ? ((await this.list())?.get(conflict) ?? null) : current;
    if (existing && existing.machine !== this.machine && !this.expired(existing))
      return { ok: false, reason: 'held', holder: existing };
    const claim = await this.write(conflict);
    const pushed = await pushRefs(this.git, this.options.remote, [
      { ref: this.ref(conflict), newOid: claim.oid, expect: existing?.oid ?? this.refused.get(conflict) ?? null },
    ]);
    if (pushed.ok)
      return { ok: true, claim, tookOver: existing && existing.machine !== this.machine ? existing : null };
    if (pushed.reason === 'unreachable') return { ok: false, reason: 'unreachable' };
    // Another machine's push applied first: it holds the conflict now.
    const now = (await this.list())?.get(conflict) ?? null;
    if (now && now.machine === this.machine) return { ok: true, claim: now, tookOver: null };
    return now ? { ok: false, reason: 'held', holder: now } : { ok: false, reason: 'unreachable' };
  }

  /** Extend this machine's claim (false when it is no longer ours or the remote cannot be reached). */
  async renew(held: HeldClaim): Promise<HeldClaim | null> {
    const claim = await this.write(held.conflict);
    const pushed = await pushRefs(this.git, this.options.remote, [
      { ref: this.ref(held.conflict), newOid: claim.oid, expect: held.oid },
    ]);
    return pushed.ok ? claim : null;
  }

  /** Remove this machine's claim, only while the remote still holds it as ours. */
  async release(held: HeldClaim): Promise<boolean> {
    const pushed = await pushRefs(this.git, this.options.remote, [
      { ref: this.ref(held.conflict), newOid: null, expect: held.oid },
    ]);
    return pushed.ok;
  }

  /**
   * The release of `held` as updates carried along another push (publishRefs): each claim the
   * remote still holds as ours is removed, naming its blob; one gone or another machine's is left.
   * Once that push applies, `settled` gets every conflict of `held`: none is this machine's any more.
   */
  releasing(held: readonly HeldClaim[], settled: (conflicts: string[]) => void): PushedAlong {
    return {
      patterns: held.map((h) => this.ref(h.conflict)),
      updates: async (listed) =>
        held
          .filter((h) => listed.get(this.ref(h.conflict)) === h.oid)
          .map((h) => ({ ref: this.ref(h.conflict), newOid: null, expect: h.oid })),
      applied: async () => settled(held.map((h) => h.conflict)),
    };
  }

  private async write(conflict: string): Promise<HeldClaim> {
    const now = this.clock.now();
    const claim: Claim = {
      conflict,
      machine: this.machine,
      name: this.options.person.name,
      email: this.options.person.email,
      at: now.toISOString(),
      expires: new Date(now.getTime() + this.options.leaseSeconds * 1000).toISOString(),
    };
    const oid = await this.git.queryText(['hash-object', '-w', '--stdin'], { input: `${canonicalJson(claim)}\n` });
    return { ...claim, oid };
  }

  private async readClaim(oid: string): Promise<{ ok: true; claim: HeldClaim } | { ok: false; why: string }> {
    const read = await this.git.readBlobCapped(oid, OBJECT_LIMITS.claim);
    if (!read.ok) return read.reason === 'missing' ? { ok: false, why: 'missing' } : { ok: false, why: read.reason };
    let value: unknown;
    try {
      value = JSON.parse(read.text);
    } catch {
      return { ok: false, why: 'not JSON' };
    }
    const parsed = claimSchema.safeParse(value);
    if (!parsed.success) return { ok: false, why: 'not a claim' };
    const { conflict, machine, name, email, at, expires } = parsed.data;
    return { ok: true, claim: { conflict, machine, name, email, at, expires, oid } };
  }
}
