/**
 * The job definitions `splintercat init --ci` writes: each starts on a check request ref, checks
 * out the request commit with its parent, and runs `splintercat check-report`, which checks the
 * parent out, runs the check and pushes its result (protocol.ts). GitHub Actions and GitLab CI
 * start pipelines only for branches and tags, so their requests are branches
 * (`check.runner.trigger: branch`); a self-hosted `post-receive` hook sees every ref.
 *
 * The token that writes the repository never meets the tree under test, which is upstream's:
 * splintercat is installed outside the checkout at a pinned version (never resolved from the
 * tree, as `npx` would), no token is left in the checkout's `.git/config`, and the check runs in
 * a job without the token (`--no-push`, the result written to a git bundle). Only a second job,
 * on a runner of its own with no clone, has the token (`--push-only`): nothing the check left
 * (a file, a process, GitHub's GITHUB_ENV) reaches it, and the bundle crosses as data. That job
 * alone also has the result key (SPLINTERCAT_RESULT_KEY, result-key.ts) and signs the result.
 */
import { randomBytes } from 'node:crypto';
import { RESULT_KEY_VARIABLE } from './result-key.js';

export const ciKinds = ['github', 'gitlab', 'hook'] as const;
export type CiKind = (typeof ciKinds)[number];

/** What `init --ci KIND` writes and how it sets `check.runner`. */
export interface CiSetup {
  /** Files to write (path relative to the repository -> content), and whether each is executable. */
  files: Array<{ path: string; content: string; executable?: boolean; mode?: number }>;
  trigger: 'ref' | 'branch';
  /** check.runner.job_files: path in each request commit -> file of the main checkout. */
  jobs: Record<string, string>;
  /** What the person does next, one step a line. */
  next: string[];
}

const GITHUB_WORKFLOW = '.github/workflows/splintercat-checks.yml';
const GITLAB_SOURCE = '.splintercat/ci/gitlab-ci.yml';

export interface CiSetupOptions {
  /** How the job runs splintercat (shell text); default (GitHub, GitLab): the one it installs. */
  command?: string;
  /** The version of splintercat a CI job installs (this package's). */
  version?: string;
  /**
   * `check.env_passthrough`: variables the check needs although named like secrets (a request's
   * `${NPM_TOKEN}`). The check's step gets them from the CI's secrets; the push's job never does.
   */
  passthrough?: readonly string[];
  remote: string;
  hookDir: string;
  reportArgs?: string;
  remoteHooks?: string | null;
  /** The hook job's result key; default: a new random one; null: none (results go unsigned). */
  resultKey?: string | null;
}

/** How a job gets splintercat: an install step (null with `--command`) and the command running it. */
interface Runner {
  install: string | null;
  command: string;
  /** Variable names (checked: letters, digits, `_`) the check keeps. */
  passthrough: readonly string[];
}

/** The setup of one CI kind. */
export function ciSetup(kind: CiKind, options: CiSetupOptions): CiSetup {
  if (kind === 'github')
    return {
      files: [{ path: GITHUB_WORKFLOW, content: githubWorkflow(runner(options, '$RUNNER_TEMP/splintercat')) }],
      trigger: 'branch',
      jobs: { [GITHUB_WORKFLOW]: GITHUB_WORKFLOW },
      next: [
        `Commit ${GITHUB_WORKFLOW} if you like (it runs only for splintercat/*/checks/* branches); every request carries it anyway.`,
        `Checks of a run now go to the Actions runners of '${options.remote}'.`,
        `Add a repository secret ${RESULT_KEY_VARIABLE} (\`openssl rand -hex 32\`) and set the same value in each clone's environment: only the job that pushes results gets it and signs each result with it, and a clone with it takes no result without that signature.`,
        ...secretsStep(options, 'repository secrets'),
      ],
    };
  if (kind === 'gitlab')
    return {
      files: [{ path: GITLAB_SOURCE, content: gitlabPipeline(runner(options, '$splintercat_home')) }],
      trigger: 'branch',
      jobs: { '.gitlab-ci.yml': GITLAB_SOURCE },
      next: [
        `Each request commit carries ${GITLAB_SOURCE} as its .gitlab-ci.yml (your own pipeline is untouched).`,
        'Add a CI/CD variable SPLINTERCAT_PUSH_TOKEN (a project access token with write_repository), masked and scoped to the environment splintercat-results, so only the job that pushes results gets it.',
        `Add a CI/CD variable ${RESULT_KEY_VARIABLE} (\`openssl rand -hex 32\`), masked and scoped to the environment splintercat-results, and set the same value in each clone's environment: only the job that pushes results gets it and signs each result with it, and a clone with it takes no result without that signature.`,
        ...secretsStep(options, 'CI/CD variables'),
      ],
    };
  return hookSetup(options);
}

