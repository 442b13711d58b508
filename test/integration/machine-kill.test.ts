import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { Journal } from '../../src/store/journal.js';
import { parseRunEvent, type RunEvent } from '../../src/workflow/state/events.js';

const repoRoot = resolve(import.meta.dirname, '../..');
const child = join(repoRoot, 'test/fixtures/store/machine-child.ts');
const ITERATIONS = 12;

interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  lines: string[];
}

/** Run the fixture machine; when `killAtStep` is set, SIGKILL it as soon as it prints that step. */
function runChild(root: string, calls: string, killAtStep?: number): Promise<ChildRun> {
  return new Promise((done, fail) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', child, root, calls, String(ITERATIONS)], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    createInterface({ input: proc.stdout }).on('line', (line) => {
      lines.push(line);
      if (killAtStep !== undefined && line === `step ${killAtStep}`) proc.kill('SIGKILL');
    });
    proc.on('error', fail);
    proc.on('close', (code, signal) => {
      if (code !== 0 && signal === null) fail(new Error(`child exited ${code}: ${stderr}`));
      else done({ code, signal, lines });
    });
  });
}

/** A small seeded PRNG so a failing run can be replayed from the printed seed. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function readState(root: string): unknown {
  return JSON.parse(readFileSync(join(root, 'demo', 'state.json'), 'utf8'));
}

function events(root: string): RunEvent[] {
  return new Journal<RunEvent>(join(root, 'demo', 'events.jsonl'), { parse: parseRunEvent }).read().entries;
}

function effects(root: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of events(root)) if (e.type === 'effect') counts.set(e.key, (counts.get(e.key) ?? 0) + 1);
  return counts;
}

describe('runner under SIGKILL', () => {
  it('resumes after kills at random points to the same final state, each effect journalled once', async () => {
    const reference = tempDir();
    const refCalls = join(reference, 'calls.log');
    const full = await runChild(reference, refCalls);
    expect(full.lines.at(-1)).toBe('outcome done');
    const totalSteps = full.lines.filter((l) => l.startsWith('step ')).length;
    expect(totalSteps).toBeGreaterThan(ITERATIONS);
    const expected = readState(reference);

    const seed = Number(process.env.KILL_SEED ?? Date.now() % 100000);
    const random = prng(seed);
    const root = tempDir();
    const calls = join(root, 'calls.log');
    const kills = Number(process.env.KILL_COUNT ?? 6);
    let killed = 0;
    for (let k = 0; k < kills; k++) {
      const at = 1 + Math.floor(random() * 4);
      const run = await runChild(root, calls, at);
      if (run.signal === 'SIGKILL') killed++;
      else expect(run.lines.at(-1), `seed ${seed}`).toBe('outcome done');
    }
    const last = await runChild(root, calls);
    expect(last.lines.at(-1), `seed ${seed}`).toBe('outcome done');
    expect(killed, `seed ${seed}`).toBeGreaterThan(0);

    expect(readState(root), `seed ${seed}`).toEqual(expected);
    const counts = effects(root);
    expect([...counts.keys()].sort()).toEqual(Array.from({ length: ITERATIONS }, (_, i) => `call-${i}`).sort());
    expect([...counts.values()].every((n) => n === 1), `seed ${seed}`).toBe(true);
    // A real call repeats only when a kill fell between the call and its journal record.
    const callLines = readFileSync(calls, 'utf8').trim().split('\n');
    expect(callLines.length - ITERATIONS, `seed ${seed}`).toBeLessThanOrEqual(killed);
    // Progress is kept: each kill re-runs at most the one node it interrupted.
    const nodeRuns = ITERATIONS + 2;
    const entered = events(root).filter((e) => e.type === 'node_entered').length;
    expect(entered, `seed ${seed}`).toBeLessThanOrEqual(nodeRuns + killed);
    expect(events(reference).filter((e) => e.type === 'node_entered')).toHaveLength(nodeRuns);
    expect(existsSync(join(root, 'demo', 'lock'))).toBe(false);
  });
});
