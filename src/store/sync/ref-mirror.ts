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

/**
 * Publish the refs under `prefix` (e.g. `refs/imerge/NAME/`, or one exact ref) to `remote`, ref by
 * ref three-way against the value both sides last agreed on (kept under `agreedPrefix`): a ref
 * only this repository changed is pushed, one only the remote changed is left for a pull, one
 * both changed is reported and left. Every push is one atomic compare-and-swap naming each ref's
 * value as read; a remote that moved meanwhile rejects it and the round starts again.
 */
export async function publishRefs(
  git: Git,
  remote: string,
  prefix: string,
  agreedPrefix: string,
  options: { maxRounds?: number; beforePush?: (round: number) => Promise<void> } = {},
): Promise<MirrorOutcome> {
  const exact = !prefix.endsWith('/');
  const agreedName = (ref: string): string => `${agreedPrefix}${ref.slice(prefix.length)}`;
  const maxRounds = options.maxRounds ?? 10;
  for (let round = 1; round <= maxRounds; round++) {
    const remoteRefs = await listRemoteRefs(git, remote, [exact ? prefix : `${prefix}*`]);
    if (remoteRefs === null) return { ok: false, reason: 'unreachable', rounds: round };
    const local = await refsUnder(git, prefix, exact);
    const agreed = await refsUnder(git, agreedPrefix, exact);
    const updates: RemoteRefUpdate[] = [];
    const outcome = { remoteChanged: [] as string[], diverged: [] as string[] };
    const nowAgreed: Array<[string, string | null]> = [];
    for (const ref of new Set([...local.keys(), ...remoteRefs.keys()])) {
      const l = local.get(ref) ?? null;
      const r = remoteRefs.get(ref) ?? null;
      const base = agreed.get(agreedName(ref)) ?? null;
      if (l === r) nowAgreed.push([ref, l]);
      else if (r === base) updates.push({ ref, newOid: l, expect: r });
      else if (l === base) outcome.remoteChanged.push(ref);
      else outcome.diverged.push(ref);
    }
    await options.beforePush?.(round);
    const pushed = await pushRefs(git, remote, updates, { atomic: true });
    if (!pushed.ok && pushed.reason === 'unreachable') return { ok: false, reason: 'unreachable', rounds: round };
    if (!pushed.ok) continue;
    for (const u of updates) nowAgreed.push([u.ref, u.newOid]);
    await git.updateRefs(
      nowAgreed
        .filter(([ref, oid]) => (agreed.get(agreedName(ref)) ?? null) !== oid)
        .map(([ref, oid]) =>
          oid === null ? { ref: agreedName(ref), delete: true as const } : { ref: agreedName(ref), newOid: oid },
        ),
    );
    return { ok: true, rounds: round, pushed: updates.map((u) => u.ref), ...outcome };
  }
  return { ok: false, reason: 'contended', rounds: maxRounds };
}

async function refsUnder(git: Git, prefix: string, exact: boolean): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  if (exact) {
    const oid = await git.revParse(prefix);
    if (oid !== null) refs.set(prefix, oid);
    return refs;
  }
  for (const { ref, oid } of await git.forEachRef(prefix)) refs.set(ref, oid);
  return refs;
}
