import { describe, expect, it } from 'vitest';
import { recordId, recordPath, type SyncRecord } from './record.js';
import { checkRecord, repoPathProblem, resolutionFiles } from './record-shapes.js';

const tree = 'a'.repeat(40);

function resolution(files: unknown[], conflict = '1-2'): SyncRecord {
  const key = { conflict, tree };
  return {
    kind: 'resolution',
    id: recordId('resolution', key),
    key,
    body: { files } as SyncRecord['body'],
    by: 'm',
    at: '2026-01-01T00:00:00.000Z',
  };
}

describe('record shapes', () => {
  it('takes a resolution as runRecords writes it, typed', () => {
    const record = resolution([
      { path: 'src/a.ts', kind: 'content', decidedBy: null, hunks: [{ index: 1, rung: 'rule', by: 'x' }] },
    ]);
    const checked = checkRecord(record, recordPath(record));
    expect(checked.ok).toBe(true);
    expect(resolutionFiles(record)).toEqual([
      { path: 'src/a.ts', kind: 'content', decidedBy: null, hunks: [{ index: 1, rung: 'rule', by: 'x' }] },
    ]);
  });

  it.each([
    ['a NUL in a path', [{ path: 'a\0b', hunks: [] }], 'a string holds a NUL byte'],
    ['a path out of the repository', [{ path: '../x', hunks: [] }], 'a resolution record with a bad body'],
    ['an absolute path', [{ path: '/etc/passwd', hunks: [] }], 'a resolution record with a bad body'],
    ['a .git component', [{ path: 'a/.GIT/hooks/x', hunks: [] }], 'a resolution record with a bad body'],
    [
      'an unknown rung',
      [{ path: 'a', hunks: [{ index: 1, rung: 'root', by: null }] }],
      'a resolution record with a bad body',
    ],
  ])('refuses %s', (_what, files, why) => {
    const record = resolution(files);
    const checked = checkRecord(record, recordPath(record));
    expect(checked.ok).toBe(false);
    expect(!checked.ok && checked.why).toContain(why);
  });

  it('refuses a record whose id is not its key digest, or stored under another path', () => {
    const record = resolution([]);
    const other = { ...record, key: { conflict: '2-1', tree } };
    expect(checkRecord(other, recordPath(other))).toEqual({ ok: false, why: 'its id is not the digest of its key' });
    expect(checkRecord(record, `cell/00/${record.id}.json`)).toEqual({
      ok: false,
      why: 'stored under another path than its id',
    });
    const badKey = { ...record, key: { conflict: '1-2', tree: 'HEAD' } };
    expect(checkRecord({ ...badKey, id: recordId('resolution', badKey.key) }, recordPath(record)).ok).toBe(false);
  });

  it('refuses a time that is not a time, and a machine name of any length', () => {
    // `at` decides which of two copies of one fact every clone keeps: an empty or made-up one must not win.
    for (const at of ['', 'yesterday', '0', '2026-01-01'])
      expect(checkRecord({ ...resolution([]), at }, recordPath(resolution([])))).toEqual({
        ok: false,
        why: 'its time is not an ISO time',
      });
    expect(checkRecord({ ...resolution([]), by: 'm'.repeat(513) }, recordPath(resolution([]))).ok).toBe(false);
  });

  it('names the path problem', () => {
    expect(repoPathProblem('a/b.txt')).toBeNull();
    expect(repoPathProblem('a//b')).toBe("a '' component");
    expect(repoPathProblem('a/./b')).toBe("a '.' component");
    expect(repoPathProblem('a\\b')).toBe('a control character or a backslash');
  });
});
