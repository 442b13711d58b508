import { accessSync, constants, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** What a printed command starts with so that it runs this same CLI, typed as printed in any directory. */
export interface Invocation {
  /** `splintercat` when that name on PATH is this CLI, else `node /path/to/main.js` (with this node's loader flags). */
  command: string;
  /** Whether `splintercat` alone reaches this CLI. */
  onPath: boolean;
  /** The package this CLI runs from (a clone, or an installed copy); null when not found. */
  packageRoot: string | null;
}

/** The nearest directory above `file` whose package.json is splintercat's. */
function packageRootOf(file: string): string | null {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      if ((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === 'splintercat')
        return dir;
    } catch {
      // no package.json here, or not JSON: look higher
    }
  }
  return null;
}

function real(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The first executable `name` on `PATH`, resolved through its links; null when there is none. */
function onPath(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    return real(candidate);
  }
  return null;
}

/**
 * PATH as the user's own shell has it: without the `node_modules/.bin` directories npm and npx put
 * first for the command they run, which a command typed later in another shell does not have.
 */
function userPath(path: string | undefined): string {
  return (path ?? '')
    .split(delimiter)
    .filter((dir) => !/[\\/]node_modules[\\/]\.bin[\\/]?$/.test(dir))
    .join(delimiter);
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * How to run this CLI again. Started through npx from a clone (`npx splintercat demo`), `splintercat` is not
 * on the user's PATH, and `npx splintercat` works only inside that clone (elsewhere npx looks in the registry):
 * then the command names this node and this script by their absolute paths, which work from any directory.
 */
export function cliInvocation(
  options: { argv?: string[]; execPath?: string; execArgv?: string[]; path?: string } = {},
): Invocation {
  const script = options.argv?.[1] ?? process.argv[1] ?? '';
  const execPath = options.execPath ?? process.execPath;
  const mine = real(script);
  const found = onPath('splintercat', userPath(options.path ?? process.env.PATH));
  const packageRoot = mine === null ? null : packageRootOf(mine);
  if (mine !== null && found === mine) return { command: 'splintercat', onPath: true, packageRoot };
  const node = onPath('node', options.path ?? process.env.PATH) === real(execPath) ? 'node' : execPath;
  // Loader flags (tsx when run from the sources) are needed to run the script again.
  const flags = (options.execArgv ?? process.execArgv).filter((f) => !/^--(inspect|max-old-space-size)/.test(f));
  return { command: [node, ...flags, mine ?? script].map(shellWord).join(' '), onPath: false, packageRoot };
}
