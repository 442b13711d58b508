import type { ConfigIssue } from '../errors/index.js';

/**
 * Keys an earlier splintercat read and this one does not: renamed (one name had two meanings, or
 * two names one) or removed (nothing read them). A file, a `SPLINTERCAT_*` variable or a `--set`
 * naming one is refused with the new key, never ignored: a value the person wrote must not
 * silently stop counting. A run's stored configuration, written by splintercat itself, is
 * upgraded instead (`upgradeStoredValues`), so a run started by the earlier version goes on.
 */
interface OldKey {
  /** The dot-path as it was spelt. */
  old: string;
  /** The key that now holds its value; null: removed. */
  now: string | null;
  /** Why it changed (for the error). */
  why: string;
  /** What to do instead, when removed. */
  instead?: string;
}

const OLD_KEYS: readonly OldKey[] = [
  {
    old: 'merge.max_retries',
    now: 'merge.max_recoveries',
    why: 'it counts recoveries after failed checks, not retries of a call (those are llm.max_retries)',
  },
  {
    old: 'merge.strategies_available',
    now: 'merge.available_strategies',
    why: 'one spelling, the one the planner uses',
  },
  {
    old: 'merge.jobs',
    now: 'imerge.jobs',
    why: "it is the engine's concurrency (as `imerge autofill --jobs`), and check.runner.jobs meant files",
  },
  {
    old: 'check.runner.jobs',
    now: 'check.runner.job_files',
    why: 'it maps CI job definition files, and "jobs" elsewhere means how many at once',
  },
  {
    old: 'check.output_dir',
    now: 'log.dir',
    why: "check logs and splintercat's own logs share one directory (both keys defaulted to it)",
  },
  {
    old: 'source.ref',
    now: null,
    why: 'nothing read it: `splintercat merge SOURCE` always names what to merge',
    instead: 'give it on the command line: splintercat merge upstream/main',
  },
  {
    old: 'imerge.goal',
    now: null,
    why: '`splintercat merge` produces a merge commit only (every other goal was refused)',
    instead: 'for another goal drive the engine directly: splintercat imerge start --goal GOAL',
  },
];

type Tree = Record<string, unknown>;

/** The value at `path` of `tree`, and whether it is there. */
function at(tree: Tree, path: string[]): { found: boolean; value: unknown } {
  let node: unknown = tree;
  for (const key of path) {
    if (!isTree(node) || !Object.hasOwn(node, key)) return { found: false, value: undefined };
    node = node[key];
  }
  return { found: true, value: node };
}

/** One issue per old key `tree` (a file, with the environment and `--set` applied) still names. */
export function oldKeyIssues(tree: Tree): ConfigIssue[] {
  return OLD_KEYS.filter((k) => at(tree, k.old.split('.')).found).map((k) => ({
    path: k.old,
    message:
      k.now === null
        ? `removed: ${k.why}; delete it (${k.instead ?? 'nothing replaces it'})`
        : `renamed to ${k.now}: ${k.why}; write ${k.now} instead`,
  }));
}

/**
 * A run's stored values (and `--set`s) as this version spells them: each renamed key moved to its
 * new name unless that is already set, each removed key dropped. Values stored by this version
 * come back unchanged.
 */
export function upgradeStoredValues<T extends Tree>(values: T): T {
  const out = structuredClone(values);
  for (const key of OLD_KEYS) {
    const path = key.old.split('.');
    const { found, value } = at(out, path);
    if (!found) continue;
    const parent = at(out, path.slice(0, -1)).value as Tree;
    delete parent[path[path.length - 1] as string];
    // A section left empty goes too: every section has defaults, and a removed one (`source`) is no key now.
    if (Object.keys(parent).length === 0 && path.length === 2) delete out[path[0] as string];
    if (key.now === null) continue;
    const target = key.now.split('.');
    if (at(out, target).found) continue;
    let node: Tree = out;
    for (const part of target.slice(0, -1)) {
      if (!isTree(node[part])) node[part] = {};
      node = node[part] as Tree;
    }
    node[target[target.length - 1] as string] = value;
  }
  return out;
}

/** The earlier spellings of key `path` (each a list of keys): what a file written by an earlier version may hold. */
export function oldSpellingsOf(path: string[]): string[][] {
  const now = path.join('.');
  return OLD_KEYS.filter((k) => k.now === now).map((k) => k.old.split('.'));
}

/** Stored `--set KEY=VALUE`s with the keys renamed; those of removed keys dropped. */
export function upgradeStoredSets(sets: readonly string[]): string[] {
  return sets.flatMap((set) => {
    const eq = set.indexOf('=');
    const key = (eq < 0 ? set : set.slice(0, eq)).trim();
    const old = OLD_KEYS.find((k) => key === k.old || key.startsWith(`${k.old}.`));
    if (old === undefined) return [set];
    return old.now === null ? [] : [old.now + set.trimStart().slice(old.old.length)];
  });
}

/**
 * The directory a run's check logs are in, from its stored values: `check.output_dir` in a run an
 * earlier version started (which kept check logs apart from `log.dir`), else `log.dir`.
 */
export function storedCheckLogDir(values: Tree | undefined): unknown {
  const check = values?.check;
  const log = values?.log;
  return (isTree(check) ? check.output_dir : undefined) ?? (isTree(log) ? log.dir : undefined);
}

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Values an earlier version documented and this one reads silently as today's: the person's mode
 * of `merge.resolver` was `manual`, and the `resolve.paths` decision to leave a path to the person
 * was `human`. A file, a `--set`, a flag or a run's stored values that still says so means the same.
 */
export function currentResolverMode(value: unknown): unknown {
  return value === 'manual' ? 'person' : value;
}

/** A `resolve.paths` decision as written, the earlier `human` read as `person` (see `currentResolverMode`). */
export function currentPathDecision(value: unknown): unknown {
  return value === 'human' ? 'person' : value;
}
