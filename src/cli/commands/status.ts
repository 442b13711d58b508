import type { Command } from 'commander';
import { Git } from '../../git/index.js';
import { IncrementalMerge, listImerges } from '../../imerge/index.js';
import { RunStore } from '../../store/index.js';
import { WorktreePool } from '../../workflow/worktrees.js';
import { loadRunState } from '../../workflow/state/persistence.js';
import type { RunState } from '../../workflow/state/run-state.js';
import { join } from 'node:path';
import { globalOptions, loadCliConfig, printJson, printResult } from '../context.js';
import { onlyRun } from './merge.js';

/** `splintercat status` and `splintercat abort`. */
export function registerStatus(program: Command): void {
  program
    .command('status')
    .description('progress, grid diagram, conflicts by rung, checks, attempts, cost')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .option('--json', 'the same as data on stdout')
    .action(async (opts: { name?: string; json?: boolean }, cmd: Command) => {
      const { config } = loadCliConfig(globalOptions(cmd));
      const git = new Git({ cwd: config.target.workdir });
      try {
        const store = await RunStore.forRepo(git);
        const name = opts.name ?? onlyRun(store, config);
        const state = loadRunState(store.paths(name));
        if (!state) {
          printResult(`No run state for '${name}'. Try: splintercat doctor --name ${name}`);
          process.exitCode = 1;
          return;
        }
        const diagram = (await listImerges(git)).includes(name) ? (await IncrementalMerge.load(git, name)).diagram() : null;
        const summary = summarize(state, diagram);
        if (opts.json) printJson(summary);
        else printResult(formatStatus(summary));
      } finally {
        git.close();
      }
    });

  program
    .command('abort')
    .description('remove the merge state and worktrees, restore the original branch')
    .option('--name <name>', 'the merge (default: imerge.name or the only one)')
    .action(async (opts: { name?: string }, cmd: Command) => {
      const { config } = loadCliConfig(globalOptions(cmd));
      const git = new Git({ cwd: config.target.workdir });
      try {
        const store = await RunStore.forRepo(git);
        const name = opts.name ?? onlyRun(store, config);
        const state = store.exists(name) ? loadRunState(store.paths(name)) : null;
        const pool = new WorktreePool(git, join(await git.gitDir(), 'splintercat', name, 'worktrees'));
        await pool.removeAll(['check', ...(state?.conflicts.map((c) => `resolve-${c.id}`) ?? [])]);
        if ((await listImerges(git)).includes(name)) await (await IncrementalMerge.load(git, name)).removeRefs();
        const removed = store.exists(name) ? store.remove(name) : { ok: true as const };
        if (!removed.ok) {
          process.stderr.write(`The merge '${name}' is being driven by another process; stop it first.\n`);
          process.exitCode = 1;
          return;
        }
        const branch = state ? ` ${state.target.branch} is untouched at ${state.target.originalOid.slice(0, 12)}.` : '';
        printResult(`Aborted '${name}': its refs, worktrees and run state are removed.${branch} The resolution cache is kept.`);
      } finally {
        git.close();
      }
    });
}

interface StatusSummary {
  name: string;
  status: RunState['status'];
  reason: string | null;
  phase: string;
  startedAt: string;
  updatedAt: string;
  source: string;
  target: string;
  strategy: string | null;
  grid: RunState['grid'];
  diagram: string | null;
  conflicts: { total: number; byStatus: Record<string, number>; hunksByRung: Record<string, number> };
  checks: { total: number; failed: number; last: RunState['checks'][number] | null };
  attempts: number;
  usage: RunState['usage'];
  costUsd: number;
  finalCommit: string | null;
  human: RunState['human'];
}

function summarize(state: RunState, diagram: string | null): StatusSummary {
  const byStatus: Record<string, number> = {};
  const hunksByRung: Record<string, number> = {};
  for (const c of state.conflicts) {
    byStatus[c.status] = (byStatus[c.status] ?? 0) + 1;
    for (const h of c.files.flatMap((f) => f.hunks)) hunksByRung[h.rung ?? 'open'] = (hunksByRung[h.rung ?? 'open'] ?? 0) + 1;
  }
  return {
    name: state.name,
    status: state.status,
    reason: state.statusReason,
    phase: state.phase,
    startedAt: state.startedAt,
    updatedAt: state.updatedAt,
    source: `${state.source.ref} (${state.source.oid.slice(0, 12)})`,
    target: `${state.target.branch} (${state.target.originalOid.slice(0, 12)})`,
    strategy: state.strategy ? `${state.strategy.kind}${state.strategy.batchSize ? ` (${state.strategy.batchSize})` : ''} by ${state.strategy.decidedBy}` : null,
    grid: state.grid,
    diagram,
    conflicts: { total: state.conflicts.length, byStatus, hunksByRung },
    checks: { total: state.checks.length, failed: state.checks.filter((c) => !c.success).length, last: state.checks.at(-1) ?? null },
    attempts: state.attempts.length,
    usage: state.usage,
    costUsd: state.usage.resolver.costUsd + state.usage.summarizer.costUsd + state.usage.planner.costUsd,
    finalCommit: state.finalCommit,
    human: state.human,
  };
}

function formatStatus(s: StatusSummary): string {
  const elapsed = Math.round((Date.parse(s.updatedAt) - Date.parse(s.startedAt)) / 1000);
  const lines = [
    `Merge '${s.name}': ${s.status}${s.reason ? ` — ${s.reason}` : ''}`,
    `  ${s.source} into ${s.target}; next step: ${s.phase}; ${elapsed}s so far`,
    `  strategy: ${s.strategy ?? 'not chosen yet'}; attempts: ${s.attempts}`,
    `  grid: ${s.grid ? `${s.grid.size.i1} x ${s.grid.size.i2} commits, ${s.grid.blockers.length} blocker(s) known` : 'not started'}`,
    `  conflicts: ${s.conflicts.total} (${Object.entries(s.conflicts.byStatus).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}); hunks by rung: ${Object.entries(s.conflicts.hunksByRung).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    `  checks: ${s.checks.total} run, ${s.checks.failed} failed${s.checks.last ? `; last: ${s.checks.last.name} ${s.checks.last.success ? 'passed' : 'FAILED'} (${s.checks.last.logFile})` : ''}`,
    `  models: ${(['resolver', 'summarizer', 'planner'] as const).map((r) => `${r} ${s.usage[r].calls} calls ${s.usage[r].inputTokens}+${s.usage[r].outputTokens} tokens`).join('; ')}; cost $${s.costUsd.toFixed(4)}`,
  ];
  if (s.finalCommit) lines.push(`  result: ${s.finalCommit}`);
  if (s.human) lines.push('  needs a human:', ...s.human.files.map((f) => `    ${f}`), ...s.human.commands.map((c) => `    $ ${c}`));
  if (s.diagram) lines.push('', s.diagram);
  return lines.join('\n');
}
