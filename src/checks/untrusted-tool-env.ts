import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';

/**
 * Settings that override what the tree under test configures for its package managers. npm, pnpm
 * and yarn read their environment above a project's `.npmrc`/`.yarnrc(.yml)`, so these hold
 * whatever upstream commits there: no lifecycle script (`preinstall`, a git dependency's
 * `prepare`), git as found on PATH (a project's `git=./tools/wrapper.sh` is how a lockfile
 * refresh ran upstream's code), no user npmrc (the person's tokens), no
 * `yarnPath` binary or `.pnpmfile.cjs` hook from the tree.
 */
const NEUTRAL: Readonly<Record<string, string>> = {
  npm_config_ignore_scripts: 'true',
  npm_config_git: 'git',
  npm_config_ignore_pnpmfile: 'true',
  YARN_ENABLE_SCRIPTS: 'false',
  YARN_IGNORE_SCRIPTS: 'true',
  YARN_IGNORE_PATH: '1',
};

/**
 * A PATH without the entries that name the tree under test: relative ones and empty ones (both
 * resolve against the working directory, where upstream may commit a `git` or a `node_modules/.bin`)
 * and any inside `cwd`.
 */
function pathOutside(path: string | undefined, cwd: string): string | undefined {
  if (path === undefined) return undefined;
  const tree = resolve(cwd);
  const kept = path
    .split(delimiter)
    .filter((dir) => dir !== '' && isAbsolute(dir))
    .filter((dir) => resolve(dir) !== tree && !resolve(dir).startsWith(`${tree}${sep}`));
  return kept.join(delimiter);
}

/**
 * An empty npmrc for the user level, in `dir` (splintercat's own log directory, out of every
 * command's reach): the person's `~/.npmrc` holds their registry tokens. The global npmrc is the
 * machine's own (its `cafile`, its proxy), never the tree's, and is left to npm. Where a sandbox
 * does not show `dir`, npm finds no file there, which it reads as empty too.
 */
function emptyUserNpmrc(dir: string): { npm_config_userconfig: string } {
  const at = join(dir, 'empty-npmrc');
  mkdirSync(at, { recursive: true });
  const file = join(at, 'user');
  writeFileSync(file, '');
  return { npm_config_userconfig: file };
}

/**
 * The environment for a package manager run on a tree splintercat does not trust (a setup with
 * the network, a lockfile's regenerate command): `env` with the tree's package-manager
 * configuration neutralised, the user npmrc replaced by an empty file kept in `configDir`. Any variable of the same name in another case (`NPM_CONFIG_GIT`) is dropped,
 * since npm would read it too.
 */
export function untrustedToolEnv(
  env: Readonly<Record<string, string>>,
  cwd: string,
  configDir: string,
): Record<string, string> {
  const neutral = { ...NEUTRAL, ...emptyUserNpmrc(configDir) };
  const overridden = new Set(Object.keys(neutral).map((name) => name.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (!overridden.has(name.toLowerCase())) out[name] = value;
  const path = pathOutside(env.PATH, cwd);
  return { ...out, ...(path === undefined ? {} : { PATH: path }), ...neutral };
}
