import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { glob } from 'tinyglobby';

/**
 * The key of a worktree's setup: the command and the paths and contents of the files
 * matching `setup_when`. Setup runs again when it changes.
 */
export async function setupKey(cwd: string, command: string, patterns: readonly string[]): Promise<string> {
  const files =
    patterns.length === 0
      ? []
      : await glob([...patterns], {
          cwd,
          dot: true,
          onlyFiles: true,
          expandDirectories: false,
          ignore: ['**/node_modules/**', '**/.git/**'],
        });
  const hash = createHash('sha256').update(command).update('\0');
  for (const file of files.sort()) {
    const content = await readFile(join(cwd, file)).catch(() => null);
    hash
      .update(file)
      .update('\0')
      .update(content === null ? '-' : createHash('sha256').update(content).digest('hex'))
      .update('\0');
  }
  return hash.digest('hex');
}

/**
 * Where a worktree's setup key is kept: in its git directory (`.git` or
 * `.git/worktrees/ID`), so it lives and dies with the worktree and stays out of its
 * tracked tree; for a directory that is not a worktree root, under the log directory,
 * keyed by the path.
 */
export function setupStampPath(cwd: string, logDir: string): string {
  const gitDir = worktreeGitDir(cwd);
  if (gitDir !== null) return join(gitDir, 'splintercat-setup.json');
  return join(logDir, '.setup', `${createHash('sha256').update(cwd).digest('hex').slice(0, 16)}.json`);
}

export function readSetupStamp(path: string): string | null {
  try {
    const value = JSON.parse(readFileSync(path, 'utf8')) as { key?: unknown };
    return typeof value.key === 'string' ? value.key : null;
  } catch {
    return null;
  }
}

export function writeSetupStamp(path: string, key: string, at: Date): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ key, at: at.toISOString() })}\n`);
  renameSync(temp, path);
}

function worktreeGitDir(cwd: string): string | null {
  const dotGit = join(cwd, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const match = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, 'utf8'));
    if (!match?.[1]) return null;
    const dir = isAbsolute(match[1]) ? match[1] : resolve(cwd, match[1]);
    return statSync(dir).isDirectory() ? dir : null;
  } catch {
    return null;
  }
}
