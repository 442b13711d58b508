/**
 * `splintercat merge`'s workflow in this process (createRunDeps + createRun + driveRun, as
 * the command drives it) with the configured ladder, check 'true' and a zero-delay resolver stub
 * that resolves every conflict as bench/_keep-both.ts does: each hunk keeps both sides, then the
 * file is submitted.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { LanguageModelV3GenerateResult, LanguageModelV3Prompt } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { ModelGateway } from '../src/agents/model-gateway.js';
import type { RoleModels } from '../src/agents/model-factory.js';
import { CheckRunner } from '../src/checks/check-runner.js';
import { configSchema } from '../src/config/index.js';
import { Git } from '../src/git/index.js';
import { nullLogger } from '../src/log/logger.js';
import { RunStore } from '../src/store/index.js';
import { driveRun } from '../src/workflow/merge-run.js';
import { createRunDeps } from '../src/workflow/run-deps.js';
import { createRun } from '../src/workflow/setup.js';
import { benchGitEnv } from './_env.js';

const usage: LanguageModelV3GenerateResult['usage'] = {
  inputTokens: { total: 100, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 20, text: undefined, reasoning: undefined },
};

function toolTurn(id: string, toolName: string, args: Record<string, unknown>): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(args) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

/** The task's files, as the resolver's first prompt lists them: numbered, in its data block of conflicted files. */
export function promptFiles(text: string): string[] {
  const block = /: conflicted files[^\]]*\]\n([\s\S]*?)\n\[END DATA/.exec(text)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => /^\d+: (.*)$/.exec(line)?.[1])
    .filter((f): f is string => f !== undefined);
}

/**
 * The next move of a keep-both resolver, read off the conversation so far: the first file of the
 * task not yet submitted gets `resolve_conflict 1 both` until no conflict is left, then
 * `submit_resolution`.
 */
function nextMove(prompt: LanguageModelV3Prompt): { tool: string; args: Record<string, unknown> } {
  const first = prompt.find((m) => m.role === 'user');
  const text =
    first && Array.isArray(first.content) ? first.content.map((p) => ('text' in p ? p.text : '')).join('') : '';
  const files = promptFiles(text);
  const submitted = new Set<string>();
  const lastResult = new Map<string, string>();
  const callFile = new Map<string, { tool: string; file: string }>();
  for (const m of prompt) {
    if (m.role === 'assistant') {
      for (const p of m.content) {
        if (p.type !== 'tool-call') continue;
        const file = String((typeof p.input === 'string' ? JSON.parse(p.input) : p.input)?.file ?? '');
        callFile.set(p.toolCallId, { tool: p.toolName, file });
      }
    } else if (m.role === 'tool') {
      for (const p of m.content) {
        if (p.type !== 'tool-result') continue;
        const call = callFile.get(p.toolCallId);
        if (!call) continue;
        const value = JSON.stringify(p.output);
        if (call.tool === 'submit_resolution' && !/error|rejected|invalid/i.test(value)) submitted.add(call.file);
        if (call.tool === 'resolve_conflict') lastResult.set(call.file, value);
      }
    }
  }
  const file = files.find((f) => !submitted.has(f)) ?? files[0] ?? '';
  const last = lastResult.get(file) ?? '';
  if (/No conflicts left|has no conflict markers/.test(last)) return { tool: 'submit_resolution', args: { file } };
  return { tool: 'resolve_conflict', args: { file, conflict_num: 1, choice: 'both' } };
}

function keepBothModel(): MockLanguageModelV3 {
  let ids = 0;
  return new MockLanguageModelV3({
    modelId: 'keep-both',
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      const move = nextMove(options.prompt);
      return toolTurn(`c${++ids}`, move.tool, move.args);
    },
  });
}

/** A model gateway whose resolver is the zero-delay keep-both stub. */
export function keepBothGateway(): ModelGateway {
  const model = keepBothModel();
  const models: RoleModels = {
    resolver: { role: 'resolver', provider: 'openai-compatible', modelId: model.modelId, keyVariable: null, model },
    reviewer: null,
    summarizer: null,
    planner: null,
  };
  return new ModelGateway({ models, llm: { timeout: 30, max_retries: 1, prices: {} }, budgetUsd: 0 });
}

export interface WorkflowDrive {
  outcome: string;
  totalMs: number;
  conflicts: number;
  /** Mean time between consecutive conflicts recorded, over the first and the last `edge`. */
  firstMs: number;
  lastMs: number;
  rungs: string;
  tree: string;
}

/** `splintercat merge SOURCE` into main of the repository at `dir`, timed. */
export async function runWorkflow(dir: string, source: string, edge: number): Promise<WorkflowDrive> {
  const env = benchGitEnv;
  const sh = (args: string[]): string => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trimEnd();
  const repo = new Git({ cwd: dir, env });
  try {
    const config = configSchema.parse({
      target: { workdir: dir, branch: 'main' },
      check: { commands: { build: 'true' }, workflow: ['build'] },
      log: { dir: join(dir, '.git', 'bench-logs') },
      llm: { provider: 'openai-compatible', resolver_model: 'keep-both' },
    });
    const gateway = keepBothGateway();
    const checks = new CheckRunner({
      workdir: dir,
      outputDir: config.log.dir,
      commands: config.check.commands,
      timeoutSec: config.check.timeout,
      killGraceSec: config.check.kill_grace,
      logger: nullLogger,
    });
    const t0 = performance.now();
    const ctx = await createRunDeps(config, repo, 'bench', { checks, gateway, log: nullLogger });
    const store = await RunStore.forRepo(repo);
    const { run, state } = createRun(store, {
      name: 'bench',
      upstream: { ref: source, oid: sh(['rev-parse', source]) },
      fork: { branch: 'main', originalOid: sh(['rev-parse', 'main']) },
      workdir: dir,
    });
    try {
      const outcome = await driveRun(run, state, ctx);
      const totalMs = performance.now() - t0;
      const at = run.journal
        .read()
        .entries.filter((e) => e.type === 'conflict_resolved')
        .map((e) => Date.parse(e.ts));
      const gaps = at.slice(1).map((t, k) => t - (at[k] as number));
      const mean = (xs: number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
      const rungs = new Map<string, number>();
      for (const h of outcome.state.conflicts.flatMap((c) => c.files.flatMap((f) => f.hunks)))
        rungs.set(h.rung ?? 'open', (rungs.get(h.rung ?? 'open') ?? 0) + 1);
      return {
        outcome:
          outcome.kind === 'failed' || outcome.kind === 'needs_person'
            ? `${outcome.kind}: ${outcome.reason}`
            : outcome.kind,
        totalMs,
        conflicts: outcome.state.conflicts.length,
        firstMs: mean(gaps.slice(0, edge)),
        lastMs: mean(gaps.slice(-edge)),
        rungs: [...rungs].map(([r, n]) => `${r} ${n}`).join(', ') || 'none',
        tree: outcome.kind === 'done' ? sh(['rev-parse', 'main^{tree}']) : '',
      };
    } finally {
      run.close();
    }
  } finally {
    repo.close();
  }
}
