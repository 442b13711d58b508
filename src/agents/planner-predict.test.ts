import { describe, expect, it } from 'vitest';
import { predictStrategies, type PredictionInput } from './planner-predict.js';

const input: PredictionInput = {
  conflicts: 36,
  checkMs: 20_000,
  fullMs: 120_000,
  fullEvery: 0,
  failureRate: 0.15,
  batchSizes: [2, 3, 5, 10],
  available: ['optimistic', 'batch', 'per_conflict'],
};

describe('predictStrategies', () => {
  it('puts batches first when wrong resolutions are a few among many, and says what each costs', () => {
    const [best, ...rest] = predictStrategies(input);
    expect(best?.strategy).toBe('batch');
    expect(rest.map((p) => p.strategy).sort()).toEqual(['optimistic', 'per_conflict']);
    const perConflict = rest.find((p) => p.strategy === 'per_conflict');
    // 35 checks; for each of 5.4 wrong ones the failed check judged on the cell's fork and upstream commits, and a retry; the final validation.
    expect(perConflict?.ms).toBeCloseTo((35 + 5.4 * 3) * 20_000 + 120_000, -3);
    expect(best!.ms).toBeLessThan(perConflict!.ms);
  });

  it('counts what a wrong resolution costs a batch: its bisection, each failed check judged, the retry', () => {
    const [batch] = predictStrategies({ ...input, batchSizes: [8], available: ['batch'] });
    // 4 batches, the last on the final cell; per wrong one: 3 probes, 2 x (1 + 1.5) judging runs, 1 retry.
    expect(batch?.ms).toBeCloseTo((4 + 5.4 * 9) * 20_000 + 120_000, -3);
    expect(batch?.checks).toBe(Math.round(4 + 5.4 * 9 + 1));
  });

  it('checks every resolution on its own when they are often wrong, and all at once when never', () => {
    expect(predictStrategies({ ...input, failureRate: 0.6 })[0]?.strategy).toBe('per_conflict');
    expect(predictStrategies({ ...input, failureRate: 0 })[0]?.strategy).toBe('optimistic');
  });

  it('costs full checks every full_every resolutions, and offers only the available strategies', () => {
    const every = predictStrategies({ ...input, fullEvery: 10, available: ['per_conflict'] });
    const never = predictStrategies({ ...input, available: ['per_conflict'] });
    expect(every.map((p) => p.strategy)).toEqual(['per_conflict']);
    expect((every[0]?.ms ?? 0) - (never[0]?.ms ?? 0)).toBe(3 * 120_000);
  });
});
