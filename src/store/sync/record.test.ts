import { describe, expect, it } from 'vitest';
import { initialRunState } from '../run-state.js';
import { canonicalJson, preferredRecord, recordId, recordPath, type SyncRecord } from './record.js';
import { runRecords } from './run-records.js';

describe('shared records', () => {
  it('canonical JSON sorts keys at every level, so equal facts get equal ids', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}',
    );
    expect(recordId('cell', { cell: '1-1', commit: 'x' })).toBe(recordId('cell', { commit: 'x', cell: '1-1' }));
    expect(recordId('cell', { cell: '1-1', commit: 'x' })).not.toBe(recordId('check', { cell: '1-1', commit: 'x' }));
    const id = recordId('cell', { cell: '1-1', commit: 'x' });
    expect(recordPath({ kind: 'cell', id })).toBe(`cell/${id.slice(0, 2)}/${id}.json`);
  });

  it('of one fact stored twice, the earlier is kept, then the smaller text, whichever order they meet in', () => {
    const base: SyncRecord = {
      kind: 'cell',
      id: 'a'.repeat(64),
      key: {},
      body: {},
      by: 'm1',
      at: '2024-01-02T00:00:00Z',
    };
    const earlier = { ...base, by: 'm2', at: '2024-01-01T00:00:00Z' };
    expect(preferredRecord(base, earlier)).toBe(earlier);
    expect(preferredRecord(earlier, base)).toBe(earlier);
    const other = { ...base, by: 'm0' };
    expect(preferredRecord(base, other)).toBe(other);
    expect(preferredRecord(other, base)).toBe(other);
  });

  it("a run state's resolutions, checks and accepted failures become records, with the cells given", () => {
    const state = initialRunState({
      name: 'up',
      upstream: { ref: 'upstream', oid: '1'.repeat(40) },
      fork: { branch: 'main', originalOid: '2'.repeat(40) },
      workdir: '/r',
      phase: 'initialize',
      now: new Date('2024-01-01T00:00:00Z'),
    });
    state.conflicts.push({
      id: '1-1',
      cell: { i1: 1, i2: 1 },
      files: [
        {
          path: 'a',
          kind: 'content',
          hunks: [{ index: 1, status: 'resolved', rung: 'person', by: 'person', cacheKey: null }],
        },
      ],
      status: 'resolved',
      resolutionTree: '3'.repeat(40),
      resolutionCommit: '4'.repeat(40),
      attempts: 1,
      resolvedInAttempt: 1,
      blame: null,
    });
    state.acceptedFailures.push({
      check: 'test',
      conflicts: ['1-1'],
      outcome: { passed: false, failing: ['t1'], ran: 3 },
      logFile: '/l',
      at: '2024-01-01T00:00:00.000Z',
    });
    const records = runRecords(state, [{ cell: '1-1', commit: '4'.repeat(40) }]);
    expect(records.map((r) => r.kind)).toEqual(['cell', 'resolution', 'accepted-failure']);
    expect(records[1]?.body).toMatchObject({ files: [{ path: 'a', hunks: [{ rung: 'person', by: 'person' }] }] });
  });
});
