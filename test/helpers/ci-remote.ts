import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { ciSetup } from '../../src/checks/remote/ci-jobs.js';
import { cliShellCommand } from '../fixtures/resolve/cli.js';
import { TestRepo, tempDir, testGitEnv } from './git-repo.js';

interface HookOptions {
  hook?: boolean;
  sandbox?: 'off';
  /** The key the hook's job signs results with (none by default). */
  resultKey?: string;
}

/**
 * A bare repository on this machine acting as the remote of a clone and as a self-hosted CI: its
 * `post-receive` hook is the one `splintercat init --ci hook` writes, running each check request
 * in a clone of its own, in the background, with this checkout's splintercat.
 */
export class CiRemote {
  private constructor(
    readonly bare: string,
    readonly repo: TestRepo,
  ) {}

  /** A repository with `files` committed on main, pushed to a new bare remote `origin`; the hook installed unless `hook` is false. */
  static create(files: Record<string, string>, options: HookOptions = {}): CiRemote {
    const repo = TestRepo.create();
    repo.commit('base', files);
    return CiRemote.attach(repo, options);
  }

  /** A new bare remote `origin` of `repo`, its branches pushed there; the hook installed unless `hook` is false. */
  static attach(repo: TestRepo, options: HookOptions = {}): CiRemote {
    const bare = join(tempDir('splintercat-remote-'), 'remote.git');
    execFileSync('git', ['init', '-q', '--bare', bare], { env: { ...process.env, ...testGitEnv } });
    repo.sh('remote', 'add', 'origin', bare);
    repo.sh('push', '-q', 'origin', '--all');
    const remote = new CiRemote(bare, repo);
    if (options.hook !== false)
      remote.installHook(options.sandbox === 'off' ? '--sandbox off' : '', options.resultKey ?? null);
    return remote;
  }

  /**
   * `reportArgs`: more options of check-report (`--sandbox off` for checks that share a directory
   * outside their clone; without it the job runs checks in bubblewrap). `resultKey`: the key the
   * job signs results with (SPLINTERCAT_RESULT_KEY), or null for none.
   */
  installHook(reportArgs = '', resultKey: string | null = null): void {
    const hookDir = join(this.bare, 'hooks');
    const setup = ciSetup('hook', { command: cliShellCommand, remote: 'origin', hookDir, reportArgs, resultKey });
    for (const file of setup.files) {
      mkdirSync(dirname(file.path), { recursive: true });
      writeFileSync(file.path, file.content);
      chmodSync(file.path, file.mode ?? 0o755);
    }
  }

  /** What the hook's jobs printed. */
  log(): string {
    const path = join(this.bare, 'splintercat-checks.log');
    return existsSync(path) ? readFileSync(path, 'utf8') : '';
  }

  /** Resolves once every job the hook started has ended (each prints a `done` line as its last act). */
  async jobsDone(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const log = this.log();
      const started = (log.match(/^splintercat-check-job: \S+ \(pid/gm) ?? []).length;
      const done = (log.match(/^splintercat-check-job: \S+ done/gm) ?? []).length;
      if (done >= started) return;
      if (Date.now() > deadline) throw new Error(`check jobs still running after ${timeoutMs} ms:\n${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The refs of the bare repository under `prefix`. */
  refs(prefix = 'refs/splintercat/'): string[] {
    const out = execFileSync('git', ['for-each-ref', '--format=%(refname)', prefix], {
      cwd: this.bare,
      encoding: 'utf8',
    });
    return out.split('\n').filter(Boolean).sort();
  }
}
