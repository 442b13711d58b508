import { readCheckLog } from '../../checks/read-log.js';
import { cellId, type Cell } from '../../imerge/cell.js';
import type { HandoffConflict, RunState } from '../../store/run-state.js';
import { summaryLine } from '../../checks/failure-summary.js';
import type { GridEngine, WorkflowContext } from '../ports.js';
import { checkProgress } from '../../store/flow-checks.js';

const EXCERPT_LINES = 30;

/**
 * The failed check that brought a person (back) to `cell`: its name, log, summary and an
 * excerpt, and whether the failure points at a file git merged cleanly at this cell (a file
 * the cell's two parents differ in that was not in conflict): then the fix may lie outside
 * the conflict's files. Null when no check failed.
 */
export async function handoffFailure(
  ctx: WorkflowContext,
  engine: GridEngine,
  state: RunState,
  cell: Cell,
  conflictFiles: string[],
): Promise<HandoffConflict['failure']> {
  const last = checkProgress(state).lastCheck;
  if (!last || last.success) return null;
  const summary = [...state.attempts].reverse().find((a) => a.failureSummary)?.failureSummary ?? null;
  let excerpt = summary?.excerpt ?? '';
  if (excerpt === '') {
    excerpt = readCheckLog(last.logFile, ctx.config.log.dir, 64 * 1024)
      .split('\n')
      .filter(Boolean)
      .slice(-EXCERPT_LINES)
      .join('\n');
  }
  const cleanlyMerged: string[] = [];
  const file = summary?.location ? summary.location.replace(/:\d+(:\d+)?$/, '') : null;
  if (file && !conflictFiles.includes(file)) {
    try {
      const details = await engine.conflictCell(cell);
      const changed = await ctx.git.lines(['diff', '--name-only', details.above, details.left]);
      if (changed.includes(file)) cleanlyMerged.push(file);
    } catch (error) {
      ctx.log.debug({ cell: cellId(cell), error: String(error) }, 'hand-off: could not compare the cell parents');
    }
  }
  return {
    check: last.name,
    logFile: last.logFile,
    summary: summary ? summaryLine(summary) : `check '${last.name}' failed with exit code ${last.exitCode ?? 'none'}`,
    excerpt: excerpt.split('\n').slice(-EXCERPT_LINES).join('\n'),
    cleanlyMerged,
  };
}
