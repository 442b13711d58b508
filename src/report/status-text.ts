import { readingText, tallyReadings, tallyText } from './check-reading.js';
import { diagramKey } from './grid-key.js';
import { handoffLines } from '../workflow/handoff/index.js';
import { progressLine } from './progress.js';
import { estimateRows, strategyWords, switchLines } from './estimates-text.js';
import { diagramWithAxes } from '../imerge/diagram.js';
import { decodeRuns, diagramCharOf } from './grid-codes.js';
import { formatCount, formatDuration, formatUsd, shortOid } from './format.js';
import { roles, rungs, type CellMark, type GridView, type ReportModel, type Rung } from './model.js';
import { firstTests } from '../checks/test-list.js';
import { frontierWindow } from './grid-window.js';
import { RUNG_LETTERS } from './rung-letters.js';

/** Grids wider or larger than this are summarised in the terminal (the HTML report draws them). */
const MAX_COLUMNS = 300;
const MAX_CELLS = 90_000;

/** The terminal grid's letter of a cell resolved at each rung (the most involved of its hunks), and of a failed check. */
export const markLetters: Record<Rung | 'failed', string> = { ...RUNG_LETTERS, failed: 'X' };

/** The terminal character of a marked cell, or null to keep git-imerge's. */
export function markChar(mark: CellMark): string | null {
  if (mark.failedCheck !== null && !mark.superseded) return markLetters.failed;
  if (mark.conflict !== null && mark.status === 'resolved' && mark.rung !== null) return markLetters[mark.rung];
  return null;
}

/** git-imerge's diagram of the grid with the report's marks, and its key; null when too large. */
export function markedDiagram(grid: GridView): string | null {
  if (grid.len1 > MAX_COLUMNS || grid.len1 * grid.len2 > MAX_CELLS) return null;
  const cols = markedColumns(grid);
  return `${diagramWithAxes(cols, grid.forkTip, grid.upstreamTip)}\n${diagramKey(cols)}`;
}

/**
 * The diagram the terminal shows: the whole grid (`full`, whatever its size), or by default the
 * rows around the frontier with a line saying how to see the rest (grid-window.ts); null when
 * the grid is too wide for a terminal.
 */
function terminalDiagram(grid: GridView, full: boolean): string | null {
  if (!full && grid.len1 > MAX_COLUMNS) return null;
  const cols = markedColumns(grid);
  const drawn = diagramWithAxes(cols, grid.forkTip, grid.upstreamTip);
  const window = full ? { text: drawn, hidden: 0 } : frontierWindow(cols, drawn);
  const note =
    window.hidden > 0
      ? `${window.hidden} of the grid's ${grid.len2} rows are not shown: splintercat status --grid draws them all\n`
      : '';
  return `${window.text}\n${note}${diagramKey(cols)}`;
}

/** The diagram's characters with the report's marks, as columns `cols[i][j]`. */
function markedColumns(grid: GridView): string[][] {
  const letters = decodeRuns(grid.cells);
  const cols = Array.from({ length: grid.len1 }, (_, i) =>
    Array.from({ length: grid.len2 }, (_, j) => diagramCharOf(letters[j * grid.len1 + i] ?? 'a')),
  );
  for (const m of grid.marks) {
    const ch = markChar(m);
    const col = cols[m.i1];
    if (ch !== null && col !== undefined && m.i2 < col.length) col[m.i2] = ch;
  }
  return cols;
}

