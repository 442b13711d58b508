import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { ResolutionCache } from '../../src/resolve/index.js';
import { rebuildRun } from '../../src/store/doctor.js';
import { nullLogger, type Logger } from '../../src/log/logger.js';
import { RunStore } from '../../src/store/index.js';
import { loadRunState } from '../../src/store/run-persistence.js';
import type { Handoff } from '../../src/store/run-state.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { reopenRun } from '../../src/workflow/setup.js';
import { acceptPendingFailure } from '../../src/workflow/accept-failure.js';
import { chainRepo, checkScript, valuesFile } from '../fixtures/workflow/chain-repo.js';
import { chainContext, startChainRun } from '../fixtures/workflow/chain-run.js';
import { TestRepo } from '../helpers/git-repo.js';
import {
  buildReportModel,
  loadRunSnapshot,
  renderMarkdownReport,
  renderReportBody,
  renderStatusText,
} from '../../src/report/index.js';

/** Start a run offline (no model: a person resolves what the ladder leaves), per conflict. */
async function merge(repo: TestRepo, settings: Record<string, unknown> = {}) {
  const { ctx } = await chainContext(repo, null, { merge: { strategy: 'per_conflict', parallel: 1 }, ...settings });
  const store = await RunStore.forRepo(repo.git);
  const { run, state } = startChainRun(store, repo);
  try {
    return { outcome: await driveRun(run, state, ctx), ctx, store };
  } finally {
    run.close();
  }
}

/** `splintercat continue`. */
async function resume(store: RunStore, ctx: Awaited<ReturnType<typeof merge>>['ctx']) {
  const { run, state } = reopenRun(store, 'up');
  try {
    return await driveRun(
      run,
      state.status === 'running' ? state : { ...state, status: 'running', statusReason: null },
      ctx,
    );
  } finally {
    run.close();
  }
}

/** Run a printed choice as a person would: in the conflict's worktree, through the shell. */
async function runChoice(worktree: string, command: string): Promise<void> {
  await execa('sh', ['-c', command], { cwd: worktree });
}

function only(handoff: Handoff | null | undefined) {
  expect(handoff?.conflicts).toHaveLength(1);
  return handoff!.conflicts[0]!;
}

/** Base: vals.txt and the check; `files` added on top. */
function baseRepo(files: Record<string, string>): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'vals.txt': valuesFile(['0']), 'check.mjs': checkScript, ...files });
  repo.branch('upstream');
  repo.checkout('upstream');
  return repo;
}

