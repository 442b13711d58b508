import { describe, expect, it } from 'vitest';
import { parseRunEvent, runEventSchema } from './run-events.js';
import { cellId } from '../imerge/cell.js';
import { initialRunState, runStateSchema, RUN_STATE_VERSION } from './run-state.js';

const now = new Date('2026-01-01T00:00:00.000Z');
const fresh = () =>
  initialRunState({
    name: 'up',
    upstream: { ref: 'upstream/main', oid: 'a'.repeat(40) },
    fork: { branch: 'stable', originalOid: 'b'.repeat(40) },
    workdir: '/w',
    phase: 'initialize',
    now,
  });

describe('run state schema', () => {
  it('a fresh state is valid, JSON round-trips unchanged, and has version 1', () => {
    const s = fresh();
    expect(s.version).toBe(RUN_STATE_VERSION);
    expect(runStateSchema.parse(JSON.parse(JSON.stringify(s)))).toEqual(s);
    expect(s).toMatchObject({
      status: 'running',
      step: 0,
      goal: 'merge',
      startedAt: now.toISOString(),
      conflicts: [],
      data: {},
    });
  });

  it('rejects what a corrupted or hand-edited file could contain', () => {
    const s = fresh();
    const bad = [
      { ...s, status: 'weird' },
      { ...s, upstream: { ref: 'x', oid: 'short' } },
      { ...s, step: -1 },
      { ...s, startedAt: 'yesterday' },
      {
        ...s,
        strategy: { kind: 'yolo', batchSize: null, decidedBy: 'planner', reasoning: '', decidedAt: s.startedAt },
      },
      { ...s, data: { batch: [() => 1] } },
    ];
    for (const b of bad) expect(runStateSchema.safeParse(b).success, JSON.stringify(b).slice(0, 80)).toBe(false);
  });

  it('fills defaults for optional parts of nested records', () => {
    const s = fresh();
    const parsed = runStateSchema.parse({
      ...s,
      pendingRecovery: { decision: 'retry-specific', reasoning: 'r', decidedBy: 'planner', conflicts: ['1-2'] },
    });
    expect(parsed.pendingRecovery).toEqual({
      decision: 'retry-specific',
      reasoning: 'r',
      decidedBy: 'planner',
      conflicts: ['1-2'],
      newStrategy: null,
      batchSize: null,
    });
    expect(cellId({ i1: 3, i2: 14 })).toBe('3-14');
  });
});

describe('flow data', () => {
  it('validates the recovery loop state in data and drops keys it does not know', () => {
    const s = fresh();
    const lastCheck = {
      cell: { i1: 1, i2: 2 },
      name: 'build',
      success: false,
      logFile: '/l',
      command: 'make',
      exitCode: 2,
      timedOut: false,
      durationMs: 5,
    };
    const data = {
      batch: ['1-2'],
      validated: [],
      lastCheck,
      retryContext: { '1-2': { error_type: 'compile_error', location: 'a.c:1', root_cause: 'x', excerpt: '' } },
      finalValidated: false,
    };
    // The flat shape earlier versions wrote is read into the sub-records, which read back as they are.
    const nested = {
      checks: { batch: ['1-2'], validated: [], lastCheck, finalValidated: false },
      recovery: { retryContext: data.retryContext },
    };
    expect(runStateSchema.parse({ ...s, data }).data).toEqual(nested);
    expect(runStateSchema.parse({ ...s, data: nested }).data).toEqual(nested);
    // A key an older or newer splintercat wrote is dropped on reading, never kept as free-form data.
    expect(runStateSchema.parse({ ...s, data: { ...data, i: 4 } }).data).toEqual(nested);
    for (const bad of [
      { batch: '1-2' },
      { lastCheck: { ...lastCheck, cell: null } },
      { retryContext: { '1-2': { error_type: 'oops' } } },
      { finalValidated: 'yes' },
      { checks: { finalValidated: 'yes' } },
    ]) {
      expect(runStateSchema.safeParse({ ...s, data: bad }).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('reads every field of the flat shape of earlier versions into the sub-record that owns it', () => {
    const s = fresh();
    const flat = {
      batch: ['1-1'],
      validated: ['2-2'],
      fastOnly: [{ conflict: '3-3', checks: ['unit'] }],
      finalValidated: true,
      tipConflicts: [['a.c']],
      tipsAlongside: ['build'],
      retryBase: 2,
      plannedAtChecks: 4,
      fileChoices: { 'x.c modify/delete a:b:c': 'keep' as const },
      handoffChoices: { '1-1': [{ path: 'x.c', key: 'x.c modify/delete a:b:c' }] },
    };
    expect(runStateSchema.parse({ ...s, data: flat }).data).toEqual({
      checks: { batch: ['1-1'], validated: ['2-2'], fastOnly: flat.fastOnly, finalValidated: true },
      tips: { tipConflicts: [['a.c']], tipsAlongside: ['build'] },
      recovery: { retryBase: 2, plannedAtChecks: 4 },
      choices: { fileChoices: flat.fileChoices, handoffChoices: flat.handoffChoices },
    });
  });
});

describe('journal events', () => {
  it('parses each kind and rejects unknown types or missing fields', () => {
    const base = { seq: 1, ts: now.toISOString() };
    expect(parseRunEvent({ ...base, type: 'node_entered', node: 'a', step: 0 })).toMatchObject({
      type: 'node_entered',
    });
    expect(
      parseRunEvent({
        ...base,
        type: 'model_usage',
        role: 'resolver',
        modelId: 'x',
        conflict: '1-1',
        inputTokens: 1,
        outputTokens: 2,
        costUsd: 0,
        costSource: 'unknown',
      }),
    ).toBeDefined();
    expect(parseRunEvent({ ...base, type: 'effect', key: 'k', value: { nested: [1, 'two', null] } })).toBeDefined();
    expect(parseRunEvent({ ...base, type: 'nope' })).toBeUndefined();
    expect(parseRunEvent({ ...base, type: 'node_entered', node: 'a' })).toBeUndefined();
    expect(parseRunEvent({ type: 'node_entered', node: 'a', step: 0 })).toBeUndefined();
    const types = runEventSchema.options.map((o) => o.shape.type.value);
    expect(types).toEqual(
      expect.arrayContaining([
        'decision',
        'tool_call',
        'check_started',
        'check_finished',
        'model_usage',
        'conflict_resolved',
        'node_entered',
        'node_finished',
      ]),
    );
  });
});
