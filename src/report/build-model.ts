import { isAbsolute, join } from 'node:path';
import type { RunEvent } from '../store/run-events.js';
import type { ConflictState, RunState } from '../store/run-state.js';
import { sumUsage } from '../store/usage.js';
import { buildConflicts } from './build-conflicts.js';
import { buildDrops } from './build-drops.js';
import { allCheckRecords } from './check-records.js';
import { buildGridView } from './build-grid.js';
import { buildTimeline } from './build-timeline.js';
import { computeProgress, tallyEvents } from './progress.js';
import { readCheck } from './check-reading.js';
import { finalValidation } from './validation.js';
import {
  REPORT_MODEL_VERSION,
  roles,
  rungs,
  type CheckView,
  type CurrentCheck,
  type ReportModel,
  type Rung,
  type UsageView,
} from './model.js';
import type { RunSnapshot } from './snapshot.js';
import { buildEstimates, buildStrategies } from './build-estimates.js';
import { cellId } from '../imerge/cell.js';

const openStatuses: ConflictState['status'][] = ['pending', 'resolving', 'needs_person', 'blamed'];

/**
 * The report's view model of a run (pure): what `status`, the HTML and Markdown reports and
 * the live UI show. `now` dates a running run's elapsed time and its current check.
 */
export function buildReportModel(snapshot: RunSnapshot, options: { now: Date }): ReportModel {
  const { state, events } = snapshot;
  const now = options.now.getTime();
  const checks = buildChecks(state, allCheckRecords(state, events), snapshot.logTails);
  const ended = !snapshot.live || state.status !== 'running';
  const endedAt = ended ? state.updatedAt : null;
  return {
    version: REPORT_MODEL_VERSION,
    generatedAt: options.now.toISOString(),
    lastSeq: events.reduce((max, e) => Math.max(max, e.seq), 0),
    run: {
      name: state.name,
      status: state.status,
      statusReason: state.statusReason,
      phase: state.phase,
      goal: state.goal,
      upstream: { ref: state.upstream.ref, oid: state.upstream.oid },
      fork: { branch: state.fork.branch, oid: state.fork.originalOid },
      startedAt: state.startedAt,
      endedAt,
      elapsedMs: Math.max(0, (endedAt === null ? now : Date.parse(endedAt)) - Date.parse(state.startedAt)),
      live: snapshot.live,
      resultCommit: state.finalCommit,
      strategy: state.strategy
        ? {
            kind: state.strategy.kind,
            batchSize: state.strategy.batchSize,
            decidedBy: state.strategy.decidedBy,
            reasoning: state.strategy.reasoning,
          }
        : null,
      // A finished run asks nothing of anyone, whatever an older hand-off left in the state.
      handoff: state.status === 'done' ? null : state.handoff,
    },
    progress: buildProgress(state),
    grid: buildGridView(state, snapshot.grid),
    currentCheck: snapshot.live && state.status === 'running' ? currentCheck(events, now) : null,
    outlook: computeProgress(state, tallyEvents(events), { now: options.now, live: snapshot.live }),
    plan: state.strategy?.prediction ?? null,
    strategies: buildStrategies(events),
    estimates: buildEstimates(state, events),
    checks,
    baselines: state.baselines.map((b) => ({
      side: b.side,
      cell: b.cell ? cellId(b.cell) : null,
      commit: b.commit,
      check: b.check,
      passed: b.outcome.passed,
      failing: b.outcome.failing,
      ran: b.outcome.ran,
      logFile: b.logFile,
    })),
    validation: finalValidation(state),
    accepted: state.acceptedFailures.map((a) => ({
      check: a.check,
      conflicts: a.conflicts,
      failing: a.outcome.failing,
      logFile: a.logFile,
      at: a.at,
    })),
    attempts: buildAttempts(state, checks),
    timeline: buildTimeline(events),
    conflicts: buildConflicts(snapshot, checks),
    drops: buildDrops(state),
    usage: buildUsage(state),
  };
}

