import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { NeedsPersonError } from '../../src/errors/index.js';
import { RunStore } from '../../src/store/run-store.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import type { Ctx, MachineNode, NodeName, Result } from '../../src/workflow/nodes/common.js';
import type { WorkflowContext } from '../../src/workflow/ports.js';
import { initialRunState } from '../../src/store/run-state.js';
import { openRun } from '../../src/store/run-persistence.js';
import { nullLogger } from '../../src/log/logger.js';

const clock = { now: () => new Date('2026-01-01T00:00:00.000Z') };
// Three of the merge machine's nodes stand in for any: a, b and c, in the order a run visits them.
const NODE = { a: 'initialize', b: 'plan_strategy', c: 'resolve_conflicts' } as const satisfies Record<
  string,
  NodeName
>;
type N = keyof typeof NODE;
const short = (node: string): string => Object.entries(NODE).find(([, r]) => r === node)?.[0] ?? node;
type Nodes = Record<N, MachineNode>;

/** The machine's nodes: a, b and c under their real names, every other node one that must not run. */
function machine(nodes: Nodes): Record<NodeName, MachineNode> {
  const unused: MachineNode = async () => {
    throw new Error('not a node of this test');
  };
  const all: Record<NodeName, MachineNode> = {
    initialize: unused,
    plan_strategy: unused,
    resolve_conflicts: unused,
    check: unused,
    summarize_failure: unused,
    plan_recovery: unused,
    execute_recovery: unused,
    finalize: unused,
  };
  for (const name of Object.keys(NODE) as N[]) {
    const node = nodes[name] as MachineNode | undefined;
    if (node) all[NODE[name]] = node;
    else delete (all as Partial<Record<NodeName, MachineNode>>)[NODE[name]];
  }
  return all;
}

const callsOf = (ctx: Ctx): string[] => (ctx as unknown as { calls: string[] }).calls;

function setup() {
  const store = new RunStore(join(tempDir(), 'splintercat'), { clock });
  const paths = store.ensure('m');
  const opened = openRun(store, 'm', clock);
  if (!opened.ok) throw new Error('expected to open');
  const { journal, persistence } = opened.run;
  const initial = initialRunState({
    name: 'm',
    upstream: { ref: 'up', oid: 'a'.repeat(40) },
    fork: { branch: 'main', originalOid: 'b'.repeat(40) },
    workdir: '/w',
    phase: NODE.a,
    now: clock.now(),
  });
  const calls: string[] = [];
  // The nodes here need no git, engine or model: the context holds only what the machine reads.
  const ctx = { calls, log: nullLogger, clock } as unknown as WorkflowContext;
  const run = (nodes: Nodes, options: { signal?: AbortSignal; maxSteps?: number } = {}) =>
    driveRun(opened.run, initial, ctx, { nodes: machine(nodes), ...options });
  return { paths, journal, persistence, calls, run };
}

const step =
  (name: string, next: N | 'end'): MachineNode =>
  async (s, ctx) => {
    callsOf(ctx).push(name);
    // Each node leaves its mark in the flow data, a list the real nodes keep too.
    return {
      next: next === 'end' ? next : NODE[next],
      state: {
        ...s,
        data: { ...s.data, checks: { validated: [...(s.data.checks?.validated ?? []), `${name}@${ctx.step}`] } },
      },
    };
  };

describe('openRun', () => {
  it('holds the lock while open and releases it on close', () => {
    const store = new RunStore(join(tempDir(), 'splintercat'), { clock });
    const opened = openRun(store, 'm', clock);
    if (!opened.ok) throw new Error('expected to open');
    const again = openRun(new RunStore(store.root, { pid: process.ppid }), 'm', clock);
    expect(again).toMatchObject({ ok: false, holder: { pid: process.pid } });
    expect(opened.run.persistence.load()).toBeNull();
    opened.run.journal.append({ type: 'node_entered', node: 'a', step: 0 });
    opened.run.close();
    expect(store.lockStatus('m').state).toBe('free');
  });
});

