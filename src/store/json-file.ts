import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type * as z from 'zod';
import { SplintercatError } from '../errors/index.js';
import { removeLeftovers } from '../util/leftovers.js';
import { redactKnown } from '../util/secret-registry.js';

/** Why a state file could not be used. */
export type ReadProblem = 'missing' | 'parse' | 'schema' | 'version';

/** The typed result of reading a JSON state file: a problem is a value, not an exception. */
export type ReadResult<T> = { ok: true; value: T } | { ok: false; problem: ReadProblem; detail: string };

/** A versioned, zod-validated JSON document (e.g. `state.json`). */
export interface JsonFileSpec<T> {
  schema: z.ZodType<T>;
  /** The only `version` this code reads and writes. */
  version: number;
}

/** `<file>.bak`: the previous good version, kept by every write. */
export function backupPath(path: string): string {
  return `${path}.bak`;
}

/** Parse and validate already-read text (shared by the file reader and doctor). */
export function parseJsonText<T>(text: string, spec: JsonFileSpec<T>): ReadResult<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const detail = text.trim() === '' ? 'the file is empty' : (error as Error).message;
    return { ok: false, problem: 'parse', detail };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problem: 'schema', detail: 'the top level is not a JSON object' };
  }
  const version = (raw as Record<string, unknown>).version;
  if (version !== spec.version) {
    const detail =
      typeof version === 'number' && version > spec.version
        ? `version ${version} was written by a newer splintercat (this one reads version ${spec.version})`
        : `version ${JSON.stringify(version)} is not ${spec.version}`;
    return { ok: false, problem: 'version', detail };
  }
  const parsed = spec.schema.safeParse(raw);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
      .join('; ');
    return { ok: false, problem: 'schema', detail };
  }
  return { ok: true, value: parsed.data };
}

/** Read and validate a JSON state file. Never throws for a missing, unparsable or invalid file. */
export function readJsonFile<T>(path: string, spec: JsonFileSpec<T>): ReadResult<T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { ok: false, problem: 'missing', detail: `${path} does not exist` };
    return { ok: false, problem: 'parse', detail: `cannot read ${path}: ${(error as Error).message}` };
  }
  return parseJsonText(text, spec);
}

/** fsync a directory so a rename or a new file in it survives a power cut. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, constants.O_RDONLY);
    fsyncSync(fd);
  } catch (error) {
    // Some filesystems refuse fsync on a directory (EINVAL/EISDIR); the rename is still atomic there.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM') throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Temp files of writers that were killed before their rename (their pid is gone). */
function removeOrphanTemps(dir: string, name: string): void {
  const prefix = `.${name}.tmp-`;
  removeLeftovers(dir, (entry) => (entry.startsWith(prefix) ? Number(entry.slice(prefix.length).split('-')[0]) : null));
}

/**
 * Write `text` to `path` atomically: a temp file in the same directory, fsync, rename over
 * the target, fsync the directory. A kill at any instant leaves either the old or the new file.
 */
export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  removeOrphanTemps(dir, basename(path));
  const tmp = join(dir, `.${basename(path)}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    const buffer = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(tmp);
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (error) {
    if (existsSync(tmp)) unlinkSync(tmp);
    throw error;
  }
  fsyncDir(dir);
}

/**
 * Validate and write a versioned JSON state file. The current file, when it is itself valid,
 * becomes `<file>.bak` first (atomically too), so a bad write or a corrupted main file always
 * leaves one good version to restore. An invalid value is a programming error and throws.
 */
export function writeJsonFile<T>(path: string, value: T, spec: JsonFileSpec<T>): void {
  const checked = spec.schema.safeParse(value);
  if (!checked.success) {
    throw new SplintercatError('state_invalid_write', {
      what: `Refusing to write an invalid state to ${path}`,
      why: checked.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
        .join('; '),
      fix: 'This is a bug in splintercat; please report it with the debug log',
      where: path,
    });
  }
  if ((checked.data as { version?: unknown }).version !== spec.version) {
    throw new SplintercatError('state_invalid_write', {
      what: `Refusing to write state version ${String((checked.data as { version?: unknown }).version)} to ${path}`,
      fix: 'This is a bug in splintercat; please report it',
      where: path,
    });
  }
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (current !== undefined && parseJsonText(current, spec).ok) writeFileAtomic(backupPath(path), current);
  writeFileAtomic(path, `${redactKnown(JSON.stringify(checked.data, null, 2))}\n`);
}

/**
 * Move an unusable file aside as `<file>.corrupt-<time>` before it is replaced, so a repair never
 * destroys what the person might still want to read. Returns the new path, or null if there was no file.
 */
export function keepCorrupt(path: string, now: Date = new Date()): string | null {
  if (!existsSync(path)) return null;
  const target = `${path}.corrupt-${now.toISOString().replace(/[-:.]/g, '')}`;
  renameSync(path, target);
  fsyncDir(dirname(path));
  return target;
}
