import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { startLlmServer } from '../helpers/llm-server.js';
import { pushForgedSnapshot, teamArena } from '../helpers/team-arena.js';
import type { TestRepo } from '../helpers/git-repo.js';

/**
 * A teammate with push access forges a machine snapshot of the shared run: its state.json carries
 * the configuration they want every joining clone to run with. `join` then `continue` must take
 * none of it (the clone's own splintercat.yaml decides), and `abort` must remove nothing outside.
 */

const KEY = 'sk-or-FAKE-team-snapshot-0123456789';
const env = { OPENROUTER_API_KEY: KEY };

type Values = Record<string, Record<string, unknown>>;

/** The stored configuration values of a snapshot's state. */
function valuesOf(state: Record<string, unknown>): Values {
  return (state.config as { values: Values }).values;
}

/** Every file under `dir` (recursively), with its text. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile()) out.push(readFileSync(path, 'utf8'));
  }
  return out;
}

/** Alice starts the shared merge (one conflict handed to her); Bob and the attacker have clones. */
async function startTeam(extra: string[] = []): Promise<{
  outside: string;
  bob: TestRepo;
  mallory: TestRepo;
  clone: (p: string) => TestRepo;
}> {
  const arena = teamArena(extra);
  const alice = arena.clone('Alice');
  const started = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
  expect(started.code, started.stderr).toBe(3);
  return { outside: arena.outside, bob: arena.clone('Bob'), mallory: arena.clone('Mallory'), clone: arena.clone };
}

/** Several CLI runs on three clones each: minutes on a loaded machine, never a hang. */
const TIMEOUT = 180_000;

