import { describe, expect, it } from 'vitest';
import type { CheckResult, FailureSummary } from '../../src/checks/types.js';
import { chooseStrategy, planRecovery, type FailureContext, type MergeContext } from '../../src/agents/planner.js';
import { reviewRepeatedFailures } from '../../src/agents/planner-review.js';
import { summarizeFailure } from '../../src/agents/summarizer.js';
import { truncateLog } from '../../src/agents/log-truncate.js';
import { mockGateway, scriptedModel, textTurn } from '../fixtures/agents/conflict-repo.js';

const result: CheckResult = {
  name: 'build',
  command: 'make',
  success: false,
  exitCode: 2,
  signal: null,
  timedOut: false,
  durationMs: 1200,
  logFile: '/tmp/build-1.log',
  tail: [],
};

/** Stand-in for src/checks' extractor (not landed yet when this was written): first "error:" line. */
function extract(log: string): FailureSummary {
  const line = log.split('\n').find((l) => /error:/.test(l)) ?? '';
  const loc = /^([^:\s]+:\d+)/.exec(line)?.[1] ?? null;
  return { error_type: 'compile_error', location: loc, root_cause: line || 'unknown failure', excerpt: line };
}

const bigLog = [
  'make: entering directory build',
  ...Array.from({ length: 100_000 }, (_, i) => `compiling unit ${i}.c`),
  'src/x.c:12: error: unknown type name Foo',
  ...Array.from({ length: 50_000 }, (_, i) => `compiling unit b${i}.c`),
  'make: *** [all] Error 1',
].join('\n');

describe('summarizer', () => {
  it('offline: the deterministic extractor alone', async () => {
    const out = await summarizeFailure({ result, log: bigLog }, { gateway: null, extract });
    expect(out).toEqual({ summary: extract(bigLog), source: 'extractor', reason: 'offline' });
  });

  it('uses the model answer; the prompt is bounded and carries the extractor answer and the error line', async () => {
    const answer = {
      error_type: 'compile_error',
      location: 'src/x.c:12',
      root_cause: 'Foo is not declared after the merge.',
      excerpt: 'src/x.c:12: error: unknown type name Foo',
    };
    const model = scriptedModel([textTurn(JSON.stringify(answer))], 'mock-summarizer');
    const gateway = mockGateway(model, 'summarizer', { prices: { 'mock-summarizer': { input: 1, output: 2 } } });
    const out = await summarizeFailure({ result, log: bigLog }, { gateway, extract });
    expect(out.source).toBe('model');
    expect(out.summary).toEqual(answer);
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(bigLog.length).toBeGreaterThan(2_000_000);
    expect(prompt.length).toBeLessThan(30_000);
    expect(prompt).toContain('src/x.c:12: error: unknown type name Foo');
    expect(prompt).toContain('make: entering directory build');
    expect(prompt).toContain('make: *** [all] Error 1');
    expect(prompt).toContain('A deterministic extractor proposed');
    // Cost from the price table: 100 input + 20 output tokens at $1/$2 per million.
    expect(gateway.usage.byRole().summarizer.costUsd).toBeCloseTo((100 * 1 + 20 * 2) / 1e6, 12);
  });

  it.each([
    ['not JSON at all', 'The build failed because of Foo.'],
    ['wrong enum', JSON.stringify({ error_type: 'syntax', location: null, root_cause: 'x', excerpt: 'y' })],
    ['missing field', JSON.stringify({ error_type: 'compile_error', location: null })],
  ])('an invalid model answer (%s) falls back to the extractor', async (_, text) => {
    const out = await summarizeFailure(
      { result, log: bigLog },
      { gateway: mockGateway(scriptedModel([textTurn(text)], 'm'), 'summarizer'), extract },
    );
    expect(out.source).toBe('extractor');
    expect(out.reason).toBe('invalid_answer');
    expect(out.summary).toEqual(extract(bigLog));
  });

  it('a timed-out check is a timeout whatever the model says', async () => {
    const answer = { error_type: 'test_failure', location: null, root_cause: 'tests hung', excerpt: '' };
    const out = await summarizeFailure(
      { result: { ...result, timedOut: true }, log: 'running tests' },
      { gateway: mockGateway(scriptedModel([textTurn(JSON.stringify(answer))], 'm'), 'summarizer'), extract },
    );
    expect(out.summary.error_type).toBe('timeout');
  });

  it('truncateLog keeps head, error lines and tail within the bound', () => {
    const t = truncateLog(bigLog, 10_000);
    expect(t.length).toBeLessThanOrEqual(10_300);
    expect(t).toContain('error: unknown type name Foo');
    expect(t.split('\n')[0]).toBe('make: entering directory build');
    expect(t.endsWith('make: *** [all] Error 1')).toBe(true);
    expect(truncateLog('short', 100)).toBe('short');
  });
});

