import type { Git } from '../git/index.js';
import { objectsDirectory, writeCommitObject } from './loose-objects.js';

/** Writes a commit object and returns its id. */
export type WriteCommit = (tree: string, parents: string[], message: string) => Promise<string>;

/** `git commit-tree TREE -p PARENT... < MESSAGE`: one process per commit. */
export function commitTree(git: Git): WriteCommit {
  return (tree, parents, message) =>
    git.text(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p])], { input: message });
}

/** An identity as `git var GIT_AUTHOR_IDENT` printed it. */
interface Ident {
  /** The whole line: `NAME <EMAIL> SECONDS ZONE`. */
  line: string;
  /** `NAME <EMAIL>`. */
  person: string;
  seconds: number;
  zone: string;
  /** GIT_AUTHOR_DATE / GIT_COMMITTER_DATE set the date: every commit carries it. */
  fixed: boolean;
}

interface Setup {
  author: Ident;
  committer: Ident;
  objects: string;
}

/**
 * Writes commit objects in-process, as `git commit-tree` writes them (which never signs since
 * git 2.9): author and committer as `git var` reports them (environment and configuration, read
 * once, three processes), dated at the moment of writing unless the environment fixes the
 * date, stored as loose objects. No process per commit. Not written: the `encoding` header
 * commit-tree adds under a non-UTF-8 i18n.commitEncoding.
 */
export class CommitWriter {
  private setup: Promise<Setup> | undefined;

  constructor(
    private readonly git: Git,
    private readonly now: () => number = Date.now,
  ) {}

  /** Write the commit of `tree` on `parents` with `message` exactly as given; returns its id. */
  readonly write: WriteCommit = async (tree, parents, message) => {
    this.setup ??= this.read().catch((error: unknown) => {
      this.setup = undefined;
      throw error;
    });
    const { author, committer, objects } = await this.setup;
    const at = this.now();
    return writeCommitObject(objects, {
      tree,
      parents,
      author: dated(author, at),
      committer: dated(committer, at),
      message,
    });
  };

  private async read(): Promise<Setup> {
    const [author, committer, objects] = await Promise.all([
      this.git.queryText(['var', 'GIT_AUTHOR_IDENT']),
      this.git.queryText(['var', 'GIT_COMMITTER_IDENT']),
      objectsDirectory(this.git),
    ]);
    return {
      author: parseIdent(author, Boolean(this.git.env.GIT_AUTHOR_DATE)),
      committer: parseIdent(committer, Boolean(this.git.env.GIT_COMMITTER_DATE)),
      objects,
    };
  }
}

function parseIdent(line: string, fixed: boolean): Ident {
  const m = /^(.*) (\d+) ([+-]\d{4})$/.exec(line);
  if (!m) return { line, person: line, seconds: 0, zone: '', fixed: true };
  return { line, person: m[1] as string, seconds: Number(m[2]), zone: m[3] as string, fixed };
}

/** The identity dated `at` (ms), in the zone git would use then. */
function dated(ident: Ident, at: number): string {
  if (ident.fixed) return ident.line;
  // This process's zone, where it agrees with git's (same TZ): it follows daylight saving
  // changes during a long run; otherwise the zone git reported.
  const zone = localZone(ident.seconds * 1000) === ident.zone ? localZone(at) : ident.zone;
  return `${ident.person} ${Math.floor(at / 1000)} ${zone}`;
}

/** The local zone at `at` (ms) as git writes it: `+HHMM`. */
function localZone(at: number): string {
  const east = -new Date(at).getTimezoneOffset();
  const abs = Math.abs(east);
  return `${east < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}
