import { isSecretVariable } from '../util/secret-variable.js';

/**
 * Configuration that would run a program chosen by whoever wrote a git directory's config: a
 * worktree's `.git` can be repointed by a check (sandbox off) at a directory it wrote, and hooks
 * run on checkout. Set for every git splintercat runs (through `GIT_CONFIG_COUNT`, so every
 * process git itself starts sees it too); a user's fsmonitor only made status faster.
 */
export const NEUTRALISED_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.sshCommand', 'false'],
  ['core.askPass', 'false'],
  ['credential.helper', ''],
];

/**
 * Variables that steer which repository git works on or which program it runs, inherited from
 * whatever started splintercat (a merge driver runs inside `git merge`): splintercat names the
 * repository itself, per command.
 */
const STEERING = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_EXTERNAL_DIFF',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_PARAMETERS',
  'GIT_CONFIG_COUNT',
]);
const CONFIG_ENTRY = /^GIT_CONFIG_(KEY|VALUE)_\d+$/;

/** The fixed part: C locale (git's own words, whatever the user's language), never prompting, no pager or editor. */
const FIXED: Record<string, string> = {
  LC_ALL: 'C',
  LANG: 'C',
  LANGUAGE: 'C',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EDITOR: 'true',
  GIT_MERGE_AUTOEDIT: 'no',
};

/**
 * The environment of every git splintercat runs: the inherited one without credentials (a hook or
 * filter git starts gets no key), without the variables that steer git, with the fixed settings
 * and the neutralised configuration; `extra` (a caller's, e.g. GIT_AUTHOR_DATE) on top.
 */
export function gitEnvironment(inherited: NodeJS.ProcessEnv, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(inherited)) {
    if (value === undefined || isSecretVariable(name) || STEERING.has(name) || CONFIG_ENTRY.test(name)) continue;
    env[name] = value;
  }
  Object.assign(env, FIXED);
  env.GIT_CONFIG_COUNT = String(NEUTRALISED_CONFIG.length);
  NEUTRALISED_CONFIG.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return { ...env, ...extra };
}
