import { describe, expect, it } from 'vitest';
import { parseJsonText } from './json-file.js';
import { parseRunEvent } from './run-events.js';
import { initialRunState, runStateFile } from './run-state.js';

const handoff = {
  reason: 'edit a.txt',
  files: ['/w/a.txt'],
  commands: ['splintercat continue'],
  where: '/w',
  conflicts: [],
};

const upstream = { ref: 'upstream/main', oid: 'a'.repeat(40) };
const fork = { branch: 'stable', originalOid: 'b'.repeat(40) };

/**
 * A run state as an earlier version wrote it: the person's words were human, needs_human and
 * user, the fork was stored as target and upstream as source.
 */
function earlierState(): Record<string, unknown> {
  const {
    handoff: _none,
    fork: _fork,
    upstream: _upstream,
    ...today
  } = initialRunState({
    name: 'up',
    upstream,
    fork,
    workdir: '/w',
    phase: 'resolve',
    now: new Date('2026-01-01T00:00:00.000Z'),
  });
  const cell = { i1: 1, i2: 1 };
  return {
    ...today,
    source: upstream,
    target: fork,
    status: 'needs_human',
    human: handoff,
    strategy: {
      kind: 'optimistic',
      batchSize: null,
      decidedBy: 'user',
      reasoning: 'merge.strategy is set',
      decidedAt: '2026-01-01T00:00:00.000Z',
    },
    conflicts: [
      {
        id: '1-1',
        cell,
        status: 'needs_human',
        files: [{ path: 'a.txt', kind: 'content', hunks: [{ index: 1, status: 'needs_human', rung: null, by: null }] }],
        resolutionTree: null,
        resolutionCommit: null,
        attempts: 1,
      },
    ],
  };
}

describe("a stored run in an earlier version's words", () => {
  it('reads the hand-off under human, the status needs_human and the decider user in today’s words', () => {
    const read = parseJsonText(JSON.stringify(earlierState()), runStateFile);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.status).toBe('needs_person');
    expect(read.value.handoff).toMatchObject(handoff);
    expect(read.value).not.toHaveProperty('human');
    expect(read.value.strategy?.decidedBy).toBe('person');
    expect(read.value.conflicts[0]?.status).toBe('needs_person');
    expect(read.value.conflicts[0]?.files[0]?.hunks[0]?.status).toBe('needs_person');
  });

  it('reads the fork stored as target and upstream as source, and writes today’s keys', () => {
    const read = parseJsonText(JSON.stringify(earlierState()), runStateFile);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.value.fork).toEqual(fork);
    expect(read.value.upstream).toEqual(upstream);
    expect(read.value).not.toHaveProperty('target');
    expect(read.value).not.toHaveProperty('source');
    const written = JSON.parse(JSON.stringify(read.value)) as Record<string, unknown>;
    expect(Object.keys(written)).toEqual(expect.arrayContaining(['fork', 'upstream']));
    expect(written).not.toHaveProperty('target');
  });

  it('reads today’s fork and upstream as they are', () => {
    const today = initialRunState({ name: 'up', upstream, fork, workdir: '/w', phase: 'resolve', now: new Date(0) });
    const read = parseJsonText(JSON.stringify(today), runStateFile);
    expect(read.ok && read.value).toMatchObject({ fork, upstream });
  });

  it('reads a run_started event naming the fork target and upstream source as today’s', () => {
    const started = {
      seq: 1,
      ts: '2026-01-01T00:00:00.000Z',
      type: 'run_started',
      name: 'up',
      workdir: '/w',
      goal: 'merge',
      phase: 'initialize',
      config: null,
    };
    const read = parseRunEvent({ ...started, source: upstream, target: fork });
    expect(read).toMatchObject({ type: 'run_started', fork, upstream });
    expect(read).not.toHaveProperty('target');
    expect(read).not.toHaveProperty('source');
    expect(parseRunEvent({ ...started, upstream, fork })).toMatchObject({ fork, upstream });
  });

  it('reads the journal event human_needed and the outcome needs_human as today’s', () => {
    const base = { seq: 1, ts: '2026-01-01T00:00:00.000Z' };
    expect(parseRunEvent({ ...base, type: 'human_needed', reason: 'r', files: [], commands: [] })).toMatchObject({
      type: 'person_needed',
    });
    expect(
      parseRunEvent({ ...base, type: 'run_outcome', outcome: 'needs_human', node: 'resolve', reason: null }),
    ).toMatchObject({ outcome: 'needs_person' });
    expect(parseRunEvent({ ...base, type: 'status_changed', status: 'needs_human', reason: null })).toMatchObject({
      status: 'needs_person',
    });
  });
});
