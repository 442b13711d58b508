import { describe, expect, it } from 'vitest';
import { createLogger } from '../log/index.js';
import { initialRunState } from '../store/run-state.js';
import type { RunEvent } from '../store/run-events.js';
import { ProgressDisplay } from './progress-display.js';

const state = initialRunState({
  name: 'up',
  upstream: { ref: 'upstream', oid: 'a'.repeat(40) },
  fork: { branch: 'main', originalOid: 'b'.repeat(40) },
  workdir: '/repo',
  phase: 'initialize',
  now: new Date('2026-01-01T00:00:00Z'),
});
const CLEAR = '\r\x1b[2K';
const now = (): Date => new Date('2026-01-01T00:01:00Z');
const finished = {
  seq: 2,
  ts: '2026-01-01T00:00:30Z',
  type: 'node_finished',
  node: 'initialize',
  next: 'plan_strategy',
  step: 1,
  durationMs: 30_000,
} as RunEvent;

describe('ProgressDisplay', () => {
  it('on a terminal: one line redrawn in place, lifted while a log line is written, removed at the end', () => {
    const written: string[] = [];
    const display = new ProgressDisplay({ isTTY: true, columns: 200, write: (s: string) => written.push(s) }, now);
    display.update(state, finished);
    expect(
      written.at(-1)?.startsWith(`${CLEAR}conflicts 0 done, 0 left | no check running | elapsed 1m 00s (worked 30.0s`),
    ).toBe(true);
    display.consoleStream().write('a log line\n');
    expect(written.slice(-3, -1)).toEqual([CLEAR, 'a log line\n']);
    expect(written.at(-1)?.startsWith(`${CLEAR}conflicts`)).toBe(true);
    display.stop();
    expect(written.at(-1)).toBe(CLEAR);
  });

  it('not on a terminal: a plain log line per step, nothing redrawn', () => {
    const lines: string[] = [];
    const logs = createLogger({ consoleStream: { write: (s) => lines.push(s) } });
    const written: string[] = [];
    const display = new ProgressDisplay({ isTTY: false, write: (s: string) => written.push(s) }, now);
    display.useLogger(logs.logger);
    display.update(state, null);
    display.update(state, finished);
    display.stop();
    expect(written).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/progress: conflicts 0 done, 0 left \| no check running/);
  });
});
