/**
 * One worker of bench/distributed.ts: a clone of the shared bare remote driving the shared run
 * `bench` with the keep-both model stub, as `merge --remote origin` (the first worker) or `join`
 * then `continue` (the others) would, until the merge is finished. A `continue` that finds every
 * open conflict held by another worker is run again after a short pause. Prints one JSON line:
 * when it finished, how many conflicts it resolved itself, the widest frontier it saw.
 */
import { configSchema } from '../src/config/index.js';
import { Git } from '../src/git/index.js';
import { nullLogger } from '../src/log/logger.js';
import { RunStore } from '../src/store/index.js';
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
    check: { commands: { build: `sleep ${checkSeconds}` }, workflow: ['build'], fast: ['build'] },
    llm: { provider: 'openai-compatible', resolver_model: 'keep-both' },
    merge: { strategy: 'per_conflict', parallel: 1 },
  });
  const options: DriveOptions = { openLog: () => nullLogger, gateway: keepBothGateway() };
  const store = await RunStore.forRepo(git);
  let outcome;
  if (role !== 'join') {
    outcome = await startRun(
      config,
      git,
      { source: 'origin/feature', into: 'main', name: 'bench', ...(role === 'start' ? { remote: 'origin' } : {}) },
      options,
    );
  } else {
    for (;;) {
      try {
        await joinRun(git, store, 'origin', 'bench');
        break;
      } catch {
        await pause(200); // the first worker has not published the run yet
      }
    }
  }
  while (outcome?.kind !== 'done') {
    const next = await continueRun(config, git, 'bench', options);
    if (next.kind === 'already_done') break;
    if (next.kind === 'needs_human' && !/held by another machine/.test(next.reason))
      throw new Error(`worker ${dir}: ${next.reason}`);
    if (next.kind === 'failed' || next.kind === 'stopped') throw new Error(`worker ${dir}: ${next.kind}`);
    if (next.kind === 'needs_human') await pause(1000); // as a person would try again later
    outcome = next;
  }
  const events = store.exists('bench')
    ? (await import('../src/store/run-persistence.js')).openRunJournal(store.paths('bench')).read().entries
    : [];
  const widest = Math.max(0, ...events.flatMap((e) => (e.type === 'grid_updated' ? [e.grid.blockers.length] : [])));
  if (role === 'solo') {
    console.log(
      JSON.stringify({
        dir,
        doneAt: Date.now(),
        widest,
        resolved: events.filter((e) => e.type === 'conflict_resolved').length,
        tree: await git.text(['rev-parse', 'main^{tree}']),
      }),
    );
    return git.close();
  }
  const machine = await machineName(git);
  const records = await new RunSync(git, 'bench', { remote: 'origin', machine }).records();
  const own = [...records.values()].filter((r) => r.kind === 'resolution' && r.body.machine === machine).length;
  const tree = await git.text(['rev-parse', 'main^{tree}']);
  console.log(JSON.stringify({ dir, doneAt: Date.now(), widest, resolved: own, tree }));
  git.close();
}

main().catch((error: unknown) => {
  console.error(String(error));
  process.exit(1);
});
