import { selectChecks } from '../checks/select.js';
import type { RunState } from '../store/run-state.js';
import { changesNoCode } from './no-code-change.js';
import { workflowChecks } from './nodes/common.js';
import type { WorkflowContext } from './ports.js';
import { checkProgress } from '../store/flow-checks.js';

/**
 * What one check of resolutions runs: nothing (they change no compiled byte), the fast checks
 * their files select, or the full checks (every workflow check).
 */
export type CheckPlan =
  | { kind: 'skip'; reason: string; proofs: Record<string, string> }
  | { kind: 'fast'; names: string[]; left: string[]; reason: string }
  | { kind: 'full'; names: string[]; reason: string };

/**
 * Decide the check of the resolutions `batch` (conflict ids): the full checks on the final
 * cell; nothing when every resolution changes no compiled byte (`check.skip_no_code_change`; a
 * `check.full_every` boundary then waits for the next check); the full checks at that boundary
 * or when nothing is saved by doing less; otherwise the fast candidates (`check.fast`, else the
 * workflow checks) their files select (`check.select`).
 */
export async function planCheck(
  ctx: WorkflowContext,
  state: RunState,
  batch: readonly string[],
  final: boolean,
): Promise<CheckPlan> {
  const check = ctx.config.check;
  const full = workflowChecks(ctx);
  // With no check to run, the reason is the configuration, whatever the cell.
  if (full.length === 0)
    return {
      kind: 'full',
      names: full,
      reason: check.workflow.length > 0 ? 'none is configured in check.commands' : 'check.workflow names none',
    };
  if (final) return { kind: 'full', names: full, reason: 'the final cell: every check runs' };
  const conflicts = state.conflicts.filter((c) => batch.includes(c.id));
  if (check.skip_no_code_change && conflicts.length > 0 && conflicts.length === batch.length) {
    const proofs: Record<string, string> = {};
    for (const c of conflicts) {
      const proof = await changesNoCode(ctx.git, c);
      if (!proof.same) break;
      proofs[c.id] = c.files.map((f) => f.path).join(', ');
    }
    if (Object.keys(proofs).length === conflicts.length)
      return {
        kind: 'skip',
        proofs,
        reason: `the resolution${conflicts.length > 1 ? 's change' : ' changes'} no compiled byte (whitespace or comments only, proven by the syntax rung)`,
      };
  }
  const since = checkProgress(state).fastOnly.length + batch.length;
  if (check.full_every > 0 && since >= check.full_every)
    return {
      kind: 'full',
      names: full,
      reason: `${since} resolution(s) since the last full check (check.full_every: ${check.full_every})`,
    };
  const candidates = (check.fast.length > 0 ? check.fast : full).filter((n) => n in check.commands);
  const paths = [...new Set(conflicts.flatMap((c) => c.files.map((f) => f.path)))];
  const selection = selectChecks(candidates, check.select, paths);
  if (check.fast.length === 0 && selection.skipped.length === 0)
    return { kind: 'full', names: full, reason: 'every workflow check is selected' };
  const why =
    selection.skipped.length > 0
      ? `selected by ${paths.length} file(s) (check.select); not run: ${selection.skipped.join(', ')}`
      : selection.unmatched.length > 0
        ? `every fast check (${selection.unmatched.slice(0, 3).join(', ')} matches no check.select glob)`
        : 'every fast check';
  return { kind: 'fast', names: selection.checks, left: selection.skipped, reason: why };
}
