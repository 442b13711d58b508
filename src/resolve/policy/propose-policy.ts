import { isLockfile } from '../data/lockfiles.js';
import type { LearntHunk } from '../learnt/learnt-hunk.js';
import { collapseIntoGlobs, literalGlob } from './propose-globs.js';
export { decisionOfChoice } from './path-verdict.js';
import { evidenceOf, MIN_MERGES, tallyOf, verdictOf, type Verdict } from './path-verdict.js';

/** A `resolve.paths` line proposed from the repository's past merges, with the evidence for it. */
export interface ProposedRule {
  glob: string;
  /** As written in YAML: `theirs`, `union theirs-first`, `{regenerate: ...}`. */
  decision: string;
  evidence: string;
}

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

const day = (time: number): string => new Date(time * 1000).toISOString().slice(0, 10);

/** What the past merges propose, and the paths they conflicted on that they leave unsettled, with what was done there. */
export interface Proposal {
  rules: ProposedRule[];
  /** Paths that conflicted in at least `MIN_MERGES` merges and get no line, with each choice's count. */
  unsettled: Array<{ path: string; tally: string }>;
}

/**
 * What the past merges propose for `resolve.paths`: a path whose latest merges (at least two, and
 * most of its weight, recent merges counting more) kept the same side, or both in the same order,
 * gets that decision (a union only where the file taken both ways parsed in every one of them);
 * paths of one folder pattern decided alike become one glob; a lockfile that conflicted gets its
 * package manager's regenerate command. A path the maintainer combined (both sides kept, edited)
 * in a recent merge gets no side. Each with its evidence, for the maintainer to accept line by line.
 */
export function proposePolicy(hunks: readonly LearntHunk[]): ProposedRule[] {
  return proposeWithEvidence(hunks).rules;
}

export function proposeWithEvidence(hunks: readonly LearntHunk[]): Proposal {
  const byPath = new Map<string, LearntHunk[]>();
  for (const h of hunks) byPath.set(h.path, [...(byPath.get(h.path) ?? []), h]);
  const rules: Array<ProposedRule & { key: string }> = [];
  const unsettled: Proposal['unsettled'] = [];
  const decided = new Map<string, string | null>();
  const verdicts = new Map<string, Verdict>();
  for (const [path, own] of byPath) {
    if (isLockfile(path)) continue;
    const verdict = verdictOf(own);
    verdicts.set(path, verdict);
    decided.set(path, verdict.decision);
  }
  const globs = collapseIntoGlobs(hunks, decided);
  const inGlob = new Set(globs.flatMap((g) => g.paths));
  for (const g of globs)
    rules.push({
      key: g.paths[0] as string,
      glob: g.glob,
      decision: g.verdict.decision as string,
      evidence: `${evidenceOf(g.verdict, `in its ${g.paths.length} files`)}`,
    });
  for (const [path, own] of [...byPath].sort((a, b) => a[0].localeCompare(b[0]))) {
    if (isLockfile(path)) {
      const times = own.map((h) => h.time);
      const merges = new Set(own.map((h) => h.merge)).size;
      const name = path.slice(path.lastIndexOf('/') + 1);
      const command = regenerateExample[name] ?? 'THE COMMAND THAT REWRITES IT';
      rules.push({
        key: path,
        glob: literalGlob(path),
        decision: `{regenerate: ${command}}`,
        evidence: `a lockfile; it conflicted in ${merges} merge(s), ${day(Math.min(...times))} to ${day(Math.max(...times))}`,
      });
      continue;
    }
    const verdict = verdicts.get(path) as Verdict;
    if (verdict.decision === null) {
      if (verdict.votes.length >= MIN_MERGES) unsettled.push({ path, tally: tallyOf(verdict) });
      continue;
    }
    if (inGlob.has(path)) continue;
    rules.push({
      key: path,
      glob: literalGlob(path),
      decision: verdict.decision,
      evidence: evidenceOf(verdict, 'there'),
    });
  }
  return {
    rules: rules.sort((a, b) => a.key.localeCompare(b.key)).map(({ key: _k, ...rule }) => rule),
    unsettled,
  };
}

/** Unsettled paths listed under a proposal at most. */
const UNSETTLED_SHOWN = 10;

/**
 * The proposal as commented YAML around `  paths: {}` (under `resolve:`), for `splintercat init`:
 * to accept, `paths: {}` becomes `paths:` and the lines wanted lose their `# `. `read` says which
 * merges it rests on (how many, and whether older ones were left out). Below the lines, the paths
 * the merges left unsettled, with what was done there, so a missing line is explained.
 */
export function withProposal(paths: string, proposal: Proposal, read: string): string {
  const { rules } = proposal;
  const unsettled = proposal.unsettled.slice(0, UNSETTLED_SHOWN);
  const notes = [
    ...(unsettled.length > 0
      ? [
          '  # Not proposed, the merges that conflicted there did not settle them (per merge, what was done):',
          ...unsettled.map((u) => `  #   ${JSON.stringify(u.path)}   # ${u.tally}`),
          ...(proposal.unsettled.length > unsettled.length
            ? [`  #   ... and ${proposal.unsettled.length - unsettled.length} more`]
            : []),
        ]
      : []),
  ];
  if (rules.length === 0)
    return [`  # No policy to propose from ${read}: no path was decided the same way.`, ...notes, paths].join('\n');
  const width = Math.max(...rules.map((r) => JSON.stringify(r.glob).length + r.decision.length + 2));
  const lines = rules.map((r) => `  #   ${`${JSON.stringify(r.glob)}: ${r.decision}`.padEnd(width)}   # ${r.evidence}`);
  return [
    `  # Proposed from ${read}.`,
    '  # To accept: write `paths:` for `paths: {}` and remove the `# ` of each line below you want (each',
    '  # applies to every later merge).',
    paths.replace(/\n$/, ''),
    ...lines,
    ...notes,
    '',
  ].join('\n');
}
