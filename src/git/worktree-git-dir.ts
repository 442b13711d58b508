import { lstatSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The git directory of the linked worktree at `path`, from the repository's own records: the
 * `$COMMON/worktrees/ID/gitdir` file naming `path/.git`. Never from `path/.git`, which whatever
 * runs in the worktree may have rewritten. Null when the repository has no record of it.
 */
export function linkedWorktreeGitDir(commonDir: string, path: string): string | null {
  const admin = join(commonDir, 'worktrees');
  let ids: string[];
  try {
    ids = readdirSync(admin);
  } catch {
    return null;
  }
  const wanted = new Set([resolve(path, '.git'), join(realOr(path), '.git')]);
  for (const id of ids) {
    let recorded: string;
    try {
      recorded = readFileSync(join(admin, id, 'gitdir'), 'utf8').trim();
    } catch {
      continue;
    }
    if (wanted.has(resolve(recorded))) return join(admin, id);
  }
  return null;
}

/**
 * Make `path/.git` point at `gitDir` again when it does not (rewritten or replaced by a link):
 * the person told to `cd` there runs git through it.
 */
export function repairWorktreePointer(path: string, gitDir: string): boolean {
  const pointer = join(path, '.git');
  const want = `gitdir: ${gitDir}\n`;
  try {
    if (lstatSync(pointer).isFile() && readFileSync(pointer, 'utf8') === want) return false;
  } catch {
    // missing: written below
  }
  rmSync(pointer, { recursive: true, force: true });
  writeFileSync(pointer, want);
  return true;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
