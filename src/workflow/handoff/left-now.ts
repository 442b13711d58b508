import { existsSync } from 'node:fs';
import { Git } from '../../git/index.js';
import { leftToDo, takeCommand, type LeftFile } from '../../resolve/index.js';
import type { HandoffConflict, HandoffFile, HandoffHunk, Handoff } from '../../store/handoff-state.js';
import { fileHunks, hunksKeyed } from '../../store/stored-hunks.js';
import { printableName as shown } from '../../util/safe-print.js';

/**
 * The hand-off as it stands in its worktrees now: each file's hunks are those still open, by the
 * numbers they were handed over with (whatever `take` settled since), where they are now, with the
 * choices that exist for them; a file settled since says so. A worktree that cannot be read is shown
 * as it was handed over.
 */
export async function handoffAsLeft(handoff: Handoff): Promise<Handoff> {
  const conflicts: HandoffConflict[] = [];
  for (const c of handoff.conflicts) conflicts.push(await conflictAsLeft(c));
  return { ...handoff, conflicts };
}

async function conflictAsLeft(c: HandoffConflict): Promise<HandoffConflict> {
  // An amended resolution has no hunks; a worktree gone (the run moved on) is shown as handed over.
  if (c.failure || !c.files.some((f) => fileHunks(f) !== undefined) || !existsSync(c.worktree)) return c;
  const git = new Git({ cwd: c.worktree });
  try {
    const left = await leftToDo(git, c.worktree, await git.gitDir(false));
    return {
      ...c,
      files: c.files.map((f) =>
        fileAsLeft(
          f,
          left.find((l) => l.path === f.path),
        ),
      ),
    };
  } catch {
    return c;
  } finally {
    git.close();
  }
}

function fileAsLeft(file: HandoffFile, left: LeftFile | undefined): HandoffFile {
  const handed = fileHunks(file);
  if (handed === undefined) return file;
  if (left === undefined)
    return {
      ...file,
      hunks: 0,
      ...hunksKeyed([]),
      instructions: `${shown(file.path)}: settled (staged), nothing left`,
    };
  const open = left.hunks.map((b): HandoffHunk => {
    const was = handed.find((h) => h.hunk === b.number);
    return {
      hunk: b.number,
      startLine: b.startLine,
      endLine: b.endLine,
      take: takeCommands(file.path, b.number, b.choices.split('|')),
      ...(was?.suggestion ? { suggestion: was.suggestion } : {}),
    };
  });
  const taken = handed.length - open.filter((b) => handed.some((h) => h.hunk === b.hunk)).length;
  return {
    ...file,
    hunks: open.length,
    ...hunksKeyed(open),
    ...(taken > 0
      ? {
          instructions: `${file.instructions} (${taken} of the ${handed.length} hunk(s) handed over settled since; ${open.length} left)`,
        }
      : {}),
  };
}

/** The one-command answers of a hunk: the choices that exist for it, `both` in each order. */
function takeCommands(path: string, hunk: number, choices: string[]): Record<string, string> {
  const take: Record<string, string> = {};
  for (const choice of choices) {
    take[choice] = takeCommand(choice, path, hunk);
    if (choice === 'both') take['both theirs-first'] = takeCommand('both', path, hunk, 'theirs-first');
  }
  return take;
}
