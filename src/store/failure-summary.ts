import * as z from 'zod';
import { failureTypes } from '../checks/types.js';

/** What a failed check's log says went wrong (the parser's or the summarizer model's reading). */
export const failureSummarySchema = z.object({
  error_type: z.enum(failureTypes),
  location: z.string().nullable(),
  root_cause: z.string(),
  excerpt: z.string(),
});
