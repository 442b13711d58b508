/**
 * The job definitions `splintercat init --ci` writes: each starts on a check request ref, checks
 * out the request commit with its parent, and runs `splintercat check-report`, which runs the
 * check and pushes its result (protocol.ts). GitHub Actions and GitLab CI start pipelines only
 * for branches and tags, so their requests are branches (`check.runner.trigger: branch`); a
 * self-hosted `post-receive` hook sees every ref.
 */

export const ciKinds = ['github', 'gitlab', 'hook'] as const;
export type CiKind = (typeof ciKinds)[number];

/** What `init --ci KIND` writes and how it sets `check.runner`. */
export interface CiSetup {
  /** Files to write (path relative to the repository -> content), and whether each is executable. */
  files: Array<{ path: string; content: string; executable?: boolean }>;
  trigger: 'ref' | 'branch';
  /** check.runner.jobs: path in each request commit -> file of the main checkout. */
  jobs: Record<string, string>;
  /** What the person does next, one step a line. */
  next: string[];
}

const GITHUB_WORKFLOW = '.github/workflows/splintercat-checks.yml';
const GITLAB_SOURCE = '.splintercat/ci/gitlab-ci.yml';

/** The setup of one CI kind; `command` runs splintercat on the runner (shell text). */
export function ciSetup(
  kind: CiKind,
  options: { command: string; remote: string; hookDir: string; reportArgs?: string; remoteHooks?: string | null },
): CiSetup {
  if (kind === 'github')
    return {
      files: [{ path: GITHUB_WORKFLOW, content: githubWorkflow(options.command) }],
      trigger: 'branch',
      jobs: { [GITHUB_WORKFLOW]: GITHUB_WORKFLOW },
      next: [
        `Commit ${GITHUB_WORKFLOW} if you like (it runs only for splintercat/*/checks/* branches); every request carries it anyway.`,
        `Checks of a run now go to the Actions runners of '${options.remote}'.`,
      ],
    };
  if (kind === 'gitlab')
    return {
      files: [{ path: GITLAB_SOURCE, content: gitlabPipeline(options.command) }],
      trigger: 'branch',
      jobs: { '.gitlab-ci.yml': GITLAB_SOURCE },
      next: [
        `Each request commit carries ${GITLAB_SOURCE} as its .gitlab-ci.yml (your own pipeline is untouched).`,
        'Add a CI/CD variable SPLINTERCAT_PUSH_TOKEN (a project access token with write_repository) so the job can push results.',
      ],
    };
  const dir = options.hookDir;
  return {
    files: [
      { path: `${dir}/post-receive`, content: postReceiveHook(), executable: true },
      {
        path: `${dir}/splintercat-check-job`,
        content: hookJob(options.command, options.reportArgs ?? ''),
        executable: true,
      },
    ],
    trigger: 'ref',
    jobs: {},
    next: [
      `Copy both files into the hooks directory of the bare repository behind '${options.remote}':`,
      `  cp ${dir}/post-receive ${dir}/splintercat-check-job ${options.remoteHooks ?? '/path/to/repo.git/hooks/'}`,
      'Each pushed request then runs in its own clone, in the background; the output goes to splintercat-checks.log in the bare repository.',
    ],
  };
}

function githubWorkflow(command: string): string {
  return `# Written by \`splintercat init --ci github\`: runs the checks splintercat requests
# (check.runner in splintercat.yaml) on this repository's runners and pushes each result back
# to refs/splintercat/RUN/checks/ID/result, where splintercat reads it.
name: splintercat checks
on:
  push:
    branches: ['splintercat/*/checks/**']
permissions:
  contents: write
jobs:
  check:
    if: \${{ !github.event.deleted }}
    runs-on: ubuntu-latest
    timeout-minutes: 360
    steps:
      # The request commit and its parent, the commit under test.
      - uses: actions/checkout@v4
        with:
          fetch-depth: 2
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: Run the requested check and report it
        run: ${command} check-report --ref "$GITHUB_REF"
`;
}

function gitlabPipeline(command: string): string {
  return `# Written by \`splintercat init --ci gitlab\`: each check request commit carries this file as its
# .gitlab-ci.yml. The job runs the requested check and pushes the result back to
# refs/splintercat/RUN/checks/ID/result (SPLINTERCAT_PUSH_TOKEN: a token with write_repository).
workflow:
  rules:
    - if: '$CI_COMMIT_BRANCH =~ /^splintercat\\/.+\\/checks\\//'
splintercat-check:
  image: node:20
  timeout: 6h
  variables:
    GIT_DEPTH: "2"
  rules:
    - if: '$CI_COMMIT_BRANCH =~ /^splintercat\\/.+\\/checks\\//'
  script:
    - git remote set-url --push origin "https://oauth2:\${SPLINTERCAT_PUSH_TOKEN}@\${CI_SERVER_HOST}/\${CI_PROJECT_PATH}.git"
    - ${command} check-report --ref "refs/heads/$CI_COMMIT_BRANCH" --url "$CI_JOB_URL"
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

function hookJob(command: string, reportArgs: string): string {
  return `#!/bin/sh
# Written by \`splintercat init --ci hook\`: one check job. Usage: splintercat-check-job REPO REF
# Clones REPO, checks out the request REF and runs splintercat check-report, which runs the
# requested check and pushes its result to REPO.
set -u
repo=$1
ref=$2
splintercat() { ${command} "$@"; }
work=$(mktemp -d "\${TMPDIR:-/tmp}/splintercat-check.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 143' INT TERM
echo "splintercat-check-job: $ref (pid $$)"
git clone --quiet --no-checkout -- "$repo" "$work/clone" || exit 1
cd "$work/clone" || exit 1
git fetch --quiet --no-tags origin "+$ref:refs/splintercat-job/request" || exit 1
git -c advice.detachedHead=false checkout --quiet --detach refs/splintercat-job/request || exit 1
splintercat check-report --ref "$ref" --remote origin --log-dir "$work/logs"${reportArgs ? ` ${reportArgs}` : ''}
status=$?
echo "splintercat-check-job: $ref done ($status)"
exit $status
`;
}
