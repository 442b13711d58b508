import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/index.js';
import { buildReportModel, loadRunSnapshot, markedDiagram } from '../../src/report/index.js';
import { GRID_CACHE_FILE } from '../../src/report/grid-history-cache.js';
import { gitSpy } from '../helpers/git-spy.js';
import { testGitEnv } from '../helpers/git-repo.js';
import { decodeRuns } from '../../src/report/grid-codes.js';
import { recordedRun } from '../fixtures/report/recorded-run.js';

const now = new Date();

describe('report built from a real run', () => {
  it('after finish (refs gone): the grid is rebuilt from history; hunks, resolution diffs, transcripts, decisions and failed checks are all there', async () => {
    const { repo, store, name, outcome } = await recordedRun();
    expect(outcome.kind).toBe('done');
    expect(repo.sh('for-each-ref', 'refs/imerge')).toBe('');
    const snap = await loadRunSnapshot(repo.git, store, name);
    const m = buildReportModel(snap!, { now });
    expect(m.grid).toMatchObject({ len1: 5, len2: 5, source: 'history' });
    expect(m.grid!.forkAxis[1]?.subject).toBe('fork: value 1');
    expect(m.grid!.upstreamAxis[4]?.subject).toBe('upstream: value 4');
    // The culprit 3-3 failed the check in attempt 1 and was resolved again: M, not X.
    expect(markedDiagram(m.grid!)?.split('\n').slice(2, 7)).toEqual([
      '   0 - ***** - main',
      '       *M..|',
      '       *.M.|',
      '       *..M|',
      '   4 - *---C',
    ]);
    expect(m.grid!.marks.find((x) => x.conflict === '3-3')).toMatchObject({
      failedCheck: 'build (attempt 1)',
      superseded: true,
    });
    expect(decodeRuns(m.grid!.cells)).not.toContain('a'); // every cell known

    const c3 = m.conflicts.find((c) => c.id === '3-3')!;
    expect(c3).toMatchObject({ status: 'resolved', rung: 'model', attempts: 2 });
    expect(c3.files[0]?.conflictHunks[0]).toMatchObject({
      ours: 'v3 = fork3\n',
      theirs: 'v3 = up3\n',
      base: 'v3 = 0\n',
    });
    expect(c3.resolution?.diff).toMatch(/^-<<<<<<< [0-9a-f]{40}\n-v3 = fork3\n[^]*^\+v3 = merged3$/m);
    expect(c3.transcripts.length).toBe(2);
    expect(c3.transcripts[0]?.toolCalls.map((t) => t.tool)).toContain('resolve_conflict');
    expect(m.timeline.map((e) => e.kind)).toEqual(
      expect.arrayContaining(['strategy', 'failure', 'recovery', 'blame', 'finalized', 'outcome']),
    );
    expect(m.timeline.find((e) => e.kind === 'recovery')?.reasoning).toBe(
      'Unclear which resolution broke the build: bisect the batch.',
    );
    expect(m.checks.some((c) => !c.success && c.summary !== null)).toBe(true);
    expect(m.checks.find((c) => c.success)?.excerpt).toBe('all values ok');
    expect(m.run.resultCommit).toBe(repo.sh('rev-parse', 'main'));
  });

  it('after finish: the grid rebuilt from history is kept beside the state and read from there next time; a cache that does not match is rebuilt', async () => {
    const { repo, store, name } = await recordedRun();
    const cacheFile = join(store.paths(name).dir, GRID_CACHE_FILE);
    expect(existsSync(cacheFile)).toBe(false);
    const first = (await loadRunSnapshot(repo.git, store, name, { details: false }))!.grid;
    expect(first).toMatchObject({ source: 'history', len1: 5, len2: 5 });
    expect(existsSync(cacheFile)).toBe(true);
    // The file keeps the engine's numbers of the sides (tip1 and axis1 the fork's, tip2 and axis2 upstream's).
    const stored = JSON.parse(readFileSync(cacheFile, 'utf8')) as { grid: Record<string, unknown> };
    expect(stored.grid).toMatchObject({ tip1: first?.forkTip, tip2: first?.upstreamTip, axis1: first?.forkAxis });
    expect(stored.grid).not.toHaveProperty('forkTip');
    expect(stored.grid).not.toHaveProperty('forkAxis');

    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    try {
      expect((await loadRunSnapshot(git, store, name, { details: false }))!.grid).toEqual(first);
      // No history walk: only the final-commit check's object reader and the listing of the merges' refs.
      expect(spy.calls().filter((c) => /^(merge-base|rev-list|log) /.test(c))).toEqual([]);

      // A cache written for another run's final commit is not taken for this one.
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as { key: string; grid: { letters: string } };
      writeFileSync(
        cacheFile,
        JSON.stringify({
          ...cached,
          key: cached.key.replace(/ [0-9a-f]{40} /, ` ${'0'.repeat(40)} `),
          grid: { ...cached.grid, letters: 'x'.repeat(25) },
        }),
      );
      spy.reset();
      expect((await loadRunSnapshot(git, store, name, { details: false }))!.grid).toEqual(first);
      expect(spy.calls().some((c) => c.startsWith('rev-list '))).toBe(true);
      // Nor a damaged one.
      writeFileSync(cacheFile, '{"version": 1, "key"');
      expect((await loadRunSnapshot(git, store, name, { details: false }))!.grid).toEqual(first);
    } finally {
      git.close();
    }
  });

  it('while stopped for the person (refs present): the grid comes from the refs and the open conflict shows its hunks', async () => {
    const { repo, store, name, outcome } = await recordedRun({ stopForPerson: true });
    expect(outcome.kind).toBe('needs_person');
    const m = buildReportModel((await loadRunSnapshot(repo.git, store, name))!, { now });
    expect(m.grid).toMatchObject({ source: 'refs', len1: 5, len2: 5 });
    expect(markedDiagram(m.grid!)).toMatch(/^ {7}\*#/m);
    const open = m.conflicts.find((c) => c.status === 'needs_person')!;
    expect(open.id).toBe('1-1');
    expect(open.resolution).toBeNull();
    expect(open.files[0]?.conflictHunks[0]).toMatchObject({ ours: 'v1 = fork1\n', theirs: 'v1 = up1\n' });
    expect(m.progress).toMatchObject({ left: 1, hunksOpen: 1 });
  });
});
