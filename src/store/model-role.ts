import * as z from 'zod';

/** What a model is asked to do: the one list config, usage, the journal and the report use. */
export const MODEL_ROLES = ['resolver', 'reviewer', 'summarizer', 'planner'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];
export const modelRoleSchema = z.enum(MODEL_ROLES);
