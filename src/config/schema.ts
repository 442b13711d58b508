import * as z from 'zod';
import { RESOLVER_MODES, strategyNames } from './goals.js';
import { currentPathDecision, currentResolverMode } from './old-keys.js';
import { providerNames } from './providers/index.js';

/**
 * The written shape of `splintercat.yaml`. Every key has a default so an empty
 * file is valid; cross-field rules live in `normalize.ts`. Key names are stable:
 * scripts and `--set key.path=value` depend on them.
 */
const positiveSeconds = z.number().positive();

/** The longest claim a clone of a shared run takes (`sync.lease`): one running further ahead is no claim. */
export const MAX_LEASE_SECONDS = 7 * 24 * 3600;

export type { ProviderName } from './providers/index.js';

const sandboxModes = ['auto', 'bwrap', 'off'] as const;
export type SandboxMode = (typeof sandboxModes)[number];

/** Dependency manifests and lockfiles: when one changes, `check.setup` runs again. */
export const defaultSetupWhen = [
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'requirements*.txt',
  'pyproject.toml',
  'poetry.lock',
  'uv.lock',
  'Cargo.toml',
  'Cargo.lock',
  'go.mod',
  'go.sum',
  'Gemfile.lock',
] as const;

/**
 * `check.runner`: with a `remote`, each check's commit is pushed to a request ref there and a CI
 * job (`splintercat init --ci`) writes the result back; empty = checks run on this machine.
 */
const checkRunnerSchema = z
  .object({
    /** A git remote of the repository (name or URL); empty = run checks here. */
    remote: z.string().default(''),
    /** ref: requests at refs/splintercat/RUN/checks/ID/request; branch: at refs/heads/splintercat/RUN/checks/ID (CI that starts only for branches). */
    trigger: z.enum(['ref', 'branch']).default('ref'),
    /**
     * Job definition files carried in each request commit, for a CI that reads its pipeline from the
     * pushed commit: path in the request commit -> file of the main checkout it is read from.
     */
    job_files: z.record(z.string().min(1), z.string().min(1)).default({}),
    /** Checks in flight at once on the remote (bisect probes run in parallel up to this). */
    parallel: z.number().int().positive().default(4),
    /** Seconds between two looks for results at first; then a tenth of the newest check's wait, at most 60 s. */
    poll: positiveSeconds.default(10),
  })
  .strict()
  .prefault({});

const modelPriceSchema = z
  .object({
    /** USD per million input tokens. */
    input: z.number().nonnegative(),
    /** USD per million output tokens. */
    output: z.number().nonnegative(),
  })
  .strict();

/** A `resolve.paths` decision as written: a word, or a map naming the union's order or the regenerate command. */
const pathDecisionSchema = z.union(
  [
    z.preprocess(
      currentPathDecision,
      z.enum(['ours', 'theirs', 'union', 'union ours-first', 'union theirs-first', 'person']),
    ),
    z.object({ union: z.enum(['ours-first', 'theirs-first']) }).strict(),
    z.object({ regenerate: z.string().min(1) }).strict(),
  ],
  {
    error: () =>
      'unknown decision: use ours, theirs, union (or union ours-first / union theirs-first, or {union: theirs-first}), person, or {regenerate: COMMAND}',
  },
);

const learntModes = ['off', 'suggest', 'apply'] as const;

const learntSchema = z
  .object({
    mode: z.enum(learntModes).default('suggest'),
    /** `apply` takes a suggestion only when at least this share of the merges that speak for it agree. */
    threshold: z.number().min(0.5).max(1).default(1),
    /** ... and at least this many of them agree. */
    min_merges: z.number().int().positive().default(3),
    /** How many of the fork's most recent merges are read (each replayed once, then remembered). */
    merges: z.number().int().positive().default(200),
    /** Seconds a run spends replaying merges not remembered yet (looked at between merges); older ones wait for a later run. */
    seconds: positiveSeconds.default(30),
  })
  .strict();