/** The hook CI's setup: the hook, its job (holding the result key: mode 0700), and the steps that install them. */
function hookSetup(options: CiSetupOptions): CiSetup {
  const dir = options.hookDir;
  const key = options.resultKey === undefined ? randomBytes(32).toString('hex') : options.resultKey;
  const job = `${dir}/splintercat-check-job`;
  return {
    files: [
      { path: `${dir}/post-receive`, content: postReceiveHook(), executable: true },
      {
        path: job,
        content: hookJob(options.command ?? 'splintercat', options.reportArgs ?? '', key),
        executable: true,
        mode: 0o700,
      },
    ],
    trigger: 'ref',
    jobs: {},
    next: [
      `Copy both files into the hooks directory of the bare repository behind '${options.remote}':`,
      `  cp ${dir}/post-receive ${job} ${options.remoteHooks ?? '/path/to/repo.git/hooks/'}`,
      'Each pushed request then runs in its own clone, in the background; the output goes to splintercat-checks.log in the bare repository.',
      ...(key === null
        ? []
        : [
            `The job signs each result with a new result key, written into ${job} (mode 0700, kept out of commits by .git/info/exclude). Set it in the environment of each clone of the team, which then takes no result without that signature (shown once, here):`,
            `  export ${RESULT_KEY_VARIABLE}=${key}`,
          ]),
    ],
  };
}

/** The step telling which CI secrets the check keeps (check.env_passthrough), if any. */
function secretsStep(options: CiSetupOptions, what: string): string[] {
  const names = (options.passthrough ?? []).filter((name) => passthroughProblem(name) === null);
  return names.length ? [`Add ${what} ${names.join(', ')} (check.env_passthrough): the check step gets them.`] : [];
}

/**
 * The install of splintercat at `options.version` under `prefix` (shell text naming a directory
 * outside the checkout), and its binary by absolute path; or `options.command` as given.
 * `--ignore-scripts`: no install script of any dependency runs on a runner holding a token.
 */
function runner(options: CiSetupOptions, prefix: string): Runner {
  const passthrough = (options.passthrough ?? []).filter((name) => passthroughProblem(name) === null);
  if (options.command !== undefined) return { install: null, command: options.command, passthrough };
  const version = options.version ?? 'latest';
  return {
    install: `npm install --prefix "${prefix}" --ignore-scripts --no-audit --no-fund splintercat@${version}`,
    command: `"${prefix}/node_modules/.bin/splintercat"`,
    passthrough,
  };
}

/** A name that is safe to write into a job's YAML and shell text as it is. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The tokens that write the repository: never given to the check, whatever check.env_passthrough says. */
const JOB_TOKENS = /^(SPLINTERCAT_.*|GITHUB_TOKEN|CI_JOB_TOKEN|ACTIONS_.*)$/;

/** Why `name` cannot be a variable a CI job's check keeps, or null when it can. */
export function passthroughProblem(name: string): string | null {
  if (!VARIABLE_NAME.test(name)) return 'it is not a variable name (letters, digits and _)';
  if (JOB_TOKENS.test(name)) return "it is the job's own token or splintercat's, which the check never gets";
  return null;
}

/**
 * The values of the job's own tokens in `env` (the names `passthroughProblem` refuses): secrets
 * the check never gets, nor any variable holding one (GitLab's CI_REPOSITORY_URL holds the job
 * token), nor its log. Shorter values are flags, not credentials.
 */
export function jobTokenValues(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => JOB_TOKENS.test(name) && typeof value === 'string' && value.trim().length >= 8)
    .map(([, value]) => (value as string).trim());
}

/** check-report's options for the variables the check keeps. */
function passthroughArgs(names: readonly string[]): string {
  return names.map((name) => ` --env-passthrough ${name}`).join('');
}

