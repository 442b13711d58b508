// The semver functions alone: the whole package loads its ranges too (start-up time).
import compareSemver from 'semver/functions/compare.js';
import validSemver from 'semver/functions/valid.js';
import { compare as comparePep440, valid as validPep440 } from '@renovatebot/pep440';

/**
 * How a version is ordered: `semver` (npm), `pep440` (Python: `23.1`, `2.0.post1`,
 * `1.0rc1`), `tag` (an image tag, a git tag, a Cargo or Go version: semver, or
 * dotted numbers such as `3.11`, with or without a leading `v`).
 */
export type VersionScheme = 'semver' | 'pep440' | 'tag';

/** A Go pseudo-version (`v0.0.0-20210101000000-abcdef123456`): a commit, not a release; its order is a guess. */
const PSEUDO = /\d{14}-[0-9a-f]{12}$/;

const dotted = (v: string): number[] | null => (/^\d+(\.\d+)*$/.test(v) ? v.split('.').map(Number) : null);

function compareDotted(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

function compareTag(a: string, b: string): number | null {
  if (a.startsWith('v') !== b.startsWith('v') || PSEUDO.test(a) || PSEUDO.test(b)) return null;
  const [x, y] = [a.replace(/^v/, ''), b.replace(/^v/, '')];
  if (validSemver(x) !== null && validSemver(y) !== null) return compareSemver(x, y);
  const [dx, dy] = [dotted(x), dotted(y)];
  return dx && dy ? compareDotted(dx, dy) : null;
}

/** Whether `version` is one the scheme orders (a range, a branch name or a hash is not). */
export function isVersion(version: string, scheme: VersionScheme): boolean {
  if (scheme === 'semver') return validSemver(version) !== null;
  if (scheme === 'pep440') return validPep440(version) !== null;
  return compareTag(version, version) !== null;
}

/** -1, 0 or 1 as `a` is lower than, equal to or higher than `b`; null when the scheme cannot order them. */
export function compareVersions(a: string, b: string, scheme: VersionScheme): number | null {
  if (!isVersion(a, scheme) || !isVersion(b, scheme)) return null;
  if (scheme === 'semver') return compareSemver(a, b);
  if (scheme === 'pep440') return Math.sign(comparePep440(a, b));
  return compareTag(a, b);
}
