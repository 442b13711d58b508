import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testGitEnv, type TestRepo } from '../helpers/git-repo.js';
import { startLlmServer, type LlmServer, type RecordedRequest, type ScriptedReply } from '../helpers/llm-server.js';
import { cliShellCommand, runCli } from '../fixtures/resolve/cli.js';
import { chainRepo } from '../fixtures/workflow/chain-repo.js';

/** Deterministic pseudo-random delays (seeded), so a failing run can be replayed with KILL_SEED. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** The seed of this run (KILL_SEED overrides it), printed so a failure can be replayed. */
function killSeed(fallback: number, test: string): number {
  const seed = Number(process.env.KILL_SEED ?? fallback);
  console.info(`${test}: KILL_SEED=${seed}`);
  return seed;
}

/** When to SIGKILL: `ms` after the start, or `ms` after a promise (e.g. the n-th model request) resolves. */
type KillAt = number | { after: Promise<void>; ms: number };

/** Start the CLI and SIGKILL it at `at` (or let it finish); resolves with its exit code or 'killed'. */
function runAndKill(args: string[], cwd: string, at: KillAt): Promise<number | 'killed'> {
  return new Promise((done) => {
    const child = spawn('/bin/sh', ['-c', `exec ${cliShellCommand} ${args.join(' ')}`], {
      cwd,
      env: { ...process.env, ...testGitEnv },
      stdio: 'ignore',
    });
    let exited = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number): void => {
      if (!exited) timer = setTimeout(() => child.kill('SIGKILL'), ms);
    };
    if (typeof at === 'number') arm(at);
    else void at.after.then(() => arm(at.ms));
    child.on('exit', (code, signal) => {
      exited = true;
      clearTimeout(timer);
      done(signal === 'SIGKILL' ? 'killed' : (code ?? 1));
    });
  });
}

/** After a kill: `continue` once the run exists (its state is written first), else (killed before) `merge` again. */
function resumeArgs(repo: TestRepo): string[] {
  const started =
    existsSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json')) ||
    repo.sh('for-each-ref', 'refs/imerge') !== '';
  return started ? ['continue'] : ['merge', 'upstream'];
}

function configure(repo: TestRepo, extra: string[] = []): void {
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    [
      'target:',
      '  branch: main',
      'check:',
      '  commands:',
      '    build: node check.mjs',
      '  workflow: [build]',
      'imerge:',
      '  name: up',
      'merge:',
      '  strategy: per_conflict',
      ...extra,
      '',
    ].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n.splintercat/\n');
}

function makeRepo() {
  const repo = chainRepo(
    4,
    () => '1  ',
    () => '1',
  );
  configure(repo);
  return repo;
}

describe('kill -9 at random moments, then continue', () => {
  it('ends in the same merge tree as an uninterrupted run, across at least 20 kills', async () => {
    const reference = makeRepo();
    const started = performance.now();
    expect((await runCli(['merge', 'upstream'], reference.dir)).code).toBe(0);
    // Kill moments are drawn within an uninterrupted run's duration, so they land inside the work however fast it is.
    const span = Math.max(500, performance.now() - started);
    // A resumed run has less left to do than a whole one: draw within three quarters of it.
    const moment = (): number => 150 + Math.floor(random() * span * 0.75);
    const expectedTree = reference.sh('rev-parse', 'main^{tree}');

    const seed = killSeed(20261122, 'rule-resolved chain');
    const random = rng(seed);
    let kills = 0;
    let runs = 0;
    while (kills < 20 && runs < 20) {
      runs++;
      const repo = makeRepo();
      let result = await runAndKill(['merge', 'upstream'], repo.dir, moment());
      let rounds = 0;
      while (result !== 0 && rounds < 12) {
        if (result === 'killed') kills++;
        else expect.fail(`splintercat exited with ${result} after a kill (round ${rounds}, KILL_SEED=${seed})`);
        rounds++;
        result = await runAndKill(resumeArgs(repo), repo.dir, rounds > 4 ? 60_000 : moment());
      }
      expect(result, `KILL_SEED=${seed}`).toBe(0);
      expect(repo.sh('rev-parse', 'main^{tree}'), `KILL_SEED=${seed}`).toBe(expectedTree);
      expect(repo.sh('rev-list', '--parents', '-n', '1', 'main').split(' ')).toHaveLength(3);
      expect(repo.sh('status', '--porcelain', '--untracked-files=no')).toBe('');
    }
    console.info(`rule-resolved chain: ${kills} kills over ${runs} merges`);
    expect(kills).toBeGreaterThanOrEqual(20);
  });
});

