import type { Git } from '../../git/index.js';
import type { SyncRecord } from '../../store/sync/record.js';
import { printableName } from '../../util/safe-print.js';
import { shortOid } from '../../util/short-oid.js';
import { commandDigest } from './publication.js';
import type { RunShare } from './run-share.js';

/** What another clone's check record says about one check of one tree: its claim, never this clone's result. */
export interface CheckClaim {
  check: string;
  /** The clone that published it (its machine name, printable). */
  by: string;
  success: boolean;
  tree: string;
  commit: string;
  at: string;
}

/**
 * Other clones' check records of a shared run, as claims. Anyone who can push to the remote can
 * write a record saying a check passed, so a record never stands for a check run here: it is shown
 * (the log, `status`) as what that clone says, and the check is still run by this clone or its own
 * CI. `only` narrows them to one check of one tree (same command).
 */
export function checkClaims(
  records: Iterable<SyncRecord>,
  machine: string,
  only?: { check: string; command: string; tree: string },
): CheckClaim[] {
  const digest = only ? commandDigest(only.command) : null;
  const claims: CheckClaim[] = [];
  for (const r of records) {
    if (r.kind !== 'check' || r.by === machine) continue;
    const { check, commit } = r.key;
    const { tree, command, success } = r.body;
    if (typeof check !== 'string' || typeof tree !== 'string' || typeof success !== 'boolean') continue;
    if (only && (check !== only.check || tree !== only.tree || command !== digest)) continue;
    claims.push({
      check: printableName(check),
      by: printableName(r.by),
      success,
      tree,
      commit: typeof commit === 'string' ? commit : '',
      at: r.at,
    });
  }
  return claims.sort((a, b) => a.at.localeCompare(b.at));
}

/**
 * The claims other clones published for check `name` on the tree of `commit`, read from the
 * remote's records now: what the log says before the check runs here anyway.
 */
export async function claimsFor(
  git: Git,
  share: RunShare,
  name: string,
  command: string,
  commit: string,
): Promise<CheckClaim[]> {
  const tree = await git.revParse(`${commit}^{tree}`);
  if (tree === null) return [];
  await share.sync.pull();
  return checkClaims((await share.sync.records()).values(), share.settings.machine, { check: name, command, tree });
}

/** `quick passed on alice's clone (its claim, not counted here)`, for the log and status. */
export function claimText(claim: CheckClaim): string {
  const outcome = claim.success ? 'passed' : 'failed';
  return `${claim.check} ${outcome} on ${claim.by}'s clone on tree ${shortOid(claim.tree)} (its claim, not counted here)`;
}
