import picomatch from 'picomatch';
import type { Config } from '../../config/index.js';
import type { ConflictHunk, HunkResolution } from '../types.js';

export type UnionOrder = 'ours-first' | 'theirs-first';

/** One decision of the fork's policy for the paths a glob matches. */
export type PolicyDecision =
  | { kind: 'ours' }
  | { kind: 'theirs' }
  | { kind: 'union'; order: UnionOrder }
  | { kind: 'person' }
  | { kind: 'regenerate'; command: string };

/** A glob of `resolve.paths` with its decision, in the order written. */
export interface PathRule {
  glob: string;
  decision: PolicyDecision;
}

type WrittenDecision = Config['resolve']['paths'][string];

/** The decision as written in `splintercat.yaml` (validated by the config schema), normalised. */
export function normalizeDecision(written: WrittenDecision): PolicyDecision {
  if (typeof written === 'string') {
    if (written === 'ours' || written === 'theirs' || written === 'person') return { kind: written };
    return { kind: 'union', order: written === 'union theirs-first' ? 'theirs-first' : 'ours-first' };
  }
  if ('union' in written) return { kind: 'union', order: written.union };
  return { kind: 'regenerate', command: written.regenerate };
}

/** `resolve.paths` as rules, first match first. */
export function pathRules(paths: Config['resolve']['paths']): PathRule[] {
  return Object.entries(paths).map(([glob, written]) => ({ glob, decision: normalizeDecision(written) }));
}

/**
 * Whether a glob matches a path, as `.gitattributes` and `resolve.regenerate` read globs: one
 * without a slash matches the file name in any folder, dot-files included.
 */
export function globMatches(glob: string, path: string): boolean {
  return picomatch(glob, { dot: true, basename: !glob.includes('/') })(path);
}

/** The first rule whose glob matches the path; null when none does. */
export function policyFor(path: string, rules: readonly PathRule[]): PathRule | null {
  return rules.find((r) => globMatches(r.glob, path)) ?? null;
}

/** The decision in the words of the configuration (for logs, reports and the merge record). */
export function describeDecision(decision: PolicyDecision): string {
  switch (decision.kind) {
    case 'union':
      return `union ${decision.order}`;
    case 'regenerate':
      return `regenerate with \`${decision.command}\``;
    default:
      return decision.kind;
  }
}

/**
 * The policy's text for one hunk: one side, or both in the order chosen. Null for the
 * decisions that are not taken hunk by hunk (`person`, `regenerate`).
 */
export function policyText(hunk: Pick<ConflictHunk, 'ours' | 'theirs'>, decision: PolicyDecision): string | null {
  switch (decision.kind) {
    case 'ours':
      return hunk.ours;
    case 'theirs':
      return hunk.theirs;
    case 'union':
      return decision.order === 'ours-first' ? joinSides(hunk.ours, hunk.theirs) : joinSides(hunk.theirs, hunk.ours);
    default:
      return null;
  }
}

/** Two sides one after the other; a first side without a final line break gets one, so no line is glued to the next. */
export function joinSides(first: string, second: string): string {
  if (first === '' || second === '' || /\n$/.test(first)) return first + second;
  return `${first}${first.includes('\r\n') || second.includes('\r\n') ? '\r\n' : '\n'}${second}`;
}

/** The policy rung's resolution of a hunk, or null when the rule does not take hunks. */
export function policyResolution(hunk: ConflictHunk, rule: PathRule): HunkResolution | null {
  const text = policyText(hunk, rule.decision);
  if (text === null) return null;
  return { text, rung: 'policy', by: `${rule.glob}: ${describeDecision(rule.decision)}`, hunkIndex: hunk.index };
}

/**
 * The regenerate commands in force: `resolve.regenerate` (kept as it was) and every
 * `resolve.paths` entry decided `{regenerate: COMMAND}`, the latter first where both name a glob.
 */
export function regenerateCommands(resolve: Pick<Config['resolve'], 'paths' | 'regenerate'>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rule of pathRules(resolve.paths))
    if (rule.decision.kind === 'regenerate') out[rule.glob] = rule.decision.command;
  for (const [glob, command] of Object.entries(resolve.regenerate)) if (!(glob in out)) out[glob] = command;
  return out;
}

/** The globs of the policy that match none of the paths (a typo, or a file the fork no longer has). */
export function unmatchedGlobs(rules: readonly PathRule[], paths: readonly string[]): string[] {
  return rules.filter((r) => !paths.some((p) => globMatches(r.glob, p))).map((r) => r.glob);
}