/** `splintercat status --json`: the same as the text, as data (keeps the fields of earlier versions). */
export function statusData(model: ReportModel): Record<string, unknown> {
  const { run, progress } = model;
  const last = model.checks.at(-1) ?? null;
  return {
    name: run.name,
    status: run.status,
    reason: run.statusReason,
    phase: run.phase,
    live: run.live,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    elapsedMs: run.elapsedMs,
    upstream: run.upstream,
    fork: run.fork,
    goal: run.goal,
    strategy: run.strategy,
    finalCommit: run.resultCommit,
    handoff: run.handoff,
    grid: model.grid
      ? {
          size: { i1: model.grid.len1 - 1, i2: model.grid.len2 - 1 },
          blockers: progress.blockers,
          source: model.grid.source,
          marks: model.grid.marks,
          diagram: markedDiagram(model.grid),
        }
      : null,
    conflicts: {
      total: progress.conflicts,
      resolved: progress.resolved,
      left: progress.left,
      byStatus: progress.byStatus,
      hunksByRung: progress.hunksByRung,
      hunksOpen: progress.hunksOpen,
      /** Files a person changed beyond each conflict's own files, by conflict. */
      outsideEdits: Object.fromEntries(
        model.conflicts.filter((c) => c.outsideEdits.length > 0).map((c) => [c.id, c.outsideEdits]),
      ),
    },
    /** What the merge dropped of each side's change, per file (the survival audit). */
    drops: model.drops,
    currentCheck: model.currentCheck,
    progress: { ...model.outlook, line: progressLine(model.outlook) },
    plan: model.plan,
    checks: {
      total: model.checks.length,
      /** Runs that exited non-zero, whatever their reading (tips' baselines and failures not blamed included). */
      failed: model.checks.filter((c) => !c.success).length,
      notBlamed: notBlamed(model).length,
      /** How they read: passed, passed against the baselines, not validated, failed (blamed), failing baselines. */
      readings: tallyReadings(model.checks.map((c) => c.reading)),
      last,
    },
    validation: model.validation,
    baselines: model.baselines,
    accepted: model.accepted,
    attempts: model.attempts,
    usage: model.usage,
    costUsd: model.usage.total.costUsd,
  };
}

/** An attempt's result in words: never "passed" where a check could not validate what it covered. */
const attemptWords: Record<ReportModel['attempts'][number]['result'], string> = {
  failed: 'check failed',
  passed: 'checks passed',
  against_baseline: 'checks passed against the baselines',
  not_validated: 'nothing blamed, not validated',
  open: 'open',
};

/** The failed checks on cells or the final merge that were not blamed on a resolution (failing as a baseline does, or cannot tell). */
export function notBlamed(model: ReportModel): ReportModel['checks'] {
  return model.checks.filter((c) => !c.success && c.judgement !== null && !c.judgement.blamed);
}

/** One line per failing baseline: what a tip (or a cell's own commit) already fails, never blamed on a resolution. */
export function baselineLines(model: ReportModel): string[] {
  const failing = model.baselines.filter((b) => !b.passed);
  if (model.baselines.length === 0) return [];
  if (failing.length === 0) return [`  baselines: every check passes on both tips`];
  return [
    '  baselines (failures never blamed on a resolution):',
    ...failing.map((b) => {
      const where = b.cell === null ? `the ${b.side} tip` : `${b.side} commit ${b.cell}`;
      const what =
        b.failing === null
          ? 'fails, no test named (its whole outcome is compared)'
          : `fails ${b.failing.length} test(s): ${firstTests(b.failing)}`;
      return `    ${b.check} on ${where} (${shortOid(b.commit)}) ${what}${b.ran !== null ? `, ${b.ran} ran` : ''}`;
    }),
  ];
}

/** The planner's prediction against what the run did: `planned: batch(3), ~14 min of checks for 36 conflicts (...); so far ...`. */
export function planLine(model: ReportModel): string | null {
  const plan = model.plan;
  if (!plan) return null;
  const label = (a: { strategy: string; batchSize: number | null }): string =>
    a.batchSize ? `${a.strategy}(${a.batchSize})` : a.strategy;
  const others = plan.alternatives.map((a) => `${label(a)} ${formatDuration(a.ms)}`).join(', ');
  const o = model.outlook;
  const used = model.run.strategy
    ? `${model.run.strategy.kind}${model.run.strategy.batchSize ? `(${model.run.strategy.batchSize})` : ''}`
    : null;
  // A prediction of another strategy than the one used says so, rather than pass for the current one's.
  const of = plan.strategy
    ? ` for ${plan.strategy}${used && used !== plan.strategy ? ` (the run now uses ${used})` : ''}`
    : '';
  return (
    `planned${of}: ${formatDuration(plan.ms)} of checks for ${plan.conflicts} conflict(s) expected` +
    `${others ? ` (predicted: ${others})` : ''}; actual: ${formatDuration(o.checkMs)} of checks for ${o.done} conflict(s) so far` +
    `${o.expected !== null ? ` of ~${o.expected}` : ''}, the run worked ${formatDuration(o.activeMs)}`
  );
}

/**
 * `splintercat status`: the run at a glance, then the grid diagram: the rows around the frontier,
 * or with `grid` the whole grid.
 */