/** Conflicts on the diagonal of the grid that no rule can resolve: fork writes `F<k>`, upstream `U<k>`. */
const MODEL_CONFLICTS = 4;

/** What the scripted model writes for value k. */
const mergedValue = (k: number): string => `F${k}+U${k}`;

/** One request the resolver model received, and whether its conflict was already recorded as resolved then. */
interface ModelCall {
  k: number;
  /** The first turn of a conversation (the last message is the user's prompt). */
  opening: boolean;
  /** `conflict_resolved` for this conflict was in the journal when the request arrived. */
  afterResolved: boolean;
}

/** The conflicts of the `conflict_resolved` events durably written so far, in order (a torn last line, from a kill mid-write, is skipped). */
function resolvedConflicts(repo: TestRepo): string[] {
  const path = join(repo.dir, '.git', 'splintercat', 'up', 'events.jsonl');
  if (!existsSync(path)) return [];
  const out: string[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    try {
      const event = JSON.parse(line) as { type?: string; conflict?: string };
      if (event.type === 'conflict_resolved' && event.conflict) out.push(event.conflict);
    } catch {
      // not a complete event
    }
  }
  return out;
}

/** The run's saved state: each conflict and its status. */
function savedConflicts(repo: TestRepo): Array<[string, string]> {
  const state = JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8')) as {
    conflicts: Array<{ id: string; status: string }>;
  };
  return state.conflicts.map((c) => [c.id, c.status]);
}

/**
 * A stateless resolver model: it reads the conflict's k from the prompt (the `vK = FK`
 * line of the conflict, never of the diffs' context), answers the opening turn with
 * resolve_conflict and the tool result with submit_resolution. Each call is logged with
 * whether the journal of `current()` already recorded that conflict as resolved.
 */
function valueModel(current: () => TestRepo | null, calls: ModelCall[]): (request: RecordedRequest) => ScriptedReply {
  return (request) => {
    const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
    const prompt = messages.find((m) => m.role === 'user')?.content;
    const text = typeof prompt === 'string' ? prompt : JSON.stringify(prompt);
    const k = Number(/The conflicts \(base = common ancestor\):[^]*?v(\d+) = F\1\b/.exec(text)?.[1] ?? NaN);
    if (!Number.isInteger(k))
      return {
        kind: 'error',
        status: 400,
        body: { error: { message: 'value model: no vK = FK conflict in the prompt' } },
      };
    const repo = current();
    const opening = messages.at(-1)?.role === 'user';
    calls.push({ k, opening, afterResolved: repo !== null && resolvedConflicts(repo).includes(`${k}-${k}`) });
    if (opening) {
      return {
        kind: 'tool_calls',
        calls: [
          {
            name: 'resolve_conflict',
            args: { file: 'vals.txt', conflict_num: 1, choice: 'custom', custom_text: `v${k} = ${mergedValue(k)}\n` },
          },
        ],
      };
    }
    return { kind: 'tool_calls', calls: [{ name: 'submit_resolution', args: { file: 'vals.txt' } }] };
  };
}

function makeModelRepo(server: LlmServer): TestRepo {
  const repo = chainRepo(
    MODEL_CONFLICTS,
    (k) => `F${k}`,
    (k) => `U${k}`,
  );
  configure(repo, [
    'llm:',
    '  provider: openai-compatible',
    `  base_url: ${server.baseURL}`,
    '  resolver_model: value-model',
    '  max_retries: 0',
    '  max_turns: 4',
  ]);
  return repo;
}

