import type { Git } from '../../git/index.js';
import { listRemoteRefs, pushRefs, type RemoteRefUpdate } from '../../git/remote-refs.js';

export type MirrorOutcome =
  | {
      ok: true;
      rounds: number;
      /** Refs set or deleted on the remote. */
      pushed: string[];
      /** Refs the remote changed and this repository did not: left as they are (for a pull to adopt). */
      remoteChanged: string[];
      /** Refs both changed since they last agreed: left as they are on both sides. */
      diverged: string[];
    }
  | { ok: false; reason: 'unreachable' | 'contended'; rounds: number };

/** Refs mirrored to a remote: those under `prefix` (ending in `/`) or the one ref `prefix`, with the values both sides last agreed on kept under `agreed`. */
export interface MirroredRefs {
  prefix: string;
  agreed: string;
}

/**
 * Updates that go in the same atomic push as the mirrored refs, decided from the remote's refs as
 * listed in that round (e.g. records combined with the remote's, a claim released while it is still ours).
 */
export interface PushedAlong {
  /** ls-remote patterns listed with the mirrored refs. */
  patterns: string[];
  /** The updates for this round's listing; undefined when what they need cannot be fetched (the remote is unreachable). */
  updates(listed: Map<string, string>): Promise<RemoteRefUpdate[] | undefined>;
  /** Called once the round's push applied, with every update of `along` it carried (maybe none). */
  applied?(updates: RemoteRefUpdate[]): Promise<void>;
}

export interface MirrorOptions {
  maxRounds?: number;
  /** Called between reading the remote and pushing to it (where another machine's push makes this one's rejected). */
  beforePush?: (round: number) => Promise<void>;
  along?: PushedAlong;
}

/**
 * Publish the refs of `mirrored` (e.g. `refs/imerge/NAME/manual/`, or one exact ref) to `remote`,
 * ref by ref three-way against the value both sides last agreed on: a ref only this repository
 * changed is pushed, one only the remote changed is left for a pull, one both changed is reported
 * and left. Every round lists the remote once and pushes once, the updates `along` decides
 * included, as one atomic compare-and-swap naming each ref's value as read; a remote that moved
 * meanwhile rejects it and the round starts again.
 */
export async function publishRefs(
  git: Git,
  remote: string,
  mirrored: MirroredRefs | readonly MirroredRefs[],
  options: MirrorOptions = {},
): Promise<MirrorOutcome> {
  const sets = Array.isArray(mirrored) ? (mirrored as readonly MirroredRefs[]) : [mirrored as MirroredRefs];
  const maxRounds = options.maxRounds ?? 10;
  const patterns = [
    ...sets.map((s) => (s.prefix.endsWith('/') ? `${s.prefix}*` : s.prefix)),
    ...(options.along?.patterns ?? []),
  ];
  for (let round = 1; round <= maxRounds; round++) {
    const listed = patterns.length > 0 ? await listRemoteRefs(git, remote, patterns) : new Map<string, string>();
    if (listed === null) return { ok: false, reason: 'unreachable', rounds: round };
    const updates: RemoteRefUpdate[] = [];
    const outcome = { remoteChanged: [] as string[], diverged: [] as string[] };
    const agreedNow: Array<{ name: string; oid: string | null }> = [];
    for (const set of sets) {
      const agreedName = (ref: string): string => `${set.agreed}${ref.slice(set.prefix.length)}`;
      const local = await refsUnder(git, set.prefix);
      const agreed = await refsUnder(git, set.agreed);
      const remoteRefs = [...listed].filter(([ref]) => under(ref, set.prefix));
      for (const ref of new Set([...local.keys(), ...remoteRefs.map(([ref]) => ref)])) {
        const l = local.get(ref) ?? null;
        const r = listed.get(ref) ?? null;
        const base = agreed.get(agreedName(ref)) ?? null;
        const settle = (oid: string | null): void => {
          if (base !== oid) agreedNow.push({ name: agreedName(ref), oid });
        };
        if (l === r) settle(l);
        else if (r === base) {
          updates.push({ ref, newOid: l, expect: r });
          settle(l);
        } else if (l === base) outcome.remoteChanged.push(ref);
        else outcome.diverged.push(ref);
      }
    }
    const along = options.along ? await options.along.updates(listed) : [];
    if (along === undefined) return { ok: false, reason: 'unreachable', rounds: round };
    await options.beforePush?.(round);
    const pushed = await pushRefs(git, remote, [...updates, ...along], { atomic: true });
    if (!pushed.ok && pushed.reason === 'unreachable') return { ok: false, reason: 'unreachable', rounds: round };
    if (!pushed.ok) continue;
    await git.updateRefs(
      agreedNow.map(({ name, oid }) =>
        oid === null ? { ref: name, delete: true as const } : { ref: name, newOid: oid },
      ),
    );
    await options.along?.applied?.(along);
    return { ok: true, rounds: round, pushed: [...updates, ...along].map((u) => u.ref), ...outcome };
  }
  return { ok: false, reason: 'contended', rounds: maxRounds };
}

/** Several `PushedAlong` as one: listed together, their updates in the same push (undefined when any is). */
export function alongWith(...parts: PushedAlong[]): PushedAlong {
  return {
    patterns: parts.flatMap((p) => p.patterns),
    async updates(listed) {
      const out: RemoteRefUpdate[] = [];
      for (const part of parts) {
        const updates = await part.updates(listed);
        if (updates === undefined) return undefined;
        out.push(...updates);
      }
      return out;
    },
    async applied(updates) {
      for (const part of parts) await part.applied?.(updates);
    },
  };
}

function under(ref: string, prefix: string): boolean {
  return prefix.endsWith('/') ? ref.startsWith(prefix) : ref === prefix;
}

async function refsUnder(git: Git, prefix: string): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  if (!prefix.endsWith('/')) {
    const oid = await git.revParse(prefix);
    if (oid !== null) refs.set(prefix, oid);
    return refs;
  }
  for (const { ref, oid } of await git.forEachRef(prefix)) refs.set(ref, oid);
  return refs;
}
