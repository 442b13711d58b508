import type { Git } from '../../git/index.js';
import { nullLogger } from '../../log/logger.js';
import type { RunStore } from '../../store/run-store.js';
import { rejectedLine, type RejectedObject } from '../../store/sync/rejected-objects.js';
import { printableLine } from '../../util/safe-print.js';
import { checkClaims, claimText, type CheckClaim } from './check-claims.js';
import { RunShare } from './run-share.js';

/** Who holds which conflict of a shared run and until when, and who resolved what (from the records). */
export interface ShareStatus {
  remote: string;
  machine: string;
  /** False when the remote could not be read: holders unknown, resolutions as last seen here. */
  reachable: boolean;
  holders: Array<{ conflict: string; name: string; email: string; machine: string; until: string; expired: boolean }>;
  resolved: Array<{ conflict: string; person: string; machine: string; at: string }>;
  /** Checks other clones say they ran: their claims, shown apart, never counted in this clone's checks. */
  claimedChecks: CheckClaim[];
  /** What the remote holds that this clone does not use (too large, of the wrong type, malformed): where and why. */
  rejected: RejectedObject[];
}

/** The most claims, and rejected objects, the status text lists; the JSON has them all. */
const CLAIMS_SHOWN = 10;

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
  const records = [...(await share.sync.records()).values()];
  const resolved = records
    .filter((r) => r.kind === 'resolution')
    .map((r) => ({
      conflict: String(r.key.conflict),
      person: typeof r.body.person === 'string' ? r.body.person : 'someone',
      machine: typeof r.body.machine === 'string' ? r.body.machine : r.by,
      at: r.at,
    }))
    .sort((a, b) => a.at.localeCompare(b.at));
  // A claim on a resolved conflict holds nothing (its holder releases it as it publishes): one left
  // there, stale or pushed by anyone, is not shown as holding the conflict.
  const settled = new Set(resolved.map((r) => r.conflict));
  const holders = [...(claims?.values() ?? [])]
    .filter((c) => !settled.has(c.conflict))
    .map((c) => ({
      conflict: c.conflict,
      name: c.name,
      email: c.email,
      machine: c.machine,
      until: c.expires,
      expired: share.claims.expired(c),
    }))
    .sort((a, b) => a.conflict.localeCompare(b.conflict));
  return {
    remote: share.settings.remote,
    machine: share.settings.machine,
    reachable: reachable && claims !== null,
    holders,
    resolved,
    claimedChecks: checkClaims(records, share.settings.machine),
    rejected: share.rejected.list(),
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
  const older = s.resolved.length - CLAIMS_SHOWN;
  if (older > 0) lines.push(`  ${older} earlier resolution(s) published (see --json)`);
  for (const r of s.resolved.slice(-CLAIMS_SHOWN))
    lines.push(`  ${r.conflict} resolved by ${r.person} on ${r.machine} at ${r.at}`);
  const hidden = s.claimedChecks.length - CLAIMS_SHOWN;
  if (hidden > 0) lines.push(`  ${hidden} older check claim(s) of other clones (see --json)`);
  for (const c of s.claimedChecks.slice(-CLAIMS_SHOWN)) lines.push(`  ${claimText(c)}`);
  if (s.rejected.length > 0) lines.push(`  ${s.rejected.length} object(s) of the remote skipped:`);
  for (const r of s.rejected.slice(0, CLAIMS_SHOWN)) lines.push(`    ${rejectedLine(r)}`);
  if (s.rejected.length > CLAIMS_SHOWN) lines.push(`    and ${s.rejected.length - CLAIMS_SHOWN} more (see --json)`);
  // Names, machines and times are any teammate's text (claims and records): one printable line each.
  return lines.map(printableLine).join('\n');
}
