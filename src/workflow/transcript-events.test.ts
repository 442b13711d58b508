import { describe, expect, it } from 'vitest';
import { parseRunEvent } from '../store/run-events.js';
import { resolverTranscriptEvents } from './transcript-events.js';

describe('resolverTranscriptEvents', () => {
  it('journals each tool call (bounded, error calls not ok) and one transcript per file, all valid events', () => {
    const events = resolverTranscriptEvents('3-4', [
      {
        path: 'src/a.c',
        outcome: {
          ok: true,
          files: { 'src/a.c': 'x' },
          modelId: 'm1',
          reasoning: ['Both sides rename the same function; keep upstream name.'],
          toolCalls: [
            { turn: 1, tool: 'view_conflict', input: { file: 'src/a.c' }, output: 'x'.repeat(5000) },
            { turn: 2, tool: 'read_file', input: { path: '../etc' }, output: 'Error: outside the sandbox' },
          ],
          turns: 2,
          recoveries: [],
        },
      },
      {
        path: 'b.txt',
        outcome: {
          ok: false,
          reason: 'turn_limit',
          message: 'no accepted resolution',
          modelId: 'm1',
          reasoning: [],
          toolCalls: [],
          turns: 10,
          recoveries: ['fresh-conversation'],
        },
      },
    ]);
    expect(events.map((e) => e.type)).toEqual(['tool_call', 'tool_call', 'resolver_transcript', 'resolver_transcript']);
    expect(events[0]).toMatchObject({ tool: 'view_conflict', conflict: '3-4', path: 'src/a.c', turn: 1, ok: true });
    expect((events[0] as { output: string }).output.length).toBeLessThan(2100);
    expect(events[1]).toMatchObject({ ok: false });
    expect(events[3]).toMatchObject({
      ok: false,
      failure: { reason: 'turn_limit' },
      recoveries: ['fresh-conversation'],
    });
    for (const e of events) expect(parseRunEvent({ seq: 1, ts: '2026-01-01T00:00:00Z', ...e })).toBeDefined();
  });
});
