/**
 * `splintercat status` and `report --html` on a run the size of a year of a large upstream: a real
 * repository with a 1,500 x 300 grid (its refs written by `splintercat imerge start`), and a run
 * state and journal with a thousand conflicts and thousands of decisions, checks and tool calls,
 * written in the formats the store writes. Timed as a user runs them (one process of the built
 * CLI each), against the same commands on a small run in the same process.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeJsonFile } from '../../src/store/json-file.js';
import {
  initialRunState,
  runStateFile,
  type CheckRecord,
  type ConflictState,
  type RunState,
} from '../../src/store/run-state.js';
import { cliMain } from '../_cli.js';
import { benchGitEnv } from '../_env.js';
import { conflictPairs, generateGrid } from '../_grid.js';

function git(dir: string, args: string[]): string {
  return spawnSync('git', args, { cwd: dir, env: benchGitEnv, encoding: 'utf8' }).stdout.trim();
}

/** A run of `conflicts` resolved conflicts (two files, two hunks each) with a check, a decision and tool calls for each. */
function writeRun(dir: string, n1: number, n2: number, conflicts: number): { events: number } {
  const at = (k: number): string => new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + k * 1000).toISOString();
  const state0 = initialRunState({
    name: 'up',
    upstream: { ref: 'feature', oid: git(dir, ['rev-parse', 'feature']) },
    fork: { branch: 'main', originalOid: git(dir, ['rev-parse', 'main']) },
    workdir: dir,
    phase: 'resolve_conflicts',
    now: new Date(at(0)),
  });
  const rungs = ['cache', 'rule', 'model', 'person'] as const;
  const list: ConflictState[] = [];
  const checks: CheckRecord[] = [];
  // Events as the journal writes them (its `seq` added below): the store's own shapes.
  const events: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  for (let k = 0; list.length < conflicts; k++) {
    const cell = { i1: 1 + ((k * 7919) % n1), i2: 1 + ((k * 104_729) % n2) };
    const id = `${cell.i1}-${cell.i2}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const rung = rungs[k % 4] as (typeof rungs)[number];
    const files = [`src/d${k % 100}/file-${k}.c`, `include/h${k % 50}.h`].map((path) => ({
      path,
      kind: 'content',
      hunks: [1, 2].map((index) => ({
        index,
        status: 'resolved' as const,
        rung,
        by: rung === 'model' ? 'scripted' : rung,
        cacheKey: null,
      })),
    }));
    list.push({
      id,
      cell,
      files,
      status: 'resolved',
      resolutionTree: null,
      resolutionCommit: null,
      attempts: 1,
      resolvedInAttempt: 1,
      blame: null,
    });
    const t = at(k * 10);
    events.push({ ts: t, type: 'conflict_found', conflict: id, cell, files: [] });
    for (let c = 0; c < 3; c++)
      events.push({
        ts: t,
        type: 'tool_call',
        tool: 'view_conflict',
        conflict: id,
        input: { file: files[0]?.path ?? '' },
        ok: true,
        output: 'File: ...',
      });
    events.push({
      ts: t,
      type: 'decision',
      kind: 'check',
      by: 'runner',
      decision: 'fast',
      reasoning: `build, test-d${k % 6}: selected by 2 file(s)`,
      conflicts: [id],
    });
    events.push({
      ts: t,
      type: 'conflict_resolved',
      conflict: id,
      cell,
      attempt: 1,
      files: files.map((f) => ({
        path: f.path,
        hunks: f.hunks.map((h) => ({ index: h.index, rung, by: h.by ?? '' })),
      })),
      tree: null,
      commit: null,
    });
    for (const name of ['build', 'test']) {
      const record: CheckRecord = {
        name,
        cell,
        target: 'cell',
        commit: null,
        success: k % 17 !== 0,
        exitCode: k % 17 === 0 ? 2 : 0,
        timedOut: false,
        durationMs: 5000 + (k % 13) * 100,
        logFile: `${dir}/.splintercat/logs/${name}-${k}.log`,
        summary: null,
        attempt: 1,
        at: t,
      };
      checks.push(record);
      events.push({ ts: t, type: 'check_started', name, cell, attempt: 1 });
      events.push({ ts: t, type: 'check_finished', check: record });
    }
  }
  const state: RunState = {
    ...state0,
    status: 'stopped',
    grid: { size: { i1: n1, i2: n2 }, position: null, blockers: [] },
    conflicts: list,
    checks,
    strategy: { kind: 'batch', batchSize: 5, decidedBy: 'fallback', reasoning: 'predicted', decidedAt: at(0) },
    data: { tips: { tipConflicts: list.map((c) => c.files.map((f) => f.path)) } },
  };
  const runDir = join(dir, '.git', 'splintercat', 'up');
  mkdirSync(runDir, { recursive: true });
  writeJsonFile(join(runDir, 'state.json'), state, runStateFile);
  writeFileSync(
    join(runDir, 'events.jsonl'),
    events.map((e, k) => `${JSON.stringify({ ...e, seq: k + 1 })}\n`).join(''),
  );
  return { events: events.length };
}

function time(dir: string, args: string[]): number {
  const runs: number[] = [];
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cliMain, ...args], {
      cwd: dir,
      env: benchGitEnv,
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    runs.push(performance.now() - t0);
    if (r.status !== 0)
      throw new Error(`splintercat ${args.join(' ')} failed (exit ${r.status}): ${r.stderr.slice(-2000)}`);
  }
  return [...runs].sort((a, b) => a - b)[1] as number;
}

export interface StateAtScale {
  grid: string;
  conflicts: number;
  events: number;
  journalMb: number;
  statusMs: number;
  statusJsonMs: number;
  reportMs: number;
  reportMb: number;
  small: { statusMs: number; reportMs: number };
}

function measure(n1: number, n2: number, conflicts: number): Omit<StateAtScale, 'small'> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'bench-state-')));
  const dir = join(root, 'repo');
  mkdirSync(dir);
  try {
    generateGrid(dir, n1, n2, conflictPairs(n1, n2, 40), 200);
    const start = spawnSync(process.execPath, [cliMain, 'imerge', 'start', '--name', 'up', 'feature'], {
      cwd: dir,
      env: benchGitEnv,
      encoding: 'utf8',
    });
    if (start.status !== 0) throw new Error(`imerge start failed: ${start.stderr.slice(-2000)}`);
    git(dir, ['checkout', '-q', '-f', 'main']);
    const { events } = writeRun(dir, n1, n2, conflicts);
    const html = join(root, 'report.html');
    return {
      grid: `${n1} x ${n2}`,
      conflicts,
      events,
      journalMb: statSync(join(dir, '.git', 'splintercat', 'up', 'events.jsonl')).size / 1e6,
      statusMs: time(dir, ['status', '--name', 'up']),
      statusJsonMs: time(dir, ['status', '--name', 'up', '--json']),
      reportMs: time(dir, ['report', '--name', 'up', '--html', html]),
      reportMb: statSync(html).size / 1e6,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** status, status --json and report --html at n1 x n2 with `conflicts` conflicts, and on a 6 x 5 run of 5. */
export function stateAtScale(n1 = 1500, n2 = 300, conflicts = 1000): StateAtScale {
  const small = measure(6, 5, 5);
  return { ...measure(n1, n2, conflicts), small: { statusMs: small.statusMs, reportMs: small.reportMs } };
}
