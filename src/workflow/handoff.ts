import type { ModelRung } from '../agents/index.js';
import type { FailureSummary } from '../checks/types.js';
import type { WorkingTreeFileResult } from '../resolve/index.js';
import type { ConflictState, HandoffConflict, HandoffFile } from '../store/run-state.js';
import { printableName as shown, shellWord } from '../util/safe-print.js';

/** The shell quoting of a path in a printed command (plain paths stay as they are; see util/safe-print.ts). */
export const shellQuote = shellWord;

/** The exact commands of a modify/delete choice, run in the conflict's worktree. */
export function keepOrDelete(path: string): { keep: string; delete: string } {
  const q = shellQuote(path);
  return { keep: `git add -- ${q}`, delete: `git rm -q -- ${q}` };
}

/** The exact commands taking one side's version (bytes and mode) of a file. */
function oursOrTheirs(path: string): { ours: string; theirs: string } {
  const q = shellQuote(path);
  return {
    ours: `git checkout --ours -- ${q} && git add -- ${q}`,
    theirs: `git checkout --theirs -- ${q} && git add -- ${q}`,
  };
}

/**
 * What a person must do with one file the ladder left, to the letter. In a conflict's worktree
 * HEAD (ours, stage 2) is the fork side of the cell and the merged commit (theirs, stage 3)
 * the upstream side.
 */
export function handoffFile(result: WorkingTreeFileResult): HandoffFile {
  const { path } = result;
  const name = shown(path);
  const kind = result.decision?.kind ?? 'content';
  if (kind === 'content' || kind === 'add/add') {
    const blocks = result.remaining.length;
    if (blocks === 0 && result.note) return { path, kind, hunks: 0, instructions: `${name}: ${result.note}` };
    const what = kind === 'add/add' ? `both sides added ${name} with different contents; ` : '';
    const note = result.note ? ` (${result.note})` : '';
    return {
      path,
      kind,
      hunks: blocks,
      instructions: `${what}edit ${name}: ${blocks} conflict block(s)${note}; remove every marker line (<<<<<<<, |||||||, =======, >>>>>>>)`,
    };
  }
  const keep = result.decision?.options.find((o) => o.action === 'keep-ours' || o.action === 'keep-theirs');
  if (kind === 'modify/delete' || kind === 'rename/delete' || kind === 'rename/rename' || kind === 'file/directory') {
    const choices = keepOrDelete(path);
    const deleter = keep?.action === 'keep-ours' ? 'the upstream side' : 'the fork side';
    const keeper = keep?.action === 'keep-ours' ? 'the fork side' : 'the upstream side';
    const rename = kind.startsWith('rename')
      ? ` (git saw a rename: ${result.decision?.description ?? 'see git status'})`
      : '';
    return {
      path,
      kind,
      instructions:
        `${deleter} deleted ${name} while ${keeper} changed it${rename}; there are no conflict markers. ` +
        `Keep the deletion: \`${choices.delete}\`; or keep ${keeper}'s file (edit it first if needed): \`${choices.keep}\``,
      choices,
    };
  }
  const choices = oursOrTheirs(path);
  const what = result.decision?.description ?? `both sides changed ${name}`;
  return {
    path,
    kind,
    instructions: `${what}; there are no conflict markers. Take the fork side's ${kind === 'mode' ? 'mode' : 'version'}: \`${choices.ours}\`; or the upstream side's: \`${choices.theirs}\``,
    choices,
  };
}

/** The files of a resolved conflict presented again with its resolution in place, to amend after a failed check. */
export function amendFiles(conflict: ConflictState, check: string): HandoffFile[] {
  return conflict.files.map((f) => ({
    path: f.path,
    kind: f.kind,
    instructions: `the resolution of ${shown(f.path)} is in place (no markers); check '${shown(check)}' failed on it: amend the file (or \`git rm -q -- ${shellQuote(f.path)}\` / \`git add -- ${shellQuote(f.path)}\`), or commit a fix in this worktree`,
  }));
}

/** One line per model conversation that did not settle its file: what it tried and why it was refused. */
export function modelAttempts(transcripts: ModelRung['outcomes']): string[] {
  return transcripts.flatMap(({ path, outcome }) => {
    if (outcome.ok) return [];
    return [`${outcome.modelId ?? 'the model'} tried ${path} and was refused (${outcome.reason}): ${outcome.message}`];
  });
}

/** The one-line form of a failure summary. */
export function summaryLine(summary: FailureSummary): string {
  return `${summary.error_type}${summary.location ? ` at ${summary.location}` : ''}: ${summary.root_cause}`;
}

/** The `cd DIR   # comment` line of one conflict (commands end with the one command to run next). */
export function cdLine(conflict: HandoffConflict): string {
  // Names in the comment are shown escaped: a newline in one must not end the comment and start a command.
  const edits = conflict.files.filter((f) => f.choices === undefined).map((f) => shown(f.path));
  const choices = conflict.files.filter((f) => f.choices !== undefined).map((f) => shown(f.path));
  const parts = [
    ...(conflict.failure ? [`check '${shown(conflict.failure.check)}' failed: amend the resolution`] : []),
    ...(edits.length > 0 && !conflict.failure ? [`edit ${edits.join(', ')} (remove every marker line)`] : []),
    ...(choices.length > 0 && !conflict.failure
      ? [`choose for ${choices.join(', ')} (git rm or git add, see status)`]
      : []),
  ];
  return `cd ${shellQuote(conflict.worktree)}   # conflict ${conflict.conflict}: ${parts.join('; ')}`;
}
