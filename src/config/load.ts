import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { LineCounter, parseDocument, parse as parseYamlValue, isMap, type Document } from 'yaml';
import { ConfigError, type ConfigIssue } from '../errors/index.js';
import { oldKeyIssues } from './old-keys.js';
import { configSchema, type Config } from './schema.js';
import { applyTemplates, unknownTemplates } from './template.js';

export const CONFIG_FILE_NAME = 'splintercat.yaml';
const ENV_PREFIX = 'SPLINTERCAT_';
/** splintercat's own variables that are not configuration: a CI job's push token, the key results are signed with. */
const NOT_CONFIG = new Set(['SPLINTERCAT_PUSH_TOKEN', 'SPLINTERCAT_RESULT_KEY']);
/** Aliases one document may expand; past it, a billion-laughs file is refused instead of eating memory. */
const MAX_YAML_ALIASES = 100;
/** Keys that would reach Object.prototype through a path like `__proto__.x`. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'prototype', 'constructor']);
/** Strings that are shell code, where `{x}` is brace syntax, not a template. */
const SHELL_KEYS = ['check.commands', 'check.setup', 'resolve.paths', 'resolve.regenerate', 'resolve.instructions'];

export interface LoadConfigOptions {
  /** Directory to look for splintercat.yaml in (the workdir). */
  cwd: string;
  /** An explicit file (`--config FILE`); must exist. */
  configPath?: string;
  /** Environment to read `SPLINTERCAT_*` overrides and `${VAR}` templates from. */
  env?: NodeJS.ProcessEnv;
  /** `--set key.path=value` overrides, applied last. */
  sets?: string[];
  /**
   * The file as the checkout had it before a merge in progress (see workflow/checkout-config.ts),
   * read instead of `cwd/splintercat.yaml`; null: it had none. Ignored with `configPath`.
   */
  source?: ConfigSource | null;
  /**
   * A stored configuration (a run's, see `stored-config.ts`) read instead of a file: no file is
   * looked for and no `SPLINTERCAT_*` variable applies (they were applied when it was stored);
   * `sets` still apply on top, and `\${VAR}` templates left in it (the API key) are expanded.
   */
  base?: Record<string, unknown>;
}

export interface LoadedConfig {
  config: Config;
  /** The file read, or undefined when defaults (and overrides) were used alone. */
  file: string | undefined;
  /** Environment variables named by `${VAR}` templates that were not set. */
  missingEnv: string[];
  warnings: string[];
  /** `llm.api_key` as written in the file (or the stored base), before templating; '' when absent. */
  writtenApiKey: string;
  /** SHA-256 of the file's bytes; undefined without a file. */
  fileHash: string | undefined;
}

/** A configuration file's path and content, read by the caller. */
export interface ConfigSource {
  path: string;
  text: string;
}

type Tree = Record<string, unknown>;

/** The YAML file as read: its tree, its document (for line numbers) and its hash. */
interface ReadYaml {
  tree: Tree | undefined;
  doc: Document;
  lineCounter: LineCounter;
  fileHash: string;
}

/** Parse the file's YAML; a syntax error, an alias bomb or a file that is not a mapping is a ConfigError. */
function readYaml(file: string, text: string): ReadYaml {
  const lineCounter = new LineCounter();
  const fileHash = createHash('sha256').update(text).digest('hex');
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const issues: ConfigIssue[] = [];
  for (const error of doc.errors) {
    const line = error.linePos?.[0]?.line ?? lineCounter.linePos(error.pos[0]).line;
    issues.push({ path: '', message: `YAML syntax: ${error.message.split('\n')[0]}`, ...(line ? { line } : {}) });
  }
  if (issues.length > 0) throw new ConfigError(issues, file);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (error) {
    throw new ConfigError([{ path: '', message: `the YAML could not be read: ${(error as Error).message}` }], file, {
      what: `Refused to read ${file}: ${(error as Error).message}`,
      why: `The file expands more than ${MAX_YAML_ALIASES} aliases (*name), the shape of a "billion laughs" attack`,
      fix: 'Write the values out instead of nesting aliases',
      cause: error,
    });
  }
  let tree: Tree | undefined;
  if (value !== null && value !== undefined) {
    if (!isPlainObject(value))
      throw new ConfigError(
        [{ path: '', message: 'the file must be a mapping of sections (source:, target:, check:, ...)', line: 1 }],
        file,
      );
    tree = value;
  }
  if (doc.contents !== null && !isMap(doc.contents) && value !== null) {
    throw new ConfigError([{ path: '', message: 'the file must be a mapping of sections', line: 1 }], file);
  }
  return { tree, doc, lineCounter, fileHash };
}

/** A value set from outside the file; `origin` names it for errors (`--set a.b=v`, `SPLINTERCAT_A__B`). */
type Override = { path: string[]; raw: string; origin: string };

