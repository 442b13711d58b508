import { splitLinesKeep } from '../parse/lines.js';
import type { ResolutionRule } from './rule.js';
import { compareVersions } from './version-order.js';
import { versionedLine } from './version-lines.js';

/**
 * Versions a person chooses rather than bumps: a package's own release number
 * (the corpus has one set past both sides), and the minimum toolchain or
 * language a project declares.
 */
const CHOSEN = new Set(['version', 'rust-version', 'requires-python', 'python_requires', 'edition', 'go', 'toolchain']);

/** The merged line and whether both sides raised it, or null when the rule cannot be sure. */
function mergeLine(base: string, ours: string, theirs: string, path: string): { line: string; both: boolean } | null {
  const one = (line: string): { line: string; both: boolean } => ({ line, both: false });
  if (base === ours && ours === theirs) return one(base);
  const [b, o, t] = [versionedLine(base, path), versionedLine(ours, path), versionedLine(theirs, path)];
  if (!b || !o || !t || b.name !== o.name || o.name !== t.name || b.scheme !== o.scheme || o.scheme !== t.scheme)
    return null;
  if (CHOSEN.has(b.name.toLowerCase())) return null;
  // Both made the same change: that dependency was raised alike on both sides.
  if (ours === theirs) return { line: ours, both: compareVersions(o.version, b.version, b.scheme) === 1 };
  if (ours === base) return one(theirs);
  if (theirs === base) return one(ours);
  if (o.shape !== t.shape) return null;
  // A commit pinned beside its version moves with it (an action's SHA and its `# v4.3.4`), or the pair is not read.
  if ([b, o, t].some((x) => (x.pin === null) !== (b.pin === null))) return null;
  if (b.pin !== null && [o, t].some((x) => (x.pin !== b.pin) !== (x.version !== b.version))) return null;
  // Both raised it: the higher upgrade includes the other. A side that lowered it pinned it on purpose.
  const raisedOurs = compareVersions(o.version, b.version, b.scheme);
  const raisedTheirs = compareVersions(t.version, b.version, b.scheme);
  if (raisedOurs === null || raisedTheirs === null || raisedOurs <= 0 || raisedTheirs <= 0) return null;
  const order = compareVersions(o.version, t.version, b.scheme);
  return order === null || order === 0 ? null : { line: order > 0 ? ours : theirs, both: true };
}

/**
 * Both sides raised the version of the same dependency: keep the higher one,
 * which includes the lower upgrade, as a contained change does. Reads
 * package.json (semver), requirements and pyproject.toml (PEP 440: `23.1`,
 * `2.0.post1`), Cargo and Poetry TOML, go.mod `require` lines, a pre-commit
 * hook's `rev:`, a GitHub Actions `uses: owner/action@v4` or
 * `@<sha> # v4.3.4` (the SHA and its comment must move together), and a
 * Dockerfile's `FROM image:3.11-slim` (the variant kept alike). Each line of
 * the hunk must be the same dependency on all three sides (or the same line
 * on all three); a line only one side changed takes that change. Abstains
 * where a side lowered the version (a deliberate pin), on ranges, on
 * different prefixes or variants, on Go pseudo-versions, and on versions a
 * person chooses (a package's own `version`, `rust-version`, `go`).
 */
export const higherVersion: ResolutionRule = {
  name: 'higher-version',
  description: 'both sides raised the version of the same dependency; keep the higher',
  enabledByDefault: true,
  cost: 'superlinear',
  decidesContained: ['dependency-pins'],
  resolve: ({ base, ours, theirs }, { path }) => {
    if (base === null) return null;
    const [b, o, t] = [base, ours, theirs].map((s) => splitLinesKeep(s)) as [string[], string[], string[]];
    if (b.length === 0 || b.length !== o.length || o.length !== t.length) return null;
    const merged = b.map((line, i) => mergeLine(line, o[i] as string, t[i] as string, path));
    // Without a dependency both sides raised, the hunk is edits of neighbouring lines, which are often
    // related (the corpus: each side bumped another pin, and the person also added a third).
    if (merged.some((m) => m === null) || !merged.some((m) => m?.both)) return null;
    return merged.map((m) => m?.line).join('');
  },
};
