import { SplintercatError, type ErrorDetails } from '../errors/index.js';

/** Why a model call failed for good (after the recovery steps that apply). */
export type ModelErrorKind = 'auth' | 'unavailable' | 'timeout' | 'context_too_long' | 'budget' | 'bad_request';

/**
 * A model call that cannot succeed. Callers branch on `kind`: `auth` stops the
 * run at once (exit 2, names the key variable); `budget` is a clean stop; the
 * others send the conflict to a human or the decision to its deterministic fallback.
 */
export class ModelError extends SplintercatError {
  readonly kind: ModelErrorKind;

  constructor(kind: ModelErrorKind, details: ErrorDetails) {
    super(`model_${kind}`, details, kind === 'auth' ? 2 : kind === 'budget' ? 3 : 1);
    this.name = 'ModelError';
    this.kind = kind;
  }

  /** Survives duplicate package copies (the code carries the kind). */
  static isModelError(value: unknown): value is ModelError {
    return SplintercatError.isInstance(value) && value.code.startsWith('model_') && 'kind' in value;
  }
}
