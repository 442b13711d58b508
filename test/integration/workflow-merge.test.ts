import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelGateway } from '../../src/agents/model-gateway.js';
import { RunStore } from '../../src/store/index.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { reopenRun } from '../../src/workflow/setup.js';
import { chainRepo, fixedPlanner, valueResolver, valuesFile } from '../fixtures/workflow/chain-repo.js';
import { chainContext, scriptedGateway, startChainRun } from '../fixtures/workflow/chain-run.js';
import type { TestRepo } from '../helpers/git-repo.js';

const gateway = (roles: Parameters<typeof scriptedGateway>[0]): ModelGateway => scriptedGateway(roles);

async function merge(repo: TestRepo, settings: Record<string, unknown>, gw: ModelGateway | null, name = 'up') {
  const { ctx, checks } = await chainContext(repo, gw, settings, name);
  const store = await RunStore.forRepo(repo.git);
  const { run, state } = startChainRun(store, repo, name);
  try {
    const outcome = await driveRun(run, state, ctx);
    return { outcome, checks, ctx, store };
  } finally {
    run.close();
  }
}

/** `splintercat continue`: reopen the run and drive it on. */
async function resume(store: RunStore, ctx: Awaited<ReturnType<typeof merge>>['ctx'], name = 'up') {
  const { run, state } = reopenRun(store, name);
  try {
    return await driveRun(
      run,
      state.status === 'running' ? state : { ...state, status: 'running', statusReason: null },
      ctx,
    );
  } finally {
    run.close();
  }
}

/** Two conflicts resolved by `answer` under optimistic, a planner that always retries all, until the budget aborts. */
async function retryAllUntilAbort(answer: (k: number) => string, maxRetries: number) {
  const repo = chainRepo(
    2,
    (k) => `fork${k}`,
    (k) => `up${k}`,
  );
  const resolver = valueResolver(answer);
  const planner = fixedPlanner({ decision: 'retry-all', reasoning: 'try again' });
  const first = await merge(
    repo,
    {
      merge: { strategy: 'optimistic', parallel: 1, max_recoveries: maxRetries },
      llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
    },
    gateway({ resolver: resolver.model, planner }),
  );
  return { repo, first };
}

