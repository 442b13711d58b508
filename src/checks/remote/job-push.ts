import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Git } from '../../git/index.js';
import { NEUTRALISED_CONFIG } from '../../git/git-env.js';
import { registerSecrets } from '../../util/secret-registry.js';

/** The account a CI job pushes its result as: a user name and the token, read from the job's environment. */
export interface PushCredential {
  user: string;
  token: string;
}

/**
 * Git reads the token from its own environment when the remote asks for it, so the token is on no
 * command line, in no file and in no git config a check could have read or written.
 */
const CREDENTIAL_HELPER =
  '!f() { test "$1" = get || exit 0; echo "username=$SPLINTERCAT_JOB_USER"; echo "password=$SPLINTERCAT_JOB_TOKEN"; }; f';

/**
 * Run `fn` with a Git that pushes the job clone's objects from a fresh bare repository of its own.
 * The check ran in the clone and may have rewritten its `.git/config` (the remote's URL, an
 * `insteadOf`, a proxy): the push with the token reads none of it, only the clone's objects
 * (as alternates), and goes to `remote` as given (a URL, or a remote name read from the clone
 * before anything of the check could run, by the caller).
 */
export async function withPushGit<T>(
  clone: Git,
  credential: PushCredential | null,
  fn: (git: Git) => Promise<T>,
): Promise<T> {
  const objects = await clone.text(['rev-parse', '--path-format=absolute', '--git-path', 'objects']);
  const dir = mkdtempSync(join(tmpdir(), 'splintercat-push-'));
  try {
    await clone.run(['init', '--quiet', '--bare', '--', dir]);
    writeFileSync(join(dir, 'objects', 'info', 'alternates'), `${objects}\n`);
    if (credential) registerSecrets([credential.token]);
    const n = NEUTRALISED_CONFIG.length;
    const env: Record<string, string> = credential
      ? {
          GIT_CONFIG_COUNT: String(n + 1),
          [`GIT_CONFIG_KEY_${n}`]: 'credential.helper',
          [`GIT_CONFIG_VALUE_${n}`]: CREDENTIAL_HELPER,
          SPLINTERCAT_JOB_USER: credential.user,
          SPLINTERCAT_JOB_TOKEN: credential.token,
        }
      : {};
    const git = clone.at(dir, { env });
    try {
      return await fn(git);
    } finally {
      git.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Where `withPushGit`'s repository pushes for `remote`: a URL as it is, a path made absolute
 * against the clone, a remote's name looked up in the clone (whose configuration the check may
 * have changed: a job gives the URL, from the CI's own variables).
 */
export async function pushTarget(clone: Git, remote: string): Promise<string> {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote) || /^[^/]+@[^/]+:/.test(remote)) return remote;
  if (remote.includes('/') || remote.startsWith('.')) return isAbsolute(remote) ? remote : resolve(clone.cwd, remote);
  return clone.text(['remote', 'get-url', '--', remote]);
}
