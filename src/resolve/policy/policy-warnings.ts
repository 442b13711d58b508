import type { Git } from '../../git/index.js';
import { unmatchedGlobs, type PathRule } from './path-policy.js';
import { shortOid } from '../../util/short-oid.js';

/**
 * A warning for each `resolve.paths` glob that matches no file of any of the given commits
 * (both tips of a merge): a typo, or a path the fork no longer has. Not an error: the policy
 * may be written ahead of the files it is for.
 */
export async function policyWarnings(
  git: Git,
  rules: readonly PathRule[],
  commits: readonly string[],
): Promise<string[]> {
  if (rules.length === 0) return [];
  const paths = new Set<string>();
  for (const commit of commits) {
    const listed = await git.run(['ls-tree', '-r', '-z', '--name-only', commit], { okExitCodes: [0, 128] });
    for (const path of listed.stdout.split('\0')) if (path !== '') paths.add(path);
  }
  return unmatchedGlobs(rules, [...paths]).map(
    (glob) =>
      `resolve.paths: "${glob}" matches no file of ${commits.map((c) => shortOid(c)).join(' or ')}; check the glob (a glob without a slash matches a file name in any folder)`,
  );
}