describe('merge workflow on real repositories', () => {
  it('offline happy path: the rules resolve every conflict, checks pass, one two-parent merge commit lands on the branch', async () => {
    // Both sides set each value to 1; the fork adds trailing blanks: whitespace-only conflicts on the diagonal.
    const repo = chainRepo(
      3,
      () => '1  ',
      () => '1',
    );
    const before = repo.sh('rev-parse', 'main');
    const { outcome, checks } = await merge(repo, { merge: { strategy: 'per_conflict' } }, null);
    expect(outcome.kind).toBe('done');
    const head = repo.sh('rev-parse', 'main');
    expect(repo.sh('rev-list', '--parents', '-n', '1', head).split(' ').slice(1)).toEqual([
      before,
      repo.sh('rev-parse', 'upstream'),
    ]);
    expect(repo.sh('show', `${head}:vals.txt`)).toBe(valuesFile(['1  ', '1  ', '1  ']).trimEnd());
    // Baseline on both tips, then one check per conflict (per_conflict), then none repeated for the final cell.
    expect(checks.runs.length).toBeGreaterThanOrEqual(2 + 3);
    expect(outcome.state.conflicts.map((c) => [c.id, c.status, c.files[0]?.hunks[0]?.by])).toEqual([
      ['1-1', 'resolved', 'whitespace-only'],
      ['2-2', 'resolved', 'whitespace-only'],
      ['3-3', 'resolved', 'whitespace-only'],
    ]);
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
    expect(repo.sh('status', '--porcelain', '--untracked-files=no')).toBe('');
  });

  it('bisect finds the one bad resolution of 8 in at most 4 checks, blames it, re-resolves it with the failure in context', async () => {
    const repo = chainRepo(
      8,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const resolver = valueResolver((k, retry) => (k === 5 && !retry ? 'BAD' : `merged${k}`));
    const planner = fixedPlanner({ decision: 'bisect', reasoning: 'unclear which resolution broke the build' });
    const { outcome } = await merge(
      repo,
      {
        merge: { strategy: 'optimistic', parallel: 1 },
        llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
      },
      gateway({ resolver: resolver.model, planner }),
    );
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(
      valuesFile(Array.from({ length: 8 }, (_, i) => `merged${i + 1}`)).trimEnd(),
    );
    const state = outcome.state;
    // attempt 1: optimistic, one failing final check, bisect; attempt 2: the culprit re-resolved.
    expect(state.attempts[0]?.recovery?.decision).toBe('bisect');
    const bisectProbes = state.checks.filter((c) => c.attempt === 1 && c.target === 'cell').length - 1; // minus the failing batch check
    expect(bisectProbes).toBeLessThanOrEqual(4);
    expect(state.conflicts.find((c) => c.id === '5-5')?.attempts).toBe(2);
    // Cells merged on top of 5-5 are merged again; their own hunks come from the cache, not the model.
    expect(state.conflicts.map((c) => [c.id, c.attempts, c.files[0]?.hunks[0]?.rung])).toEqual([
      ['1-1', 1, 'model'],
      ['2-2', 1, 'model'],
      ['3-3', 1, 'model'],
      ['4-4', 1, 'model'],
      ['5-5', 2, 'model'],
      ['6-6', 2, 'cache'],
      ['7-7', 2, 'cache'],
      ['8-8', 2, 'cache'],
    ]);
    // After the failure only conflict 5 went back to the model.
    const firstRetry = resolver.seen.findIndex((s) => s.retry);
    expect(new Set(resolver.seen.slice(0, firstRetry).map((s) => s.k))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8]));
    expect(new Set(resolver.seen.slice(firstRetry).map((s) => s.k))).toEqual(new Set([5]));
  });

  it('stops for the person (needs_person) when no rung can resolve, and continue takes the edit by the person', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const first = await merge(repo, {}, null);
    expect(first.outcome.kind).toBe('needs_person');
    const human = first.outcome.state.handoff;
    expect(human?.files).toHaveLength(1);
    expect(human?.commands.at(-1)).toBe('splintercat continue');
    const file = human?.files[0] as string;
    expect(readFileSync(file, 'utf8')).toMatch(/<<<<<<< /);
    writeFileSync(file, valuesFile(['fork and upstream']));

    const { run, state } = reopenRun(first.store, 'up');
    try {
      const outcome = await driveRun(run, state, first.ctx);
      expect(outcome.kind).toBe('done');
    } finally {
      run.close();
    }
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['fork and upstream']).trimEnd());
  });

  it("a fork that fails its own check does not stop the merge: its outcome is the fork's baseline", async () => {
    const repo = chainRepo(
      1,
      () => 'BAD',
      () => 'up',
    );
    const { outcome } = await merge(repo, {}, null);
    // The merge goes on to the conflict, which no rung can resolve offline.
    expect(outcome.kind).toBe('needs_person');
    expect(outcome.state.checks.map((c) => [c.target, c.success])).toEqual([
      ['baseline-ours', false],
      ['baseline-theirs', true],
    ]);
    // The check prints no test names: the whole outcome is the baseline.
    expect(outcome.state.baselines.map((b) => [b.side, b.check, b.outcome.passed, b.outcome.failing])).toEqual([
      ['fork', 'build', false, null],
      ['upstream', 'build', true, []],
    ]);
  });
});

