import { readRegular } from '../util/safe-read.js';

/** The most of a log read back (its end): enough for every parser, bounded whatever a check printed. */
const LOG_READ_BYTES = 16 * 1024 * 1024;

/**
 * A check's log as splintercat wrote it, read back from the log directory: never through a link,
 * never a file with another name elsewhere, never outside `logDir` (a check that could reach the
 * log directory must not make splintercat read and publish `/proc/self/environ` or a key file).
 * '' when it cannot be read so; the end of it when it is longer than `maxBytes`.
 */
export function readCheckLog(logFile: string, logDir: string, maxBytes: number = LOG_READ_BYTES): string {
  const read = readRegular(logFile, { within: logDir, maxBytes, singleLink: true });
  if (!read.ok) return '';
  const text = read.bytes.toString('utf8');
  // A cut log starts mid-line: drop that partial line.
  return read.truncated ? text.slice(text.indexOf('\n') + 1) : text;
}