const merge = (over: Partial<MergeContext> = {}): MergeContext => ({
  source_ref: 'upstream/main',
  target_branch: 'fork',
  num_source_commits: 8,
  num_target_commits: 2,
  estimated_conflicts: 2,
  available_strategies: ['optimistic', 'batch', 'per_conflict'],
  default_batch_size: 10,
  ...over,
});

const failure = (over: Partial<FailureContext> = {}): FailureContext => ({
  current_strategy: 'batch',
  conflicts_resolved: 3,
  failure_summary: {
    error_type: 'compile_error',
    location: 'src/b.c:10',
    root_cause: 'missing decl',
    excerpt: 'src/b.c:10: error',
  },
  resolutions: [
    { i1: 1, i2: 1, files: ['src/a.c'] },
    { i1: 2, i2: 1, files: ['src/b.c'] },
    { i1: 3, i2: 2, files: ['src/c.c'] },
  ],
  previous_attempts: [],
  max_retries: 5,
  attempts_so_far: 1,
  available_strategies: ['optimistic', 'batch', 'per_conflict'],
  ...over,
});

describe('planner: offline policy', () => {
  it('strategy from commit counts and the conflict estimate', async () => {
    expect((await chooseStrategy(merge(), { gateway: null })).strategy).toBe('optimistic');
    const many = await chooseStrategy(merge({ num_source_commits: 100, estimated_conflicts: 40 }), { gateway: null });
    expect(many).toMatchObject({ strategy: 'batch', batch_size: 10, source: 'policy' });
    expect((await chooseStrategy(merge({ estimated_conflicts: null }), { gateway: null })).strategy).toBe(
      'per_conflict',
    );
    expect(
      (await chooseStrategy(merge({ available_strategies: ['batch', 'per_conflict'] }), { gateway: null })).strategy,
    ).toBe('per_conflict');
  });

  it('recovery from the failure and its history', async () => {
    expect(await planRecovery(failure(), { gateway: null })).toMatchObject({
      decision: 'retry-specific',
      conflicts_to_retry: [[2, 1]],
    });
    const repeated = failure({
      previous_attempts: [
        {
          strategy: 'batch',
          recovery: 'retry-specific',
          error_type: 'compile_error',
          location: 'src/b.c:10',
          root_cause: 'missing decl',
        },
      ],
    });
    expect(await planRecovery(repeated, { gateway: null })).toMatchObject({
      decision: 'switch-strategy',
      new_strategy: 'per_conflict',
    });
    expect((await planRecovery({ ...repeated, current_strategy: 'per_conflict' }, { gateway: null })).decision).toBe(
      'abort',
    );
    expect((await planRecovery(failure({ attempts_so_far: 5 }), { gateway: null })).decision).toBe('abort');
    const linkErr = failure({
      failure_summary: { error_type: 'link_error', location: null, root_cause: 'undefined reference', excerpt: '' },
    });
    expect((await planRecovery(linkErr, { gateway: null })).decision).toBe('bisect');
    expect(
      (
        await planRecovery(
          failure({ failure_summary: { error_type: 'timeout', location: null, root_cause: 'killed', excerpt: '' } }),
          { gateway: null },
        )
      ).decision,
    ).toBe('abort');
  });
});

