import type { CheckProgress, LastCheck } from './flow-checks.js';
import type { FlowData } from './flow-data.js';
import type { PersonChoices } from './flow-choices.js';
import type { RecoveryMemory } from './flow-recovery.js';
import type { RunEvent } from './run-events.js';
import type { CheckRecord, RunState } from './run-state.js';

type Summary = RecoveryMemory['retryContext'][string];

/** What the replay of the journal carries from event to event. */
interface FlowReplay {
  progress: CheckProgress;
  fastOnly: Map<string, string[]>;
  retryContext: Record<string, Summary>;
  retryBase: number;
  /** The node running, the check plan it journalled, the checks it finished. */
  node: string;
  plan: string | null;
  checks: CheckRecord[];
  attempt: number;
  summary: Summary | null;
  recovery: string | null;
  /** The checks the tips started in `initialize` and did not finish there (they run alongside the conflicts). */
  alongside: Set<string>;
  tipConflicts: string[][] | null;
  final: { i1: number; i2: number } | null;
  /** Conflicts resolved and not blamed since, in the order met. */
  resolved: string[];
  choices: PersonChoices;
}

function freshReplay(): FlowReplay {
  return {
    progress: { batch: [], validated: [], fastOnly: [], lastCheck: null, finalValidated: false },
    ...{ fastOnly: new Map(), retryContext: {}, retryBase: 0, node: '', plan: null, checks: [], attempt: 0 },
    ...{ summary: null, recovery: null, alongside: new Set(), tipConflicts: null, final: null, resolved: [] },
    choices: { fileChoices: {}, handoffChoices: {}, wholeFiles: {} },
  };
}

/** The last failing check of a node, as the checks' progress keeps it (its command from the run's configuration). */
function lastFailure(r: FlowReplay, commands: Record<string, unknown>): LastCheck | null {
  const failed = [...r.checks].reverse().find((c) => !c.success && c.cell !== null);
  if (failed === undefined || failed.cell === null) return null;
  const command = commands[failed.name];
  return {
    ...{ cell: failed.cell, name: failed.name, success: false, logFile: failed.logFile },
    ...{ command: typeof command === 'string' ? command : '', exitCode: failed.exitCode, timedOut: failed.timedOut },
    durationMs: failed.durationMs,
    ...(failed.judgement ? { blamed: failed.judgement.blamed, judgement: failed.judgement.reason } : {}),
  };
}

/**
 * A `check` node ended: passed (a full check validates what it covered when every check it ran
 * passed; a fast one, or none, leaves the batch for the next full check) or failed (the batch,
 * and with a full check every fast-only resolution, are the suspects).
 */
function checkEnded(r: FlowReplay, next: string, commands: Record<string, unknown>): void {
  const p = r.progress;
  const covered = r.plan === 'full' ? [...r.fastOnly.keys(), ...p.batch] : p.batch;
  if (next === 'summarize_failure') {
    p.batch = [...new Set(covered)];
    for (const id of p.batch) r.fastOnly.delete(id);
    p.lastCheck = lastFailure(r, commands) ?? p.lastCheck;
    return;
  }
  if (r.plan === 'full') {
    if (r.checks.every((c) => c.success)) p.validated = [...new Set([...p.validated, ...covered])];
    r.fastOnly.clear();
  } else {
    const names = r.plan === 'skip' ? [] : [...new Set(r.checks.map((c) => c.name))];
    for (const id of p.batch) r.fastOnly.set(id, names);
  }
  const atFinal = r.final !== null && r.checks.length > 0 && r.checks.every((c) => sameCell(c.cell, r.final));
  p.finalValidated = r.plan === 'full' && atFinal;
  r.retryContext = Object.fromEntries(
    Object.entries(r.retryContext).filter(([id]) => !p.validated.includes(id) && !p.batch.includes(id)),
  );
  if (r.plan !== 'skip' && p.batch.length > 0) r.retryBase = Math.max(r.retryBase, r.attempt - 1);
  p.batch = [];
}

function sameCell(a: { i1: number; i2: number } | null, b: { i1: number; i2: number } | null): boolean {
  return a !== null && b !== null && a.i1 === b.i1 && a.i2 === b.i2;
}

/** A node ended: what its result did to the flow data. */
function nodeEnded(r: FlowReplay, e: Extract<RunEvent, { type: 'node_finished' }>, commands: Record<string, unknown>) {
  const p = r.progress;
  if (e.node === 'check') checkEnded(r, e.next, commands);
  else if (e.node === 'plan_strategy') {
    p.batch = [];
    r.attempt = Math.max(r.attempt, 1);
  } else if (e.node === 'finalize' && e.next === 'summarize_failure') {
    // Every resolution not validated is a suspect of the final check (all of them if all were).
    const suspects = r.resolved.filter((id) => !p.validated.includes(id));
    p.batch = suspects.length > 0 ? suspects : [...r.resolved];
    p.lastCheck = lastFailure(r, commands) ?? p.lastCheck;
  } else if (e.node === 'finalize') p.finalValidated = true;
  else if (e.node === 'execute_recovery') {
    p.finalValidated = false;
    // An abort hands the resolutions under test to a person: the retry budget starts again with their fix.
    if (r.recovery === 'abort') {
      r.retryBase = r.attempt;
      p.batch = [];
    }
    // Every recovery that goes on opens the next attempt.
    if (e.next !== 'end') r.attempt++;
  }
}

