import type { RunEvent } from '../store/run-events.js';
import { usageOfEvents } from '../store/usage.js';
import type { ConflictState } from '../store/run-state.js';
import { topRung } from './build-grid.js';
import type { CheckView, CommitRef, ConflictView, ToolCallView, TranscriptView } from './model.js';
import type { RunSnapshot } from './snapshot.js';

function compareConflicts(a: ConflictState, b: ConflictState): number {
  return a.cell.i1 + a.cell.i2 - (b.cell.i1 + b.cell.i2) || a.cell.i1 - b.cell.i1;
}

function inputText(input: unknown): string {
  if (typeof input === 'string') return input;
  try {
    return JSON.stringify(input);
  } catch {
    return String(input);
  }
}

/**
 * The resolver's conversations of one conflict, from the journal: each `resolver_transcript`
 * takes the `tool_call`s of its (conflict, path) journalled since the previous one.
 */
function transcriptsOf(events: readonly RunEvent[], id: string): TranscriptView[] {
  const out: TranscriptView[] = [];
  const pending = new Map<string, ToolCallView[]>();
  for (const e of events) {
    if (e.type === 'tool_call' && e.conflict === id) {
      const key = e.path ?? '';
      const calls = pending.get(key) ?? [];
      calls.push({ turn: e.turn ?? null, tool: e.tool, input: inputText(e.input), ok: e.ok, output: e.output ?? '' });
      pending.set(key, calls);
    } else if (e.type === 'resolver_transcript' && e.conflict === id) {
      out.push({
        path: e.path,
        modelId: e.modelId,
        ok: e.ok,
        failure: e.failure,
        turns: e.turns,
        reasoning: e.reasoning,
        toolCalls: [...(pending.get(e.path) ?? []), ...(pending.get('') ?? [])],
      });
      pending.delete(e.path);
      pending.delete('');
    }
  }
  // Tool calls without a transcript (older journals, or a run killed in between).
  for (const [path, calls] of pending) {
    out.push({ path, modelId: null, ok: false, failure: null, turns: 0, reasoning: [], toolCalls: calls });
  }
  return out;
}

function usageOf(events: readonly RunEvent[], id: string): ConflictView['usage'] {
  // The resolver keys usage by `I1-I2` or `I1-I2:path`.
  const { calls, inputTokens, outputTokens, costUsd } = usageOfEvents(
    events,
    (e) => e.conflict !== null && (e.conflict === id || e.conflict.startsWith(`${id}:`)),
  );
  return { calls, inputTokens, outputTokens, costUsd };
}

/**
 * The journal's events of each conflict (tool calls, transcripts, model usage keyed `I1-I2` or
 * `I1-I2:path`), in order: one pass over the journal, so a run of thousands of conflicts and
 * events is read once, not once per conflict.
 */
function eventsByConflict(events: readonly RunEvent[]): Map<string, RunEvent[]> {
  const out = new Map<string, RunEvent[]>();
  for (const e of events) {
    if (e.type !== 'tool_call' && e.type !== 'resolver_transcript' && e.type !== 'model_usage') continue;
    if (e.conflict === null) continue;
    const colon = e.conflict.indexOf(':');
    const id = colon < 0 ? e.conflict : e.conflict.slice(0, colon);
    const list = out.get(id);
    if (list) list.push(e);
    else out.set(id, [e]);
  }
  return out;
}

/** Every conflict of the run in grid order, with its hunks, resolution diff, transcripts and checks. */
export function buildConflicts(snapshot: RunSnapshot, checks: readonly CheckView[]): ConflictView[] {
  const { state, grid } = snapshot;
  const axis = (list: CommitRef[] | undefined, i: number): CommitRef | null => list?.[i] ?? null;
  const byConflict = eventsByConflict(snapshot.events);
  const checksByCell = new Map<string, number[]>();
  for (const k of checks) {
    if (k.cell === null) continue;
    const list = checksByCell.get(k.cell);
    if (list) list.push(k.index);
    else checksByCell.set(k.cell, [k.index]);
  }
  return [...state.conflicts].sort(compareConflicts).map((c) => {
    const details = snapshot.conflicts[c.id];
    const resolved = c.files.flatMap((f) => f.hunks).filter((h) => h.status === 'resolved');
    return {
      id: c.id,
      i1: c.cell.i1,
      i2: c.cell.i2,
      status: c.status,
      attempts: c.attempts,
      resolvedInAttempt: c.resolvedInAttempt,
      blame: c.blame,
      outsideEdits: c.outsideEdits ?? [],
      rung: c.status === 'resolved' ? topRung(resolved.map((h) => h.rung)) : null,
      forkCommit: axis(grid?.forkAxis, c.cell.i1),
      upstreamCommit: axis(grid?.upstreamAxis, c.cell.i2),
      files: c.files.map((f) => ({
        path: f.path,
        kind: f.kind,
        hunks: f.hunks.map((h) => ({ index: h.index, status: h.status, rung: h.rung, by: h.by })),
        conflictHunks: details?.hunks[f.path] ?? [],
      })),
      resolution:
        c.resolutionCommit === null
          ? null
          : {
              commit: c.resolutionCommit,
              tree: c.resolutionTree,
              diff: details?.diff ?? null,
              diffTruncated: details?.diffTruncated ?? false,
            },
      transcripts: transcriptsOf(byConflict.get(c.id) ?? [], c.id),
      usage: usageOf(byConflict.get(c.id) ?? [], c.id),
      checks: checksByCell.get(c.id) ?? [],
      note: details?.note ?? null,
    };
  });
}
