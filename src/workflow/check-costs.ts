import type { Config } from '../config/index.js';
import type { RunState } from '../store/run-state.js';

/** Milliseconds per check name: the median of its runs on cells once there are some, else its fastest run on a tip. */
function checkCosts(state: RunState): Map<string, number> {
  const onCells = new Map<string, number[]>();
  const onTips = new Map<string, number>();
  for (const c of state.checks) {
    if (c.target === 'cell') onCells.set(c.name, [...(onCells.get(c.name) ?? []), c.durationMs]);
    else if (c.target !== 'final')
      onTips.set(c.name, Math.min(onTips.get(c.name) ?? Number.POSITIVE_INFINITY, c.durationMs));
  }
  const costs = new Map(onTips);
  for (const [name, runs] of onCells)
    costs.set(name, [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)] as number);
  return costs;
}

/**
 * What a check after a resolution and a full check cost: the fast checks (or the workflow ones)
 * where a resolution selects, on average, the checks no `check.select` glob names and one of
 * those it does; the full checks are every workflow check.
 */
export function checkCostsOf(config: Config, state: RunState): { checkMs: number; fullMs: number } {
  const costs = checkCosts(state);
  const sum = (names: readonly string[]): number => names.reduce((t, n) => t + (costs.get(n) ?? 0), 0);
  const full = config.check.workflow.filter((n) => n in config.check.commands);
  const perResolution = config.check.fast.length > 0 ? config.check.fast : full;
  const selectable = new Set(Object.values(config.check.select).flat());
  const named = perResolution.filter((n) => selectable.has(n));
  const always = perResolution.filter((n) => !selectable.has(n));
  const checkMs = sum(always) + (named.length > 0 ? sum(named) / named.length : 0);
  return { checkMs, fullMs: sum(full) };
}
