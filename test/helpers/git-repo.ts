import { mkdtempSync, mkdirSync, rmSync, writeFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { onTestFinished } from 'vitest';
import { Git } from '../../src/git/index.js';

/** Environment that makes commits reproducible and keeps the user's config out. */
export const testGitEnv: Record<string, string> = {
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** A temporary directory removed when the current test finishes. */
export function tempDir(prefix = 'splintercat-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  // KEEP_TEST_DIRS=1 keeps them for inspection (a journey's run state, logs and worktrees).
  if (process.env.KEEP_TEST_DIRS === '1') return dir;
  try {
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  } catch {
    // called outside a test (e.g. in beforeAll): the caller cleans up
  }
  return dir;
}

function newRepoDir(): string {
  const dir = join(tempDir(), 'repo');
  mkdirSync(dir);
  return dir;
}

/**
 * A real temporary repository with a builder that makes histories short to write:
 * `repo.commit('msg', { 'a.txt': 'x' })`, `repo.branch('feature')`, `repo.checkout('main')`.
 */
export class TestRepo {
  readonly git: Git;
  private tick = 0;

  constructor(readonly dir: string) {
    this.git = new Git({ cwd: dir, env: testGitEnv });
  }

  /**
   * A new repository; by default in `repo/` of a fresh temporary directory, so what splintercat
   * puts beside the repository (the runs' worktrees, `../repo-splintercat/`) is removed with it.
   */
  static create(dir = newRepoDir()): TestRepo {
    const repo = new TestRepo(dir);
    repo.sh('init', '-q', '-b', 'main');
    for (const [k, v] of [
      ['user.name', 'Test User'],
      ['user.email', 'test@example.com'],
      ['commit.gpgsign', 'false'],
      ['gc.auto', '0'],
      ['maintenance.auto', 'false'],
      ['core.autocrlf', 'false'],
    ] as const) {
      repo.sh('config', k, v);
    }
    try {
      onTestFinished(() => repo.git.close());
    } catch {
      // outside a test
    }
    return repo;
  }

  /** Run git synchronously and return trimmed stdout. */
  sh(...args: string[]): string {
    this.tick++;
    const date = `${1_700_000_000 + this.tick} +0000`;
    return execFileSync('git', args, {
      cwd: this.dir,
      env: { ...process.env, ...testGitEnv, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date, LC_ALL: 'C' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    }).trimEnd();
  }

  /** Write files (null deletes), stage everything, commit; returns the new commit id. */
  commit(message: string, files: Record<string, string | null> = {}): string {
    this.write(files);
    this.sh('add', '-A');
    this.sh('commit', '-q', '--allow-empty', '-m', message);
    return this.sh('rev-parse', 'HEAD');
  }

  write(files: Record<string, string | null>): void {
    for (const [path, content] of Object.entries(files)) {
      const full = join(this.dir, path);
      if (content === null) {
        rmSync(full, { force: true });
      } else {
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, content);
      }
    }
  }

  branch(name: string, start = 'HEAD'): void {
    this.sh('branch', name, start);
  }

  checkout(name: string): void {
    this.sh('checkout', '-q', name);
  }

  head(): string {
    return this.sh('rev-parse', 'HEAD');
  }
}
