import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';

/**
 * The system directories a check sees, read-only: programs, libraries and /etc (the loader's cache,
 * certificates, users, `alternatives`). Nothing else of the host is shown unless listed.
 */
const SYSTEM_ROOTS = ['/usr', '/etc', '/opt', '/nix', '/sys', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** Files of /etc that hold secrets (readable by root): shown empty. */
const HIDDEN_SYSTEM_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-'];
const HIDDEN_SYSTEM_DIRS = ['/etc/ssh', '/etc/sudoers.d'];

/** What one run of a sandboxed process sees of the host. */
export interface SandboxView {
  /** The check's worktree (its cwd): writable, except its `.git`. */
  cwd: string;
  /** Further writable directories (`check.writable`). */
  writable: readonly string[];
  /** Further read-only paths: the toolchain found on PATH and `check.readable`. */
  readable: readonly string[];
  /** Directories shown empty although inside a writable one (the log directory inside the main checkout). */
  hidden?: readonly string[];
  /** HOME: an empty directory in the sandbox (what `writable`/`readable` name inside it is shown). */
  home?: string | undefined;
  /** Setup may get the network (`check.setup_network`); checks never do. */
  network: boolean;
}

type Mount =
  | { kind: 'ro' | 'rw'; path: string }
  | { kind: 'tmpfs'; path: string }
  | { kind: 'link'; path: string; target: string }
  | { kind: 'empty-file'; path: string };

/**
 * bubblewrap's arguments for the filesystem of `view`: an empty root, the system directories and
 * `readable` read-only, `cwd` and `writable` writable, HOME and /tmp empty, a fresh /dev and /proc.
 * Mounts apply parents first, so a directory bound inside another (a worktree under HOME) shows.
 * The worktree's `.git` is bound read-only last: a check cannot repoint the repository git runs on.
 */
export function viewArgs(view: SandboxView): string[] {
  const mounts: Mount[] = [];
  for (const root of SYSTEM_ROOTS) {
    const st = lstatSync(root, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) mounts.push({ kind: 'link', path: root, target: readlinkSync(root) });
    else if (st?.isDirectory()) mounts.push({ kind: 'ro', path: root });
  }
  for (const file of HIDDEN_SYSTEM_FILES) if (existsSync(file)) mounts.push({ kind: 'empty-file', path: file });
  for (const dir of HIDDEN_SYSTEM_DIRS) if (existsSync(dir)) mounts.push({ kind: 'tmpfs', path: dir });
  mounts.push({ kind: 'tmpfs', path: '/tmp' });
  const home = view.home && view.home !== '/' && !isSystemPath(view.home) ? real(view.home) : undefined;
  if (home !== undefined) mounts.push({ kind: 'tmpfs', path: home });
  for (const path of view.readable) if (existsSync(path)) mounts.push({ kind: 'ro', path: real(path) });
  const writable = [view.cwd, ...view.writable].map(real);
  for (const path of writable) mounts.push({ kind: 'rw', path });
  for (const path of (view.hidden ?? []).filter(existsSync).map(real))
    if (writable.some((dir) => path.startsWith(`${dir}/`))) mounts.push({ kind: 'tmpfs', path });
  const ordered = orderMounts(mounts);
  const dotGit = join(real(view.cwd), '.git');
  if (existsSync(dotGit)) ordered.push({ kind: 'ro', path: dotGit });
  return [...ordered.flatMap(mountArgs), '--dev', '/dev', '--proc', '/proc'];
}

/** Parents before children; among equals, the later mount wins (a writable dir listed as readable too). */
function orderMounts(mounts: Mount[]): Mount[] {
  const depth = (p: string): number => (p === '/' ? 0 : p.split(sep).length);
  const byPath = new Map<string, Mount>();
  for (const m of mounts) byPath.set(m.path, m);
  return [...byPath.values()].sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
}

function mountArgs(m: Mount): string[] {
  switch (m.kind) {
    case 'ro':
      return ['--ro-bind', m.path, m.path];
    case 'rw':
      return ['--bind', m.path, m.path];
    case 'tmpfs':
      return ['--tmpfs', m.path];
    case 'link':
      return ['--symlink', m.target, m.path];
    case 'empty-file':
      return ['--ro-bind', '/dev/null', m.path];
  }
}

/**
 * The toolchain a check finds on its PATH, outside the system directories: each entry with its
 * installation prefix (the parent of a `bin` directory: node's `lib/node_modules`, a virtualenv's
 * `lib/python3`), except HOME itself and HOME's dot-directories (`~/.cargo`, `~/.local` hold
 * credentials and caches beside their programs): those show only their `bin`; declare more in
 * `check.readable`.
 */
export function toolchainPaths(path: string | undefined, home: string | undefined): string[] {
  const out = new Set<string>();
  const homeReal = home ? real(home) : undefined;
  for (const entry of (path ?? '').split(delimiter)) {
    if (!isAbsolute(entry) || !existsSync(entry)) continue;
    const dir = real(entry);
    if (isSystemPath(dir) || dir === '/' || dir === homeReal) continue;
    const prefix = dirname(dir);
    const inHomeDotDir = homeReal !== undefined && dirname(prefix) === homeReal && basename(prefix).startsWith('.');
    const takePrefix =
      ['bin', 'sbin', 'shims'].includes(basename(dir)) && prefix !== '/' && prefix !== homeReal && !inHomeDotDir;
    out.add(takePrefix ? prefix : dir);
  }
  return [...out];
}

function isSystemPath(path: string): boolean {
  return SYSTEM_ROOTS.some((root) => path === root || path.startsWith(`${root}/`));
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
