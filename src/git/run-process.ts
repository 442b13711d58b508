import { execFile } from 'node:child_process';

/** How one git process ended: its exit code, undefined when it did not exit on its own (not started, timed out, cancelled, killed by a signal). */
export interface ProcessResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** The error's code when it did not exit on its own (ENOENT: not found; ABORT_ERR: cancelled). */
  code: string | undefined;
  message: string;
}

/**
 * Run one process to its end with node's own `execFile`, which starts in a fraction of execa's
 * load time (the start-up of every command that runs git): stdout and stderr as UTF-8 with
 * the final newline kept, `input` on stdin (closed either way, so nothing waits on it), a timeout
 * and an AbortSignal that end it with SIGTERM. Never rejects for the process's own failure.
 */
export function runProcess(
  file: string,
  args: string[],
  options: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    input: string | Buffer | undefined;
    timeoutMs: number | undefined;
    signal: AbortSignal | undefined;
  },
): Promise<ProcessResult> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: options.env,
        encoding: 'utf8',
        maxBuffer: 1024 * 1024 * 1024,
        timeout: options.timeoutMs ?? 0,
        signal: options.signal,
      },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        resolve({
          exitCode: error === null ? 0 : typeof code === 'number' ? code : undefined,
          stdout,
          stderr,
          code: typeof code === 'string' ? code : undefined,
          message: error === null ? '' : error.message,
        });
      },
    );
    // git may exit before reading all of its input (EPIPE): its exit code says what happened.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input);
  });
}
