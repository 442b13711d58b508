import type { ModelRung } from '../agents/index.js';
import type * as z from 'zod';
import type { RunEventInput, toolCallEvent } from '../store/run-events.js';

type Json = z.infer<typeof toolCallEvent>['input'];

const OUTPUT_LIMIT = 2000;
const REASONING_LIMIT = 4000;

function bound(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n… (${text.length - limit} more characters)`;
}

/** A tool's input as journal JSON (tool inputs come from the model: parsed JSON, but make sure). */
function asJson(value: unknown): Json {
  try {
    return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as Json);
  } catch {
    return String(value);
  }
}

/**
 * The journal events of the resolver conversations about one conflict: one `tool_call` per
 * tool call (bounded output) and one `resolver_transcript` per file with the model's reasoning
 * and how it ended — the report's account of what the model did and why.
 */
export function resolverTranscriptEvents(conflict: string, outcomes: ModelRung['outcomes']): RunEventInput[] {
  const events: RunEventInput[] = [];
  for (const { path, outcome } of outcomes) {
    for (const call of outcome.toolCalls) {
      events.push({
        type: 'tool_call',
        tool: call.tool,
        conflict,
        path,
        turn: call.turn,
        input: asJson(call.input),
        ok: !call.output.startsWith('Error:'),
        output: bound(call.output, OUTPUT_LIMIT),
      });
    }
    events.push({
      type: 'resolver_transcript',
      conflict,
      path,
      modelId: outcome.modelId,
      ok: outcome.ok,
      failure: outcome.ok ? null : { reason: outcome.reason, message: outcome.message },
      turns: outcome.turns,
      reasoning: outcome.reasoning.map((r) => bound(r, REASONING_LIMIT)),
      recoveries: outcome.recoveries,
    });
  }
  return events;
}