describe('hand-offs a person can follow to the letter', () => {
  it('content: names the file, its kind and hunks; the commands are cd lines then the one command to run next', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome } = await merge(repo);
    expect(outcome.kind).toBe('needs_person');
    const c = only(outcome.state.handoff);
    expect(c.conflict).toBe('1-1');
    expect(c.files).toEqual([
      {
        path: 'vals.txt',
        kind: 'content',
        hunks: 1,
        instructions: expect.stringMatching(/^edit vals\.txt: 1 conflict hunk\(s\).*remove every marker line/),
        // Each hunk with its one-command answers (the repository has no past merge to suggest from).
        blocks: [
          {
            hunk: 1,
            startLine: 1,
            endLine: 7,
            take: {
              ours: 'splintercat take ours vals.txt 1',
              theirs: 'splintercat take theirs vals.txt 1',
              both: 'splintercat take both vals.txt 1',
              'both theirs-first': 'splintercat take both --order theirs-first vals.txt 1',
              base: 'splintercat take base vals.txt 1',
            },
          },
        ],
      },
    ]);
    expect(outcome.state.handoff?.files).toEqual([join(c.worktree, 'vals.txt')]);
    expect(outcome.state.handoff?.commands).toEqual([
      expect.stringMatching(new RegExp(`^cd ${c.worktree}   # conflict 1-1: `)),
      'splintercat continue',
    ]);
    const events = readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n');
    const event = events
      .map((l) => JSON.parse(l) as { type: string; conflicts?: Handoff['conflicts'] })
      .find((e) => e.type === 'person_needed');
    expect(event?.conflicts?.[0]?.files[0]?.path).toBe('vals.txt');
  });

  it("content: a file written as our side exactly, markers gone and not staged, is the person's choice of that side, not an untouched path", async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome, ctx, store } = await merge(repo);
    const c = only(outcome.state.handoff);
    // What a person writes who keeps the fork's value: the bytes of the worktree's HEAD, no git add.
    const ours = (await execa('git', ['show', 'HEAD:vals.txt'], { cwd: c.worktree, stripFinalNewline: false })).stdout;
    writeFileSync(join(c.worktree, 'vals.txt'), ours);
    const done = await resume(store, ctx);
    expect(done.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(ours.trimEnd());
  });

  it("edits beyond the conflict at a hand-off are kept, checked with the resolution, and recorded as the person's (state, journal, status, reports)", async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome, ctx, store } = await merge(repo);
    const c = only(outcome.state.handoff);
    writeFileSync(join(c.worktree, 'vals.txt'), valuesFile(['both']));
    // A maintainer fixes something else in the merge itself: a note added, the check script touched.
    writeFileSync(join(c.worktree, 'NOTES.md'), 'merged by hand\n');
    writeFileSync(join(c.worktree, 'check.mjs'), `${checkScript}// reviewed at the merge\n`);
    const done = await resume(store, ctx);
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
    expect(repo.sh('show', 'main:NOTES.md')).toBe('merged by hand');
    expect(repo.sh('show', 'main:check.mjs')).toContain('// reviewed at the merge');
    expect(done.state.conflicts.map((x) => [x.id, x.outsideEdits])).toEqual([['1-1', ['NOTES.md', 'check.mjs']]]);
    // Checked: a check ran on the cell holding them.
    expect(done.state.checks.some((k) => k.target === 'cell' && k.cell?.i1 === 1 && k.success)).toBe(true);
    const resolvedEvent = readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; outsideEdits?: string[] })
      .find((e) => e.type === 'conflict_resolved');
    expect(resolvedEvent?.outsideEdits).toEqual(['NOTES.md', 'check.mjs']);
    const model = buildReportModel((await loadRunSnapshot(repo.git, store, 'up'))!, { now: new Date() });
    expect(renderStatusText(model)).toContain('  edited by a person beyond conflict 1-1: NOTES.md, check.mjs');
    expect(renderMarkdownReport(model)).toContain(
      '- edited by the person beyond the conflict: `NOTES.md`, `check.mjs`',
    );
    expect(renderReportBody(model)).toContain(
      '<p>Edited by the person beyond the conflict: <code>NOTES.md</code>, <code>check.mjs</code></p>',
    );
  });

  it("a worktree handed off without a snapshot (an older run) still continues: its edits kept, none claimed as the person's", async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome, ctx, store } = await merge(repo);
    const c = only(outcome.state.handoff);
    // As an older splintercat left it: no snapshot file, no snapshot refs in the worktree's git directory.
    const gitDir = (await execa('git', ['rev-parse', '--absolute-git-dir'], { cwd: c.worktree })).stdout;
    expect(existsSync(join(gitDir, 'splintercat-snapshots.json'))).toBe(true);
    rmSync(join(gitDir, 'splintercat-snapshots.json'));
    rmSync(join(gitDir, 'refs', 'worktree'), { recursive: true, force: true });
    writeFileSync(join(c.worktree, 'vals.txt'), valuesFile(['both']));
    writeFileSync(join(c.worktree, 'NOTES.md'), 'merged by hand\n');
    const decisions: string[] = [];
    const log: Logger = { ...nullLogger, decision: (_obj, msg) => void decisions.push(msg ?? ''), child: () => log };
    const done = await resume(store, { ...ctx, log });
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
    expect(repo.sh('show', 'main:NOTES.md')).toBe('merged by hand');
    expect(done.state.conflicts.map((x) => [x.id, x.outsideEdits ?? []])).toEqual([['1-1', []]]);
    expect(decisions.some((d) => d.startsWith('[person] 1-1: its worktree has no hand-off snapshot'))).toBe(true);
  });

  it('modify/delete both ways: the exact git rm / git add choices, no marker talk; an untouched path is refused, saying why; the choices taken literally land in the merge', async () => {
    const repo = baseRepo({ 'gone.txt': 'original\n', 'kept.txt': 'original\n' });
    repo.commit('upstream: drop gone.txt, change kept.txt', { 'gone.txt': null, 'kept.txt': 'upstream change\n' });
    repo.checkout('main');
    repo.commit('fork: change gone.txt, drop kept.txt', { 'gone.txt': 'fork change\n', 'kept.txt': null });
    const { outcome, store, ctx } = await merge(repo);
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('needs_person');
    const c = only(outcome.state.handoff);
    const byPath = Object.fromEntries(c.files.map((f) => [f.path, f]));
    expect(byPath['gone.txt']).toMatchObject({
      kind: 'modify/delete',
      choices: { keep: 'git add -- gone.txt', delete: 'git rm -q -- gone.txt' },
    });
    expect(byPath['gone.txt']?.instructions).toMatch(
      /the upstream side deleted gone\.txt while the fork side changed it/,
    );
    expect(byPath['kept.txt']?.instructions).toMatch(
      /the fork side deleted kept\.txt while the upstream side changed it/,
    );
    for (const f of c.files) expect(f.instructions).not.toMatch(/remove every/);

    // Nothing done: refused, with the exact choice to make.
    const untouched = await resume(store, ctx);
    expect(untouched.kind).toBe('needs_person');
    expect(only(untouched.state.handoff).refused.join('\n')).toMatch(
      /gone\.txt is still unmerged: run `git rm -q -- gone\.txt` to keep the deletion or `git add -- gone\.txt` to keep the file/,
    );

    await runChoice(c.worktree, byPath['gone.txt']!.choices!.delete!);
    await runChoice(c.worktree, byPath['kept.txt']!.choices!.keep!);
    const done = await resume(store, ctx);
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
    expect(repo.sh('ls-tree', '--name-only', 'main').split('\n').sort()).toEqual(['check.mjs', 'kept.txt', 'vals.txt']);
    expect(repo.sh('show', 'main:kept.txt')).toBe('upstream change');
    expect(done.state.conflicts[0]?.files.map((f) => f.decidedBy)).toEqual(['person', 'person']);
  });

  it.each([
    ['', false],
    [', also after doctor --rebuild (the choices are journalled)', true],
  ])(
    "the same modify/delete (same path and blobs) met at a later cell takes the person's earlier choice, journalled as cache%s",
    async (_, rebuild) => {
      // The fork changes gone.txt, reverts it, changes it again; upstream deletes it: cells 1-1, 2-1 and 3-1
      // meet modify/delete, and 3-1 has exactly the sides of 1-1.
      const repo = baseRepo({ 'gone.txt': 'original\n' });
      repo.commit('upstream: drop gone.txt', { 'gone.txt': null });
      repo.checkout('main');
      repo.commit('fork: change', { 'gone.txt': 'changed\n' });
      repo.commit('fork: revert', { 'gone.txt': 'original\n' });
      repo.commit('fork: change again', { 'gone.txt': 'changed\n' });
      const { outcome, store, ctx } = await merge(repo);
      expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('needs_person');
      let state = outcome.state;
      const asked: string[] = [];
      for (let k = 0; k < 5 && state.status !== 'done'; k++) {
        const c = only(state.handoff);
        asked.push(c.conflict);
        await runChoice(c.worktree, c.files[0]!.choices!.delete!);
        state = (await resume(store, ctx)).state;
        if (rebuild && k === 0) {
          // state.json and its backup lost after the first choice was taken: the rebuilt run keeps it.
          const dir = store.paths('up').dir;
          rmSync(join(dir, 'state.json'));
          rmSync(join(dir, 'state.json.bak'), { force: true });
          const rebuilt = await rebuildRun(dir, repo.git);
          expect(rebuilt.ok, rebuilt.hint ?? '').toBe(true);
          expect(rebuilt.lost.join('\n')).not.toMatch(/choices/);
          expect(loadRunState(store.paths('up'))?.data.choices).toEqual(state.data.choices);
          state = loadRunState(store.paths('up'))!;
        }
      }
      expect(state.status).toBe('done');
      expect(asked).toEqual(['1-1', '2-1']);
      expect(state.conflicts.find((c) => c.id === '3-1')?.files[0]?.decidedBy).toBe('cache');
      const journal = readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8');
      expect(journal).toMatch(
        /"kind":"file-level","by":"runner","decision":"cache","reasoning":"gone\.txt: the person's earlier choice/,
      );
      expect(repo.sh('ls-tree', '--name-only', 'main')).not.toMatch(/gone\.txt/);
    },
  );

  it('a file edited without git add is taken; markers left are refused (conflict-marker-size aware)', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome, store, ctx } = await merge(repo);
    const c = only(outcome.state.handoff);
    const file = join(c.worktree, 'vals.txt');
    // Only the first hunk's markers are gone: still refused.
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^<<<<<<< .*\n/m, ''));
    const refused = await resume(store, ctx);
    expect(refused.kind).toBe('needs_person');
    expect(only(refused.state.handoff).refused).toEqual([
      'vals.txt still has conflict markers: remove every marker line',
    ]);
    writeFileSync(file, valuesFile(['both']));
    const done = await resume(store, ctx);
    expect(done.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['both']).trimEnd());
  });
});

