import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * Whether a long-lived child process (and its pipes) keeps the event loop alive: on only while a
 * request to it is pending, so an idle reader never holds a CLI open.
 */
export function holdOpen(child: ChildProcessWithoutNullStreams, on: boolean): void {
  const method = on ? 'ref' : 'unref';
  child[method]();
  for (const stream of [child.stdout, child.stderr, child.stdin]) {
    (stream as unknown as Record<string, (() => void) | undefined>)[method]?.call(stream);
  }
}

/** End a long-lived child process: close its stdin, then signal it (either may already be done). */
export function stopProcess(child: ChildProcessWithoutNullStreams | undefined): void {
  if (!child) return;
  child.stdin.end();
  child.kill();
}