describe('kill -9 while conflicts go to the resolver model, then continue', () => {
  it('same final tree every time, and no model call for a conflict once its resolution is recorded', async () => {
    let current: TestRepo | null = null;
    const calls: ModelCall[] = [];
    const server = await startLlmServer({ respond: valueModel(() => current, calls) });

    const reference = makeModelRepo(server);
    current = reference;
    const started = Date.now();
    const run = await runCli(['merge', 'upstream'], reference.dir);
    // How long a whole merge takes here (startup included), so kill times span it under any load.
    const span = Date.now() - started;
    expect(run.code, run.stderr).toBe(0);
    const expectedTree = reference.sh('rev-parse', 'main^{tree}');
    // The model really resolved every conflict: one conversation (prompt, then submit) each.
    expect(calls).toEqual(
      Array.from({ length: MODEL_CONFLICTS }, (_, i) => [
        { k: i + 1, opening: true, afterResolved: false },
        { k: i + 1, opening: false, afterResolved: false },
      ]).flat(),
    );
    expect(reference.sh('show', 'main:vals.txt')).toContain(`v${MODEL_CONFLICTS} = ${mergedValue(MODEL_CONFLICTS)}\n`);
    const ids = Array.from({ length: MODEL_CONFLICTS }, (_, i) => `${i + 1}-${i + 1}`);
    expect(resolvedConflicts(reference)).toEqual(ids);

    const seed = killSeed(20261123, 'model-resolved chain');
    const random = rng(seed);
    // Half the kills at a random time within a merge's duration, half shortly after one of the next
    // model requests (so kills land inside conversations and between an answer and its record).
    const killAt = (): KillAt =>
      random() < 0.5
        ? Math.floor(span * (0.05 + 0.6 * random()))
        : {
            after: server.waitForRequests(server.requests.length + 1 + Math.floor(random() * 3)),
            ms: Math.floor(random() * 300),
          };
    let kills = 0;
    let merges = 0;
    let repeated = 0;
    const perMerge: number[] = [];
    while (kills < 20 && merges < 16) {
      merges++;
      const repo = makeModelRepo(server);
      current = repo;
      const before = calls.length;
      let repoKills = 0;
      let result = await runAndKill(['merge', 'upstream'], repo.dir, killAt());
      let rounds = 0;
      while (result !== 0 && rounds < 12) {
        if (result === 'killed') repoKills++;
        else expect.fail(`splintercat exited with ${result} after a kill (round ${rounds}, KILL_SEED=${seed})`);
        rounds++;
        result = await runAndKill(resumeArgs(repo), repo.dir, rounds > 8 ? 60_000 : killAt());
      }
      kills += repoKills;
      perMerge.push(repoKills);
      const mine = calls.slice(before);
      repeated += mine.filter((c) => c.opening).length - MODEL_CONFLICTS;
      const context = `merge ${merges}, ${repoKills} kill(s), KILL_SEED=${seed}, calls ${JSON.stringify(mine)}`;
      expect(result, context).toBe(0);
      expect(repo.sh('rev-parse', 'main^{tree}'), context).toBe(expectedTree);
      expect(repo.sh('rev-list', '--parents', '-n', '1', 'main').split(' '), context).toHaveLength(3);
      expect(repo.sh('status', '--porcelain', '--untracked-files=no'), context).toBe('');
      // A conversation cut by a kill may be held again; one whose conflict was recorded as resolved never.
      expect(
        mine.filter((c) => c.afterResolved),
        context,
      ).toEqual([]);
      expect(mine.filter((c) => c.opening).length, context).toBeLessThanOrEqual(MODEL_CONFLICTS + repoKills);
      // Every resolution recorded exactly once, in the journal and in the saved state (none lost to a kill).
      expect(resolvedConflicts(repo), context).toEqual(ids);
      expect(savedConflicts(repo), context).toEqual(ids.map((id) => [id, 'resolved']));
    }
    console.info(
      `model-resolved chain: ${kills} kills (${perMerge.join(', ')} per merge), ${calls.length} model requests, ${repeated} conversation(s) held again after a kill cut them`,
    );
    expect(kills).toBeGreaterThanOrEqual(20);
  });
});
