import { describe, expect, it } from 'vitest';
import { killResumeScenario } from '../fixtures/store/kill-scenario.js';

describe('runner under SIGKILL (slow)', () => {
  it('survives 25 kills at random moments', async () => {
    const { killed } = await killResumeScenario(25, 80);
    expect(killed).toBeGreaterThanOrEqual(20);
  });
});
