import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';

/**
 * Settings that override what the tree under test configures for its package managers. npm, pnpm
 * and yarn read their environment above a project's `.npmrc`/`.yarnrc(.yml)`, so these hold
 * whatever upstream commits there: no lifecycle script (`preinstall`, a git dependency's
 * `prepare`), git as found on PATH (a project's `git=./tools/wrapper.sh` is how a lockfile
 * refresh ran upstream's code), no user or global npmrc (their tokens, their registry), no
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
 * Empty npmrc files for the user and global levels, in `dir` (splintercat's own log directory, out
 * of every command's reach): npm refuses one file for both levels, so `/dev/null` cannot serve.
 * Where a sandbox does not show `dir`, npm finds no file there, which it reads as empty too.
 */
function emptyNpmrcs(dir: string): { npm_config_userconfig: string; npm_config_globalconfig: string } {
  const at = join(dir, 'empty-npmrc');
  mkdirSync(at, { recursive: true });
  const files = { npm_config_userconfig: join(at, 'user'), npm_config_globalconfig: join(at, 'global') };
  for (const file of Object.values(files)) writeFileSync(file, '');
  return files;
}

/**
 * The environment for a package manager run on a tree splintercat does not trust (a setup with
 * the network, a lockfile's regenerate command): `env` with the tree's package-manager
 * configuration neutralised, the user and global npmrc replaced by empty files kept in
 * `configDir`. Any variable of the same name in another case (`NPM_CONFIG_GIT`) is dropped,
 * since npm would read it too.
 */
export function untrustedToolEnv(
  env: Readonly<Record<string, string>>,
  cwd: string,
  configDir: string,
): Record<string, string> {
  const neutral = { ...NEUTRAL, ...emptyNpmrcs(configDir) };
  const overridden = new Set(Object.keys(neutral).map((name) => name.toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (!overridden.has(name.toLowerCase())) out[name] = value;
  const path = pathOutside(env.PATH, cwd);
  return { ...out, ...(path === undefined ? {} : { PATH: path }), ...neutral };
}
