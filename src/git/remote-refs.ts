import type { Git } from './git.js';

/**
 * One ref to set on a remote, as a compare-and-swap: `newOid` null deletes it; `expect` is the
 * value the remote must hold for the update to apply (null: the ref must not exist; undefined:
 * any value, a plain push that must still fast-forward unless `force`).
 */
export interface RemoteRefUpdate {
  ref: string;
  newOid: string | null;
  expect?: string | null;
  /** Without `expect`: allow a non-fast-forward update. */
  force?: boolean;
}

/** How one ref of a push ended, from `git push --porcelain`. */
interface PushedRef {
  ref: string;
  /** new, updated, deleted, unchanged, rejected. */
  status: 'new' | 'updated' | 'deleted' | 'unchanged' | 'rejected';
  /** git's summary, e.g. `[rejected] (stale info)`. */
  summary: string;
}

export type PushOutcome =
  /** Every ref applied (or was already so). */
  | { ok: true; refs: PushedRef[] }
  /** The remote moved: some expected value did not hold (with `atomic`, nothing applied). */
  | { ok: false; reason: 'rejected'; refs: PushedRef[]; stderr: string }
  /** No answer from the remote (missing, unreachable, refused): nothing applied. */
  | { ok: false; reason: 'unreachable'; refs: []; stderr: string };

/**
 * Push `updates` to `remote` (a remote name or URL) as compare-and-swaps: each ref with
 * `--force-with-lease=REF:EXPECT`, all or none with `atomic` (`git push --atomic`, which the
 * remote must support; file and smart remotes of git >= 2.4 do). The outcome is a value: a push
 * rejected because the remote moved is `rejected`, a remote that cannot be reached `unreachable`.
 */
export async function pushRefs(
  git: Git,
  remote: string,
  updates: readonly RemoteRefUpdate[],
  options: { atomic?: boolean; timeoutMs?: number } = {},
): Promise<PushOutcome> {
  if (updates.length === 0) return { ok: true, refs: [] };
  const args = ['push', '--porcelain', '--no-verify'];
  if (options.atomic) args.push('--atomic');
  for (const u of updates) if (u.expect !== undefined) args.push(`--force-with-lease=${u.ref}:${u.expect ?? ''}`);
  args.push('--end-of-options', remote);
  for (const u of updates) args.push(`${u.force && u.expect === undefined ? '+' : ''}${u.newOid ?? ''}:${u.ref}`);
  const result = await git.run(args, { okExitCodes: [0, 1, 128], timeoutMs: options.timeoutMs ?? 120_000 });
  const refs = parsePorcelain(result.stdout);
  if (refs.length === 0 && result.exitCode !== 0)
    return { ok: false, reason: 'unreachable', refs: [], stderr: result.stderr.trim() };
  if (result.exitCode === 0 && refs.every((r) => r.status !== 'rejected')) return { ok: true, refs };
  return { ok: false, reason: 'rejected', refs, stderr: result.stderr.trim() };
}

/** `git push --porcelain` lines: `FLAG \t FROM:TO \t SUMMARY`. */
function parsePorcelain(stdout: string): PushedRef[] {
  const out: PushedRef[] = [];
  for (const line of stdout.split('\n')) {
    const match = /^([ +\-*!=])\t([^\t]*):([^\t]+)\t(.*)$/.exec(line);
    if (!match) continue;
    const flag = match[1] as string;
    const status: PushedRef['status'] =
      flag === '*'
        ? 'new'
        : flag === '-'
          ? 'deleted'
          : flag === '='
            ? 'unchanged'
            : flag === '!'
              ? 'rejected'
              : 'updated';
    out.push({ ref: match[3] as string, status, summary: (match[4] as string).trim() });
  }
  return out;
}

/** The refs of `remote` matching `patterns` (`git ls-remote`), or null when it cannot be reached. */
export async function listRemoteRefs(
  git: Git,
  remote: string,
  patterns: readonly string[],
  options: { timeoutMs?: number } = {},
): Promise<Map<string, string> | null> {
  const result = await git.run(['ls-remote', '--end-of-options', remote, ...patterns], {
    okExitCodes: [0, 2, 128],
    timeoutMs: options.timeoutMs ?? 60_000,
  });
  if (result.exitCode === 128) return null;
  const refs = new Map<string, string>();
  for (const line of result.stdout.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) refs.set(line.slice(tab + 1), line.slice(0, tab));
  }
  return refs;
}

/**
 * Fetch `refspecs` from `remote` (forced, so a local copy always takes the remote's value); false
 * when the remote cannot be reached or a ref is gone. Never touches remote-tracking branches or tags.
 */
export async function fetchRefs(
  git: Git,
  remote: string,
  refspecs: readonly string[],
  options: { timeoutMs?: number } = {},
): Promise<boolean> {
  if (refspecs.length === 0) return true;
  const result = await git.run(
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', remote, ...refspecs],
    { okExitCodes: [0, 1, 128], timeoutMs: options.timeoutMs ?? 120_000 },
  );
  return result.exitCode === 0;
}
