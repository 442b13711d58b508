import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { rebuildRun, repairRun, validateRun } from '../../src/store/doctor.js';
import { RunStore } from '../../src/store/run-store.js';
import { buildRunFixture, fixedClock } from '../fixtures/store/run-fixture.js';
import { loadRunState } from '../../src/store/run-persistence.js';

const deps = { clock: fixedClock };

describe('doctor', () => {
  it('a healthy run validates clean', async () => {
    const f = await buildRunFixture(TestRepo.create());
    const report = await validateRun(f.paths.dir, f.repo.git, deps);
    expect(report).toMatchObject({
      ok: true,
      name: 'up',
      state: { status: 'ok' },
      backup: { status: 'ok' },
      lock: { state: 'free' },
      findings: [],
    });
    expect(report.journal).toMatchObject({ exists: true, truncatedTail: false, badLines: [] });
  });

  it('repair restores a truncated state.json from state.json.bak and keeps the bad file aside', async () => {
    const f = await buildRunFixture(TestRepo.create());
    const text = readFileSync(f.paths.state, 'utf8');
    writeFileSync(f.paths.state, text.slice(0, Math.floor(text.length / 2)));
    const before = await validateRun(f.paths.dir, f.repo.git, deps);
    expect(before.ok).toBe(false);
    expect(before.findings).toEqual([expect.objectContaining({ kind: 'parse', severity: 'error', repairable: true })]);

    const repaired = await repairRun(f.paths.dir, f.repo.git, deps);
    expect(repaired).toMatchObject({ ok: true, restoredFromBackup: true, hint: null });
    expect(repaired.actions.some((a) => a.startsWith('restored state.json from state.json.bak'))).toBe(true);
    expect(loadRunState(f.paths)).toEqual(f.previous);
    expect(readdirSync(f.paths.dir).some((n) => n.startsWith('state.json.corrupt-'))).toBe(true);
    const journal = f.journal.read().entries;
    expect(journal.at(-1)).toMatchObject({ type: 'state_repaired', how: 'restore-backup' });
    expect((await validateRun(f.paths.dir, f.repo.git, deps)).ok).toBe(true);
  });

  it('repair says to rebuild when both files are unusable; rebuild reconstructs from the journal and refs', async () => {
    const f = await buildRunFixture(TestRepo.create());
    rmSync(f.paths.state);
    writeFileSync(f.paths.backup, '{"version": 1}');
    const repair = await repairRun(f.paths.dir, f.repo.git, deps);
    expect(repair.ok).toBe(false);
    expect(repair.hint).toContain('doctor --rebuild');

    const rebuilt = await rebuildRun(f.paths.dir, f.repo.git, deps);
    expect(rebuilt).toMatchObject({ ok: true, hint: null, sources: { imergeState: true } });
    const state = loadRunState(f.paths);
    expect(state).toEqual(rebuilt.state);
    const expected = f.state;
    expect(state).toMatchObject({
      name: 'up',
      upstream: expected.upstream,
      fork: expected.fork,
      workdir: expected.workdir,
      goal: 'merge',
      // killed while running 'check': resume re-runs it
      phase: 'check',
      step: 3,
      status: 'stopped',
      strategy: { kind: 'optimistic', decidedBy: 'fallback', reasoning: 'one conflict' },
      grid: expected.grid,
      conflicts: expected.conflicts,
      currentAttempt: 1,
      usage: expected.usage,
      finalCommit: null,
    });
    expect(rebuilt.lost.length).toBeGreaterThan(0);
    expect((await validateRun(f.paths.dir, f.repo.git, deps)).findings.filter((x) => x.severity === 'error')).toEqual(
      [],
    );
  });

  it('rebuild works from the refs alone when the journal is gone too', async () => {
    const f = await buildRunFixture(TestRepo.create());
    rmSync(f.paths.state);
    rmSync(f.paths.backup);
    rmSync(f.paths.journal);
    const rebuilt = await rebuildRun(f.paths.dir, f.repo.git, deps);
    expect(rebuilt.ok).toBe(true);
    expect(rebuilt.state).toMatchObject({
      upstream: { ref: 'upstream', oid: f.oids.upstream },
      fork: { branch: 'main', originalOid: f.oids.fork },
      grid: { size: { i1: 1, i2: 1 }, blockers: [] },
      conflicts: [{ id: '1-1', status: 'resolved', resolutionCommit: f.oids.resolution }],
    });
  });

  it('reads and rebuilds a run an earlier version wrote, its sides stored as target and source', async () => {
    const f = await buildRunFixture(TestRepo.create());
    const { fork, upstream, ...rest } = JSON.parse(readFileSync(f.paths.state, 'utf8')) as Record<string, unknown>;
    writeFileSync(f.paths.state, `${JSON.stringify({ ...rest, source: upstream, target: fork })}\n`);
    expect((await validateRun(f.paths.dir, f.repo.git, deps)).findings).toEqual([]);
    expect(loadRunState(f.paths)).toMatchObject({ fork, upstream });

    const earlier = readFileSync(f.paths.journal, 'utf8')
      .split('\n')
      .map((line) => {
        if (!line.includes('"run_started"')) return line;
        const { fork: to, upstream: from, ...event } = JSON.parse(line) as Record<string, unknown>;
        return JSON.stringify({ ...event, source: from, target: to });
      })
      .join('\n');
    expect(earlier).toContain('"target":{');
    writeFileSync(f.paths.journal, earlier);
    rmSync(f.paths.state);
    rmSync(f.paths.backup);
    const rebuilt = await rebuildRun(f.paths.dir, f.repo.git, deps);
    expect(rebuilt.ok).toBe(true);
    expect(rebuilt.actions).toEqual(
      expect.arrayContaining([expect.stringMatching(/^identity from the run_started event #\d+$/)]),
    );
    expect(loadRunState(f.paths)).toMatchObject({ fork, upstream });
    expect(readFileSync(f.paths.state, 'utf8')).not.toContain('"target":{');
  });

  it('rebuild with nothing to go on fails with a reason', async () => {
    const repo = TestRepo.create();
    repo.commit('init', { a: '1' });
    const store = await RunStore.forRepo(repo.git);
    const p = store.ensure('ghost');
    const rebuilt = await rebuildRun(p.dir, repo.git, deps);
    expect(rebuilt.ok).toBe(false);
    expect(rebuilt.hint).toContain('nothing to rebuild');
    expect(existsSync(p.state)).toBe(false);
  });

  it('repair auto-repairs inconsistencies and lists each repair', async () => {
    const f = await buildRunFixture(TestRepo.create());
    const dead = Number(
      spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout,
    );
    expect(new RunStore(f.store.root, { pid: dead }).acquire('up').ok).toBe(true);
    const c = f.state.conflicts[0];
    if (c === undefined) throw new Error('fixture has a conflict');
    f.save({
      ...f.state,
      name: 'other',
      currentAttempt: 0,
      attempts: [
        {
          number: 2,
          strategy: 'optimistic',
          batchSize: null,
          resolutions: ['1-1'],
          checks: [],
          failureSummary: null,
          recovery: null,
          startedAt: f.state.startedAt,
          finishedAt: null,
        },
      ],
      conflicts: [
        { ...c, resolutionCommit: null, resolutionTree: null },
        { ...c, id: '2-1', cell: { i1: 2, i2: 1 }, resolutionCommit: null, resolutionTree: null },
        { ...c, id: '3-1', cell: { i1: 3, i2: 1 }, resolutionCommit: 'e'.repeat(40) },
      ],
    });
    const before = await validateRun(f.paths.dir, f.repo.git, deps);
    expect(before.ok).toBe(false);
    expect(before.findings.map((x) => x.kind).sort()).toEqual([
      'inconsistent',
      'inconsistent',
      'inconsistent',
      'inconsistent',
      'inconsistent',
      'lock',
    ]);

    const repair = await repairRun(f.paths.dir, f.repo.git, deps);
    expect(repair).toMatchObject({ ok: true, restoredFromBackup: false, remaining: [] });
    expect(repair.actions).toHaveLength(6);
    expect(repair.actions.join('\n')).toMatch(/removed the stale lock of dead process \d+/);
    expect(repair.actions.join('\n')).toContain(`set the resolution of 1-1 to ${f.oids.resolution}`);
    expect(repair.actions.join('\n')).toContain('reopened conflict 2-1');
    expect(repair.actions.join('\n')).toContain('reopened conflict 3-1');
    const state = loadRunState(f.paths);
    expect(state).toMatchObject({ name: 'up', currentAttempt: 2 });
    expect(state?.conflicts.map((x) => [x.id, x.status, x.resolutionCommit])).toEqual([
      ['1-1', 'resolved', f.oids.resolution],
      ['2-1', 'pending', null],
      ['3-1', 'pending', null],
    ]);
    expect(existsSync(f.paths.lock)).toBe(false);
    expect(f.journal.read().entries.at(-1)).toMatchObject({ type: 'state_repaired', how: 'auto-repair' });
  });

  it('warns about a journal whose sequence goes backwards', async () => {
    const f = await buildRunFixture(TestRepo.create());
    const lines = readFileSync(f.paths.journal, 'utf8');
    writeFileSync(f.paths.journal, lines + lines.split('\n')[0] + '\n');
    const report = await validateRun(f.paths.dir, f.repo.git, deps);
    expect(report.findings).toEqual([
      expect.objectContaining({
        kind: 'journal',
        severity: 'warning',
        message: expect.stringContaining('go backwards'),
      }),
    ]);
  });

  it('warns when the imerge refs the state relies on are gone', async () => {
    const f = await buildRunFixture(TestRepo.create());
    f.repo.sh('update-ref', '-d', 'refs/imerge/up/state');
    f.repo.sh('branch', '-m', 'main', 'renamed');
    const report = await validateRun(f.paths.dir, f.repo.git, deps);
    expect(report.ok).toBe(true);
    expect(report.findings.map((x) => [x.severity, x.message])).toEqual([
      ['warning', "fork branch 'main' no longer exists"],
      ['warning', expect.stringContaining('refs/imerge/up/state does not exist')],
    ]);
  });

  it("sees the recovery loop's data (FlowData) and drops conflict ids the run does not have", async () => {
    const f = await buildRunFixture(TestRepo.create());
    const failure = { error_type: 'compile_error' as const, location: 'a.c:1', root_cause: 'x', excerpt: '' };
    f.save({
      ...f.state,
      data: {
        checks: { batch: ['1-1', '9-9'], validated: ['8-8'] },
        recovery: { retryContext: { '9-9': failure, '1-1': failure } },
      },
    });
    const report = await validateRun(f.paths.dir, f.repo.git, deps);
    expect(report.findings.map((x) => [x.severity, x.message])).toEqual([
      ['warning', "the recovery loop's data names conflict(s) 9-9, 8-8 that the run does not have"],
    ]);
    const repair = await repairRun(f.paths.dir, f.repo.git, deps);
    expect(repair.actions).toEqual([
      "the recovery loop's data names conflict(s) 9-9, 8-8 that the run does not have: dropped 9-9, 8-8 from the recovery loop's data",
    ]);
    expect(loadRunState(f.paths)?.data).toEqual({
      checks: { batch: ['1-1'], validated: [] },
      recovery: { retryContext: { '1-1': failure } },
    });
  });

  it('leaves what it cannot repair, and refuses a live or newer run', async () => {
    const f = await buildRunFixture(TestRepo.create());
    f.save({ ...f.state, upstream: { ref: 'upstream', oid: 'd'.repeat(40) } });
    const repair = await repairRun(f.paths.dir, f.repo.git, deps);
    expect(repair.ok).toBe(false);
    expect(repair.remaining).toEqual([
      expect.objectContaining({ repairable: false, message: expect.stringContaining('dddd') }),
    ]);

    const held = new RunStore(f.store.root, { pid: process.ppid }).acquire('up');
    expect(held.ok).toBe(true);
    const refused = await repairRun(f.paths.dir, f.repo.git, deps);
    expect(refused.hint).toContain(`process ${process.ppid}`);
    expect((await rebuildRun(f.paths.dir, f.repo.git, deps)).ok).toBe(false);
    if (held.ok) held.lock.release();

    writeFileSync(f.paths.state, JSON.stringify({ ...f.state, version: 2 }));
    const newer = await repairRun(f.paths.dir, f.repo.git, deps);
    expect(newer.ok).toBe(false);
    expect(newer.hint).toContain('another splintercat version');
    expect(JSON.parse(readFileSync(f.paths.state, 'utf8'))).toMatchObject({ version: 2 });
  });
});