describe('recovery kinds and strategies', () => {
  it('retry-all: one wrong resolution caught by the check, every conflict of the batch re-resolved with the failure in context', async () => {
    const repo = chainRepo(
      3,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const resolver = valueResolver((k, retry) => (k === 2 && !retry ? 'BAD' : `merged${k}`));
    const planner = fixedPlanner({ decision: 'retry-all', reasoning: 'systemic problem' });
    const { outcome } = await merge(
      repo,
      {
        merge: { strategy: 'optimistic', parallel: 1 },
        llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
      },
      gateway({ resolver: resolver.model, planner }),
    );
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(outcome.state.attempts.map((a) => a.recovery?.decision ?? null)).toEqual(['retry-all', null]);
    expect(new Set(resolver.seen.filter((s) => s.retry).map((s) => s.k))).toEqual(new Set([1, 2, 3]));
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2', 'merged3']).trimEnd());
  });

  it('switch-strategy: optimistic fails, per_conflict isolates and fixes the bad resolution', async () => {
    const repo = chainRepo(
      3,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const resolver = valueResolver((k, retry) => (k === 3 && !retry ? 'BAD' : `merged${k}`));
    const planner = fixedPlanner({ decision: 'switch-strategy', new_strategy: 'per_conflict', reasoning: 'isolate' });
    const { outcome } = await merge(
      repo,
      {
        merge: { strategy: 'optimistic', parallel: 1 },
        llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
      },
      gateway({ resolver: resolver.model, planner }),
    );
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(outcome.state.strategy?.kind).toBe('per_conflict');
    expect(outcome.state.attempts[0]?.recovery?.decision).toBe('switch-strategy');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2', 'merged3']).trimEnd());
    // The switch is a strategy decision of the journal with its reason, so the report shows each strategy used.
    const strategies = readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; kind?: string; decision?: string; reasoning?: string })
      .filter((e) => e.type === 'decision' && e.kind === 'strategy');
    expect(strategies.map((e) => e.decision)).toEqual(['optimistic', 'per_conflict']);
    expect(strategies[1]?.reasoning).toMatch(
      /^after attempt 1 failed its check \(.*\), optimistic -> per_conflict: isolate$/,
    );
  });

  it('retry-specific: only the conflicts the planner names are redone', async () => {
    const repo = chainRepo(
      3,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const resolver = valueResolver((k, retry) => (k === 3 && !retry ? 'BAD' : `merged${k}`));
    const planner = fixedPlanner({
      decision: 'retry-specific',
      conflicts_to_retry: [[3, 3]],
      reasoning: 'the error is in value 3',
    });
    const { outcome } = await merge(
      repo,
      {
        merge: { strategy: 'optimistic', parallel: 1 },
        llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
      },
      gateway({ resolver: resolver.model, planner }),
    );
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(new Set(resolver.seen.filter((s) => s.retry).map((s) => s.k))).toEqual(new Set([3]));
    expect(outcome.state.conflicts.map((c) => [c.id, c.attempts])).toEqual([
      ['1-1', 1],
      ['2-2', 1],
      ['3-3', 2],
    ]);
  });

  it('a persistent failure ends in abort after merge.max_recoveries, with the grid and resolutions kept', async () => {
    const repo = chainRepo(
      2,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const fork = repo.sh('rev-parse', 'main');
    const resolver = valueResolver(() => 'BAD');
    const planner = fixedPlanner({ decision: 'retry-all', reasoning: 'try again' });
    const { outcome } = await merge(
      repo,
      {
        merge: { strategy: 'optimistic', parallel: 1, max_recoveries: 2 },
        llm: { resolver_model: 'value-resolver', planner_model: 'scripted-planner' },
      },
      gateway({ resolver: resolver.model, planner }),
    );
    // The resolutions are presented to a person to fix: the run waits for them (exit 3).
    expect(outcome.kind).toBe('needs_person');
    expect(outcome.kind === 'needs_person' && outcome.reason).toMatch(
      /^Aborted after 3 attempt\(s\): compile_error at vals\.txt:\d+: bad value/,
    );
    expect(outcome.state.attempts.map((a) => [a.number, a.recovery?.decision, a.recovery?.decidedBy])).toEqual([
      [1, 'retry-all', 'planner'],
      [2, 'retry-all', 'planner'],
      [3, 'abort', 'runner'],
      [4, undefined, undefined],
    ]);
    expect(repo.sh('rev-parse', 'main')).toBe(fork);
    expect(repo.sh('for-each-ref', '--format=%(refname)', 'refs/imerge/up/manual/2-2')).toBe(
      'refs/imerge/up/manual/2-2',
    );
  });

  it('the retry budget counts failures in a row: a check that passes between two failures starts it again', async () => {
    const repo = chainRepo(
      3,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    // Every conflict is resolved wrong first and right on its retry: three failures, never two in a row.
    const resolver = valueResolver((k, retry) => (retry ? `merged${k}` : 'BAD'));
    const { outcome } = await merge(
      repo,
      {
        merge: { strategy: 'per_conflict', parallel: 1, max_recoveries: 1 },
        llm: { resolver_model: 'value-resolver' },
      },
      gateway({ resolver: resolver.model }),
    );
    expect(outcome.kind).toBe('done');
    const failed = outcome.state.attempts.filter((a) => a.failureSummary !== null);
    expect(failed.length).toBe(3);
    expect(outcome.state.attempts.some((a) => a.recovery?.decision === 'abort')).toBe(false);
  });

  it('continue after an abort for max_recoveries: the blamed resolutions are presented as they are, the person fixes them, the run finishes', async () => {
    const { repo, first } = await retryAllUntilAbort(() => 'BAD', 1);
    expect(first.outcome.kind).toBe('needs_person');
    const reason = first.outcome.kind === 'needs_person' ? first.outcome.reason : '';
    const human = first.outcome.state.handoff;
    expect(human?.conflicts.map((c) => c.conflict)).toEqual(['1-1', '2-2']);
    for (const c of human?.conflicts ?? []) {
      // Named in the abort message, presented with the current resolution (no markers), with the failure.
      expect(reason).toContain(c.worktree);
      expect(c.failure?.check).toBe('build');
      expect(c.failure?.summary).toMatch(/compile_error at vals\.txt:\d+: bad value/);
      const file = join(c.worktree, 'vals.txt');
      const text = readFileSync(file, 'utf8');
      expect(text).toContain('= BAD');
      expect(text).not.toMatch(/<<<<<<< /);
    }
    expect(first.outcome.kind === 'needs_person' && first.outcome.resume).toMatch(/continue/);

    // `continue` with nothing fixed: the same tree is refused, and said why.
    const again = await resume(first.store, first.ctx);
    expect(again.kind).toBe('needs_person');
    expect(again.state.handoff?.conflicts.flatMap((c) => c.refused).join('\n')).toMatch(
      /still holds the resolution check 'build' failed on/,
    );

    for (const c of again.state.handoff?.conflicts ?? []) {
      const file = join(c.worktree, 'vals.txt');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/v(\d+) = BAD/g, 'v$1 = merged$1'));
    }
    const done = await resume(first.store, first.ctx);
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2']).trimEnd());
    expect(done.state.conflicts.map((c) => [c.id, c.files[0]?.hunks.map((h) => h.rung)])).toEqual([
      ['1-1', ['person']],
      ['2-2', ['person']],
    ]);
  });

  it('several resolutions presented to amend: fixing the one at fault is enough, the others may stay as they are', async () => {
    // 1-1 is right, 2-2 wrong: the check fails on the two together, and the abort presents both.
    const { repo, first } = await retryAllUntilAbort((k) => (k === 1 ? 'merged1' : 'BAD'), 0);
    expect(first.outcome.state.handoff?.conflicts.map((c) => c.conflict)).toEqual(['1-1', '2-2']);
    const at = (id: string): string =>
      join(first.outcome.state.handoff?.conflicts.find((c) => c.conflict === id)?.worktree ?? '', 'vals.txt');
    writeFileSync(at('2-2'), readFileSync(at('2-2'), 'utf8').replace('v2 = BAD', 'v2 = merged2'));

    const done = await resume(first.store, first.ctx);
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2']).trimEnd());
  });

  it.each(['per_conflict', 'batch', 'optimistic'] as const)(
    'strategy %s: checks after 1, N or all conflicts',
    async (strategy) => {
      const repo = chainRepo(
        4,
        () => '1  ',
        () => '1',
      );
      const { outcome } = await merge(repo, { merge: { strategy, default_batch_size: 2 } }, null);
      expect(outcome.kind).toBe('done');
      const cellChecks = outcome.state.checks
        .filter((c) => c.target === 'cell')
        .map((c) => `${c.cell?.i1}-${c.cell?.i2}`);
      expect(cellChecks).toEqual(
        { per_conflict: ['1-1', '2-2', '3-3', '4-4'], batch: ['2-2', '4-4'], optimistic: ['4-4'] }[strategy],
      );
    },
  );
});