/** Apply `SPLINTERCAT_A__B` variables and `--set a.b=v` to `tree`; returns what was set, and records refusals in `issues`. */
function applyOverrides(
  tree: Tree,
  env: Record<string, string | undefined>,
  sets: readonly string[],
  issues: ConfigIssue[],
): Override[] {
  const overrides: Override[] = [];
  const refused = (path: string[], what: string): boolean => {
    if (!path.some((p) => FORBIDDEN_KEYS.has(p))) return false;
    const message = `refused: ${what} names a key that is not configuration (__proto__, prototype, constructor)`;
    issues.push({ path: path.join('.'), message });
    return true;
  };
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(ENV_PREFIX) || NOT_CONFIG.has(name) || raw === undefined) continue;
    const path = name.slice(ENV_PREFIX.length).toLowerCase().split('__');
    if (path.some((p) => p === '') || refused(path, name)) continue;
    setPath(tree, path, parseScalar(raw));
    overrides.push({ path, raw, origin: name });
  }
  for (const assignment of sets) {
    const eq = assignment.indexOf('=');
    if (eq <= 0) {
      issues.push({ path: assignment, message: 'a --set value must look like key.path=value' });
      continue;
    }
    const path = assignment.slice(0, eq).trim().split('.');
    if (refused(path, '--set')) continue;
    setPath(tree, path, parseScalar(assignment.slice(eq + 1)));
    overrides.push({ path, raw: assignment.slice(eq + 1), origin: `--set ${assignment}` });
  }
  return overrides;
}

/**
 * Validate the tree against the schema. `SPLINTERCAT_X=true` or `--set x=10` for a key that holds
 * text keeps the text as written. Every issue is a ConfigError line, with the file's line when known.
 */
function parseTree(tree: Tree, overrides: Override[], yaml: ReadYaml | undefined, file: string | undefined): Config {
  const old = oldKeyIssues(tree).map((issue) => ({
    ...issue,
    ...(yaml ? lineAt(yaml.doc, yaml.lineCounter, issue.path) : {}),
  }));
  let parsed = configSchema.safeParse(tree);
  if (!parsed.success) {
    let retyped = false;
    for (const issue of parsed.error.issues) {
      const at = issue.path.map(String).join('.');
      const override = overrides.find((o) => o.path.join('.') === at);
      if (override && issue.code === 'invalid_type' && (issue as { expected?: string }).expected === 'string') {
        setPath(tree, override.path, override.raw);
        retyped = true;
      }
    }
    if (retyped) parsed = configSchema.safeParse(tree);
  }
  if (parsed.success && old.length === 0) return parsed.data;
  if (parsed.success) throw new ConfigError(fromOverrides(old, overrides), file);
  const issues: ConfigIssue[] = [...old];
  for (const issue of parsed.error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? (issue as { keys: string[] }).keys : [undefined];
    for (const key of keys) {
      const path = [...issue.path.map(String), ...(key === undefined ? [] : [key])];
      if (old.some((o) => o.path === path.join('.') || o.path.startsWith(`${path.join('.')}.`))) continue;
      const line = yaml ? lineOf(yaml.doc, yaml.lineCounter, path) : undefined;
      const message =
        key === undefined ? issue.message : `unknown key (check the spelling; \`splintercat init\` lists every key)`;
      issues.push({ path: path.join('.'), message, ...(line !== undefined ? { line } : {}) });
    }
  }
  throw new ConfigError(fromOverrides(issues, overrides), file);
}

/** Name the `--set` or variable an issue's value came from: it, not the file, is what to correct. */
function fromOverrides(issues: ConfigIssue[], overrides: readonly Override[]): ConfigIssue[] {
  return issues.map((issue) => {
    const override = [...overrides].reverse().find((o) => o.path.join('.') === issue.path);
    if (!override) return issue;
    const { line: _line, ...rest } = issue;
    return { ...rest, from: override.origin };
  });
}

/** Expand the templates and make every directory absolute, against the target's workdir; returns the unset variables. */
function settlePaths(
  config: Config,
  baseDir: string,
  env: Record<string, string | undefined>,
  yaml: ReadYaml | undefined,
  file: string | undefined,
): string[] {
  const workdir = isAbsolute(config.target.workdir) ? config.target.workdir : resolve(baseDir, config.target.workdir);
  config.target.workdir = workdir;
  const unknown = unknownTemplates(config as unknown as Tree, SHELL_KEYS);
  if (unknown.length > 0) {
    throw new ConfigError(
      unknown.map((u) => ({
        path: u.path,
        message: `unknown template variable ${u.name} (known: {target.workdir}, \${ENV_VAR})`,
        ...lineAt(yaml?.doc, yaml?.lineCounter ?? new LineCounter(), u.path),
      })),
      file,
    );
  }
  const missingEnv = applyTemplates(config as unknown as Tree, { env, workdir });
  config.log.dir = resolve(workdir, config.log.dir);
  config.merge.worktrees =
    config.merge.worktrees === '' ? defaultWorktreesDir(workdir) : resolve(workdir, config.merge.worktrees);
  const home = env.HOME ?? homedir();
  const expand = (dir: string): string =>
    resolve(workdir, dir === '~' ? home : dir.startsWith('~/') ? join(home, dir.slice(2)) : dir);
  config.check.writable = config.check.writable.map(expand);
  config.check.readable = config.check.readable.map(expand);
  if (config.check.build_dir !== '') config.check.build_dir = resolve(workdir, config.check.build_dir);
  return missingEnv;
}

