import type { WriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { diskFull, lastLines } from './log-file.js';
import { relay } from './relay-output.js';

/** Lines of a check's output kept in its result. */
const TAIL_LINES = 30;

/** A check's output on its way to its log, the console and its result's tail. */
interface CheckOutput {
  /**
   * Once the process is gone and its pipes closed: write what is still buffered and `trailer`
   * (splintercat's own last word, e.g. a timeout), end the log, and give the last lines. A full
   * disk is an error saying where; any other write error leaves the log short, never the check's result.
   */
  close(trailer: string): Promise<string[]>;
}

/**
 * Relay `streams` (stdout and stderr), redacted of `secrets`, to the log `out`, to `onOutput` (the
 * console) and to the tail of the result.
 */
export function captureOutput(
  streams: Readable[],
  out: WriteStream,
  options: { secrets: readonly string[]; outputDir: string; onOutput: ((chunk: string) => void) | undefined },
): CheckOutput {
  let tail = '';
  let writeError: NodeJS.ErrnoException | null = null;
  out.on('error', (e: NodeJS.ErrnoException) => {
    writeError = e;
  });
  const flushes = streams.map((stream) =>
    relay(stream, options.secrets, (bytes, text) => {
      out.write(bytes);
      if (text === '') return;
      options.onOutput?.(text);
      tail = (tail + text).slice(-64 * 1024);
    }),
  );
  return {
    close: async (trailer) => {
      for (const flush of flushes) flush();
      if (trailer !== '') out.write(trailer);
      await new Promise<void>((done) => out.end(done));
      const error = writeError as NodeJS.ErrnoException | null;
      if (error !== null && error.code === 'ENOSPC') throw diskFull(options.outputDir, error);
      return lastLines(tail, TAIL_LINES);
    },
  };
}
