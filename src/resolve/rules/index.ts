import { adjacentLines } from './adjacent-lines.js';
import { changelogSections } from './changelog-sections.js';
import { containedChange } from './contained-change.js';
import { higherVersion } from './higher-version.js';
import { identicalSides } from './identical-sides.js';
import { keepBothAdditions } from './keep-both-additions.js';
import { oneSideUnchanged } from './one-side-unchanged.js';
import { remergeLines } from './remerge-lines.js';
import { remergeWords } from './remerge-words.js';
import type { ResolutionRule } from './rule.js';
import { trailingWhitespace } from './trailing-whitespace.js';
import { whitespaceOnly } from './whitespace-only.js';

export type { HunkSides, ResolutionRule, RuleContext } from './rule.js';

/** Every rule, in the order the ladder tries them (cheapest and surest first). */
export const allRules: readonly ResolutionRule[] = [
  identicalSides,
  oneSideUnchanged,
  whitespaceOnly,
  trailingWhitespace,
  remergeLines,
  containedChange,
  higherVersion,
  changelogSections,
  adjacentLines,
  remergeWords,
  keepBothAdditions,
];

/**
 * The rules to run given `resolve.rules` from config: a name set to true turns
 * a rule on, false turns it off, an unnamed rule keeps its default.
 */
export function selectRules(
  overrides: Readonly<Record<string, boolean>> = {},
  rules: readonly ResolutionRule[] = allRules,
): ResolutionRule[] {
  return rules.filter((rule) => overrides[rule.name] ?? rule.enabledByDefault);
}

/** Names in `overrides` that are not rules (a typo in config deserves a warning). */
export function unknownRuleNames(
  overrides: Readonly<Record<string, boolean>>,
  rules: readonly ResolutionRule[] = allRules,
): string[] {
  const known = new Set(rules.map((r) => r.name));
  return Object.keys(overrides).filter((name) => !known.has(name));
}
