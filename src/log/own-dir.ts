import { constants, lstatSync, mkdirSync, openSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SplintercatError } from '../errors/index.js';

/**
 * Directories and files splintercat writes its logs to inside a working tree. A link there may be
 * content of the tree (upstream's commit of `.splintercat/logs -> /elsewhere`, checked out by the
 * merge), so under `root` (the repository's working tree) no component of the way is followed
 * through a link, and a log file is never opened through one: each is refused, saying which.
 * Outside `root` the directories are the person's own choice (`log.dir: /var/log/x`), taken as they are.
 */

/** Create `dir` (and its parents) under `root`, refusing a link or a non-directory on the way; returns `dir`. */
export function ensureOwnDir(dir: string, root: string): string {
  const full = resolve(dir);
  const base = resolve(root);
  const rel = relative(base, full);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    mkdirSync(full, { recursive: true });
    return full;
  }
  let at = base;
  for (const part of rel.split(sep).filter((p) => p !== '')) {
    at = join(at, part);
    const kind = entryKind(at);
    if (kind === 'missing') {
      try {
        mkdirSync(at);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (entryKind(at) !== 'directory') throw linkOnTheWay(full, at);
    } else if (kind !== 'directory') throw linkOnTheWay(full, at);
  }
  return full;
}

/**
 * Open `path` to append (created when missing), never through a link at its last component;
 * the directory holding it is `ensureOwnDir`'s. Returns the file descriptor.
 */
export function openAppendNoFollow(path: string): number {
  try {
    return openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkOnTheWay(path, path);
    throw error;
  }
}

function entryKind(path: string): 'missing' | 'directory' | 'other' {
  try {
    return lstatSync(path).isDirectory() ? 'directory' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

function linkOnTheWay(target: string, at: string): SplintercatError {
  return new SplintercatError('log_dir_link', {
    what: `Refused to write logs to ${target}: ${at} is a link or not a directory`,
    why: 'A link inside the working tree may come with the merged content (a committed .splintercat/logs link) and send the logs anywhere',
    fix: [
      `Remove ${at} (git rm it if it is tracked), then run the command again`,
      'Or set log.dir to a directory of your own',
    ],
  });
}