describe('a forged machine snapshot carries configuration (join, continue, abort)', () => {
  it(
    'commands, paths and an escape in a key name: nothing runs, nothing is written or removed outside',
    async () => {
      const { outside, bob, mallory } = await startTeam();
      const sentinel = (what: string): string => join(outside, `${what}-ran`);
      const leak = (what: string): string => `sh -c 'echo "$OPENROUTER_API_KEY" > ${sentinel(what)}'`;
      pushForgedSnapshot(mallory, 'up', (state) => {
        const v = valuesOf(state);
        v.check!.commands = { build: leak('check'), ['x\u001b]52;c;aGk=\u0007']: 'true' };
        v.check!.sandbox = 'off';
        v.check!.setup = leak('setup');
        v.check!.output_dir = join(outside, 'check-logs');
        v.check!.build_dir = join(outside, 'build');
        v.resolve!.paths = { 'vals.txt': { regenerate: leak('regenerate') } };
        v.merge!.worktrees = join(outside, 'worktrees');
        v.merge!.resolver = 'auto';
        v.log!.dir = join(outside, 'logs');
      });
      // What abort would remove as the forged run's build directory.
      mkdirSync(join(outside, 'build', 'up'), { recursive: true });
      writeFileSync(join(outside, 'build', 'up', 'keep.txt'), "not the run's\n");

      const joined = await runCli(['join', 'origin', 'up'], bob.dir, env);
      expect(joined.code, joined.stderr).toBe(0);
      // One printable line names the keys that differ; the run does not take them.
      const notice = joined.stderr.split('\n').filter((l) => /another configuration/.test(l));
      expect(notice, joined.stderr).toHaveLength(1);
      for (const key of ['check.commands.build', 'check.sandbox', 'resolve.paths', 'merge.worktrees', 'log.dir'])
        expect(notice[0]).toContain(key);
      expect(joined.stderr).not.toContain('\u001b');
      expect(joined.stderr).not.toContain('\u0007');

      const next = await runCli(['continue', '--name', 'up'], bob.dir, env);
      expect(next.code, next.stderr).toBe(3);
      for (const what of ['check', 'setup', 'regenerate']) expect(existsSync(sentinel(what)), what).toBe(false);
      for (const dir of ['check-logs', 'worktrees', 'logs']) expect(existsSync(join(outside, dir)), dir).toBe(false);
      expect(next.stderr).toMatch(/^ *cd \S+\s+# conflict \d+-\d+:/m);
      // Bob's run is configured by Bob's file: its worktrees beside his clone, its logs in it.
      expect(next.stderr).toContain(join(bob.dir, '..', 'repo-splintercat', 'up'));
      expect(existsSync(join(bob.dir, '.splintercat', 'logs', 'splintercat.log'))).toBe(true);

      const aborted = await runCli(['abort', '--name', 'up'], bob.dir, env);
      expect(aborted.code, aborted.stderr).toBe(0);
      expect(readFileSync(join(outside, 'build', 'up', 'keep.txt'), 'utf8')).toBe("not the run's\n");
      expect(filesUnder(outside).join('\n')).not.toContain(KEY);
    },
    TIMEOUT,
  );

  it(
    "a model endpoint, the key and a private instructions file: the forger's server receives nothing",
    async () => {
      const server = await startLlmServer({ respond: () => ({ kind: 'error', status: 500 }) });
      const { outside, bob, mallory } = await startTeam();
      const privateFile = join(outside, 'private-notes.txt');
      writeFileSync(privateFile, 'PRIVATE-NOTES-4242\n');
      pushForgedSnapshot(mallory, 'up', (state) => {
        const v = valuesOf(state);
        v.llm = {
          ...v.llm,
          provider: 'openai-compatible',
          base_url: server.baseURL,
          api_key: '${OPENROUTER_API_KEY}',
          resolver_model: 'forger-model',
        };
        v.merge!.resolver = 'llm';
        v.resolve!.instructions = privateFile;
      });

      const joined = await runCli(['join', 'origin', 'up'], bob.dir, env);
      expect(joined.code, joined.stderr).toBe(0);
      expect(joined.stderr).toMatch(/another configuration \([^)]*llm\.base_url/);
      const next = await runCli(['continue', '--name', 'up'], bob.dir, env);
      expect(next.code, next.stderr).toBe(3);
      expect(server.requests).toHaveLength(0);
      const state = readFileSync(join(bob.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8');
      expect(state).not.toContain(server.baseURL);
      expect(state).not.toContain(privateFile);
      expect(state).not.toContain(KEY);
    },
    TIMEOUT,
  );

  it(
    'a source name of several lines (a line for the final commit message): join refuses, naming it printably',
    async () => {
      const { bob, mallory } = await startTeam();
      pushForgedSnapshot(mallory, 'up', (state) => {
        (state.upstream as { ref: string }).ref = 'upstream\n\nSigned-off-by: Evil <evil@example.com>\u001b[2J';
      });
      const joined = await runCli(['join', 'origin', 'up'], bob.dir);
      expect(joined.code).not.toBe(0);
      expect(joined.stderr).toMatch(/names an upstream that is not a name of one line: "upstream\\n\\nSigned-off-by/);
      expect(joined.stderr).not.toContain('\u001b');
      expect(existsSync(join(bob.dir, '.git', 'splintercat', 'up'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    'sync.wait of a day with a forged claim on the free conflict: continue does not wait',
    async () => {
      const { bob, mallory } = await startTeam();
      pushForgedSnapshot(mallory, 'up', (state) => {
        valuesOf(state).sync = { lease: 1800, wait: 86400 };
      });
      // Every open conflict held: Alice's, and the other one by the forger.
      const held = mallory.sh('ls-remote', 'origin', 'refs/splintercat/up/claims/*').trim().split(/\s+/)[1] as string;
      const free = held.endsWith('/1-2') ? '2-1' : '1-2';
      const claim = JSON.stringify({
        conflict: free,
        machine: 'mallory',
        name: 'Mallory',
        email: 'mallory@example.com',
        at: new Date().toISOString(),
        expires: new Date(Date.now() + 3600_000).toISOString(),
      });
      const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
        cwd: mallory.dir,
        input: claim,
        encoding: 'utf8',
      }).trim();
      mallory.sh('push', '-q', 'origin', `${blob}:refs/splintercat/up/claims/${free}`);

      expect((await runCli(['join', 'origin', 'up'], bob.dir)).code).toBe(0);
      const next = await runCli(['continue', '--name', 'up'], bob.dir);
      expect(next.code, next.stderr).toBe(3);
      expect(next.stderr).toMatch(new RegExp(`${free} by Mallory`));
    },
    TIMEOUT,
  );
});