export const configSchema = z
  .object({
    target: z
      .object({
        /** The repository to merge in. Relative paths are relative to the config file. */
        workdir: z.string().min(1).default('.'),
        /** The branch that receives the merge; empty = the current branch. */
        branch: z.string().default(''),
      })
      .strict()
      .prefault({}),
    check: z
      .object({
        /** Seconds before a check is killed. */
        timeout: positiveSeconds.default(3600),
        /** Seconds between SIGTERM and SIGKILL when a check times out or is cancelled. */
        kill_grace: positiveSeconds.default(10),
        /** Named shell commands; `build` and `test` are the workflow's defaults. */
        commands: z.record(z.string().min(1), z.string().min(1)).default({}),
        /** Names of the checks the workflow runs after resolving (in order). */
        workflow: z.array(z.string().min(1)).default(['build', 'test']),
        /** The check run before finishing; empty = the `workflow` checks. */
        final: z.string().default(''),
        /** Where checks run: here (no remote), or on CI runners reached through a git remote. */
        runner: checkRunnerSchema,
        /** Shell command that prepares a worktree (installs dependencies) before its first check; empty = none. */
        setup: z.string().default(''),
        /** Globs (relative to the worktree) whose contents, when changed, make `setup` run again. */
        setup_when: z.array(z.string().min(1)).default([...defaultSetupWhen]),
        /** auto = bubblewrap when installed and working; bwrap = required; off = unconfined. */
        sandbox: z.enum(sandboxModes).default('auto'),
        /** Directories a sandboxed check may write besides its worktree and a private /tmp (`~` expanded). */
        writable: z.array(z.string().min(1)).default([]),
        /** Paths a sandboxed check may read besides its worktree, the system and the toolchain on PATH (`~` expanded). */
        readable: z.array(z.string().min(1)).default([]),
        /**
         * Whether `setup` reaches the network (to install dependencies); checks never do. The regenerate
         * commands of lockfiles (`resolve.regenerate`, `{regenerate: COMMAND}` in `resolve.paths`) get
         * it too, and run sandboxed like checks otherwise. A setup with the network, and every
         * regenerate command, runs its package managers with the tree's own configuration neutralised:
         * no lifecycle scripts (`npm_config_ignore_scripts`, `YARN_ENABLE_SCRIPTS=false`, no
         * `.pnpmfile.cjs`), git from PATH (a `.npmrc`'s `git=` is overridden), empty user and global
         * npmrc, no `yarnPath`, and no PATH entry inside the tree.
         */
        setup_network: z.boolean().default(false),
        /** Environment variables kept although named like a secret (`*_KEY`, `*_TOKEN`, `SPLINTERCAT_*`, ...). */
        env_passthrough: z.array(z.string().min(1)).default([]),
        /**
         * Cheap checks run after each resolution (or batch of them) instead of the `workflow` checks,
         * which then run every `full_every` resolutions and always before finishing; empty = every
         * check is the `workflow` checks.
         */
        fast: z.array(z.string().min(1)).default([]),
        /** Resolutions between two full (`workflow`) checks when `fast` is set; 0 = only the final validation. */
        full_every: z.number().int().nonnegative().default(0),
        /**
         * Test selection: a glob of paths to the checks that cover them (`src/net/**: [test-net]`). A
         * resolution runs only the checks its files select (and every check no glob names); a file
         * no glob matches selects them all. The full checks and the final validation run everything.
         */
        select: z.record(z.string().min(1), z.array(z.string().min(1))).default({}),
        /** No check for a resolution that changes no compiled byte (whitespace or comments only, proven by the syntax rung). */
        skip_no_code_change: z.boolean().default(true),
        /**
         * An out-of-tree build directory per run: `<build_dir>/<run name>`, kept between checks and given
         * to them as $SPLINTERCAT_BUILD_DIR (e.g. `make BUILD="$SPLINTERCAT_BUILD_DIR"`); empty = none.
         */
        build_dir: z.string().default(''),
        /** Keep build outputs between checks (false: every check starts from a clean tree and build directory, and sets up again). */
        incremental: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    llm: z
      .object({
        provider: z.enum(providerNames).default('openrouter'),
        /** Empty = the variable the provider's preset names (config/providers/), e.g. OPENROUTER_API_KEY. */
        api_key: z.string().default(''),
        base_url: z.string().default(''),
        /** No model configured = offline: the deterministic ladder and policies only. */
        resolver_model: z.string().default(''),
        /** A second opinion on each model resolution (empty = none): it accepts or rejects, naming the lines. */
        reviewer_model: z.string().default(''),
        summarizer_model: z.string().default(''),
        planner_model: z.string().default(''),
        /** Seconds one model call may take before it is retried with a longer timeout. */
        timeout: positiveSeconds.default(120),
        /** Retries of one model call on 429/5xx/network errors. */
        max_retries: z.number().int().nonnegative().default(5),
        /** Tool-calling steps the resolver may take on one conflict. */
        max_turns: z.number().int().positive().default(10),
        /** Independent resolutions asked per file; more than 1 counts a resolution only when they all agree. */
        candidates: z.number().int().min(1).max(5).default(1),
        /** USD per million tokens by model id; OpenRouter's reported cost wins when present. */
        prices: z.record(z.string(), modelPriceSchema).default({}),
      })
      .strict()
      .prefault({}),
    imerge: z
      .object({
        name: z.string().min(1).default('upstream-merge'),
        /** Follow first parents on each axis (real upstreams nearly always need it). */
        first_parent: z.boolean().default(true),
        /** Concurrent in-memory merges in the engine; 0 = number of cores. */
        jobs: z.number().int().nonnegative().default(0),
      })
      .strict()
      .prefault({}),
    merge: z
      .object({
        /** Recoveries in a row after failed checks (no check passing between them) before the run aborts. */
        max_recoveries: z.number().int().nonnegative().default(5),
        /** The strategies the planner may choose from. */
        available_strategies: z
          .array(z.enum(strategyNames))
          .min(1)
          .default([...strategyNames]),
        default_batch_size: z.number().int().positive().default(10),
        strategy: z.enum(['auto', ...strategyNames]).default('auto'),
        /** How conflicts are resolved: the ladder then a model (auto), a model always (llm), or the person (`person`). */
        resolver: z.preprocess(currentResolverMode, z.enum(RESOLVER_MODES)).default('auto'),
        /**
         * When a conflict needs a person, the other conflicts already known (the frontier's blockers)
         * go down the ladder first, and every one that needs a person is handed over with it.
         */
        batch_handoff: z.boolean().default(true),
        /** Model conversations at once on independent conflicts. */
        parallel: z.number().int().positive().default(4),
        /**
         * The directory holding each run's worktrees (in `<dir>/NAME/`); empty = the sibling
         * directory `<parent of target.workdir>/<its name>-splintercat`, outside `.git/`.
         */
        worktrees: z.string().default(''),
      })
      .strict()
      .prefault({}),
    resolve: z
      .object({
        /** Reuse earlier resolutions of the same hunk. */
        cache: z.boolean().default(true),
        /** Turn deterministic rules on or off by name; unnamed rules keep their default. */
        rules: z.record(z.string(), z.boolean()).default({}),
        /**
         * The syntax-aware rung (tree-sitter grammars): `code` merges source files entity by
         * entity (declarations, members, test cases, imports), `data` merges JSON/YAML/TOML key by
         * key. On by default: it abstains wherever the sides' edits touch, and on the dev corpus
         * it was wrong on no file (`splintercat eval --corpus`).
         */
        syntax: z
          .object({
            code: z.boolean().default(true),
            data: z.boolean().default(true),
          })
          .strict()
          .prefault({}),
        /**
         * Lockfiles regenerated instead of merged: a glob of paths (e.g. `package-lock.json`,
         * `**\/Cargo.lock`) to the command that rewrites it once its manifest is resolved, run in the
         * worktree as a check runs (sandboxed, without secrets, the network only with
         * `check.setup_network`, the tree's package-manager configuration neutralised), e.g.
         * `npm install --package-lock-only --ignore-scripts`. Empty by default: a conflicted lockfile
         * then goes to a person whole (one side's file), with a note saying how to configure this.
         */
        regenerate: z.record(z.string(), z.string().min(1)).default({}),
        /**
         * The fork's own instructions for the resolver model (its invariants, conventions), as text
         * or the path of a file holding them (relative to target.workdir); sent with every resolver
         * request, apart from the repository's contents. Empty = none.
         */
        instructions: z.string().default(''),
        /**
         * `ask`: a resolution by a rule, the syntax merge, the cache or the model that drops lines of a
         * side's change with no recorded reason (a policy, a person's explicit take) is handed to a
         * person to confirm before it is checked. `off` (the default): it is accepted, and the report
         * flags it under "What the merge dropped".
         */
        review_drops: z.enum(['off', 'ask']).default('off'),
        /**
         * The fork's policy per path: glob to decision, the first glob that matches a path wins (in
         * the order written). Applied as the ladder's `policy` rung, after the cache, before the rules.
         */
        paths: z.record(z.string().min(1), pathDecisionSchema).default({}),
        /**
         * Suggestions learnt from the fork's own past merges: `suggest` shows them at a
         * hand-off (and gives them to the model), `apply` also takes the ones whose evidence passes
         * `threshold` without asking, `off` reads no history. A plain mode (`learnt: apply`) is accepted.
         */
        learnt: z
          .preprocess((value) => (typeof value === 'string' ? { mode: value } : value), learntSchema)
          .prefault({}),
      })
      .strict()
      .prefault({}),
    budget: z
      .object({
        /** Stop cleanly before model spending passes this many USD; 0 = no limit. */
        usd: z.number().nonnegative().default(0),
      })
      .strict()
      .prefault({}),
    sync: z
      .object({
        /**
         * Seconds a claim on a conflict of a shared run lasts unless renewed; then another machine may
         * take it. At most a week: a claim running further ahead is taken as no claim at all.
         */
        lease: positiveSeconds.max(MAX_LEASE_SECONDS).default(1800),
        /**
         * Seconds `merge`/`continue` waits, when every open conflict is held by another machine, for
         * one to be freed or resolved before it stops (0: stop at once, as a person wants).
         */
        wait: z.number().nonnegative().default(0),
      })
      .strict()
      .prefault({}),
    log: z
      .object({
        /** Where every log goes: splintercat.log, decisions.log and each check's log (never deleted). */
        dir: z.string().min(1).default('{target.workdir}/.splintercat/logs'),
        console_level: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
        file_level: z.enum(['debug', 'info', 'warn', 'error']).default('debug'),
        max_size_mb: z.number().positive().default(10),
        retention_days: z.number().positive().default(7),
      })
      .strict()
      .prefault({}),
  })
  .strict();

/** The configuration after defaults, templating and normalisation. */
export type Config = z.output<typeof configSchema>;