/** The file a job's check writes its result to, and its push job reads it from. */
const RESULT_BUNDLE = 'splintercat-result.bundle';

function githubWorkflow({ install, command, passthrough }: Runner): string {
  const installStep = install
    ? `      # splintercat at a pinned version, outside the checkout: no code of the tree under test runs
      # but the check itself, in its sandbox.
      - name: Install splintercat
        run: ${install}
`
    : '';
  const secrets = passthrough.length
    ? `        env:\n${passthrough.map((name) => `          ${name}: \${{ secrets.${name} }}\n`).join('')}`
    : '';
  return `# Written by \`splintercat init --ci github\`: runs the checks splintercat requests
# (check.runner in splintercat.yaml) on this repository's runners and pushes each result back
# to refs/splintercat/RUN/checks/ID/result, where splintercat reads it.
name: splintercat checks
on:
  push:
    branches: ['splintercat/*/checks/**']
permissions:
  contents: read
jobs:
  # The check runs code of the tree under test: its job has no token that can write.
  check:
    if: \${{ !github.event.deleted }}
    runs-on: ubuntu-latest
    timeout-minutes: 360
    permissions:
      contents: read
    steps:
      # The request commit (this file alone) and its parent, the commit under test. No token is
      # left in .git/config, which the check can read.
      - uses: actions/checkout@v4
        with:
          fetch-depth: 2
          persist-credentials: false
      - uses: actions/setup-node@v4
        with:
          node-version: 20
${installStep}      - name: Run the requested check
${secrets}        run: |
          ${command} check-report --ref "$GITHUB_REF" --no-push --bundle "$RUNNER_TEMP/${RESULT_BUNDLE}"${passthroughArgs(passthrough)}
      - uses: actions/upload-artifact@v4
        with:
          name: splintercat-result
          path: \${{ runner.temp }}/${RESULT_BUNDLE}
          retention-days: 1
  # The token and the result key, on a runner of its own: nothing the check left (a file, a
  # process, GITHUB_ENV) reaches them; the result crosses as data, checked, signed, then pushed.
  report:
    needs: check
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: write
    steps:
      - uses: actions/download-artifact@v4
        with:
          name: splintercat-result
          path: \${{ runner.temp }}/result
      - uses: actions/setup-node@v4
        with:
          node-version: 20
${installStep}      - name: Push the result
        env:
          SPLINTERCAT_PUSH_TOKEN: \${{ github.token }}
          ${RESULT_KEY_VARIABLE}: \${{ secrets.${RESULT_KEY_VARIABLE} }}
        run: |
          ${command} check-report --ref "$GITHUB_REF" --push-only --bundle "$RUNNER_TEMP/result/${RESULT_BUNDLE}" --remote "$GITHUB_SERVER_URL/$GITHUB_REPOSITORY.git" --token-user x-access-token
`;
}

function gitlabPipeline({ install, command, passthrough }: Runner): string {
  const installLines = install
    ? `    # splintercat at a pinned version, outside the checkout: no code of the tree under test
    # runs but the check itself, in its sandbox.
    - splintercat_home="$(mktemp -d)"
    - ${install}
`
    : '';
  const rules = `  rules:
    - if: '$CI_COMMIT_BRANCH =~ /^splintercat\\/.+\\/checks\\//'
`;
  return `# Written by \`splintercat init --ci gitlab\`: each check request commit carries this file as its
# .gitlab-ci.yml. One job runs the requested check; another, which alone needs the token
# SPLINTERCAT_PUSH_TOKEN (write_repository), pushes the result back to
# refs/splintercat/RUN/checks/ID/result.
workflow:
${rules}stages: [check, report]
splintercat-check:
  stage: check
  image: node:20
  timeout: 6h
  variables:
    GIT_DEPTH: "2"
${rules}  script:
    # The runner's clone keeps the job's token in .git/config, which the check can read: drop it.
    - git remote set-url origin "$CI_SERVER_URL/$CI_PROJECT_PATH.git"
    - git config --local --name-only --get-regexp '^(url\\..*|credential\\..*|http\\..*extraheader)$' | while read -r key; do git config --local --unset-all "$key"; done || true
${installLines}    - splintercat() { ${command} "$@"; }
    # check-report takes the job's token (CI_JOB_TOKEN) out of the check's environment, with
    # every variable holding it (CI_REPOSITORY_URL), and out of its log; the result goes to the bundle.
    - splintercat check-report --ref "refs/heads/$CI_COMMIT_BRANCH" --url "$CI_JOB_URL" --no-push --bundle ${RESULT_BUNDLE}${passthroughArgs(passthrough)}
  artifacts:
    paths: [${RESULT_BUNDLE}]
    expire_in: 1 day
# The token, in a job of its own that runs nothing of the tree (no clone): scope
# SPLINTERCAT_PUSH_TOKEN and ${RESULT_KEY_VARIABLE} (which signs the result) to the environment
# splintercat-results so only this job gets them.
splintercat-report:
  stage: report
  image: node:20
  timeout: 10m
  needs: [splintercat-check]
  environment:
    name: splintercat-results
    action: prepare
  variables:
    GIT_STRATEGY: none
${rules}  script:
${installLines}    - splintercat() { ${command} "$@"; }
    # The push reads the token from the environment, never from a line GitLab prints.
    - splintercat check-report --ref "refs/heads/$CI_COMMIT_BRANCH" --push-only --bundle ${RESULT_BUNDLE} --remote "$CI_SERVER_URL/$CI_PROJECT_PATH.git"
`;
}

