/**
 * One worker of bench/distributed.ts: a clone of the shared bare remote driving the shared run
 * `bench` with the keep-both model stub, as `merge --remote origin` (the first worker) or `join`
 * then `continue` (the others) would, until the merge is finished. Its checks go to the CI hook of
 * the remote (`check.runner.remote: origin`); a worker that finds every open conflict held waits
 * for the others' work (`sync.wait`), as an unattended machine is configured to. Prints one JSON
 * line: when it finished, how many conflicts it resolved itself, the widest frontier it saw, the
 * checks it ran and reused, and the mean wall time of a check it ran.
 */
import { readFileSync } from 'node:fs';
import { configSchema, storeConfig } from '../src/config/index.js';
import { Git } from '../src/git/index.js';
import { nullLogger } from '../src/log/logger.js';
import { RunStore } from '../src/store/index.js';
import { openRunJournal } from '../src/store/run-persistence.js';
import { continueRun, startRun, type DriveOptions } from '../src/workflow/lifecycle.js';
import { joinRun } from '../src/workflow/share/join-run.js';
import { machineName } from '../src/workflow/share/share-file.js';
import { RunSync } from '../src/store/sync/index.js';
import { benchGitEnv } from './_env.js';
import { keepBothGateway } from './_workflow-drive.js';

const [dir, role, checkSeconds] = process.argv.slice(2) as [string, 'start' | 'join' | 'solo', string];
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const git = new Git({ cwd: dir, env: benchGitEnv });
  const config = configSchema.parse({
    target: { workdir: dir, branch: 'main' },
    check: {
      commands: { build: `sleep ${checkSeconds}` },
      workflow: ['build'],
      fast: ['build'],
      timeout: 120 + 10 * Number(checkSeconds),
      runner: { remote: 'origin', trigger: 'ref', poll: 0.25 },
    },
    llm: { provider: 'openai-compatible', resolver_model: 'keep-both' },
    merge: { strategy: 'per_conflict', parallel: 1 },
    sync: { wait: 3600 },
  });
  const options: DriveOptions = { openLog: () => nullLogger, gateway: keepBothGateway() };
  const store = await RunStore.forRepo(git);
  let outcome;
  /** Journal entries written at join (the run's start as this worker records it), before its own work. */
  let copied = 0;
  if (role !== 'join') {
    outcome = await startRun(
      config,
      git,
      { upstream: 'origin/feature', into: 'main', name: 'bench', ...(role === 'start' ? { remote: 'origin' } : {}) },
      options,
    );
  } else {
    for (;;) {
      try {
        const loaded = {
          config,
          file: undefined,
          fileHash: undefined,
          missingEnv: [],
          warnings: [],
          writtenApiKey: '',
        };
        await joinRun(git, store, 'origin', 'bench', { config, stored: storeConfig(loaded, null, []) });
        copied = openRunJournal(store.paths('bench')).read().entries.length;
        break;
      } catch {
        // The first worker has not published the run yet: a person would try again a little later.
        await pause(1000);
      }
    }
  }
  while (outcome?.kind !== 'done') {
    const next = await continueRun(config, git, 'bench', options);
    if (next.kind === 'already_done') break;
    if (next.kind === 'needs_person' && !/held by another machine/.test(next.reason))
      throw new Error(`worker ${dir}: ${next.reason}`);
    if (next.kind === 'failed' || next.kind === 'stopped') throw new Error(`worker ${dir}: ${next.kind}`);
    outcome = next;
  }
  console.log(JSON.stringify({ dir, doneAt: Date.now(), ...(await account(git, store, role, copied)), ...cpuSpent() }));
  git.close();
}

/** CPU seconds of this worker's node process, and of the processes it started and waited for (git, mostly); when it started. */
function cpuSpent(): { cpuSelf: number; cpuChildren: number; startedAt: number } {
  const used = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const children = (Number(fields[13]) + Number(fields[14])) / 100; // cutime + cstime, in USER_HZ ticks
  return {
    cpuSelf: (used.user + used.system) / 1e6,
    cpuChildren: children,
    startedAt: Math.round(performance.timeOrigin),
  };
}

/** What this worker did, from its journal and the shared records. */
async function account(
  git: Git,
  store: RunStore,
  role: string,
  copied: number,
): Promise<Record<string, number | string>> {
  const events = openRunJournal(store.paths('bench')).read().entries.slice(copied);
  const widest = Math.max(0, ...events.flatMap((e) => (e.type === 'grid_updated' ? [e.grid.blockers.length] : [])));
  const checks = events.flatMap((e) => (e.type === 'check_finished' ? [e.check] : []));
  const checksReused = events.filter((e) => e.type === 'decision' && e.decision === 'reused').length;
  const ran = checks.filter((c) => c.durationMs > 0);
  const checkMs = ran.length === 0 ? 0 : ran.reduce((a, c) => a + c.durationMs, 0) / ran.length;
  const tree = await git.text(['rev-parse', 'main^{tree}']);
  const common = { widest, tree, checksRun: checks.length - checksReused, checksReused, checkMs };
  if (role === 'solo') return { ...common, resolved: events.filter((e) => e.type === 'conflict_resolved').length };
  const machine = await machineName(git);
  const records = await new RunSync(git, 'bench', { remote: 'origin', machine }).records();
  const own = [...records.values()].filter((r) => r.kind === 'resolution' && r.body.machine === machine).length;
  return { ...common, resolved: own };
}

main().catch((error: unknown) => {
  console.error(String(error));
  process.exit(1);
});
