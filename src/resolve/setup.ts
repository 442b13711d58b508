import type { Config } from '../config/index.js';
import type { Git } from '../git/index.js';
import { ResolutionCache } from './cache/resolution-cache.js';
import { allRules, selectRules, unknownRuleNames, type ResolutionRule } from './rules/index.js';
import type { SyntaxSwitches } from './syntax/syntax-merge.js';
import { pathRules, regenerateCommands, type PathRule } from './policy/path-policy.js';
import { LearntSuggestions } from './learnt/learnt-suggestions.js';
import type { Logger } from '../log/logger.js';

export interface LadderSetup {
  rules: ResolutionRule[];
  /** The syntax-aware rung's switches (all on with `allRules`). */
  syntax: SyntaxSwitches;
  /** Lockfile glob to the command that rewrites it: `resolve.regenerate` and the `regenerate` decisions of `resolve.paths`. */
  regenerate: Readonly<Record<string, string>>;
  /** `resolve.paths`, first match first (the ladder's policy rung). */
  policy: PathRule[];
  /** Suggestions from the fork's past merges (`resolve.learnt`); null when off or without a repository. */
  learnt: LearntSuggestions | null;
  cache: ResolutionCache | null;
  /** Config problems worth a warning (unknown rule names). */
  warnings: string[];
}

/** Rules and cache as `resolve:` in the configuration says; `allRules: true` enables every rule and rung (eval). */
export async function ladderFromConfig(
  resolveConfig: Config['resolve'],
  git: Git | null,
  options: { allRules?: boolean; noCache?: boolean; log?: Logger } = {},
): Promise<LadderSetup> {
  const warnings = unknownRuleNames(resolveConfig.rules).map(
    (name) => `resolve.rules.${name}: no such rule (known: ${allRules.map((r) => r.name).join(', ')})`,
  );
  const rules = options.allRules ? [...allRules] : selectRules(resolveConfig.rules);
  const cache = resolveConfig.cache && !options.noCache && git !== null ? await ResolutionCache.forRepo(git) : null;
  const syntax = options.allRules ? { code: true, data: true } : { ...resolveConfig.syntax };
  return {
    rules,
    cache,
    warnings,
    syntax,
    regenerate: regenerateCommands(resolveConfig),
    policy: pathRules(resolveConfig.paths),
    learnt:
      git !== null && resolveConfig.learnt.mode !== 'off'
        ? new LearntSuggestions(git, resolveConfig.learnt, options.log)
        : null,
  };
}
