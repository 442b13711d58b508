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

/** Every conflict of the run in grid order, with its hunks, resolution diff, transcripts and checks. */
export function buildConflicts(snapshot: RunSnapshot, checks: readonly CheckView[]): ConflictView[] {
  const { state, events, grid } = snapshot;
  const axis = (list: CommitRef[] | undefined, i: number): CommitRef | null => list?.[i] ?? null;
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
      commit1: axis(grid?.axis1, c.cell.i1),
      commit2: axis(grid?.axis2, c.cell.i2),
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
      transcripts: transcriptsOf(events, c.id),
      usage: usageOf(events, c.id),
      checks: checks.filter((k) => k.cell === c.id).map((k) => k.index),
      note: details?.note ?? null,
    };
  });
}
