import type { HandoffConflict } from '../../store/run-state.js';
import { printableName as shown, shellWord } from '../../util/safe-print.js';
import type { Ctx } from '../nodes/common.js';
import { findRun } from '../find-run.js';

/**
 * The command that resumes this run from anywhere in the repository: `splintercat continue`, with
 * `--name` when another run would be taken for it (several runs, and this one not the configured name).
 */
export function continueCommand(ctx: Pick<Ctx, 'store' | 'config'>, name: string): string {
  return findRun(ctx.store, ctx.config.imerge.name, false) === name
    ? 'splintercat continue'
    : `splintercat continue --name ${shellWord(name)}`;
}

/** The `cd DIR   # comment` line of one conflict (commands end with the one command to run next). */
export function cdLine(conflict: HandoffConflict): string {
  // Names in the comment are shown escaped: a newline in one must not end the comment and start a command.
  const edits = conflict.files.filter((f) => f.choices === undefined).map((f) => shown(f.path));
  const choices = conflict.files.filter((f) => f.choices?.keep !== undefined).map((f) => shown(f.path));
  const whole = conflict.files.filter((f) => f.choices?.ours !== undefined).map((f) => shown(f.path));
  const parts = [
    ...(conflict.failure ? [`check '${shown(conflict.failure.check)}' failed: amend the resolution`] : []),
    ...(edits.length > 0 && !conflict.failure ? [`edit ${edits.join(', ')} (remove every marker line)`] : []),
    ...(choices.length > 0 && !conflict.failure
      ? [`choose for ${choices.join(', ')} (keep it or delete it, see status)`]
      : []),
    ...(whole.length > 0 && !conflict.failure ? [`take one side's whole ${whole.join(', ')} (see status)`] : []),
  ];
  return `cd ${shellWord(conflict.worktree)}   # conflict ${conflict.conflict}: ${parts.join('; ')}`;
}
