import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../../errors/index.js';

export interface InitCiOptions {
  ci: string;
  remote: string;
  out: string;
  command?: string;
  force?: boolean;
}

/**
 * `init --ci KIND`: write the job definition of that CI next to the configuration file and set
 * `check.runner` in it (created with the commented defaults when missing), comments kept.
 * Returns what to print.
 */
export async function initCi(configPath: string, opts: InitCiOptions): Promise<string> {
  const { ciKinds, ciSetup, passthroughProblem } = await import('../../checks/remote/ci-jobs.js');
  const { setKeysInFile } = await import('../../config/edit-file.js');
  const { DEFAULT_CONFIG_YAML } = await import('../../config/default-file.js');
  const kind = ciKinds.find((k) => k === opts.ci);
  if (kind === undefined)
    throw new UsageError('init_ci_unknown', {
      what: `--ci ${opts.ci} is not a CI splintercat writes jobs for`,
      fix: `Use one of: ${ciKinds.join(', ')}`,
    });
  const root = dirname(configPath);
  const setup = ciSetup(kind, {
    ...(opts.command !== undefined ? { command: opts.command } : kind === 'hook' ? { command: thisSplintercat() } : {}),
    version: ownVersion(),
    passthrough: await configuredPassthrough(configPath, passthroughProblem),
    remote: opts.remote,
    hookDir: opts.out,
    remoteHooks: kind === 'hook' ? localHooksDir(root, opts.remote) : null,
  });
  const clash = setup.files.map((f) => resolve(root, f.path)).filter((p) => existsSync(p));
  if (clash.length > 0 && !opts.force)
    throw new UsageError('init_exists', {
      what: `${clash.join(', ')} already exist${clash.length === 1 ? 's' : ''}`,
      why: 'init never overwrites a file unless asked',
      fix: `Run \`splintercat init --ci ${kind} --force\` to replace ${clash.length === 1 ? 'it' : 'them'}`,
    });
  for (const file of setup.files) {
    const path = resolve(root, file.path);
    mkdirSync(dirname(path), { recursive: true });
    // A file holding a key is never readable by others, not even while it is written.
    const mode = file.mode ?? (file.executable ? 0o755 : 0o644);
    if (existsSync(path)) chmodSync(path, mode & 0o700);
    writeFileSync(path, file.content, { mode });
    chmodSync(path, mode);
  }
  // A job file that holds the result key stays out of every commit of this repository.
  if (setup.files.some((f) => f.mode !== undefined && (f.mode & 0o077) === 0)) excludeFromGit(root, opts.out);
  setKeysInFile(
    configPath,
    [
      [['check', 'runner', 'remote'], opts.remote],
      [['check', 'runner', 'trigger'], setup.trigger],
      [['check', 'runner', 'job_files'], setup.jobs],
    ],
    DEFAULT_CONFIG_YAML,
  );
  return [
    `Wrote ${setup.files.map((f) => f.path).join(' and ')}; set check.runner (remote: ${opts.remote}, trigger: ${setup.trigger}) in ${configPath}.`,
    ...setup.next,
  ].join('\n');
}

/** Add directory `dir` (relative to `root`) to the repository's own exclude file, when `root` is in a repository. */
function excludeFromGit(root: string, dir: string): void {
  let exclude: string;
  let top: string;
  try {
    const out = execFileSync('git', ['rev-parse', '--show-toplevel', '--git-path', 'info/exclude'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).split('\n');
    top = out[0] as string;
    exclude = resolve(root, out[1] as string);
  } catch {
    return;
  }
  const line = `/${relative(top, resolve(root, dir)).split(sep).join('/')}/`;
  if (line.startsWith('/..')) return;
  const text = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
  if (text.split('\n').includes(line)) return;
  mkdirSync(dirname(exclude), { recursive: true });
  writeFileSync(exclude, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${line}\n`);
}

/** The hooks directory of `remote` when it is a repository on this machine (a path or file:// URL), else null. */
function localHooksDir(cwd: string, remote: string): string | null {
  let url: string;
  try {
    url = execFileSync('git', ['remote', 'get-url', remote], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
  const path = url.startsWith('file://') ? url.slice('file://'.length) : url;
  if (!isAbsolute(path) && !path.startsWith('.')) return null;
  const hooks = join(resolve(cwd, path), 'hooks');
  return existsSync(hooks) ? `${hooks}/` : null;
}

/**
 * `check.env_passthrough` of the configuration file, if there is one: the variables a CI job's
 * check gets from the CI's secrets. A name that cannot be written into a job is refused.
 */
async function configuredPassthrough(configPath: string, problem: (name: string) => string | null): Promise<string[]> {
  if (!existsSync(configPath)) return [];
  const { parse } = await import('yaml');
  let names: unknown;
  try {
    names = (parse(readFileSync(configPath, 'utf8')) as { check?: { env_passthrough?: unknown } } | null)?.check
      ?.env_passthrough;
  } catch {
    return [];
  }
  if (!Array.isArray(names)) return [];
  return names.map(String).map((name) => {
    const why = problem(name);
    if (why === null) return name;
    throw new UsageError('init_ci_unknown', {
      what: `check.env_passthrough names '${name}', which a CI job cannot give its check`,
      why,
      fix: `Remove it from check.env_passthrough in ${configPath}, then run init --ci again`,
    });
  });
}

/**
 * This package's version, which a CI job installs: read from the package.json above this module
 * (in the sources, the bundle or an installed package alike), so a job runs the splintercat that
 * wrote it.
 */
function ownVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === 'splintercat' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No readable package.json here: look further up.
    }
    if (dirname(dir) === dir)
      throw new UsageError('init_ci_unknown', {
        what: 'Cannot tell which version of splintercat a CI job should install',
        why: "no package.json of splintercat is above this program's files",
        fix: 'Give the command the job runs with --command (e.g. a splintercat you install yourself)',
      });
  }
}

/** How this machine runs the splintercat that is running now, as shell text (for a hook on the same machine). */
function thisSplintercat(): string {
  const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  return [process.execPath, ...process.execArgv, process.argv[1] ?? 'splintercat'].map(quote).join(' ');
}
