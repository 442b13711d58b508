import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ResolutionCache } from '../../src/resolve/cache/resolution-cache.js';
import { resolveFileText } from '../../src/resolve/ladder.js';
import { readJsonFile } from '../../src/store/json-file.js';
import { Journal } from '../../src/store/journal.js';
import { parseRunEvent, type RunEvent } from '../../src/store/run-events.js';
import { initialRunState, runStateFile } from '../../src/store/run-state.js';
import { mergeMessage } from '../../src/workflow/merge-record.js';

// What the previous version wrote: five rungs, the syntax rung as `rule` by `syntax-merge`, a
// learnt answer as `policy` by `learnt: …`, a person as `human`, a regenerated lockfile as the policy's.
const oldHunks = [
  { index: 1, status: 'resolved', rung: 'rule', by: 'syntax-merge', cacheKey: null },
  { index: 2, status: 'resolved', rung: 'policy', by: 'learnt: ours (3 of 3 merges)', cacheKey: null },
  { index: 3, status: 'resolved', rung: 'human', by: 'human', cacheKey: null },
  { index: 4, status: 'resolved', rung: 'rule', by: 'one-side-unchanged', cacheKey: null },
  { index: 5, status: 'resolved', rung: 'policy', by: 'vendor/**: theirs', cacheKey: null },
];

function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sc-stored-rungs-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('values stored by the previous version', () => {
  it('a run state file reads in the rungs of today, and the merge record counts the syntax rung as itself', () => {
    const fresh = initialRunState({
      name: 'up',
      upstream: { ref: 'upstream/main', oid: 'a'.repeat(40) },
      fork: { branch: 'stable', originalOid: 'b'.repeat(40) },
      workdir: '/w',
      phase: 'initialize',
      now: new Date('2026-01-01T00:00:00.000Z'),
    });
    const conflict = {
      id: '1-1',
      cell: { i1: 1, i2: 1 },
      status: 'resolved',
      resolutionTree: null,
      resolutionCommit: null,
      attempts: 1,
      files: [
        { path: 'a.ts', kind: 'content', hunks: oldHunks },
        {
          path: 'package-lock.json',
          kind: 'content',
          hunks: [],
          decidedBy: 'policy',
          note: 'regenerated with `npm i`',
        },
        { path: 'gone.txt', kind: 'modify/delete', hunks: [], decidedBy: 'human' },
      ],
    };
    const path = join(temp(), 'state.json');
    writeFileSync(path, JSON.stringify({ ...fresh, conflicts: [conflict] }));
    const read = readJsonFile(path, runStateFile);
    if (!read.ok) throw new Error(`old state not read: ${read.problem} ${read.detail}`);
    const [a, lock, gone] = read.value.conflicts[0]!.files;
    expect(a!.hunks.map((h) => [h.rung, h.by])).toEqual([
      ['syntax', 'syntax-merge'],
      ['learnt', 'learnt: ours (3 of 3 merges)'],
      ['person', 'person'],
      ['rule', 'one-side-unchanged'],
      ['policy', 'vendor/**: theirs'],
    ]);
    expect(lock!.decidedBy).toBe('generated');
    expect(gone!.decidedBy).toBe('person');
    const message = mergeMessage(read.value);
    expect(message).toContain('1 hunk by the syntax merge');
    expect(message).toContain("1 hunk by the fork's past merges (learnt: ours (3 of 3 merges))");
    expect(message).toContain('1 hunk by rule one-side-unchanged');
    expect(message).not.toContain('rule syntax-merge');
  });

  it('a journal line of a resolved conflict reads in the rungs of today', () => {
    const path = join(temp(), 'events.jsonl');
    const event = {
      seq: 1,
      ts: '2026-01-01T00:00:00.000Z',
      type: 'conflict_resolved',
      conflict: '1-1',
      cell: { i1: 1, i2: 1 },
      attempt: 1,
      files: [{ path: 'a.ts', hunks: oldHunks.map(({ index, rung, by }) => ({ index, rung, by })) }],
      tree: null,
      commit: null,
    };
    writeFileSync(path, `${JSON.stringify(event)}\n`);
    const [entry] = new Journal<RunEvent>(path, { parse: parseRunEvent }).read().entries;
    if (entry?.type !== 'conflict_resolved') throw new Error('old journal line not read');
    expect(entry.files[0]!.hunks.map((h) => h.rung)).toEqual(['syntax', 'learnt', 'person', 'rule', 'policy']);
  });

  it("a cache entry reads in the rungs of today: a person's answer is replayed, the syntax rung's is not", async () => {
    const cache = new ResolutionCache(temp());
    const conflict = (ours: string): string => `<<<<<<< ours\n${ours}||||||| base\nb\n=======\nt\n>>>>>>> theirs\n`;
    const write = (ours: string, rung: string, by: string): void => {
      const key = cache.key({ base: 'b\n', ours, theirs: 't\n' });
      const file = cache.fileOf(key);
      mkdirSync(dirname(file), { recursive: true });
      const provenance = { when: '2026-01-01T00:00:00.000Z' };
      writeFileSync(file, JSON.stringify({ version: 1, key, resolution: 'mine\n', rung, by, provenance }));
    };
    write('o1\n', 'human', 'human');
    write('o2\n', 'rule', 'syntax-merge');
    const person = (await cache.list()).find((e) => e.resolution === 'mine\n' && e.by !== 'syntax-merge');
    expect([person?.rung, person?.by]).toEqual(['person', 'person']);
    const byPerson = await resolveFileText(conflict('o1\n'), { path: 'f', cache, rules: [] });
    expect(byPerson.resolutions).toMatchObject([{ rung: 'cache', by: 'person:person', text: 'mine\n' }]);
    // The syntax rung decides from the whole file: its stored answer is never replayed on its own.
    const bySyntax = await resolveFileText(conflict('o2\n'), { path: 'f', cache, rules: [] });
    expect(bySyntax.resolutions).toEqual([]);
    expect((await cache.list()).map((e) => e.rung).sort()).toEqual(['person', 'syntax']);
  });
});
