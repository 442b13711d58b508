import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { Journal } from '../../src/store/journal.js';
import { parseRunEvent, type RunEvent } from '../../src/store/run-events.js';

const clock = { now: () => new Date('2026-01-01T00:00:00.000Z') };

function open(path: string): Journal<RunEvent> {
  return new Journal<RunEvent>(path, { clock, parse: parseRunEvent });
}

/** Resolve when `predicate` holds for the collected entries (checked on each delivery). */
function collector(): { got: RunEvent[]; push: (e: RunEvent) => void; until: (n: number) => Promise<void> } {
  const got: RunEvent[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    got,
    push: (e) => {
      got.push(e);
      for (const w of waiters.filter((x) => got.length >= x.n)) w.resolve();
    },
    until: (n) => (got.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
  };
}

describe('journal', () => {
  it('appends numbered, stamped, validated lines and continues the sequence in a new instance', () => {
    const path = join(tempDir(), 'events.jsonl');
    const j = open(path);
    expect(j.read()).toEqual({ entries: [], truncatedTail: false, badLines: [] });
    const first = j.append({ type: 'node_entered', node: 'a', step: 0 });
    expect(first).toEqual({ seq: 1, ts: '2026-01-01T00:00:00.000Z', type: 'node_entered', node: 'a', step: 0 });
    j.append({ type: 'node_finished', node: 'a', next: 'b', step: 1, durationMs: 3 });
    const again = open(path);
    expect(again.append({ type: 'status_changed', status: 'done', reason: null }).seq).toBe(3);
    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    expect(again.read().entries.map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it('ignores a truncated last line on read and cuts it off on the next append', () => {
    const path = join(tempDir(), 'events.jsonl');
    const j = open(path);
    j.append({ type: 'node_entered', node: 'a', step: 0 });
    appendFileSync(path, '{"seq":2,"ts":"2026-01-01T00:00:00.000Z","type":"node_fin');
    const read = open(path).read();
    expect(read.truncatedTail).toBe(true);
    expect(read.entries.map((e) => e.seq)).toEqual([1]);
    const k = open(path);
    expect(k.append({ type: 'node_entered', node: 'b', step: 1 }).seq).toBe(2);
    const after = k.read();
    expect(after).toMatchObject({ truncatedTail: false, badLines: [] });
    expect(after.entries.map((e) => (e.type === 'node_entered' ? e.node : ''))).toEqual(['a', 'b']);
  });

  it('reports complete lines that are not valid events', () => {
    const path = join(tempDir(), 'events.jsonl');
    writeFileSync(
      path,
      '{"seq":1,"ts":"x","type":"node_entered","node":"a","step":0}\nnot json\n{"seq":2,"ts":"x","type":"no_such"}\n',
    );
    const read = open(path).read();
    expect(read.entries).toHaveLength(1);
    expect(read.badLines).toEqual([2, 3]);
  });

  it('subscribe delivers existing then new entries, waits for a partial line, stops on unsubscribe', async () => {
    const path = join(tempDir(), 'events.jsonl');
    const writer = open(path);
    writer.append({ type: 'node_entered', node: 'a', step: 0 });
    const c = collector();
    const stop = open(path).subscribe(c.push, { pollMs: 20 });
    await c.until(1);
    writer.append({ type: 'node_entered', node: 'b', step: 1 });
    await c.until(2);
    // A line written in two pieces is delivered once, when complete.
    appendFileSync(path, '{"seq":3,"ts":"2026-01-01T00:00:00.000Z","type":"node_entered",');
    appendFileSync(path, '"node":"c","step":2}\n');
    await c.until(3);
    stop();
    // A fresh writer: the hand-written line above bypassed `writer`'s sequence counter.
    open(path).append({ type: 'node_entered', node: 'd', step: 3 });
    // A second subscriber that sees 'd' proves the write happened while the first was unsubscribed.
    const d = collector();
    const stop2 = open(path).subscribe(d.push, { pollMs: 20, afterSeq: 3 });
    await d.until(1);
    stop2();
    expect(c.got.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(d.got.map((e) => e.seq)).toEqual([4]);
  });

  it('follow() is an async iterator that starts before the file exists and ends on abort', async () => {
    const path = join(tempDir(), 'events.jsonl');
    const controller = new AbortController();
    const reader = open(path);
    const seen: number[] = [];
    const done = (async () => {
      for await (const e of reader.follow({ pollMs: 20, signal: controller.signal })) {
        seen.push(e.seq);
        if (e.seq === 3) controller.abort();
      }
    })();
    const writer = open(path);
    for (let i = 0; i < 3; i++) writer.append({ type: 'node_entered', node: `n${i}`, step: i });
    await done;
    expect(seen).toEqual([1, 2, 3]);
  });
});
