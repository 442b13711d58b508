import { readdir } from 'node:fs/promises';
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

/** A loose object ready to write: its id, and its file's bytes (zlib of header and content). */
export interface LooseObject {
  oid: string;
  deflated: Buffer;
}

/** Hash and compress an object as git stores it loose. */
export function looseObject(type: string, content: Buffer): LooseObject {
  const raw = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  return { oid: createHash('sha1').update(raw).digest('hex'), deflated: deflateSync(raw) };
}

/**
 * Write a loose object (what `git hash-object -w` does) and return its id. The few system calls
 * are made synchronously: these objects are small (commits, a state blob), and each async call
 * waits its turn in libuv's thread pool, which put milliseconds on the path of every merge.
 */
export async function writeLooseObject(objectsDir: string, type: string, content: Buffer): Promise<string> {
  const object = looseObject(type, content);
  storeLooseObject(objectsDir, object);
  return object.oid;
}

/** Where a loose object goes in `objectsDir`: its fan-out directory, its file, and a temporary name to write it under first. */
export function looseObjectPaths(objectsDir: string, oid: string): { dir: string; file: string; tmp: string } {
  const dir = join(objectsDir, oid.slice(0, 2));
  return {
    dir,
    file: join(dir, oid.slice(2)),
    tmp: join(dir, `tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`),
  };
}

/** Put a prepared loose object into `objectsDir` (nothing to do when it is there already). */
export function storeLooseObject(objectsDir: string, { oid, deflated }: LooseObject): void {
  const { dir, file, tmp } = looseObjectPaths(objectsDir, oid);
  if (existsSync(file)) return;
  try {
    writeFileSync(tmp, deflated, { mode: 0o444 });
  } catch (error) {
    // The fan-out directory is missing (new, or emptied and removed by `git prune-packed`).
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, deflated, { mode: 0o444 });
  }
  renameSync(tmp, file);
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

/** A commit object's text, as git stores it. */
export function commitText(commit: CommitObject): Buffer {
  const body =
    `tree ${commit.tree}\n` +
    commit.parents.map((p) => `parent ${p}\n`).join('') +
    `author ${commit.author}\ncommitter ${commit.committer}\n\n${commit.message}`;
  return Buffer.from(body, 'utf8');
}

/** Write a commit object as a loose object; returns its id. */
export function writeCommitObject(objectsDir: string, commit: CommitObject): Promise<string> {
  return writeLooseObject(objectsDir, 'commit', commitText(commit));
}

/** Ids of the loose objects in `objects` (SHA-1 or SHA-256). */
export async function looseObjectIds(objects: string): Promise<string[]> {
  const dirs = await Promise.all(
    Array.from({ length: 256 }, async (_, k) => {
      const dir = k.toString(16).padStart(2, '0');
      try {
        return (await readdir(join(objects, dir)))
          .filter((f) => /^[0-9a-f]{38}$|^[0-9a-f]{62}$/.test(f))
          .map((f) => dir + f);
      } catch {
        return [];
      }
    }),
  );
  return dirs.flat();
}