describe("a person's work is never thrown away", () => {
  it("a failed check after a person's resolution presents it again, in place, with the failure to amend", async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome, store, ctx } = await merge(repo);
    const c = only(outcome.state.handoff);
    const file = join(c.worktree, 'vals.txt');
    writeFileSync(file, valuesFile(['BAD']));
    const failed = await resume(store, ctx);
    const amend = only(failed.state.handoff);
    expect(amend.conflict).toBe('1-1');
    // Their file, not fresh markers, and the failure that brought them back.
    expect(readFileSync(file, 'utf8')).toBe(valuesFile(['BAD']));
    expect(amend.failure).toMatchObject({
      check: 'build',
      summary: expect.stringMatching(/compile_error at vals\.txt:1: bad value/),
    });
    expect(amend.failure?.excerpt).toMatch(/bad value in 'v1 = BAD'/);
    expect(existsSync(amend.failure!.logFile)).toBe(true);
    expect(amend.files[0]?.instructions).toMatch(/check 'build' failed on it: amend the file/);
    expect(failed.state.handoff?.commands[0]).toMatch(/check 'build' failed: amend the resolution/);

    writeFileSync(file, valuesFile(['fine']));
    const done = await resume(store, ctx);
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['fine']).trimEnd());
    // The blamed answer was evicted; the amended one is what the cache holds.
    const cache = await ResolutionCache.forRepo(repo.git);
    const entries = (await cache.list()).filter((e) => e.rung === 'person' && e.file === undefined);
    expect(entries.map((e) => e.resolution)).toEqual(['v1 = fine\n']);
  });

  it("a person's amendment failing the same check again goes back to them again, whatever merge.max_recoveries says: a hand-off, never a failed run", async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome, store, ctx } = await merge(repo, {
      merge: { strategy: 'per_conflict', parallel: 1, max_recoveries: 0 },
    });
    const file = join(only(outcome.state.handoff).worktree, 'vals.txt');
    for (const bad of ['BAD', 'BAD again', 'still BAD']) {
      writeFileSync(file, valuesFile([bad]));
      const failed = await resume(store, ctx);
      expect(failed.kind === 'failed' ? failed.reason : failed.kind).toBe('needs_person');
      expect(only(failed.state.handoff).failure?.summary).toMatch(/bad value/);
      expect(failed.state.pendingRecovery ?? null).toBeNull();
    }
    const decisions = readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; kind?: string; by?: string; decision?: string })
      .filter((e) => e.type === 'decision' && e.kind === 'recovery');
    expect(decisions.map((d) => `${d.by} ${d.decision}`)).toEqual(Array(3).fill('runner retry-specific'));
    writeFileSync(file, valuesFile(['fine']));
    const done = await resume(store, ctx);
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
  });

  it('continue --accept-failure: the failure is expected at this step; the resolution is taken as it is and that failure is never blamed again', async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome, store, ctx } = await merge(repo);
    const file = join(only(outcome.state.handoff).worktree, 'vals.txt');
    writeFileSync(file, valuesFile(['BAD']));
    const failed = await resume(store, ctx);
    expect(failed.kind).toBe('needs_person');
    expect(failed.state.handoff?.accept).toBe('splintercat continue --accept-failure');
    // Nothing to accept while a hand-off asks only for conflicts to be settled.
    expect(() =>
      acceptPendingFailure(
        {
          ...failed.state,
          handoff: {
            ...failed.state.handoff!,
            conflicts: failed.state.handoff!.conflicts.map((c) => ({ ...c, failure: null })),
          },
        },
        new Date(),
      ),
    ).toThrow(/no failed check to accept/);

    const { state: accepting, accepted } = acceptPendingFailure(failed.state, new Date());
    expect(accepted).toMatchObject({ check: 'build', conflicts: ['1-1'] });
    const { run } = reopenRun(store, 'up');
    let done;
    try {
      run.persistence.save(accepting);
      done = await driveRun(run, { ...accepting, status: 'running', statusReason: null }, ctx);
    } finally {
      run.close();
    }
    expect(
      done.kind === 'failed'
        ? done.reason
        : done.kind === 'needs_person'
          ? JSON.stringify([
              done.reason,
              done.state.handoff?.conflicts.map((c) => c.refused),
              done.state.checks.map((c) => c.judgement),
            ])
          : done.kind,
    ).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['BAD']).trimEnd());
    expect(done.state.acceptedFailures).toHaveLength(1);
    // Every later failure of that check was compared with the accepted one, and none was blamed.
    const judged = done.state.checks.filter((c) => c.judgement && c.at > accepted.at);
    expect(judged.length).toBeGreaterThan(0);
    expect(
      judged.every(
        (c) =>
          c.judgement!.blamed.length === 0 &&
          c.judgement!.against.some((l) => l.startsWith('failures accepted at 1-1')),
      ),
    ).toBe(true);
  });

  it("doctor --rebuild then continue keeps the person's edit (no fresh markers)", async () => {
    const repo = chainRepo(
      1,
      () => 'fork',
      () => 'upstream',
    );
    const { outcome, store, ctx } = await merge(repo);
    const c = only(outcome.state.handoff);
    const file = join(c.worktree, 'vals.txt');
    writeFileSync(file, valuesFile(['mine']));
    rmSync(join(store.paths('up').dir, 'state.json'));
    rmSync(join(store.paths('up').dir, 'state.json.bak'), { force: true });
    const rebuilt = await rebuildRun(store.paths('up').dir, repo.git);
    expect(rebuilt.ok).toBe(true);
    const done = await resume(store, ctx);
    expect(
      done.kind === 'failed'
        ? done.reason
        : done.kind === 'needs_person'
          ? JSON.stringify(done.state.handoff)
          : done.kind,
    ).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['mine']).trimEnd());
  });
});

