import { rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { SplintercatError } from '../errors/index.js';
import { CatFileBatch, CatFileCheck, type GitObject, type ObjectInfo } from './cat-file.js';
import { gitEnvironment } from './git-env.js';
import { GitError } from './git-error.js';
import { GitShell, writeInputFile, type ShellResult } from './git-shell.js';
import { OBJECT_LIMITS } from './object-limits.js';
import { packedTransaction } from './packed-refs.js';
import { runProcess } from './run-process.js';
import {
  cappedRefusal,
  type CappedRead,
  type CappedText,
  type GitOptions,
  type GitResult,
  type GitRunOptions,
  type QueryOptions,
  type RefEntry,
  type RefUpdate,
} from './git-types.js';

/** Transactions of at least this many refs are written into packed-refs where allowed. */
const PACKED_AT = 32;

const ZERO_OID = '0000000000000000000000000000000000000000';
/** A full object id (SHA-1 or SHA-256): the same object in every worktree of a repository. */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * The single way splintercat runs git: an explicit `cwd`, a fixed environment
 * (C locale, never prompting, no pager), typed `GitError`s, and exit codes that
 * mean data returned as data.
 */
export class Git {
  readonly cwd: string;
  readonly gitBinary: string;
  readonly env: NodeJS.ProcessEnv;
  /** The git directory named explicitly (see GitOptions.gitDir), if any. */
  readonly boundGitDir: string | undefined;
  private readonly extraEnv: Record<string, string>;
  private batch: CatFileBatch | undefined;
  private check: CatFileCheck | undefined;
  private readonly shells: GitShell[] = [];
  /** The Git whose cat-file process reads objects by id for this one (see `at`). */
  private objectsFrom: Git | undefined;

  constructor(options: GitOptions) {
    this.cwd = options.cwd;
    this.gitBinary = options.gitBinary ?? 'git';
    this.boundGitDir = options.gitDir;
    this.extraEnv = { ...options.env };
    this.env = gitEnvironment(process.env, {
      ...options.env,
      ...(options.gitDir !== undefined ? { GIT_DIR: options.gitDir, GIT_WORK_TREE: options.cwd } : {}),
    });
  }

  /**
   * A Git on another directory sharing this one's settings. `worktree`: the directory is a
   * worktree of this Git's repository, whose objects it shares, so reads of objects by id go
   * through this Git's cat-file process instead of starting one per worktree (other specs,
   * such as `HEAD:path`, still read the worktree's own refs and index). `gitDir`: its git
   * directory, named explicitly (kept when `cwd` is this Git's own). `env`: more environment for
   * every command of the new Git.
   */
  at(cwd: string, options: { worktree?: boolean; gitDir?: string; env?: Record<string, string> } = {}): Git {
    const gitDir = options.gitDir ?? (cwd === this.cwd ? this.boundGitDir : undefined);
    const git = new Git({
      cwd,
      gitBinary: this.gitBinary,
      env: { ...this.extraEnv, ...options.env },
      ...(gitDir !== undefined ? { gitDir } : {}),
    });
    if (options.worktree) git.objectsFrom = this.objectsFrom ?? this;
    return git;
  }

  /** Run git; throws GitError unless the exit code is in `okExitCodes`. */
  async run(args: string[], options: GitRunOptions = {}): Promise<GitResult> {
    const cwd = options.cwd ?? this.cwd;
    let result;
    try {
      result = await runProcess(this.gitBinary, args, {
        cwd,
        env: options.env ? { ...this.env, ...options.env } : this.env,
        input: options.input,
        timeoutMs: options.timeoutMs,
        signal: options.signal,
      });
    } catch (error) {
      throw new GitError(args, undefined, String(error), cwd, error);
    }
    if (result.exitCode === undefined) {
      if (!existsSyncSafe(cwd)) {
        throw new SplintercatError('workdir_missing', {
          what: `The directory ${cwd} does not exist`,
          fix: 'Check target.workdir in splintercat.yaml or run from inside the repository',
        });
      }
      if (result.code === 'ENOENT') {
        throw new SplintercatError('git_not_found', {
          what: `git could not be started (${this.gitBinary})`,
          why: 'git is not installed or not on PATH',
          fix: 'Install git >= 2.38 (for example `apt-get install git`) and make sure `git --version` works',
        });
      }
      throw new GitError(args, undefined, result.stderr || result.message, cwd);
    }
    const exitCode = result.exitCode;
    const ok = options.okExitCodes ?? [0];
    if (!ok.includes(exitCode)) throw new GitError(args, exitCode, result.stderr, cwd);
    return { exitCode, stdout: result.stdout, stderr: result.stderr };
  }

  /** Run git and return stdout without its final newline. */
  async text(args: string[], options?: GitRunOptions): Promise<string> {
    return (await this.run(args, options)).stdout.replace(/\n$/, '');
  }

  /** `query`, returning stdout without its final newline (as `text`). */
  async queryText(args: string[], options?: QueryOptions): Promise<string> {
    return (await this.query(args, options)).stdout.replace(/\n$/, '');
  }

  /** Run git and return the non-empty lines of stdout. */
  async lines(args: string[], options?: GitRunOptions): Promise<string[]> {
    const out = await this.text(args, options);
    return out === '' ? [] : out.split('\n');
  }

  /** The installed git's version as [major, minor, patch]. */
  async version(): Promise<[number, number, number]> {
    const out = await this.text(['version']);
    const match = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(out);
    if (!match) throw new GitError(['version'], 0, `unexpected output: ${out}`, this.cwd);
    return [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  }

  /** Resolve a revision to an object id; null when it does not resolve. */
  async revParse(rev: string): Promise<string | null> {
    const result = await this.query(['rev-parse', '--verify', '--quiet', '--end-of-options', rev], {
      okExitCodes: [0, 1, 128],
    });
    if (result.exitCode !== 0) return null;
    return result.stdout.trim() || null;
  }

  /** Resolve a revision or throw a clear error naming it. */
  async resolve(rev: string): Promise<string> {
    const oid = await this.revParse(rev);
    if (oid === null) {
      throw new SplintercatError('unknown_revision', {
        what: `'${rev}' is not a branch, tag or commit in ${this.cwd}`,
        why: 'The name is misspelt, or the remote branch has not been fetched',
        fix: [`Check the name with \`git branch -a\``, 'Fetch the remote first, e.g. `git fetch upstream`'],
      });
    }
    return oid;
  }

  /** The merge base of two commits; null when they share no history. */
  async mergeBase(a: string, b: string): Promise<string | null> {
    const result = await this.run(['merge-base', a, b], { okExitCodes: [0, 1] });
    return result.exitCode === 0 ? result.stdout.trim() : null;
  }

  /** All merge bases of two commits (more than one for criss-cross histories). */
  async mergeBases(a: string, b: string): Promise<string[]> {
    const result = await this.run(['merge-base', '--all', a, b], { okExitCodes: [0, 1] });
    return result.stdout.split('\n').filter(Boolean);
  }

  /** `git rev-list ARGS` as a list of object ids. */
  async revList(args: string[]): Promise<string[]> {
    return this.lines(['rev-list', ...args]);
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const result = await this.query(['merge-base', '--is-ancestor', ancestor, descendant], { okExitCodes: [0, 1] });
    return result.exitCode === 0;
  }

  /** Refs under a prefix (e.g. `refs/imerge/NAME/`), with their object ids. */
  async forEachRef(pattern: string): Promise<RefEntry[]> {
    const { stdout } = await this.query(['for-each-ref', '--format=%(objectname) %(refname)', pattern]);
    return stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const space = line.indexOf(' ');
        return { oid: line.slice(0, space), ref: line.slice(space + 1) };
      });
  }

  /**
   * Apply ref updates as one atomic `update-ref --stdin` transaction.
   * `oldOid` checks the current value (null = must not exist); a mismatch fails the whole transaction.
   * `packed`: the refs point at commits or blobs, and a large transaction may be written straight
   * into packed-refs (same outcome, no loose file per ref) where git's files backend allows it.
   */
  async updateRefs(updates: RefUpdate[], message?: string, options: { packed?: boolean } = {}): Promise<void> {
    if (updates.length === 0) return;
    // Many refs at once, to commits and blobs (nothing to peel), where the caller allows: packed-refs.ts.
    if (options.packed && updates.length >= PACKED_AT && packedTransaction(await this.gitDir(), updates)) return;
    const lines = ['start'];
    for (const u of updates) {
      if ('delete' in u) {
        lines.push(u.oldOid === undefined ? `delete ${u.ref}` : `delete ${u.ref} ${u.oldOid}`);
      } else if (u.oldOid === undefined) {
        lines.push(`update ${u.ref} ${u.newOid}`);
      } else {
        lines.push(`update ${u.ref} ${u.newOid} ${u.oldOid ?? ZERO_OID}`);
      }
    }
    lines.push('prepare', 'commit');
    const args = ['update-ref', '--stdin'];
    if (message !== undefined) args.push('-m', message);
    await this.query(args, { input: `${lines.join('\n')}\n` });
  }

  /** Set one ref, optionally checking its old value (null = must not exist yet). */
  async updateRef(ref: string, newOid: string, oldOid?: string | null, message?: string): Promise<void> {
    await this.updateRefs([{ ref, newOid, oldOid }], message);
  }

  async deleteRef(ref: string, oldOid?: string): Promise<void> {
    await this.updateRefs([{ ref, delete: true, oldOid }]);
  }

  /**
   * Files that make the working tree unclean: modified, staged, unmerged.
   * Untracked files are listed only with `includeUntracked`, because merges never touch them.
   */
  async dirtyFiles(options: { includeUntracked?: boolean } = {}): Promise<string[]> {
    const args = [
      'status',
      '--porcelain=v1',
      '-z',
      options.includeUntracked ? '--untracked-files=all' : '--untracked-files=no',
    ];
    const { stdout } = await this.run(args);
    const entries = stdout.split('\0').filter(Boolean);
    const files: string[] = [];
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as string;
      const status = entry.slice(0, 2);
      files.push(entry.slice(3));
      // Renames and copies are followed by their source path.
      if (status[0] === 'R' || status[0] === 'C') i++;
    }
    return files;
  }

  async isClean(): Promise<boolean> {
    return (await this.dirtyFiles()).length === 0;
  }

  /** Throws a clear error listing the dirty files when the working tree is not clean. */
  async assertClean(action: string): Promise<void> {
    const dirty = await this.dirtyFiles();
    if (dirty.length === 0) return;
    const shown = dirty.slice(0, 20).map((f) => `  ${f}`);
    if (dirty.length > 20) shown.push(`  ... and ${dirty.length - 20} more`);
    throw new SplintercatError('worktree_dirty', {
      what: `The working tree has uncommitted changes; cannot ${action}`,
      why: `Changed files:\n${shown.join('\n')}`,
      fix: ['Commit or stash them first: `git stash push`', 'Then run the command again'],
      where: this.cwd,
    });
  }

  /** The current branch (`refs/heads/...` stripped) or null when HEAD is detached. */
  async currentBranch(): Promise<string | null> {
    const result = await this.run(['symbolic-ref', '--quiet', '--short', 'HEAD'], { okExitCodes: [0, 1, 128] });
    return result.exitCode === 0 ? result.stdout.trim() : null;
  }

  /** The repository's top-level directory. */
  async topLevel(): Promise<string> {
    return this.text(['rev-parse', '--show-toplevel']);
  }

  /** The absolute path of the git directory (`.git`, or the common dir of a worktree). */
  async gitDir(common = true): Promise<string> {
    return this.queryText(['rev-parse', '--path-format=absolute', common ? '--git-common-dir' : '--git-dir']);
  }

  async configGet(key: string): Promise<string | null> {
    const result = await this.run(['config', '--get', key], { okExitCodes: [0, 1] });
    return result.exitCode === 0 ? result.stdout.trim() : null;
  }

  /** Read an object through the long-lived `cat-file --batch` process. */
  readObject(spec: string): Promise<GitObject | null> {
    if (this.objectsFrom && OBJECT_ID.test(spec)) return this.objectsFrom.readObject(spec);
    this.batch ??= new CatFileBatch(this.cwd, this.env, this.gitBinary);
    return this.batch.read(spec);
  }

  /** An object's id, type and size, without reading its content; null when it does not exist. */
  objectInfo(spec: string): Promise<ObjectInfo | null> {
    if (this.objectsFrom && OBJECT_ID.test(spec)) return this.objectsFrom.objectInfo(spec);
    this.check ??= new CatFileCheck(this.cwd, this.env, this.gitBinary);
    return this.check.info(spec);
  }

  /**
   * Read an object of unknown origin (anything a remote sent): its type and size are asked first,
   * and an object of another type than `type`, or larger than `maxBytes`, is refused without its
   * content ever being read. The refusal says why in a few words ("a blob, not a commit").
   */
  async readCapped(spec: string, limits: { type: GitObject['type']; maxBytes: number }): Promise<CappedRead> {
    const info = await this.objectInfo(spec);
    const refused = cappedRefusal(info, limits);
    if (refused !== null || info === null) return { ok: false, reason: refused ?? 'missing' };
    const object = await this.readObject(info.oid);
    if (object === null) return { ok: false, reason: 'missing' };
    return { ok: true, object };
  }

  /** `readCapped` of a commit at its limit (`OBJECT_LIMITS.commit`): null when missing, too large or not a commit. */
  async readCommitCapped(spec: string): Promise<GitObject | null> {
    const read = await this.readCapped(spec, { type: 'commit', maxBytes: OBJECT_LIMITS.commit });
    return read.ok ? read.object : null;
  }

  /** `readCapped` of a blob, as text: null when it is missing; a refusal when it is too large or not a blob. */
  async readBlobCapped(spec: string, maxBytes: number): Promise<CappedText> {
    const read = await this.readCapped(spec, { type: 'blob', maxBytes });
    return read.ok ? { ok: true, text: read.object.content.toString('utf8') } : read;
  }

  /** Read a blob's content as text; null when it does not exist. */
  async readBlobText(spec: string): Promise<string | null> {
    const object = await this.readObject(spec);
    return object === null ? null : object.content.toString('utf8');
  }

  /**
   * Run a short git command through the pooled shells below: the many small steps a run takes (a
   * ref's value or update, an ancestry, a listing, an object written) then cost no fork of this
   * process. Not for commands that may take long or wait on the network: they would hold a shell
   * every other query waits on. Exit codes outside `okExitCodes` throw as `run` does; when the
   * shell itself cannot run the command (git or the directory missing) it runs as `run` would,
   * for its clear error. `input` goes to the command's stdin through a temporary file.
   */
  async query(args: string[], options: QueryOptions = {}): Promise<GitResult> {
    const { okExitCodes = [0], input, env } = options;
    const inputFile = input !== undefined ? writeInputFile(input) : undefined;
    const result = await this.runPooled(args, { ...(env ? { env } : {}), ...(inputFile ? { inputFile } : {}) })
      .catch(() => null)
      .finally(() => inputFile !== undefined && rmSync(inputFile, { force: true }));
    // 127: the shell did not find git; a failure in a directory since removed: `run` says so clearly.
    const unclear = result !== null && result.exitCode !== 0 && (result.exitCode === 127 || !existsSyncSafe(this.cwd));
    if (result === null || unclear) return this.run(args, options);
    if (!okExitCodes.includes(result.exitCode)) throw new GitError(args, result.exitCode, result.stderr, this.cwd);
    return result;
  }

  /**
   * Run a short git command through one of a few long-lived shells (git-shell.ts): for the many
   * merges of an autofill, which would otherwise each stop the event loop while node forks. Exit
   * codes are data; at most `MAX_SHELLS` commands run at once, the others wait their turn.
   */
  runPooled(args: readonly string[], options: Parameters<GitShell['run']>[1] = {}): Promise<ShellResult> {
    let shell = this.shells[0];
    for (const s of this.shells) if (s.pending < (shell as GitShell).pending) shell = s;
    if (shell === undefined || (shell.pending > 0 && this.shells.length < MAX_SHELLS)) {
      shell = new GitShell(this.cwd, this.env, this.gitBinary);
      this.shells.push(shell);
    }
    return shell.run(args, options);
  }

  /** Release the long-lived processes (not those of the Git this one reads objects through). Safe to call more than once. */
  close(): void {
    this.batch?.close();
    this.batch = undefined;
    this.check?.close();
    this.check = undefined;
    for (const shell of this.shells.splice(0)) shell.close();
  }
}

/** Shells of runPooled: one per core, at least two (a merge waiting on the disk leaves the other core busy). */
const MAX_SHELLS = Math.max(2, availableParallelism());

function existsSyncSafe(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export { ZERO_OID };