/**
 * Resolved (again): under test once more, whatever passed before. A resolution adopted from
 * another clone of a shared run is journalled alike and so checked here too: a check more, never one less.
 */
function resolved(r: FlowReplay, id: string, attempt: number): void {
  const p = r.progress;
  if (!r.resolved.includes(id)) r.resolved.push(id);
  p.validated = p.validated.filter((x) => x !== id);
  r.fastOnly.delete(id);
  if (!p.batch.includes(id)) p.batch.push(id);
  r.attempt = Math.max(r.attempt, attempt);
}

function replayFlowEvent(r: FlowReplay, e: RunEvent, commands: Record<string, unknown>): void {
  switch (e.type) {
    case 'node_entered':
      r.node = e.node;
      r.plan = null;
      r.checks = [];
      break;
    case 'node_finished':
      nodeEnded(r, e, commands);
      break;
    case 'conflict_resolved':
      resolved(r, e.conflict, e.attempt);
      break;
    case 'decision':
      if (e.kind === 'check') r.plan = e.decision;
      else if (e.kind === 'recovery') r.recovery = e.decision;
      break;
    case 'check_started':
      if (r.node === 'initialize' && e.cell === null) r.alongside.add(e.name);
      break;
    case 'check_finished':
      r.checks.push(e.check);
      r.attempt = Math.max(r.attempt, e.check.attempt);
      if (r.node === 'initialize' && e.check.cell === null) r.alongside.delete(e.check.name);
      break;
    default:
      replayOtherEvent(r, e);
  }
}

function replayOtherEvent(r: FlowReplay, e: RunEvent): void {
  if (e.type === 'failure_summarized') r.summary = e.summary;
  else if (e.type === 'person_choices')
    r.choices = {
      fileChoices: e.choices.fileChoices ?? {},
      handoffChoices: e.choices.handoffChoices ?? {},
      wholeFiles: e.choices.wholeFiles ?? {},
    };
  else if (e.type === 'grid_updated') r.final = { ...e.grid.size };
  else if (e.type === 'conflict_blamed') {
    r.retryContext[e.conflict] = r.summary ?? {
      error_type: 'test_failure',
      location: null,
      root_cause: e.reason,
      excerpt: '',
    };
    r.progress.batch = r.progress.batch.filter((id) => id !== e.conflict);
    r.resolved = r.resolved.filter((id) => id !== e.conflict);
  } else if (e.type === 'effect' && e.key === 'tip-merge') {
    const groups = (e.value as { groups?: unknown } | null)?.groups;
    if (Array.isArray(groups) && groups.every((g) => Array.isArray(g) && g.every((p) => typeof p === 'string')))
      r.tipConflicts = groups as string[][];
  }
}

/**
 * The recovery loop's state rebuilt from the journal for `doctor --rebuild`, each sub-record from
 * the events that set it: the checks' progress from the resolutions, the check plans and the
 * nodes' outcomes; the tips' conflicts from the planner's journalled tip merge; the retry context
 * from the failures and the conflicts they blamed. Where the journal does not say, the value is
 * the safe one, and `lost` says so.
 */
export function rebuildFlowData(
  events: RunEvent[],
  state: Pick<RunState, 'conflicts' | 'checks' | 'config'>,
  lost: string[],
): FlowData {
  const check = (state.config?.values.check ?? {}) as { commands?: unknown };
  const commands = (typeof check.commands === 'object' && check.commands !== null ? check.commands : {}) as Record<
    string,
    unknown
  >;
  const r = freshReplay();
  for (const e of events) replayFlowEvent(r, e, commands);
  // Only resolutions the rebuilt run holds: one reopened since is resolved again, and checked then.
  const held = new Set(state.conflicts.filter((c) => c.status === 'resolved').map((c) => c.id));
  const p = r.progress;
  const fastOnly = [...r.fastOnly].filter(([id]) => held.has(id)).map(([conflict, checks]) => ({ conflict, checks }));
  const checks = {
    ...{ batch: p.batch.filter((id) => held.has(id)), validated: p.validated.filter((id) => held.has(id)) },
    ...{ fastOnly, finalValidated: p.finalValidated, ...(p.lastCheck ? { lastCheck: p.lastCheck } : {}) },
  };
  // A prediction that kept the strategy is not journalled: counting every cell check so far
  // defers the next one until that count doubles, so the strategy never changes sooner than it would have.
  const plannedAtChecks = state.checks.filter((c) => c.target === 'cell').length;
  lost.push('when the planner last predicted again: taken as now');
  return {
    checks,
    tips: { ...(r.tipConflicts ? { tipConflicts: r.tipConflicts } : {}), tipsAlongside: [...r.alongside] },
    recovery: { retryContext: r.retryContext, retryBase: r.retryBase, plannedAtChecks },
    choices: r.choices,
  };
}