/** An attempt failed where one of its checks failed and was blamed (a failure its baselines have is no failure of it). */
function buildAttempts(state: RunState, checks: CheckView[]): ReportModel['attempts'] {
  const reading = new Map(checks.map((c) => [`${c.logFile}\n${c.name}`, c.reading]));
  return state.attempts.map((a) => {
    const readings = a.checks.filter((c) => !c.success).map((c) => reading.get(`${c.logFile}\n${c.name}`) ?? 'failed');
    const failed = readings.includes('failed');
    const passed = readings.includes('not_validated')
      ? ('not_validated' as const)
      : readings.includes('against_baseline')
        ? ('against_baseline' as const)
        : ('passed' as const);
    return {
      number: a.number,
      strategy: a.strategy,
      batchSize: a.batchSize,
      resolutions: a.resolutions.length,
      checksRun: a.checks.length,
      failed,
      result: failed
        ? ('failed' as const)
        : a.finishedAt !== null || state.status === 'done'
          ? passed
          : ('open' as const),
      recovery: a.recovery?.decision ?? null,
      startedAt: a.startedAt,
      finishedAt: a.finishedAt,
    };
  });
}

function buildProgress(state: RunState): ReportModel['progress'] {
  const byStatus: ReportModel['progress']['byStatus'] = {};
  const hunksByRung = Object.fromEntries(rungs.map((r) => [r, 0])) as Record<Rung, number>;
  let hunksOpen = 0;
  for (const c of state.conflicts) {
    byStatus[c.status] = (byStatus[c.status] ?? 0) + 1;
    for (const h of c.files.flatMap((f) => f.hunks)) {
      if (h.status === 'resolved' && h.rung !== null) hunksByRung[h.rung] += 1;
      else hunksOpen += 1;
    }
  }
  const left = state.conflicts.filter((c) => openStatuses.includes(c.status)).length;
  return {
    conflicts: state.conflicts.length,
    resolved: state.conflicts.length - left,
    left,
    byStatus,
    hunksByRung,
    hunksOpen,
    blockers: state.grid?.blockers.length ?? 0,
  };
}

function buildChecks(state: RunState, records: RunState['checks'], logTails: Record<number, string>): CheckView[] {
  return records.map((c, index) => ({
    index,
    name: c.name,
    target: c.target,
    cell: c.cell ? cellId(c.cell) : null,
    commit: c.commit,
    success: c.success,
    exitCode: c.exitCode,
    timedOut: c.timedOut,
    durationMs: c.durationMs,
    attempt: c.attempt,
    at: c.at,
    logFile: c.logFile,
    logPath: isAbsolute(c.logFile) ? c.logFile : join(state.workdir, c.logFile),
    summary: c.summary,
    tests: c.outcome ? { failing: c.outcome.failing, ran: c.outcome.ran } : null,
    judgement: c.judgement
      ? {
          verdict: c.judgement.verdict,
          blamed: c.judgement.verdict === 'new_failures' || c.judgement.verdict === 'broken_by_merge',
          blamedTests: c.judgement.blamed,
          inherited: c.judgement.inherited,
          incomplete: c.judgement.incomplete,
          reason: c.judgement.reason,
        }
      : null,
    excerpt: c.summary?.excerpt ?? logTails[index] ?? null,
    reading: readCheck(c),
  }));
}

/** The check started last that has not finished (checks on CI runners may overlap: a tip's alongside a cell's). */
function currentCheck(events: RunEvent[], now: number): CurrentCheck | null {
  const finished = new Set<string>();
  for (let k = events.length - 1; k >= 0; k--) {
    const e = events[k] as RunEvent;
    if (e.type === 'run_outcome') return null;
    if (e.type === 'check_finished') finished.add(checkKey(e.check.name, e.check.cell));
    else if (e.type === 'check_started' && finished.delete(checkKey(e.name, e.cell))) continue;
    else if (e.type === 'check_started') {
      return {
        name: e.name,
        cell: e.cell ? cellId(e.cell) : null,
        attempt: e.attempt,
        startedAt: e.ts,
        elapsedMs: Math.max(0, now - Date.parse(e.ts)),
      };
    }
  }
  return null;
}

function checkKey(name: string, cell: { i1: number; i2: number } | null): string {
  return `${name} ${cell ? cellId(cell) : ''}`;
}

function buildUsage(state: RunState): ReportModel['usage'] {
  const byRole = {} as Record<(typeof roles)[number], UsageView>;
  for (const role of roles) byRole[role] = { ...state.usage[role] };
  return { ...byRole, total: sumUsage(roles.map((role) => state.usage[role])) };
}