function postReceiveHook(): string {
  return `#!/bin/sh
# Written by \`splintercat init --ci hook\`: the post-receive hook of a bare repository used as
# a self-hosted CI for splintercat's checks. Each check request pushed starts
# splintercat-check-job (beside this file) in the background, so the push does not wait.
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "\${GIT_DIR:-.}" && pwd)
while read -r old new ref; do
  case "$ref" in
    refs/splintercat/*/checks/*/request | refs/heads/splintercat/*/checks/*) ;;
    *) continue ;;
  esac
  case "$new" in *[!0]*) ;; *) continue ;; esac
  (
    unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_QUARANTINE_PATH GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES
    nohup "$here/splintercat-check-job" "$repo" "$ref" >>"$repo/splintercat-checks.log" 2>&1 </dev/null &
  )
done
exit 0
`;
}

/**
 * The hook's job script. The check runs in bubblewrap unless the command says otherwise: the
 * hook runs as the owner of the bare repository, which an unconfined check could rewrite, so a
 * machine without bubblewrap fails the check instead of running it bare. The result key is given
 * to check-report alone (which signs after the check ran without it), never to git or the shell.
 */
function hookJob(command: string, reportArgs: string, key: string | null): string {
  const sandbox = /(^|\s)--sandbox\b/.test(`${command} ${reportArgs}`) ? '' : ' --sandbox bwrap';
  const args = `${sandbox}${reportArgs ? ` ${reportArgs}` : ''}`;
  const report = `splintercat check-report --ref "$ref" --remote origin --log-dir "$work/logs"${args}`;
  const run =
    key === null ? report : `(${RESULT_KEY_VARIABLE}=${shellQuote(key)}; export ${RESULT_KEY_VARIABLE}; ${report})`;
  return `#!/bin/sh
# Written by \`splintercat init --ci hook\`: one check job. Usage: splintercat-check-job REPO REF
# Clones REPO, checks out the request REF and runs splintercat check-report, which runs the
# requested check and pushes its result to REPO.
set -u
repo=$1
ref=$2
splintercat() { ${command} "$@"; }
work=$(mktemp -d "\${TMPDIR:-/tmp}/splintercat-check.XXXXXX") || exit 1
# Every job that printed its start prints its end, on every path out (a request replaced
# before the fetch included), so whoever watches the log never waits on a job that is gone.
trap 'status=$?; rm -rf "$work"; echo "splintercat-check-job: $ref done ($status)"' EXIT
trap 'exit 143' INT TERM
echo "splintercat-check-job: $ref (pid $$)"
git clone --quiet --no-checkout -- "$repo" "$work/clone" || exit 1
cd "$work/clone" || exit 1
git fetch --quiet --no-tags origin "+$ref:refs/splintercat-job/request" || exit 1
git -c advice.detachedHead=false checkout --quiet --detach refs/splintercat-job/request || exit 1
${run}
`;
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
