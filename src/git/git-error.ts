import { SplintercatError } from '../errors/index.js';

/** A git command that failed (an exit code not listed as data). */
export class GitError extends SplintercatError {
  readonly argv: string[];
  readonly gitExitCode: number | undefined;
  readonly stderr: string;
  readonly cwd: string;

  constructor(argv: string[], exitCode: number | undefined, stderr: string, cwd: string, cause?: unknown) {
    // git prints progress ("Preparing worktree ...") before the line that explains a failure.
    const lines = stderr
      .trim()
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const firstLine = lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[0] ?? '';
    super('git_failed', {
      what: `git ${argv.join(' ')} failed${exitCode === undefined ? '' : ` with exit code ${exitCode}`}${firstLine ? `: ${firstLine}` : ''}`,
      why: stderr.trim() || undefined,
      fix: `Run the same command by hand in ${cwd} to see the full output`,
      cause,
    });
    this.name = 'GitError';
    this.argv = argv;
    this.gitExitCode = exitCode;
    this.stderr = stderr;
    this.cwd = cwd;
  }

  static isGitError(value: unknown): value is GitError {
    return SplintercatError.isInstance(value) && value.code === 'git_failed';
  }
}
