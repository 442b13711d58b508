import type { Git } from '../../git/index.js';
import { nullLogger } from '../../log/logger.js';
import type { RunStore } from '../../store/run-store.js';
import { printableLine } from '../../util/safe-print.js';
import { RunShare } from './run-share.js';

/** Who holds which conflict of a shared run and until when, and who resolved what (from the records). */
export interface ShareStatus {
  remote: string;
  machine: string;
  /** False when the remote could not be read: holders unknown, resolutions as last seen here. */
  reachable: boolean;
  holders: Array<{ conflict: string; name: string; email: string; machine: string; until: string; expired: boolean }>;
  resolved: Array<{ conflict: string; person: string; machine: string; at: string }>;
}

/** The share part of `status`, or null for a run that is not shared. */
export async function shareStatus(
  git: Git,
  store: RunStore,
  name: string,
  leaseSeconds: number,
): Promise<ShareStatus | null> {
  const share = await RunShare.open(git, store, name, leaseSeconds, nullLogger);
  if (!share) return null;
  const [claims, reachable] = await Promise.all([share.claims.list(), share.sync.pull()]);
  const holders = [...(claims?.values() ?? [])]
    .map((c) => ({
      conflict: c.conflict,
      name: c.name,
      email: c.email,
      machine: c.machine,
      until: c.expires,
      expired: share.claims.expired(c),
    }))
    .sort((a, b) => a.conflict.localeCompare(b.conflict));
  const resolved = [...(await share.sync.records()).values()]
    .filter((r) => r.kind === 'resolution')
    .map((r) => ({
      conflict: String(r.key.conflict),
      person: typeof r.body.person === 'string' ? r.body.person : 'someone',
      machine: typeof r.body.machine === 'string' ? r.body.machine : r.by,
      at: r.at,
    }))
    .sort((a, b) => a.at.localeCompare(b.at));
  return {
    remote: share.settings.remote,
    machine: share.settings.machine,
    reachable: reachable && claims !== null,
    holders,
    resolved,
  };
}

/** The share part of the status text. */
export function renderShareStatus(s: ShareStatus): string {
  const lines = [
    `Shared on ${s.remote} (this clone: ${s.machine})${s.reachable ? '' : ' - the remote cannot be reached now'}`,
  ];
  if (s.holders.length === 0) lines.push('  nobody holds a conflict');
  for (const h of s.holders)
    lines.push(
      `  ${h.conflict} held by ${h.name} <${h.email}> on ${h.machine} until ${h.until}${h.expired ? ' (lease ran out: anyone may take it)' : ''}`,
    );
  for (const r of s.resolved) lines.push(`  ${r.conflict} resolved by ${r.person} on ${r.machine} at ${r.at}`);
  // Names, machines and times are any teammate's text (claims and records): one printable line each.
  return lines.map(printableLine).join('\n');
}
