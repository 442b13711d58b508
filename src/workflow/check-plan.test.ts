import { describe, expect, it } from 'vitest';
import type { RunState } from '../store/run-state.js';
import { planCheck } from './check-plan.js';
import type { WorkflowContext } from './ports.js';

/** A context whose configuration is all planCheck reads when no check can run. */
function withChecks(workflow: string[], commands: Record<string, string>): WorkflowContext {
  return { config: { check: { workflow, commands, fast: [], select: {} } } } as unknown as WorkflowContext;
}

describe('planCheck with no check to run', () => {
  it('says why from the configuration, on every cell and the final one', async () => {
    const state = { conflicts: [] } as unknown as RunState;
    for (const final of [false, true]) {
      expect(await planCheck(withChecks([], {}), state, ['1-2'], final)).toEqual({
        kind: 'full',
        names: [],
        reason: 'check.workflow names none',
      });
      expect((await planCheck(withChecks(['build', 'test'], {}), state, ['1-2'], final)).reason).toBe(
        'none is configured in check.commands',
      );
    }
    const configured = await planCheck(withChecks(['build'], { build: 'make' }), state, ['1-2'], true);
    expect(configured).toEqual({ kind: 'full', names: ['build'], reason: 'the final cell: every check runs' });
  });
});
