/**
 * What an incremental merge produces (git-imerge 1.2.0's goals; its drop and revert are set up by
 * commands of their own). The one list: config, the run state, the engine and the CLI use it.
 */
export const GOALS = [
  'merge',
  'rebase',
  'rebase-with-history',
  'border',
  'border-with-history',
  'border-with-history2',
  'full',
] as const;
export type GoalName = (typeof GOALS)[number];

/** How often a merge runs its checks (config `strategy`, `merge --strategy`); here, beside GOALS, so the CLI names them without loading the schema. */
export const strategyNames = ['optimistic', 'batch', 'per_conflict'] as const;
export type StrategyName = (typeof strategyNames)[number];

/** How `merge.resolver` (`merge --resolver`) resolves conflicts: the ladder then a model, a model always, or the person. */
export const RESOLVER_MODES = ['auto', 'llm', 'person'] as const;

/** True when `goal` is one of GOALS. */
export function isGoal(goal: string): goal is GoalName {
  return (GOALS as readonly string[]).includes(goal);
}