describe('planner: with a model', () => {
  const planner = (text: string) => mockGateway(scriptedModel([textTurn(text)], 'mock-planner'), 'planner');

  it('a valid strategy answer is used; the prompt carries the merge facts', async () => {
    const model = scriptedModel(
      [textTurn(JSON.stringify({ strategy: 'batch', batch_size: 4, reasoning: 'balanced' }))],
      'p',
    );
    const d = await chooseStrategy(merge({ estimated_conflicts: 30 }), { gateway: mockGateway(model, 'planner') });
    expect(d).toEqual({ strategy: 'batch', batch_size: 4, reasoning: 'balanced', source: 'model' });
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('Source: upstream/main (8 commits)');
    expect(prompt).toContain('Estimated conflicts: 30');
  });

  it.each([
    ['not JSON', 'I would go with batch.'],
    ['unknown strategy', JSON.stringify({ strategy: 'yolo', reasoning: 'fast' })],
  ])('invalid strategy answer (%s) -> per_conflict', async (_, text) => {
    expect(await chooseStrategy(merge(), { gateway: planner(text) })).toMatchObject({
      strategy: 'per_conflict',
      source: 'default',
    });
  });

  it('a strategy that is not available -> per_conflict', async () => {
    const d = await chooseStrategy(merge({ available_strategies: ['batch', 'per_conflict'] }), {
      gateway: planner(JSON.stringify({ strategy: 'optimistic', reasoning: 'x' })),
    });
    expect(d).toMatchObject({ strategy: 'per_conflict', source: 'default' });
  });

  it('a valid recovery answer is used', async () => {
    const d = await planRecovery(failure(), {
      gateway: planner(JSON.stringify({ decision: 'retry-specific', conflicts_to_retry: [[2, 1]], reasoning: 'b.c' })),
    });
    expect(d).toEqual({
      decision: 'retry-specific',
      conflicts_to_retry: [[2, 1]],
      new_strategy: null,
      reasoning: 'b.c',
      source: 'model',
    });
  });

  it.each([
    ['not JSON', 'retry everything please'],
    ['unknown decision', JSON.stringify({ decision: 'pray', reasoning: 'x' })],
    [
      'retry-specific of cells not in this attempt',
      JSON.stringify({ decision: 'retry-specific', conflicts_to_retry: [[9, 9]], reasoning: 'x' }),
    ],
    ['switch-strategy without a strategy', JSON.stringify({ decision: 'switch-strategy', reasoning: 'x' })],
  ])('invalid recovery answer (%s) -> abort', async (_, text) => {
    expect(await planRecovery(failure(), { gateway: planner(text) })).toMatchObject({
      decision: 'abort',
      source: 'default',
    });
  });
});

describe('planner: repeated failures (decision point 3)', () => {
  const attempt = (location: string) => ({
    strategy: 'batch' as const,
    recovery: 'retry-all' as const,
    error_type: 'compile_error' as const,
    location,
    root_cause: 'x',
  });

  it('offline: the same error twice aborts, changing errors continue', async () => {
    expect(await reviewRepeatedFailures([attempt('a.c:1'), attempt('a.c:1')], { gateway: null })).toMatchObject({
      decision: 'abort',
      source: 'policy',
    });
    expect(await reviewRepeatedFailures([attempt('a.c:1'), attempt('b.c:9')], { gateway: null })).toMatchObject({
      decision: 'continue',
      approach: 'per_conflict',
    });
  });

  it('model answer used; invalid answer aborts', async () => {
    const good = mockGateway(
      scriptedModel(
        [
          textTurn(
            JSON.stringify({
              decision: 'continue',
              approach: 'bisect',
              pattern_analysis: 'different files',
              reasoning: 'progress',
            }),
          ),
        ],
        'p',
      ),
      'planner',
    );
    expect(await reviewRepeatedFailures([attempt('a.c:1'), attempt('b.c:2')], { gateway: good })).toMatchObject({
      decision: 'continue',
      approach: 'bisect',
      source: 'model',
    });
    const bad = mockGateway(scriptedModel([textTurn('keep going!')], 'p'), 'planner');
    expect(await reviewRepeatedFailures([attempt('a.c:1')], { gateway: bad })).toMatchObject({
      decision: 'abort',
      source: 'default',
    });
  });
});
