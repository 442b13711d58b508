import type { CheckRecord, RunState } from '../store/run-state.js';
import { readCheck } from './check-reading.js';
import { shortOid } from './format.js';
import { finalTreeChecks } from '../workflow/merge-verdict.js';

/** Whether the merged tree is validated, and against what, in one sentence for the reader. */
export interface Validation {
  validated: boolean;
  /** The checks on the merged tree, each with how it reads (their latest run). */
  checks: Array<{ name: string; reading: ReturnType<typeof readCheck>; inherited: number }>;
  text: string;
}

/** `the fork tip (f6b72e8, 66 failing tests) or the upstream tip (c73923c, 71 failing tests)`: what a check's failures were compared with. */
function tipsFailing(state: RunState, name: string): string {
  const tips = state.baselines.filter((b) => b.cell === null && b.check === name && !b.outcome.passed);
  const parts = tips.map((b) => {
    const n = b.outcome.failing?.length;
    return `the ${b.side} tip (${shortOid(b.commit).slice(0, 7)}${n === undefined ? ', failing as a whole' : `, ${n} failing test${n === 1 ? '' : 's'}`})`;
  });
  const accepted = state.acceptedFailures.filter((a) => a.check === name).length;
  if (accepted > 0) parts.push(`the failures a person accepted (${accepted})`);
  return parts.length === 0 ? 'the baselines' : parts.join(' or ');
}

/**
 * Whether the merged tree (the grid's last cell, whose tree the merge commit has) is validated, and against
 * what: every check passed there, or failed only as its baselines do with every test run. Null while no check
 * has run on it and the run is not finished.
 */
export function finalValidation(state: RunState): Validation | null {
  const records = finalTreeChecks(state);
  if (records.length === 0) {
    if (state.status !== 'done') return null;
    return { validated: false, checks: [], text: 'not validated: no check ran on the merged tree' };
  }
  const checks = records.map((c) => ({
    name: c.name,
    reading: readCheck(c),
    inherited: c.judgement?.inherited.length ?? 0,
  }));
  const names = checks.map((c) => c.name).join(', ');
  const open = records.filter((c) => {
    const r = readCheck(c);
    return r !== 'passed' && r !== 'against_baseline';
  });
  if (open.length > 0) {
    const first = open[0] as CheckRecord;
    const why = first.judgement?.reason ?? `it failed on the merged tree (log: ${first.logFile})`;
    return { validated: false, checks, text: `not validated: ${first.name} on the merged tree: ${why}` };
  }
  const against = checks.filter((c) => c.reading === 'against_baseline');
  if (against.length === 0) return { validated: true, checks, text: `validated: ${names} passed on the merged tree` };
  const passed = checks.filter((c) => c.reading === 'passed').map((c) => c.name);
  const parts = [
    ...(passed.length > 0 ? [`${passed.join(', ')} passed`] : []),
    ...against.map(
      (c) =>
        `${c.name} fails only as ${tipsFailing(state, c.name)} does (${c.inherited} inherited failure${c.inherited === 1 ? '' : 's'}, none blamed on a resolution)`,
    ),
  ];
  return { validated: true, checks, text: `validated against the baselines on the merged tree: ${parts.join('; ')}` };
}
