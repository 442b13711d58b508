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

/** A run state as an earlier version wrote it: the person's words were human, needs_human and user. */
function earlierState(): Record<string, unknown> {
  const { handoff: _none, ...today } = initialRunState({
    name: 'up',
    source: { ref: 'upstream/main', oid: 'a'.repeat(40) },
    target: { branch: 'stable', originalOid: 'b'.repeat(40) },
    workdir: '/w',
    phase: 'resolve',
    now: new Date('2026-01-01T00:00:00.000Z'),
  });
  const cell = { i1: 1, i2: 1 };
  return {
    ...today,
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
