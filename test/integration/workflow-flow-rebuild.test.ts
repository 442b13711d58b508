import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rebuildRun } from '../../src/store/doctor.js';
import { RunStore } from '../../src/store/index.js';
import { loadRunState } from '../../src/store/run-persistence.js';
import type { FlowData } from '../../src/store/run-state.js';
import { checkProgress } from '../../src/store/flow-checks.js';
import { personChoicesOf } from '../../src/store/flow-choices.js';
import { recoveryMemory } from '../../src/store/flow-recovery.js';
import { tipFacts } from '../../src/store/flow-tips.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { reopenRun } from '../../src/workflow/setup.js';
import { chainRepo, fixedPlanner, valueResolver, valuesFile } from '../fixtures/workflow/chain-repo.js';
import { chainContext, scriptedGateway, startChainRun } from '../fixtures/workflow/chain-run.js';
import type { TestRepo } from '../helpers/git-repo.js';

async function merge(repo: TestRepo, settings: Record<string, unknown>, answer: (k: number, retry: boolean) => string) {
  const resolver = valueResolver(answer);
  const planner = fixedPlanner({ decision: 'retry-all', reasoning: 'try again' });
  const gw = scriptedGateway({ resolver: resolver.model, planner });
  const llm = { resolver_model: 'value-resolver', planner_model: 'scripted-planner' };
  const { ctx } = await chainContext(repo, gw, { ...settings, llm });
  const store = await RunStore.forRepo(repo.git);
  const { run, state } = startChainRun(store, repo);
  try {
    return { outcome: await driveRun(run, state, ctx), ctx, store };
  } finally {
    run.close();
  }
}

async function resume(store: RunStore, ctx: Awaited<ReturnType<typeof merge>>['ctx']) {
  const { run, state } = reopenRun(store, 'up');
  try {
    return await driveRun(run, { ...state, status: 'running', statusReason: null }, ctx);
  } finally {
    run.close();
  }
}

/** state.json and its backup gone, then `doctor --rebuild`: the flow data it restored. */
async function rebuiltData(repo: TestRepo, store: RunStore): Promise<FlowData> {
  const dir = store.paths('up').dir;
  rmSync(join(dir, 'state.json'));
  rmSync(join(dir, 'state.json.bak'), { force: true });
  const rebuilt = await rebuildRun(dir, repo.git);
  expect(rebuilt.ok, rebuilt.hint ?? '').toBe(true);
  expect(rebuilt.lost.join('\n')).not.toMatch(/choices/);
  return loadRunState(store.paths('up'))?.data as FlowData;
}

/**
 * The sub-records as their modules read them. Of the last failing check the journal keeps the
 * record, not where it ran nor the blame's wording (the summary then reads the log without them),
 * and its command only where the run stored its configuration; when the planner last predicted
 * again is not journalled either.
 */
function comparable(data: FlowData) {
  const state = { data };
  const progress = checkProgress(state);
  const last = progress.lastCheck;
  const lastCheck = last && { ...last, cwd: undefined, blamed: undefined, judgement: undefined, command: '' };
  return {
    checks: { ...progress, lastCheck },
    tips: tipFacts(state),
    recovery: { ...recoveryMemory(state), plannedAtChecks: 0 },
    choices: personChoicesOf(state),
  };
}

/** The flat `data` the previous version wrote: every sub-record's fields side by side. */
function flatten(data: FlowData): Record<string, unknown> {
  return { ...data.checks, ...data.tips, ...data.recovery, ...data.choices };
}

describe("doctor --rebuild restores the recovery loop's data from the journal", () => {
  it('after an abort for max_recoveries: the same checks progress and retries, and continue ends the same', async () => {
    const repo = chainRepo(
      2,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const first = await merge(repo, { merge: { strategy: 'optimistic', parallel: 1, max_recoveries: 1 } }, () => 'BAD');
    expect(first.outcome.kind).toBe('needs_person');
    const paths = first.store.paths('up');
    const before = loadRunState(paths)!;
    expect(before.data.checks?.lastCheck?.name).toBe('build');
    expect(Object.keys(before.data.recovery?.retryContext ?? {})).toEqual(['1-1', '2-2']);

    // A state.json of the previous version (the flat `data`) reads into the same sub-records.
    const old = JSON.parse(readFileSync(paths.state, 'utf8')) as { data: unknown };
    writeFileSync(paths.state, JSON.stringify({ ...old, data: flatten(before.data) }));
    expect(loadRunState(paths)?.data).toEqual(before.data);

    const data = await rebuiltData(repo, first.store);
    expect(comparable(data)).toEqual(comparable(before.data));
    // The attempt under way too: continue takes the person's fix in it, not a resolution of an earlier one.
    expect(loadRunState(paths)?.currentAttempt).toBe(before.currentAttempt);
    // The journal's check record of the failure, with what it blamed on the resolutions.
    expect(data.checks?.lastCheck).toMatchObject({ cell: { i1: 2, i2: 2 }, name: 'build', success: false });
    expect(recoveryMemory({ data }).plannedAtChecks).toBe(before.checks.filter((c) => c.target === 'cell').length);

    // The person fixes what the abort presented; continue finishes as it does without the rebuild.
    const again = await resume(first.store, first.ctx);
    expect(again.kind === 'failed' ? again.reason : again.kind).toBe('needs_person');
    for (const c of again.state.handoff?.conflicts ?? []) {
      const file = join(c.worktree, 'vals.txt');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/v(\d+) = BAD/g, 'v$1 = merged$1'));
    }
    const done = await resume(first.store, first.ctx);
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2']).trimEnd());
  });

  it('after a finished run with failures and retries between passing checks: the same sub-records', async () => {
    const repo = chainRepo(
      3,
      (k) => `fork${k}`,
      (k) => `up${k}`,
    );
    const first = await merge(
      repo,
      { merge: { strategy: 'per_conflict', parallel: 1, max_recoveries: 1 } },
      (k, retry) => (retry ? `merged${k}` : 'BAD'),
    );
    expect(first.outcome.kind).toBe('done');
    const before = loadRunState(first.store.paths('up'))!;
    expect(before.data.checks?.validated).toEqual(['1-1', '2-2', '3-3']);
    expect(recoveryMemory(before).retryBase).toBeGreaterThan(0);
    const data = await rebuiltData(repo, first.store);
    expect(comparable(data)).toEqual(comparable(before.data));
    // Every attempt, the last one closed when the merge was finalized.
    const attempts = (s: typeof before) => s.attempts.map((a) => ({ ...a, checks: a.checks.map((c) => c.name) }));
    expect(before.attempts.every((a) => a.finishedAt !== null)).toBe(true);
    expect(attempts(loadRunState(first.store.paths('up'))!)).toEqual(attempts(before));
  });
});
