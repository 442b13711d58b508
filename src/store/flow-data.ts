import * as z from 'zod';
import { checkProgressSchema } from './flow-checks.js';
import { personChoicesSchema } from './flow-choices.js';
import { recoveryMemorySchema } from './flow-recovery.js';
import { tipFactsSchema } from './flow-tips.js';

/** Which sub-record each field of the flat `data` of earlier versions belongs to. */
const FLAT_FIELDS = {
  batch: 'checks',
  validated: 'checks',
  fastOnly: 'checks',
  lastCheck: 'checks',
  finalValidated: 'checks',
  tipConflicts: 'tips',
  tipsAlongside: 'tips',
  retryContext: 'recovery',
  retryBase: 'recovery',
  plannedAtChecks: 'recovery',
  fileChoices: 'choices',
  handoffChoices: 'choices',
} as const;

/**
 * Earlier versions kept every field in one flat object (`data.batch`, `data.fileChoices`, ...):
 * each goes to its sub-record. A field of neither shape is left for the schema to drop.
 */
function fromFlat(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, Record<string, unknown>> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const owner = FLAT_FIELDS[key as keyof typeof FLAT_FIELDS] as string | undefined;
    if (owner === undefined) rest[key] = v;
    else (out[owner] ??= {})[key] = v;
  }
  for (const [owner, fields] of Object.entries(out)) {
    const nested = rest[owner];
    rest[owner] = typeof nested === 'object' && nested !== null ? { ...fields, ...nested } : fields;
  }
  return rest;
}

/**
 * The recovery loop's state, carried from node to node, one sub-record per concern, each read and
 * written through its own module: the checks' progress (flow-checks.ts), what the tips showed
 * (flow-tips.ts), the recovery loop's memory (flow-recovery.ts), a person's file choices
 * (flow-choices.ts). `doctor --rebuild` restores each from the journal (flow-rebuild.ts).
 */
export const flowDataSchema = z.preprocess(
  fromFlat,
  z.object({
    checks: checkProgressSchema.optional(),
    tips: tipFactsSchema.optional(),
    recovery: recoveryMemorySchema.optional(),
    choices: personChoicesSchema.optional(),
  }),
);
export type FlowData = z.output<typeof flowDataSchema>;
