import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';

/** A path the model asked for, checked: inside the workdir, or why not. */
export type SandboxPath = { ok: true; rel: string; abs: string } | { ok: false; error: string };

/**
 * The resolver's file-system boundary. The model is untrusted: every path it
 * names is a relative path under the workdir, without `..`, without the git
 * directory, and whose real path (after symlinks) is still under the workdir.
 * Writes are allowed only to the files of the current conflict.
 */
export class Sandbox {
  private constructor(
    /** The workdir's real path. */
    readonly root: string,
    private readonly writable: ReadonlySet<string>,
    private readonly tracked: ((rel: string) => Promise<boolean>) | undefined,
  ) {}

  /**
   * `tracked`: whether git tracks a path; reads of anything else (ignored or untracked files:
   * `.env`, `.npmrc`, keys) are refused, but for the conflict's own files.
   */
  static async create(
    workdir: string,
    writableFiles: readonly string[],
    tracked?: (rel: string) => Promise<boolean>,
  ): Promise<Sandbox> {
    const root = await realpath(workdir);
    const writable = new Set<string>();
    for (const f of writableFiles) {
      const n = normalizeRel(f);
      if (n.ok) writable.add(n.rel);
    }
    return new Sandbox(root, writable, tracked);
  }

  /** The files the model may write (relative, normalised). */
  writableFiles(): string[] {
    return [...this.writable];
  }

  isWritable(rel: string): boolean {
    const n = normalizeRel(rel);
    return n.ok && this.writable.has(n.rel);
  }

  /** Check a path for reading. */
  async forRead(requested: unknown): Promise<SandboxPath> {
    const n = normalizeRel(requested);
    if (!n.ok) return n;
    if (this.tracked && !this.writable.has(n.rel) && !(await this.tracked(n.rel)))
      return {
        ok: false,
        error: `${n.rel} is not tracked by git: ignored and untracked files (.env, credentials) are not readable`,
      };
    return this.contain(n.rel);
  }

  /** Check a path for writing: readable rules plus the conflict's file list, and no symlink. */
  async forWrite(requested: unknown): Promise<SandboxPath> {
    const n = normalizeRel(requested);
    if (!n.ok) return n;
    if (!this.writable.has(n.rel)) {
      return {
        ok: false,
        error: `writing ${n.rel} is not allowed: only the files of this conflict may be changed (${[...this.writable].join(', ')})`,
      };
    }
    const checked = await this.contain(n.rel);
    if (!checked.ok) return checked;
    const st = await lstat(checked.abs).catch(() => null);
    if (st?.isSymbolicLink()) return { ok: false, error: `${n.rel} is a symbolic link; it cannot be written through` };
    return checked;
  }

  /** The real path (existing part) must stay under the root. */
  private async contain(rel: string): Promise<SandboxPath> {
    const abs = path.join(this.root, rel);
    let probe = abs;
    // For a file that does not exist yet, check its nearest existing parent.
    for (;;) {
      const real = await realpath(probe).catch(() => null);
      if (real !== null) {
        if (real !== this.root && !real.startsWith(this.root + path.sep)) {
          return { ok: false, error: `${rel} resolves outside the working directory (symbolic link); refused` };
        }
        return { ok: true, rel, abs };
      }
      const parent = path.dirname(probe);
      if (parent === probe) return { ok: false, error: `${rel}: no such path` };
      probe = parent;
    }
  }
}

/** Syntactic checks on a model-supplied path (no file-system access). */
export function normalizeRel(requested: unknown): { ok: true; rel: string } | { ok: false; error: string } {
  if (typeof requested !== 'string' || requested.trim() === '')
    return { ok: false, error: 'a file path (relative to the repository root) is required' };
  if (requested.includes('\0')) return { ok: false, error: 'the path contains a NUL byte' };
  const slashed = requested.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[a-zA-Z]:/.test(slashed) || slashed.startsWith('~')) {
    return {
      ok: false,
      error: `${requested}: absolute paths are not allowed; use a path relative to the repository root`,
    };
  }
  const parts = slashed.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..'))
    return { ok: false, error: `${requested}: ".." is not allowed; stay inside the repository` };
  if (parts.length === 0) return { ok: false, error: `${requested}: not a file path` };
  if (parts[0] === '.git') return { ok: false, error: `${requested}: the git directory is off limits` };
  return { ok: true, rel: parts.join('/') };
}