describe("people's resolutions are cached", () => {
  it("a person's hunk is replayed from the cache at a later cell (with its run, cell and file)", async () => {
    // Fork commit k and upstream commit k change the same line of file k: conflicts 1-1 (a.txt) and
    // 2-2 (b.txt) have the very same hunk.
    const repo = TestRepo.create();
    repo.commit('base', {
      'a.txt': 'x = 0\n',
      'b.txt': 'x = 0\n',
      'vals.txt': valuesFile(['0']),
      'check.mjs': checkScript,
    });
    repo.branch('upstream');
    repo.commit('fork 1', { 'a.txt': 'x = fork\n' });
    repo.commit('fork 2', { 'b.txt': 'x = fork\n' });
    repo.checkout('upstream');
    repo.commit('upstream 1', { 'a.txt': 'x = upstream\n' });
    repo.commit('upstream 2', { 'b.txt': 'x = upstream\n' });
    repo.checkout('main');
    const { outcome, store, ctx } = await merge(repo);
    const c = only(outcome.state.handoff);
    expect(c.conflict).toBe('1-1');
    writeFileSync(join(c.worktree, 'a.txt'), 'x = fork + upstream\n');
    const done = await resume(store, ctx);
    expect(done.kind === 'failed' ? done.reason : done.kind).toBe('done');
    expect(repo.sh('show', 'main:b.txt')).toBe('x = fork + upstream');
    const later = done.state.conflicts.find((x) => x.id === '2-2');
    expect(later?.files[0]?.hunks.map((h) => [h.rung, h.by])).toEqual([['cache', 'person:person']]);
    const cache = await ResolutionCache.forRepo(repo.git);
    expect(
      (await cache.list())
        .filter((e) => e.file === undefined)
        .map((e) => [e.rung, e.provenance.merge, e.provenance.cell, e.provenance.file]),
    ).toEqual([['person', 'up', '1-1', 'a.txt']]);
  });
});
