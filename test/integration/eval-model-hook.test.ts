import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { registerEval } from '../../src/cli/commands/eval.js';
import { historyWithKnownMerges } from '../fixtures/resolve/history.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('eval --with-model hook', () => {
  it('runs an injected model rung after the rules and reports its usage', async () => {
    const repo = historyWithKnownMerges();
    const asked: number[] = [];
    const program = new Command('splintercat').exitOverride();
    registerEval(program, {
      modelFallback: async () => ({
        fallback: async (_file, hunks) => {
          asked.push(...hunks.map((h) => h.index));
          return hunks.map((h) => ({
            hunkIndex: h.index,
            text: 'beta both\n',
            rung: 'model' as const,
            by: 'scripted',
          }));
        },
        usage: () => ({ hunksResolved: asked.length, inputTokens: 120, outputTokens: 30, costUsd: 0.0012 }),
      }),
    });
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    await program.parseAsync(['node', 'splintercat', 'eval', '--repo', repo.dir, '--with-model', '--json']);
    const report = JSON.parse(out.join('')) as {
      ladder: { resolved: number; exact: number; wrong: number };
      byRule: Record<string, { resolved: number; exact: number }>;
      model: { inputTokens: number };
    };
    // the rules take the whitespace hunk; the model gets only the real conflict, and matches the human
    expect(asked).toEqual([1]);
    expect(report.byRule['scripted']).toMatchObject({ resolved: 1, exact: 1 });
    expect(report.ladder).toMatchObject({ resolved: 2, wrong: 0 });
    expect(report.model).toEqual({ hunksResolved: 1, inputTokens: 120, outputTokens: 30, costUsd: 0.0012 });
  });
});
