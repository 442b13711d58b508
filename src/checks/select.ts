import picomatch from 'picomatch';

/** Which of the candidate checks a set of changed paths selects, and why (for the decision log). */
export interface Selection {
  /** The candidates to run, in their order. */
  checks: string[];
  /** The candidates left out: no changed path is covered by them. */
  skipped: string[];
  /** Paths no glob matches (each selects every candidate). */
  unmatched: string[];
}

/**
 * Test selection (`check.select`: glob -> checks covering the paths it matches). A candidate no
 * glob names always runs (a build, say); a named one runs when a changed path matches one of its
 * globs; a path that no glob matches could be covered by anything, so it selects every candidate.
 * With no globs every candidate runs. Globs without a `/` match the file name anywhere.
 */
export function selectChecks(
  candidates: readonly string[],
  select: Readonly<Record<string, readonly string[]>>,
  paths: readonly string[],
): Selection {
  const rules = Object.entries(select).map(([glob, checks]) => ({
    match: picomatch(glob, { dot: true, basename: !glob.includes('/') }),
    checks,
  }));
  const named = new Set(rules.flatMap((r) => r.checks));
  const chosen = new Set<string>();
  const unmatched: string[] = [];
  for (const path of paths) {
    const hits = rules.filter((r) => r.match(path));
    if (hits.length === 0) unmatched.push(path);
    for (const r of hits) for (const c of r.checks) chosen.add(c);
  }
  const all = unmatched.length > 0 || rules.length === 0;
  const checks = candidates.filter((c) => all || !named.has(c) || chosen.has(c));
  return { checks, skipped: candidates.filter((c) => !checks.includes(c)), unmatched };
}
