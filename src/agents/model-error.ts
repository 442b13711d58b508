import { SplintercatError, type ErrorDetails } from '../errors/index.js';

/** Why a model call failed for good (after the recovery steps that apply). */
export type ModelErrorReason = 'auth' | 'unavailable' | 'timeout' | 'context_too_long' | 'budget' | 'bad_request';

/**
 * A model call that cannot succeed. Callers branch on `reason`: `auth` stops the
 * run at once (a usage error naming the key variable); `budget` is a clean stop for a
 * person; the others send the conflict to the person or the decision to its deterministic fallback.
 */
export class ModelError extends SplintercatError {
  readonly reason: ModelErrorReason;

  constructor(reason: ModelErrorReason, details: ErrorDetails) {
    super(`model_${reason}`, details);
    this.name = 'ModelError';
    this.reason = reason;
  }

  /** Survives duplicate package copies (the code carries the reason). */
  static isModelError(value: unknown): value is ModelError {
    return SplintercatError.isInstance(value) && value.code.startsWith('model_') && 'reason' in value;
  }
}