/**
 * Load the configuration: defaults < YAML < environment (`SPLINTERCAT_A__B`) < `--set a.b=v`,
 * then `${VAR}` and `{target.workdir}` templating. Every problem is reported at once as
 * `dot.path: message`, with the file's line where the YAML parser knows it.
 */
export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const env = options.env ?? process.env;
  const given = options.base === undefined && options.configPath === undefined ? options.source : undefined;
  const file = options.base !== undefined ? undefined : given !== undefined ? given?.path : findConfigFile(options);
  let tree: Tree = options.base === undefined ? {} : structuredClone(options.base);
  const yaml = file === undefined ? undefined : readYaml(file, given ? given.text : readFileSync(file, 'utf8'));
  if (yaml?.tree !== undefined) tree = yaml.tree;

  const writtenApiKey = isPlainObject(tree.llm) && typeof tree.llm.api_key === 'string' ? tree.llm.api_key : '';
  const issues: ConfigIssue[] = [];
  const overrides = applyOverrides(tree, options.base === undefined ? env : {}, options.sets ?? [], issues);
  if (issues.length > 0) throw new ConfigError(issues, file);
  const config = parseTree(tree, overrides, yaml, file);
  const missingEnv = settlePaths(config, file !== undefined ? dirname(file) : options.cwd, env, yaml, file);
  const warnings = unknownCheckWarnings(config);
  return { config, file, missingEnv, warnings, writtenApiKey, fileHash: yaml?.fileHash };
}

/** Check names in check.workflow, check.fast and check.select that check.commands does not define. */
function unknownCheckWarnings(config: Config): string[] {
  if (Object.keys(config.check.commands).length === 0) return [];
  const named: Array<[string, string[]]> = [
    ['check.workflow', config.check.workflow],
    ['check.fast', config.check.fast],
    ['check.select', [...new Set(Object.values(config.check.select).flat())]],
  ];
  return named.flatMap(([key, names]) => {
    const unknown = names.filter((name) => !(name in config.check.commands));
    return unknown.length > 0 ? [`${key} names checks that check.commands does not define: ${unknown.join(', ')}`] : [];
  });
}

/**
 * Where the runs' worktrees live unless `merge.worktrees` says: a sibling of the repository,
 * `<parent>/<name>-splintercat`, so no path under test has a dot-directory (`.git/`).
 */
export function defaultWorktreesDir(workdir: string): string {
  return join(dirname(workdir), `${basename(workdir)}-splintercat`);
}

function findConfigFile(options: LoadConfigOptions): string | undefined {
  if (options.configPath !== undefined) {
    const path = resolve(options.cwd, options.configPath);
    if (!existsSync(path)) {
      throw new ConfigError([{ path: '', message: `file not found: ${path}` }], path, {
        what: `Configuration file not found: ${path}`,
        why: 'The --config path is misspelt or relative to another directory',
        fix: ['Check the path given to --config', 'Or run `splintercat init` to write a default splintercat.yaml'],
      });
    }
    return path;
  }
  const path = resolve(options.cwd, CONFIG_FILE_NAME);
  return existsSync(path) ? path : undefined;
}

/** Environment and --set values are YAML scalars: `10` is a number, `true` a boolean, `[a, b]` a list. */
function parseScalar(raw: string): unknown {
  try {
    const value: unknown = parseYamlValue(raw);
    return value === null && raw.trim() !== '' && raw.trim() !== '~' && raw.trim() !== 'null' ? raw : (value ?? '');
  } catch {
    return raw;
  }
}

function lineAt(doc: Document | undefined, counter: LineCounter, path: string): { line?: number } {
  const line = doc ? lineOf(doc, counter, path.split('.')) : undefined;
  return line === undefined ? {} : { line };
}

function setPath(tree: Tree, path: string[], value: unknown): void {
  let node = tree;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(node, key) ? node[key] : undefined;
    if (!isPlainObject(next)) node[key] = {};
    node = node[key] as Tree;
  }
  node[path[path.length - 1] as string] = value;
}

function lineOf(doc: Document, counter: LineCounter, path: string[]): number | undefined {
  for (let n = path.length; n > 0; n--) {
    const node = doc.getIn(path.slice(0, n), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) return counter.linePos(node.range[0]).line;
    // a key whose value is not a node: find the pair's key position
    const parent = n > 1 ? (doc.getIn(path.slice(0, n - 1), true) as unknown) : doc.contents;
    if (isMap(parent)) {
      const pair = parent.items.find(
        (item) => String((item.key as { value?: unknown })?.value ?? item.key) === path[n - 1],
      );
      const range = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
      if (range) return counter.linePos(range[0]).line;
    }
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
