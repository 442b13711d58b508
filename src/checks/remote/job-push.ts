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

/** Where the result to push comes from: the job's clone (the step before ran the check there), or a bundle of it. */
export type ResultSource = { clone: true } | { bundle: string };

/**
 * Run `fn` with a fresh bare repository of its own holding the result ref `ref`, from which the
 * result is pushed with the token. The check ran in the clone and may have rewritten its
 * `.git/config` (the remote's URL, an `insteadOf`, a proxy) or, in another job, written the
 * bundle: the push reads none of the clone's configuration, only objects (the clone's, as
 * alternates, or the bundle's, fetched as from any remote), and the caller reads the result as
 * data before pushing it to a remote it names (a URL from the CI's own variables).
 */
export async function withPushGit<T>(
  base: Git,
  source: ResultSource,
  ref: string,
  credential: PushCredential | null,
  fn: (git: Git) => Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'splintercat-push-'));
  try {
    await base.run(['init', '--quiet', '--bare', '--', dir], { cwd: tmpdir() });
    if (credential) registerSecrets([credential.token]);
    const git = base.at(dir, { env: credential ? credentialEnv(credential) : {} });
    try {
      if ('bundle' in source) {
        const bundle = resolve(base.cwd, source.bundle);
        await git.run(['fetch', '--quiet', '--no-tags', '--', bundle, `+${ref}:${ref}`], { okExitCodes: [0, 1, 128] });
      } else {
        const objects = await base.text(['rev-parse', '--path-format=absolute', '--git-path', 'objects']);
        writeFileSync(join(dir, 'objects', 'info', 'alternates'), `${objects}\n`);
        const oid = await base.revParse(`${ref}^{commit}`);
        if (oid !== null) await git.run(['update-ref', '--no-deref', ref, oid]);
      }
      return await fn(git);
    } finally {
      git.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The environment giving git the credential helper and what it answers with, on top of the neutralised configuration. */
function credentialEnv(credential: PushCredential): Record<string, string> {
  const n = NEUTRALISED_CONFIG.length;
  return {
    GIT_CONFIG_COUNT: String(n + 1),
    [`GIT_CONFIG_KEY_${n}`]: 'credential.helper',
    [`GIT_CONFIG_VALUE_${n}`]: CREDENTIAL_HELPER,
    SPLINTERCAT_JOB_USER: credential.user,
    SPLINTERCAT_JOB_TOKEN: credential.token,
  };
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
