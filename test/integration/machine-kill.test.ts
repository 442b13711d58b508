import { describe, expect, it } from 'vitest';
import { killResumeScenario } from '../fixtures/store/kill-scenario.js';

describe('runner under SIGKILL', () => {
  it('resumes after kills at random points to the same final state, each effect journalled once', async () => {
    const { killed } = await killResumeScenario(Number(process.env.KILL_COUNT ?? 6));
    expect(killed).toBeGreaterThan(0);
  });
});