describe('machine runner', () => {
  it('runs to the end, persists after every node and journals node events', async () => {
    const t = setup();
    const seen: unknown[] = [];
    const nodes: Nodes = {
      a: async (s, ctx) => {
        seen.push(t.persistence.load()?.phase);
        return step('a', 'b')(s, ctx);
      },
      b: async (s, ctx) => {
        // The previous node's result is on disk before this node starts.
        seen.push(t.persistence.load()?.data);
        return step('b', 'c')(s, ctx);
      },
      c: step('c', 'end'),
    };
    const outcome = await t.run(nodes);
    expect(outcome.kind).toBe('done');
    expect(seen).toEqual([NODE.a, { checks: { validated: ['a@0'] } }]);
    expect(t.calls).toEqual(['a', 'b', 'c']);
    const saved = t.persistence.load();
    expect(saved).toMatchObject({
      phase: 'end',
      step: 3,
      status: 'done',
      data: { checks: { validated: ['a@0', 'b@1', 'c@2'] } },
    });
    const types = t.journal
      .read()
      .entries.map((e) =>
        e.type === 'node_entered' ? `>${short(e.node)}` : e.type === 'node_finished' ? `<${short(e.node)}` : e.type,
      );
    expect(types).toEqual(['>a', '<a', '>b', '<b', '>c', '<c', 'run_outcome']);
    // Resuming a finished run does nothing.
    expect((await t.run(nodes)).kind).toBe('done');
    expect(t.calls).toHaveLength(3);
  });

  it('stops at the next safe point on abort and resumes at the persisted node', async () => {
    const t = setup();
    const controller = new AbortController();
    const nodes: Nodes = {
      a: async (s, ctx) => {
        controller.abort();
        return step('a', 'b')(s, ctx);
      },
      b: step('b', 'c'),
      c: step('c', 'end'),
    };
    const stopped = await t.run(nodes, { signal: controller.signal });
    expect(stopped).toMatchObject({ kind: 'stopped', resumeAt: NODE.b, resume: 'splintercat continue --name m' });
    expect(t.persistence.load()).toMatchObject({ phase: NODE.b, status: 'stopped', statusReason: 'interrupted' });
    expect(t.calls).toEqual(['a']);
    const done = await t.run(nodes);
    expect(done.kind).toBe('done');
    expect(t.calls).toEqual(['a', 'b', 'c']);
  });

  it('a node that aborts mid-way is re-run on resume', async () => {
    const t = setup();
    const controller = new AbortController();
    let first = true;
    const nodes: Nodes = {
      a: step('a', 'b'),
      b: async (s, ctx) => {
        if (first) {
          first = false;
          controller.abort();
          ctx.signal.throwIfAborted();
        }
        return step('b', 'c')(s, ctx);
      },
      c: step('c', 'end'),
    };
    expect(await t.run(nodes, { signal: controller.signal })).toMatchObject({ kind: 'stopped', resumeAt: NODE.b });
    expect((await t.run(nodes)).kind).toBe('done');
    expect(t.calls).toEqual(['a', 'b', 'c']);
  });

  it('needs_person halts (by result or by NeedsPersonError) and continue resumes there', async () => {
    const t = setup();
    let human = 0;
    const nodes: Nodes = {
      a: async (s): Promise<Result> => {
        human++;
        if (human === 1) return { halt: 'needs_person', reason: 'edit x.c', state: s };
        return { next: NODE.b, state: s };
      },
      b: async (s) => {
        human++;
        if (human === 3) throw new NeedsPersonError('hunk_unresolved', { what: 'resolve y.c by hand' });
        return { next: NODE.c, state: s };
      },
      c: step('c', 'end'),
    };
    expect(await t.run(nodes)).toMatchObject({ kind: 'needs_person', resumeAt: NODE.a, reason: 'edit x.c' });
    expect(t.persistence.load()).toMatchObject({ status: 'needs_person', phase: NODE.a, statusReason: 'edit x.c' });
    expect(await t.run(nodes)).toMatchObject({ kind: 'needs_person', resumeAt: NODE.b, reason: 'resolve y.c by hand' });
    expect((await t.run(nodes)).kind).toBe('done');
  });

  it('a thrown error fails retryably at its node; a failed halt to end is final', async () => {
    const t = setup();
    let boom = true;
    const nodes: Nodes = {
      a: async (s) => {
        if (boom) {
          boom = false;
          throw new Error('disk full');
        }
        return { next: NODE.b, state: s };
      },
      b: async (s) => ({ halt: 'failed', reason: 'max retries reached', next: 'end', state: s }),
      c: step('c', 'end'),
    };
    expect(await t.run(nodes)).toMatchObject({ kind: 'failed', at: NODE.a, reason: 'disk full', retryable: true });
    expect(await t.run(nodes)).toMatchObject({
      kind: 'failed',
      at: 'end',
      reason: 'max retries reached',
      retryable: false,
      resume: null,
    });
    expect(await t.run(nodes)).toMatchObject({ kind: 'failed', at: 'end', retryable: false });
    expect(t.persistence.load()).toMatchObject({ status: 'failed', phase: 'end' });
  });

  it('maxSteps stops a loop', async () => {
    const t = setup();
    const nodes: Nodes = { a: step('a', 'b'), b: step('b', 'a'), c: step('c', 'end') };
    const outcome = await t.run(nodes, { maxSteps: 7 });
    expect(outcome).toMatchObject({ kind: 'failed', retryable: false });
    expect(outcome.kind === 'failed' && outcome.reason).toContain('looping');
    expect(t.calls).toHaveLength(7);
  });

  it('ctx.once runs a side effect once and replays its journalled value', async () => {
    const t = setup();
    let real = 0;
    let crash = true;
    const nodes: Nodes = {
      a: async (s, ctx) => {
        const v = await ctx.once('model-call-1', async () => `answer ${++real}`);
        if (crash) {
          crash = false;
          throw new Error('crash after the call');
        }
        return { next: 'end', state: { ...s, data: { checks: { validated: [v] } } } };
      },
      b: step('b', 'end'),
      c: step('c', 'end'),
    };
    expect((await t.run(nodes)).kind).toBe('failed');
    expect((await t.run(nodes)).kind).toBe('done');
    expect(real).toBe(1);
    expect(t.persistence.load()?.data).toEqual({ checks: { validated: ['answer 1'] } });
  });

  it('ctx.once started in one node and asked again in the next runs once; a failed run is not recorded', async () => {
    const t = setup();
    let real = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const nodes: Nodes = {
      a: async (s, ctx) => {
        // Started and not awaited: the next node asks for the same key while it still runs.
        void ctx.once('tip-check', async () => {
          await gate;
          return `result ${++real}`;
        });
        await ctx
          .once('flaky', async () => {
            throw new Error('runner unreachable');
          })
          .catch(() => undefined);
        return { next: NODE.b, state: s };
      },
      b: async (s, ctx) => {
        const waiting = ctx.once('tip-check', async () => `second run ${++real}`);
        release();
        const flaky = await ctx.once('flaky', async () => 'again');
        return { next: 'end', state: { ...s, data: { checks: { validated: [await waiting, flaky] } } } };
      },
      c: step('c', 'end'),
    };
    expect((await t.run(nodes)).kind).toBe('done');
    expect(real).toBe(1);
    expect(t.persistence.load()?.data).toEqual({ checks: { validated: ['result 1', 'again'] } });
    const effects = t.journal.read().entries.filter((e) => e.type === 'effect');
    expect(effects.map((e) => (e.type === 'effect' ? [e.key, e.value] : null))).toEqual(
      expect.arrayContaining([
        ['tip-check', 'result 1'],
        ['flaky', 'again'],
      ]),
    );
    expect(effects).toHaveLength(2);
  });

  it('ctx.aside is aborted when the drive ends, and not before', async () => {
    const t = setup();
    const seen: Array<{ node: string; aborted: boolean }> = [];
    let aside: AbortSignal | undefined;
    const nodes: Nodes = {
      a: async (s, ctx) => {
        aside = ctx.aside;
        seen.push({ node: 'a', aborted: ctx.aside.aborted });
        return { next: NODE.b, state: s };
      },
      b: async (s, ctx) => {
        seen.push({ node: 'b', aborted: ctx.aside.aborted || ctx.aside !== aside });
        return { halt: 'needs_person', reason: 'a person resolves it', next: NODE.c, state: s };
      },
      c: step('c', 'end'),
    };
    expect((await t.run(nodes)).kind).toBe('needs_person');
    expect(seen).toEqual([
      { node: 'a', aborted: false },
      { node: 'b', aborted: false },
    ]);
    expect(aside?.aborted).toBe(true);
  });

  it('refuses a persisted node it does not know, with an actionable error', async () => {
    const t = setup();
    const partial = {
      a: step('a', 'b'),
      b: async () => {
        throw new Error('x');
      },
    } as unknown as Nodes;
    expect((await t.run(partial)).kind).toBe('failed');
    // 'b' is the persisted position; a machine without 'b' cannot continue it.
    const onlyA = { a: step('a', 'end') } as unknown as Nodes;
    await expect(t.run(onlyA)).rejects.toMatchObject({ code: 'machine_unknown_node' });
  });
});
