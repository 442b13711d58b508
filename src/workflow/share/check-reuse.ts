import { createCheckLog } from '../../checks/log-file.js';
import type { CheckResult } from '../../checks/types.js';
import type { Git } from '../../git/index.js';
import type { SyncRecord } from '../../store/sync/record.js';
import { shortOid } from '../../util/short-oid.js';
import { commandDigest, type RunShare } from './run-share.js';

/**
 * A passing result another machine published for check `name` on a commit with the same tree as
 * `commit` (same command), taken as this machine's: the check is not run again. Failures are
 * always run here (their log, their judgement and any bisection need the local run, and a flaky
 * failure is not passed on). Null when there is none, or the run is not shared.
 */
export async function reusedCheck(
  git: Git,
  share: RunShare,
  name: string,
  command: string,
  commit: string,
  logDir: string,
  now: Date,
): Promise<{ result: CheckResult; from: SyncRecord } | null> {
  const tree = await git.revParse(`${commit}^{tree}`);
  if (tree === null) return null;
  await share.sync.pull();
  const digest = commandDigest(command);
  let from: SyncRecord | null = null;
  for (const r of (await share.sync.records()).values())
    if (r.kind === 'check' && r.key.check === name && r.body.tree === tree && r.body.command === digest)
      if (r.body.success === true && r.by !== share.settings.machine) from = r;
  if (from === null) return null;
  const text = [
    `splintercat: check '${name}' was not run on ${shortOid(commit)}: ${from.by} ran it on the same tree ${shortOid(tree)} and it passed.`,
    `its commit: ${String(from.key.commit)}; at ${String(from.key.at)}`,
    '',
  ].join('\n');
  const { path, out } = createCheckLog(logDir, name, now, await git.topLevel());
  await new Promise<void>((done) => out.end(text, done));
  const result: CheckResult = {
    name,
    command,
    success: true,
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 0,
    logFile: path,
    tail: text.trimEnd().split('\n'),
  };
  return { result, from };
}
