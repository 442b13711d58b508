/**
 * `splintercat merge upstream --into main` on the scale fixture, driven as a person would: the
 * workflow runs (lifecycle's startRun / continueRun, as the CLI calls them) with the scripted
 * model; at each hand-off the simulated person settles the conflicts and runs `continue`. What it
 * measures: wall time, check time, the checks and what they were, the hand-offs and how long the
 * person waited for each, the planner's prediction, peak RSS of this process.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ModelGateway } from '../../src/agents/model-gateway.js';
import type { RoleModels } from '../../src/agents/model-factory.js';
import { loadConfig, storeConfig } from '../../src/config/index.js';
import { Git } from '../../src/git/index.js';
import { createLogger } from '../../src/log/index.js';
import type { RunEvent } from '../../src/store/run-events.js';
import type { RunState } from '../../src/store/run-state.js';
import { continueRun, startRun, type DriveOutcome } from '../../src/workflow/lifecycle.js';
import { benchGitEnv } from '../_env.js';
import { scaleConfigYaml } from './config.js';
import type { ScaleFixture } from './fixture.js';
import { scriptedModel } from './model.js';
import { settle } from './person.js';

interface HandoffRecord {
  /** Conflicts handed over together. */
  conflicts: string[];
  /** Blocked cells known when they were handed over. */
  visible: string[];
  /** Milliseconds from the person's `continue` (or the start) to this hand-off. */
  waitedMs: number;
  /** Why: a person's first resolution, or a failed check on one (amend). */
  amend: boolean;
}

export interface ScaleDrive {
  outcome: string;
  wallMs: number;
  state: RunState;
  events: RunEvent[];
  handoffs: HandoffRecord[];
  /** Milliseconds the person waited for conflicts they could already see at the hand-off before. */
  waitedForVisibleMs: number;
  peakRssMb: number;
  /** The person's first tries that were wrong on purpose (to be found by bisection). */
  wrongOnPurpose: number[];
}

/** Drive one merge of the fixture with `sets` (`check.fast=[]`, ...) on top of its splintercat.yaml. */
export async function driveScale(fixture: ScaleFixture, sets: string[] = [], buildDir?: string): Promise<ScaleDrive> {
  writeFileSync(join(fixture.dir, 'splintercat.yaml'), scaleConfigYaml(fixture.options, buildDir));
  const env = benchGitEnv;
  const loaded = loadConfig({
    cwd: fixture.dir,
    env: {},
    sets: ['llm.provider=openai-compatible', 'llm.resolver_model=scripted', ...sets],
  });
  const config = loaded.config;
  const stored = storeConfig(loaded, null, sets);
  const { model } = scriptedModel(fixture.conflicts);
  const models: RoleModels = {
    resolver: { role: 'resolver', provider: 'openai-compatible', modelId: 'scripted', keyVariable: null, model },
    reviewer: null,
    summarizer: null,
    planner: null,
  };
  const gateway = new ModelGateway({ models, llm: { timeout: 60, max_retries: 1, prices: {} }, budgetUsd: 0 });
  const logs = createLogger({
    logDir: join(fixture.dir, '.splintercat', 'logs'),
    consoleStream: { write: () => undefined },
  });
  const git = new Git({ cwd: fixture.dir, env });
  let peak = 0;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  const events: RunEvent[] = [];
  const options = {
    openLog: () => logs.logger,
    env: {},
    gateway,
    onProgress: (_: RunState, event: RunEvent | null, replayed?: boolean) => {
      if (event && !replayed) events.push(event);
    },
  };
  const handoffs: HandoffRecord[] = [];
  const tried = new Set<number>();
  const wrongOnPurpose: number[] = [];
  const t0 = performance.now();
  try {
    let outcome: DriveOutcome | { kind: 'already_done'; state: RunState } = await startRun(
      config,
      git,
      { upstream: fixture.upstream, into: fixture.fork, name: 'scale' },
      options,
      stored,
    );
    let since = t0;
    for (let round = 0; round < 200; round++) {
      const human = outcome.state.handoff;
      const waiting = outcome.kind === 'needs_person' || (outcome.kind === 'failed' && outcome.retryable && human);
      if (!waiting || !human) break;
      handoffs.push({
        conflicts: human.conflicts.map((c) => c.conflict),
        visible: (outcome.state.grid?.blockers ?? []).map((b) => `${b.i1}-${b.i2}`),
        waitedMs: performance.now() - since,
        amend: human.conflicts.some((c) => c.failure !== null),
      });
      wrongOnPurpose.push(...settle(fixture, human, tried));
      since = performance.now();
      outcome = await continueRun(config, git, 'scale', options, stored);
    }
    const wallMs = performance.now() - t0;
    const state = outcome.state;
    return {
      outcome:
        outcome.kind === 'failed' || outcome.kind === 'needs_person'
          ? `${outcome.kind}: ${outcome.reason}`
          : outcome.kind,
      wallMs,
      state,
      events,
      handoffs,
      waitedForVisibleMs: waitedForVisible(handoffs),
      peakRssMb: Math.max(peak, process.resourceUsage().maxRSS * 1024) / 1024 / 1024,
      wrongOnPurpose,
    };
  } finally {
    clearInterval(sample);
    git.close();
    logs.close();
  }
}

/**
 * The person's waiting for conflicts they could already see: a hand-off that brings a conflict
 * which was already a known blocker at the hand-off before it (so it could have come with it) was
 * waited for that long. Zero when every conflict a person can see is handed over at once.
 */
function waitedForVisible(handoffs: readonly HandoffRecord[]): number {
  let total = 0;
  for (let k = 1; k < handoffs.length; k++) {
    const before = handoffs[k - 1] as HandoffRecord;
    const now = handoffs[k] as HandoffRecord;
    if (now.conflicts.some((c) => before.visible.includes(c) && !before.conflicts.includes(c))) total += now.waitedMs;
  }
  return total;
}
