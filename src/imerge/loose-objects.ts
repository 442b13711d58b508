import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { Git } from '../git/index.js';

const objectDirectories = new WeakMap<Git, Promise<string>>();

/** The absolute path of the repository's object directory, asked of git once per `Git`. */
export function objectsDirectory(git: Git): Promise<string> {
  let dir = objectDirectories.get(git);
  if (!dir) {
    dir = git.text(['rev-parse', '--path-format=absolute', '--git-path', 'objects']);
    dir.catch(() => objectDirectories.delete(git));
    objectDirectories.set(git, dir);
  }
  return dir;
}

/**
 * Write a loose object (what `git hash-object -w` does) and return its id. The few system calls
 * are made synchronously: these objects are small (commits, a state blob), and each async call
 * waits its turn in libuv's thread pool, which put milliseconds on the path of every merge.
 */
export async function writeLooseObject(objectsDir: string, type: string, content: Buffer): Promise<string> {
  const raw = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const oid = createHash('sha1').update(raw).digest('hex');
  const dir = join(objectsDir, oid.slice(0, 2));
  const file = join(dir, oid.slice(2));
  if (existsSync(file)) return oid;
  const tmp = join(dir, `tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`);
  const deflated = deflateSync(raw);
  try {
    writeFileSync(tmp, deflated, { mode: 0o444 });
  } catch (error) {
    // The fan-out directory is missing (new, or emptied and removed by `git prune-packed`).
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, deflated, { mode: 0o444 });
  }
  renameSync(tmp, file);
  return oid;
}

/** The parts of a commit object, each exactly as it goes in (the message with its final newline, if any). */
export interface CommitObject {
  tree: string;
  parents: readonly string[];
  /** Ident lines: `Name <email> SECONDS ZONE`. */
  author: string;
  committer: string;
  message: string;
}

/** Write a commit object as a loose object; returns its id. */
export function writeCommitObject(objectsDir: string, commit: CommitObject): Promise<string> {
  const body =
    `tree ${commit.tree}\n` + commit.parents.map((p) => `parent ${p}\n`).join('') + `author ${commit.author}\ncommitter ${commit.committer}\n\n${commit.message}`;
  return writeLooseObject(objectsDir, 'commit', Buffer.from(body, 'utf8'));
}
