// The three functions alone: the whole package loads its ranges too (6 ms more start-up).
import compare from 'semver/functions/compare.js';
import valid from 'semver/functions/valid.js';
import { splitLinesKeep } from '../parse/lines.js';
import type { ResolutionRule } from './rule.js';

/** One dependency line: the text before the version, the version and what follows it. */
interface DependencyLine {
  name: string;
  head: string;
  version: string;
  tail: string;
}

/**
 * Dependency lines whose version is one exact semver, with at most a caret or
 * tilde: `"qs": "^6.9.4",` (package.json), `name = "1.2.3"` (TOML),
 * `name==1.2.3` (requirements). Ranges (`^5 || ^6`, `>=1 <2`) are not read.
 */
const PATTERNS: readonly RegExp[] = [
  /^(\s*"([^"]+)"\s*:\s*"[~^]?)([^"\s]+)(",?\s*)$/, // package.json
  /^(\s*([A-Za-z0-9_.-]+)\s*=\s*"[~^]?)([^"\s]+)("\s*)$/, // TOML
  /^(\s*([A-Za-z0-9_.-]+)\s*(?:==|>=|~=)\s*)([^\s;#,]+)(\s*)$/, // requirements
];

function dependencyLine(line: string): DependencyLine | null {
  for (const pattern of PATTERNS) {
    const m = pattern.exec(line.replace(/\r?\n$/, ''));
    if (m && valid(m[3] ?? '') !== null)
      return { head: m[1] as string, name: m[2] as string, version: m[3] as string, tail: m[4] as string };
  }
  return null;
}

/** The merged line, or null when the rule cannot be sure. */
function mergeLine(base: string, ours: string, theirs: string): string | null {
  const [b, o, t] = [dependencyLine(base), dependencyLine(ours), dependencyLine(theirs)];
  if (!b || !o || !t || b.name !== o.name || o.name !== t.name) return null;
  // A package's own version is a release number a person chooses (the corpus has one set past both sides).
  if (b.name.toLowerCase() === 'version') return null;
  if (ours === base || ours === theirs) return theirs;
  if (theirs === base) return ours;
  if (o.head !== t.head || o.tail !== t.tail) return null;
  // Both raised it: the higher upgrade includes the other. A side that lowered it pinned it on purpose.
  if (compare(o.version, b.version) <= 0 || compare(t.version, b.version) <= 0) return null;
  const order = compare(o.version, t.version);
  return order > 0 ? ours : order < 0 ? theirs : null;
}

/**
 * Both sides raised the version of the same dependency (package.json,
 * requirements, TOML): keep the higher one, which includes the lower
 * upgrade, as a contained change does. Each line of the hunk must be the same
 * dependency on all three sides, with one exact version (a caret or tilde
 * kept alike); a line only one side changed takes that change. Abstains where
 * a side lowered the version (a deliberate pin), on ranges, on different
 * prefixes, and on a package's own `version` (in the corpus a person set
 * `0.2.0-alpha.8` where the sides had `0.2.0-alpha.7` and `0.1.6`).
 *
 * Measured alone (`splintercat eval --all-rules`): 4 of 400 corpus hunks,
 * all as the person did; on the three real fork histories (`eval --repo`)
 * 4 body-parser hunks and 1 serve-static hunk, all as the maintainer did.
 */
export const higherVersion: ResolutionRule = {
  name: 'higher-version',
  description: 'both sides raised the version of the same dependency; keep the higher',
  enabledByDefault: true,
  resolve: ({ base, ours, theirs }) => {
    if (base === null) return null;
    const [b, o, t] = [base, ours, theirs].map((s) => splitLinesKeep(s)) as [string[], string[], string[]];
    if (b.length === 0 || b.length !== o.length || o.length !== t.length) return null;
    const out: string[] = [];
    for (const [i, line] of b.entries()) {
      const merged = mergeLine(line, o[i] as string, t[i] as string);
      if (merged === null) return null;
      out.push(merged);
    }
    return out.join('');
  },
};