export function renderStatusText(model: ReportModel, options: { grid?: boolean } = {}): string {
  const { run, progress } = model;
  const state = run.live ? 'running' : run.endedAt ? `stopped at ${run.endedAt.slice(11, 19)}` : 'not running';
  const lines = [
    `Merge '${run.name}': ${run.status}${run.statusReason ? ` — ${run.statusReason}` : ''}`,
    `  ${run.upstream.ref} (${shortOid(run.upstream.oid)}) into ${run.fork.branch} (${shortOid(run.fork.oid)}), goal ${run.goal}`,
    `  phase: ${run.phase}; elapsed ${formatDuration(run.elapsedMs)} (${state})`,
    `  strategy: ${strategyWords(model)}`,
    ...switchLines(model).map((l) => `    ${l}`),
    `  grid: ${model.grid ? `${model.grid.len1 - 1} x ${model.grid.len2 - 1} commits, ${progress.blockers} blocker(s) known` : 'not started'}`,
    `  conflicts: ${progress.resolved} done, ${progress.left} left (of ${progress.conflicts}); hunks by rung: ${rungs.map((r) => `${r} ${progress.hunksByRung[r]}`).join(', ')}; open ${progress.hunksOpen}`,
  ];
  lines.push(`  progress: ${progressLine(model.outlook)}`);
  const plan = planLine(model);
  if (plan) lines.push(`  ${plan}`);
  const [head, ...rows] = estimateRows(model);
  if (rows.length > 0)
    lines.push(
      '  estimates against what happened:',
      ...rows.map((r) => `    ${r.map((c, k) => `${head?.[k]}: ${c}`).join('; ')}`),
    );
  if (model.currentCheck) {
    const c = model.currentCheck;
    lines.push(
      `  current check: ${c.name} on ${c.cell ?? 'a tip'} (attempt ${c.attempt}), running for ${formatDuration(c.elapsedMs)}`,
    );
  }
  const last = model.checks.at(-1);
  lines.push(
    `  checks: ${model.checks.length} run: ${tallyText(model.checks.map((c) => c.reading))}${last ? `; last: ${last.name} ${readingText(last.reading, last.judgement?.inherited.length ?? 0)}, log ${last.logFile}` : ''}`,
  );
  lines.push(...baselineLines(model));
  for (const a of model.accepted) {
    lines.push(
      `  accepted by a person at ${a.conflicts.join(', ')}: ${a.check} ${a.failing === null ? 'failing (its whole outcome)' : `failing ${a.failing.length} test(s): ${firstTests(a.failing)}`}`,
    );
  }
  const judged = model.checks.filter((c) => c.judgement !== null).at(-1);
  if (judged?.judgement)
    lines.push(
      `  last failure judged: ${judged.name} on ${judged.cell ?? judged.target}: ${judged.judgement.blamed ? 'blamed' : readingText(judged.reading, judged.judgement.inherited.length)}: ${judged.judgement.reason}`,
    );
  lines.push(
    `  attempts: ${model.attempts.length}${model.attempts.map((a) => `; #${a.number} ${a.strategy}, ${a.resolutions} resolved, ${attemptWords[a.result]}${a.recovery ? ` → ${a.recovery}` : ''}`).join('')}`,
  );
  lines.push(
    `  models: ${roles.map((r) => `${r} ${model.usage[r].calls} calls ${formatCount(model.usage[r].inputTokens)}+${formatCount(model.usage[r].outputTokens)} tokens ${formatUsd(model.usage[r].costUsd)}`).join('; ')}; cost ${formatUsd(model.usage.total.costUsd)}`,
  );
  for (const c of model.conflicts.filter((x) => x.outsideEdits.length > 0))
    lines.push(
      `  edited by a person beyond conflict ${c.id}: ${c.outsideEdits.slice(0, 5).join(', ')}${c.outsideEdits.length > 5 ? `, and ${c.outsideEdits.length - 5} more` : ''}`,
    );
  if (run.resultCommit) lines.push(`  result: ${run.resultCommit}`);
  if (model.validation) lines.push(`  ${model.validation.text}`);
  if (run.handoff)
    lines.push('  needs the person:', ...handoffLines(run.handoff).map((l) => (l === '' ? l : `    ${l}`)));
  if (model.grid) {
    const diagram = terminalDiagram(model.grid, options.grid === true);
    lines.push(
      '',
      diagram ??
        `The grid (${model.grid.len1 - 1} x ${model.grid.len2 - 1}) is too large for the terminal: splintercat report --html FILE draws it.`,
    );
  }
  return lines.join('\n');
}
