import { createHash } from 'node:crypto';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import type { Git } from '../git/index.js';
import type { Merger } from './autofill.js';
import { mergeTree } from './merge-tree.js';

/** Author and committer identity lines, read once from `git var` (honours GIT_* env and config). */
interface Identity {
  author: string;
  committer: string;
  objects: string;
}

/**
 * The git implementation of Merger: `git merge-tree --write-tree` for merges; commit objects are
 * written directly as loose objects (SHA-1 of the object, zlib, atomic rename), which halves the
 * processes spawned per merge. Never touches the index, the working tree or hooks. Merge results
 * are cached per pair of commits (a merge of two fixed commits is a pure function).
 */
export class GitMerger implements Merger {
  private readonly cache = new Map<string, Promise<string | null>>();
  private identity?: Promise<Identity>;
  merges = 0;
  /** Every merge-tree run, in order (for replays and benchmarks). */
  readonly log: [string, string][] = [];

  constructor(
    private readonly git: Git,
    private readonly signal?: AbortSignal,
  ) {}

  mergeTree(c1: string, c2: string): Promise<string | null> {
    const key = `${c1} ${c2}`;
    let p = this.cache.get(key);
    if (!p) {
      this.merges++;
      this.log.push([c1, c2]);
      p = mergeTree(this.git, c1, c2, this.signal).then((r) => (r.clean ? r.tree : null));
      p.catch(() => this.cache.delete(key));
      this.cache.set(key, p);
    }
    return p;
  }

  async commit(tree: string, parents: string[], message: string): Promise<string> {
    const id = await (this.identity ??= this.readIdentity());
    const body =
      `tree ${tree}\n` + parents.map((p) => `parent ${p}\n`).join('') + `author ${id.author}\ncommitter ${id.committer}\n\n${message}\n`;
    return writeLooseObject(id.objects, 'commit', Buffer.from(body, 'utf8'));
  }

  private async readIdentity(): Promise<Identity> {
    const [author, committer, objects] = await Promise.all([
      this.git.text(['var', 'GIT_AUTHOR_IDENT']),
      this.git.text(['var', 'GIT_COMMITTER_IDENT']),
      objectsDirectory(this.git),
    ]);
    return { author, committer, objects };
  }
}

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

/** Write a loose object (what `git hash-object -w` does) and return its id. */
export async function writeLooseObject(objectsDir: string, type: string, content: Buffer): Promise<string> {
  const raw = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const oid = createHash('sha1').update(raw).digest('hex');
  const dir = join(objectsDir, oid.slice(0, 2));
  const file = join(dir, oid.slice(2));
  try {
    await stat(file);
    return oid;
  } catch {
    // not there yet
  }
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `tmp_obj_${process.pid}_${Math.random().toString(36).slice(2)}`);
  await writeFile(tmp, deflateSync(raw), { mode: 0o444 });
  await rename(tmp, file);
  return oid;
}
