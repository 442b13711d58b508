import { providerPresets } from './providers/index.js';

/**
 * The commented default `splintercat.yaml` that `splintercat init` writes. Every key
 * of the schema is here with its default value, so the file loads back to exactly
 * the defaults (tested); comments say what each key does.
 */
export const DEFAULT_CONFIG_YAML = `# splintercat.yaml — configuration of splintercat (https://github.com/splintercat).
# Precedence: these values < environment (SPLINTERCAT_SECTION__KEY=value) < --set section.key=value.
# Values may use \${ENV_VAR} and {target.workdir}.

target:
  # The repository; relative paths are relative to this file.
  workdir: .
  # The branch that receives the merge; empty = the current branch.
  branch: ""

check:
  # Seconds before a check is killed (its whole process group).
  timeout: 3600
  # Seconds between SIGTERM and SIGKILL when a check is stopped.
  kill_grace: 10
  # Named shell commands, run in a worktree holding the cell being checked. For example:
  #   build: make -j2
  #   test: make test
  #   quick: ninja -C build lib/IR
  #   full: ninja -C build && ninja -C build check
  commands: {}
  # The checks run after resolving, in order.
  workflow: [build, test]
  # The check run before finishing; empty = the workflow checks.
  final: ""
  # Where checks run: here, or on CI runners through a git remote (see: splintercat init --ci).
  # With a remote, each check's commit is pushed to refs/splintercat/RUN/checks/ID/request
  # (trigger: branch pushes refs/heads/splintercat/RUN/checks/ID instead, for CI that starts only
  # for branches) and the job writes its result to refs/splintercat/RUN/checks/ID/result.
  runner:
    remote: ""
    trigger: ref
    # Job definition files carried in each request commit (path there: file here), e.g.
    #   .gitlab-ci.yml: .splintercat/ci/gitlab-ci.yml
    job_files: {}
    # Checks in flight at once on the remote; seconds between two looks for results at first
    # (then a tenth of the time the newest check has waited, at most 60 s).
    parallel: 4
    poll: 10
  # A shell command that prepares a worktree before its first check there (e.g. npm ci),
  # run again whenever a file matching setup_when changes. Its log is named setup-*.log.
  setup: ""
  # Whether setup reaches the network (to download dependencies); checks never do. Setup never
  # gets it while a file it reads (setup_when, or named in the command) holds a model's resolution.
  # Lockfiles' regenerate commands get it too. With it, package managers run with the tree's own
  # configuration neutralised: no install scripts, git from PATH (not a .npmrc's git=), empty npmrc.
  setup_network: false
  # Globs relative to the worktree (use **/package.json for every level; node_modules and .git are skipped).
  setup_when: [package.json, package-lock.json, npm-shrinkwrap.json, yarn.lock, pnpm-lock.yaml, requirements*.txt, pyproject.toml, poetry.lock, uv.lock, Cargo.toml, Cargo.lock, go.mod, go.sum, Gemfile.lock]
  # auto (bubblewrap when installed) | bwrap (required) | off (unconfined).
  # Sandboxed checks have no network and see only their worktree (its .git read-only), the system
  # directories, the toolchain on PATH, an empty HOME and /tmp, and the directories listed below.
  sandbox: auto
  # Directories checks may write besides those, e.g. a dependency cache:  [~/.npm, ~/.cache/pip]
  writable: []
  # Paths checks may read besides those, e.g. a toolchain outside PATH or the repository's git
  # directory for a build that runs git:  [~/.rustup, ~/.cargo]
  readable: []
  # Checks never see variables named *_KEY, *_TOKEN, *_SECRET, *_PASSWORD or SPLINTERCAT_*, nor any
  # holding the API key; list the ones a check needs anyway, e.g.  [NPM_TOKEN]
  env_passthrough: []
  # Cheap checks run after each resolution instead of the workflow checks, e.g.  [build, test-net]
  # (the workflow checks then run every full_every resolutions and always before finishing).
  fast: []
  # Resolutions between two full (workflow) checks when fast is set; 0 = only before finishing.
  full_every: 0
  # Test selection: glob of paths -> the checks that cover them. A resolution runs the checks its
  # files select and every check no glob names; a file no glob matches selects them all. E.g.
  #   select:
  #     "src/net/**": [test-net]
  #     "include/net/**": [test-net]
  select: {}
  # No check for a resolution that changes no compiled byte (whitespace or comments only).
  skip_no_code_change: true
  # An out-of-tree build directory per run (DIR/NAME), kept between checks, given to them as
  # $SPLINTERCAT_BUILD_DIR, e.g.  build: make -j2 BUILD="$SPLINTERCAT_BUILD_DIR"   Empty = none.
  build_dir: ""
  # Keep build outputs between checks; false = every check starts clean (and sets up again).
  incremental: true

llm:
  # One of:
${providerChoices()}
  provider: openrouter
  # Empty = the provider's variable above. Keys are never logged.
  api_key: ""
  base_url: ""
  # No model = offline: the deterministic ladder, failure extractor and planner policy only.
  resolver_model: ""
  # A second model (ideally another provider's) that accepts or rejects each model resolution.
  reviewer_model: ""
  summarizer_model: ""
  planner_model: ""
  # Seconds one model call may take before it is retried with a longer timeout.
  timeout: 120
  # Retries of one call on 429 / 5xx / network errors (exponential backoff, Retry-After honoured).
  max_retries: 5
  # Tool-calling steps the resolver may take on one conflict.
  max_turns: 10
  # Independent resolutions per file; above 1, a resolution counts only when they all agree.
  candidates: 1
  # USD per million tokens by model id, e.g.  openai/gpt-4o-mini: { input: 0.15, output: 0.6 }
  prices: {}

imerge:
  # Name of the merge (refs/imerge/NAME, .git/splintercat/NAME).
  name: upstream-merge
  # Follow first parents on each side (real upstreams nearly always need it).
  first_parent: true
  # Concurrent in-memory merges in the engine; 0 = number of cores.
  jobs: 0

merge:
  # Recoveries in a row after failed checks (no check passing between them) before giving up.
  max_recoveries: 5
  # The strategies the planner may choose from.
  available_strategies: [optimistic, batch, per_conflict]
  # Conflicts per check for the batch strategy.
  default_batch_size: 10
  # auto (the planner chooses) | optimistic | batch | per_conflict
  strategy: auto
  # auto (ladder, then the model) | llm | person (stop for the person)
  resolver: auto
  # When a conflict needs a person, try the other known conflicts first and hand over every one
  # that needs a person at once (one continue checks them together).
  batch_handoff: true
  # Model conversations at once on independent conflicts.
  parallel: 4
  # Where each run's worktrees live (DIR/NAME/: the conflicts to resolve, the checked commits).
  # Empty = a sibling of the repository, ../REPO-splintercat, so no path has a dot-directory
  # (some test suites refuse those). Relative paths are relative to target.workdir.
  worktrees: ""

resolve:
  # Reuse earlier resolutions of the same hunk (kept in .git/splintercat/cache).
  cache: true
  # Turn rules on or off by name, e.g.  remerge-words: true  (off by default: not always right).
  rules: {}
  # The syntax-aware rung (tree-sitter): code merged entity by entity (declarations, class
  # members, test cases, imports), JSON/YAML/TOML merged key by key. It abstains wherever
  # the two sides' edits touch; splintercat eval --corpus DIR measures it.
  syntax:
    code: true
    data: true
  # Lockfiles regenerated rather than merged: glob -> command, run in the worktree once the
  # manifest is resolved. Without an entry a person takes one side's whole lockfile.
  #   regenerate:
  #     package-lock.json: npm install --package-lock-only --ignore-scripts
  #     "**/Cargo.lock": cargo generate-lockfile
  regenerate: {}
  # The fork's policy per path (first matching glob wins), the ladder's "policy" rung after the
  # cache: ours | theirs | union (ours first; also spelt union ours-first) | union theirs-first |
  # person (always hand over) | {regenerate: COMMAND} (take ours, then run COMMAND in the
  # worktree, as resolve.regenerate).
  #   paths:
  #     "locales/*.json": theirs
  #     "CHANGELOG.md": union theirs-first
  #     "src/mos/**": person
  #     "package-lock.json": {regenerate: npm install --package-lock-only --ignore-scripts}
  paths: {}
  # The fork's own instructions for the resolver model (text, or the path of a file holding them).
  instructions: ""
  # A rule's or the model's resolution that drops lines of a side's change with no recorded reason
  # (a policy, a person's explicit take): ask = hand it to a person first; off = accept it, and the
  # report flags it ("What the merge dropped").
  review_drops: off
  # Suggestions learnt from the fork's past merges, shown at every hand-off:
  # off | suggest | apply (apply also takes, without asking, those that at least min_merges of
  # the merges that speak for them agree on, and at least this share of them: threshold).
  learnt:
    mode: suggest
    threshold: 1
    min_merges: 3
    merges: 200
    # Seconds a run spends replaying past merges it has not remembered yet (older ones wait for
    # the next run, which goes on from there).
    seconds: 30

budget:
  # Stop cleanly before model spending passes this many USD; 0 = no limit.
  usd: 0

sync:
  # A merge shared through a git remote (merge --remote, share, join): seconds a person's claim on
  # a conflict lasts unless their splintercat renews it; then another clone may take the conflict.
  lease: 1800
  # Seconds merge/continue waits, when every open conflict is held by another clone, for one to be
  # freed or resolved, then goes on (0: stop at once and say who holds what; a machine that works
  # unattended, a bot or a CI job, waits instead).
  wait: 0

log:
  # Every log: splintercat.log, decisions.log, and each check's NAME-YYYYMMDD-HHMMSS.log (never deleted).
  dir: "{target.workdir}/.splintercat/logs"
  # debug | info | warn | error  (--verbose = debug)
  console_level: info
  file_level: debug
  # Rotate the log file at this size; delete rotated files older than retention_days.
  max_size_mb: 10
  retention_days: 7
`;

/** One comment line per provider preset, so a new preset is listed without editing this file. */
function providerChoices(): string {
  const width = Math.max(...providerPresets.map((p) => p.name.length));
  return providerPresets
    .map((p) => {
      const key = p.keyVariable ? `key: ${p.keyVariable}` : 'key: llm.api_key if it needs one';
      const where = p.defaultBaseUrl ? `base_url: ${p.defaultBaseUrl}` : p.needsBaseUrl ? 'base_url required' : null;
      return `  #   ${p.name.padEnd(width)}  ${[p.description, key, where].filter(Boolean).join('; ')}`;
    })
    .join('\n');
}
