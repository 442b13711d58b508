import { isLockfile } from '../data/lockfiles.js';
import type { LearntHunk } from '../learnt/learnt-hunk.js';

/** A `resolve.paths` line proposed from the repository's past merges, with the evidence for it. */
export interface ProposedRule {
  glob: string;
  /** As written in YAML: `theirs`, `union theirs-first`, `{regenerate: ...}`. */
  decision: string;
  evidence: string;
}

/** A path must have conflicted in at least this many merges, all decided alike, to be proposed. */
const MIN_MERGES = 2;

/** A person's choice (as `eval` names it) as the `resolve.paths` decision that writes it; undefined for the others. */
export const decisionOfChoice: Readonly<Record<string, string>> = {
  ours: 'ours',
  theirs: 'theirs',
  'ours then theirs': 'union ours-first',
  'theirs then ours': 'union theirs-first',
};

const regenerateExample: Record<string, string> = {
  'package-lock.json': 'npm install --package-lock-only --ignore-scripts',
  'npm-shrinkwrap.json': 'npm install --package-lock-only --ignore-scripts',
  'yarn.lock': 'yarn install --mode update-lockfile',
  'pnpm-lock.yaml': 'pnpm install --lockfile-only',
  'Cargo.lock': 'cargo generate-lockfile',
  'poetry.lock': 'poetry lock --no-update',
  'uv.lock': 'uv lock',
  'go.sum': 'go mod tidy',
  'Gemfile.lock': 'bundle lock',
  'composer.lock': 'composer update --lock',
};

/**
 * A path from history as a `resolve.paths` glob that matches that path only: each character
 * picomatch gives a meaning (`*?[]{}()!+@`, the backslash) escaped, so a file named `*` proposes
 * `\\*`, never a rule for every file.
 */
function literalGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@|]/g, '\\$&');
}

const day = (time: number): string => new Date(time * 1000).toISOString().slice(0, 10);

/**
 * What the past merges propose for `resolve.paths`: a path whose every conflicted merge (at least
 * two) kept the same side, or both in the same order, gets that decision (a union only where the
 * file taken both ways parsed in every one of them); a lockfile that
 * conflicted gets its package manager's regenerate command. Each with its evidence, for the
 * maintainer to accept line by line.
 */
export function proposePolicy(hunks: readonly LearntHunk[]): ProposedRule[] {
  const byPath = new Map<string, Map<string, { time: number; choices: Set<string> }>>();
  // A union whose result did not parse in a merge of its own evidence is not what the maintainer did there.
  const unionFails = new Set(hunks.filter((h) => h.unionParses === false).map((h) => h.path));
  for (const h of hunks) {
    const merges = byPath.get(h.path) ?? new Map<string, { time: number; choices: Set<string> }>();
    const m = merges.get(h.merge) ?? { time: h.time, choices: new Set<string>() };
    m.choices.add(h.choice);
    merges.set(h.merge, m);
    byPath.set(h.path, merges);
  }
  const out: ProposedRule[] = [];
  for (const [path, merges] of [...byPath].sort((a, b) => a[0].localeCompare(b[0]))) {
    const list = [...merges.values()].sort((a, b) => a.time - b.time);
    const span = `${day(list[0]?.time ?? 0)} to ${day(list[list.length - 1]?.time ?? 0)}`;
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (isLockfile(path)) {
      const command = regenerateExample[name] ?? 'THE COMMAND THAT REWRITES IT';
      out.push({
        glob: literalGlob(path),
        decision: `{regenerate: ${command}}`,
        evidence: `a lockfile; it conflicted in ${list.length} merge(s), ${span}`,
      });
      continue;
    }
    if (list.length < MIN_MERGES) continue;
    const choices = new Set(list.flatMap((m) => [...m.choices]));
    const only = choices.size === 1 ? ([...choices][0] as string) : null;
    const decision = only === null ? undefined : decisionOfChoice[only];
    if (decision === undefined || (decision.startsWith('union') && unionFails.has(path))) continue;
    out.push({
      glob: literalGlob(path),
      decision,
      evidence: `${only} in all ${list.length} merges that conflicted there, ${span}`,
    });
  }
  return out;
}

/**
 * The proposal as commented YAML around `  paths: {}` (under `resolve:`), for `splintercat init`:
 * to accept, `paths: {}` becomes `paths:` and the lines wanted lose their `# `.
 */
export function withProposal(paths: string, rules: readonly ProposedRule[], merges: number): string {
  if (rules.length === 0)
    return `  # No policy to propose: in the ${merges} most recent merges, no path was always decided the same way.\n${paths}`;
  const width = Math.max(...rules.map((r) => JSON.stringify(r.glob).length + r.decision.length + 2));
  const lines = rules.map((r) => `  #   ${`${JSON.stringify(r.glob)}: ${r.decision}`.padEnd(width)}   # ${r.evidence}`);
  return [
    `  # Proposed from this repository's ${merges} most recent merges: to accept, write \`paths:\` for`,
    '  # `paths: {}` and remove the `# ` of each line below you want (each applies to every later merge).',
    paths.replace(/\n$/, ''),
    ...lines,
    '',
  ].join('\n');
}
