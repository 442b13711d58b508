import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { mockGateway, scriptedModel, textTurn } from '../../../test/fixtures/agents/conflict-repo.js';
import { reviewResolution } from './reviewer.js';

const input = {
  path: 'a.txt',
  hunks: [{ index: 1, base: 'x\n', ours: 'x fork\n', theirs: 'x upstream\n' }],
  resolution: 'x fork\n',
  drops: ['upstream line 1 dropped: x upstream'],
};

describe('reviewResolution', () => {
  it('records its usage under the reviewer role, with the prices of its model', async () => {
    const model = scriptedModel(
      [textTurn('{"verdict":"accept","summary":"fine","lines":[]}', { input: 1000, output: 100 })],
      'rev',
    );
    const gateway = mockGateway(model, 'reviewer', { prices: { rev: { input: 2, output: 10 } } });
    expect(await reviewResolution(input, { gateway })).toEqual({ accepted: true, modelId: 'rev', summary: 'fine' });
    const usage = gateway.usage.byRole();
    expect(usage.reviewer).toMatchObject({ calls: 1, inputTokens: 1000, outputTokens: 100 });
    expect(usage.reviewer.costUsd).toBeCloseTo(0.003);
    expect(usage.resolver.calls).toBe(0);
  });

  it('a rejection keeps a bounded list of the lines at issue', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => ({ line: i + 1, why: 'w'.repeat(1000) }));
    const model = scriptedModel([textTurn(JSON.stringify({ verdict: 'reject', summary: 'no', lines }))], 'rev');
    const verdict = await reviewResolution(input, { gateway: mockGateway(model, 'reviewer') });
    expect(verdict.accepted).toBe(false);
    if (verdict.accepted) return;
    expect(verdict.why).toBe('rejected: no');
    expect(verdict.lines).toHaveLength(10);
    expect(verdict.lines[0]?.why).toHaveLength(200);
  });

  it('the budget counts every role: a spent budget refuses the review, which is no acceptance', async () => {
    const model = scriptedModel(
      [
        textTurn('{"verdict":"accept","summary":"fine","lines":[]}', { input: 1_000_000, output: 0 }),
        textTurn('{"verdict":"accept","summary":"fine","lines":[]}'),
      ],
      'rev',
    );
    const gateway = mockGateway(model, 'reviewer', { budgetUsd: 1, prices: { rev: { input: 1, output: 1 } } });
    expect((await reviewResolution(input, { gateway })).accepted).toBe(true);
    const second = await reviewResolution(input, { gateway });
    expect(second).toMatchObject({ accepted: false, modelId: 'rev' });
    if (!second.accepted) expect(second.why).toMatch(/^the reviewer failed: .*budget/i);
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('an answer that is not the verdict, or an error, is never an acceptance', async () => {
    for (const text of ['sure, looks right', '{"verdict":"maybe","summary":"?"}', '{"summary":"no verdict"}']) {
      const verdict = await reviewResolution(input, {
        gateway: mockGateway(scriptedModel([textTurn(text)], 'rev'), 'reviewer'),
      });
      expect(verdict).toMatchObject({
        accepted: false,
        why: 'the reviewer answered with no verdict it could be read as',
      });
    }
    const failing = new MockLanguageModelV3({
      modelId: 'rev',
      doGenerate: async () => {
        throw new Error('socket hang up');
      },
    });
    expect((await reviewResolution(input, { gateway: mockGateway(failing, 'reviewer') })).accepted).toBe(false);
  });

  it('the prompt holds the three sides, the resolution and the audit, as data', async () => {
    const model = scriptedModel([textTurn('{"verdict":"accept","summary":"ok","lines":[]}')], 'rev');
    await reviewResolution(input, { gateway: mockGateway(model, 'reviewer') });
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    for (const part of ['hunk 1 base', 'x fork', 'x upstream', '1: x fork', 'upstream line 1 dropped: x upstream'])
      expect(prompt).toContain(part);
    expect(prompt).toMatch(/BEGIN DATA [0-9a-f]{12}: audit/);
  });

  it('the prompt stays bounded however many and however long the hunks are', async () => {
    const long = 'y'.repeat(50_000);
    const hunks = Array.from({ length: 60 }, (_, i) => ({ index: i + 1, base: long, ours: long, theirs: long }));
    const model = scriptedModel([textTurn('{"verdict":"accept","summary":"ok","lines":[]}')], 'rev');
    const drops = Array.from({ length: 500 }, (_, i) => `fork line ${i} dropped: x`);
    await reviewResolution({ ...input, hunks, resolution: long, drops }, { gateway: mockGateway(model, 'reviewer') });
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt.length).toBeLessThan(200_000);
    expect(prompt).toContain('(48 more hunks not shown)');
    expect(prompt).toContain('(460 more)');
  });
});
