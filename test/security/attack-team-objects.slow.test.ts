import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../fixtures/resolve/cli.js';
import { team } from '../fixtures/workflow/team.js';
import type { TestRepo } from '../helpers/git-repo.js';
import { tempDir, testGitEnv } from '../helpers/git-repo.js';
import { RemoteCheckRunner } from '../../src/checks/remote/remote-runner.js';
import { checkRefs, parseRequestMessage } from '../../src/checks/remote/protocol.js';
import { Git } from '../../src/git/git.js';
import { readCommitInfo } from '../../src/imerge/commit-info.js';
import { CiRemote } from '../helpers/ci-remote.js';
import { canonicalJson, recordId } from '../../src/store/sync/record.js';

/**
 * A teammate with push access writes whatever objects it likes under refs/splintercat/: records,
 * claims, snapshots and cache entries of 150 MB, refs of the wrong type, records whose paths
 * leave the repository. Every other clone's join, continue and status must read them bounded
 * (refused by size before any content is read), skip them by name, and go on with the rest;
 * doctor reports and repairs what an earlier reader kept of them.
 */

const BIG = 150 * 1024 * 1024;
const RSS_LIMIT_MB = 300;
const tsxLoader = join(repoRoot, 'node_modules/tsx/dist/loader.mjs');
const mainTs = join(repoRoot, 'src/cli/main.ts');

interface Measured {
  code: number;
  stdout: string;
  stderr: string;
  /** The CLI process's own peak resident set, in MB. */
  rssMb: number;
  ms: number;
}

/** The real CLI as a subprocess, its own peak RSS taken from process.resourceUsage at its exit; killed after a minute. */
function measuredCli(args: string[], cwd: string): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'splintercat-rss-'));
  const preload = join(dir, 'rss.mjs');
  const out = join(dir, 'rss.txt');
  writeFileSync(
    preload,
    `import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => writeFileSync(${JSON.stringify(out)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const started = Date.now();
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', tsxLoader, '--import', preload, mainTs, ...args],
      { cwd, env: { ...process.env, ...testGitEnv }, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        let rssKb = Infinity;
        try {
          rssKb = Number(readFileSync(out, 'utf8'));
        } catch {
          // killed before its exit handler ran
        }
        done({ code, stdout, stderr, rssMb: rssKb / 1024, ms: Date.now() - started });
      },
    );
  });
}

/**
 * Bounded: the memory a small run takes, not that of reading 150 MB; and a time far from the
 * minutes reading one takes (git's own transfer of the object is most of what it spends).
 */
function expectBounded(run: Measured): void {
  expect(run.rssMb, run.stderr).toBeLessThan(RSS_LIMIT_MB);
  expect(run.ms, run.stderr).toBeLessThan(50_000);
}

/** A blob written from a stream of a repeated chunk (never held whole here); a commit when `header` is given. */
function bigBlob(repo: TestRepo, bytes = BIG, header?: string): Promise<string> {
  return new Promise((done, fail) => {
    const type = header === undefined ? [] : ['-t', 'commit'];
    const child = spawn('git', ['hash-object', ...type, '-w', '--stdin'], {
      cwd: repo.dir,
      env: { ...process.env, ...testGitEnv },
    });
    let oid = '';
    child.stdout.on('data', (chunk: Buffer) => (oid += chunk.toString()));
    child.on('error', fail);
    child.on('close', (code) => (code === 0 ? done(oid.trim()) : fail(new Error(`hash-object exited ${code}`))));
    const chunk = Buffer.alloc(1024 * 1024, '{"x":1}');
    if (header !== undefined) child.stdin.write(header);
    let left = bytes;
    const write = (): void => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        if (!child.stdin.write(part)) return void child.stdin.once('drain', write);
      }
      child.stdin.end();
    };
    write();
  });
}

function blob(repo: TestRepo, text: string): string {
  return execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo.dir, input: text, encoding: 'utf8' }).trim();
}

/** A commit of `entries` (mode, blob, path) on top of `parent`, through a throwaway index. */
function commitOf(repo: TestRepo, entries: Array<[string, string, string]>, parent: string | null): string {
  const env = { ...process.env, ...testGitEnv, GIT_INDEX_FILE: join(mkdtempSync(join(tmpdir(), 'idx-')), 'index') };
  const info = entries.map(([mode, oid, path]) => `${mode} ${oid}\t${path}\n`).join('');
  execFileSync('git', ['update-index', '--add', '--index-info'], { cwd: repo.dir, env, input: info });
  const tree = execFileSync('git', ['write-tree'], { cwd: repo.dir, env, encoding: 'utf8' }).trim();
  const args = ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', 'forged'];
  return execFileSync('git', args, { cwd: repo.dir, env, encoding: 'utf8' }).trim();
}

/** The entries (mode, blob, path) of `commit`'s tree, to build a forged commit on. */
function entriesOf(repo: TestRepo, commit: string): Array<[string, string, string]> {
  return repo
    .sh('ls-tree', '-r', commit)
    .split('\n')
    .map((line) => {
      const [meta, path] = line.split('\t') as [string, string];
      const [mode, , oid] = meta.split(' ') as [string, string, string];
      return [mode, oid, path] as [string, string, string];
    });
}

/** The record the attacker stores, with an id that is the digest of its key (as a real one has). */
function forgedRecord(kind: 'resolution', key: Record<string, string>, body: object): { path: string; text: string } {
  const id = recordId(kind, key);
  const record = { kind, id, key, body, by: 'mallory', at: '2000-01-01T00:00:00.000Z' };
  return { path: `${kind}/${id.slice(0, 2)}/${id}.json`, text: `${canonicalJson(record)}\n` };
}

/** The one conflict handed to this person. */
function handed(stderr: string): string {
  const cd = /^ *cd (\S+)\s+# conflict (\d+-\d+):/m.exec(stderr);
  expect(cd, stderr).not.toBeNull();
  return cd![2]!;
}

/** The first check request pushed to the remote of `repo`, once there. */
async function requestOnRemote(repo: TestRepo): Promise<{ ref: string; oid: string }> {
  for (let k = 0; k < 600; k++) {
    const line = repo.sh('ls-remote', 'origin', 'refs/splintercat/*/checks/*/request').split('\n')[0];
    if (line) {
      const [oid, ref] = line.split('\t') as [string, string];
      repo.sh('fetch', '-q', 'origin', `+${ref}:${ref}`);
      return { ref, oid };
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error('no check request reached the remote');
}

function push(repo: TestRepo, oid: string, ref: string): void {
  repo.sh('push', '-q', '--force', 'origin', `${oid}:${ref}`);
}

describe('oversized and malformed objects from the remote', () => {
  it('150 MB records, claims, events.jsonl and cache entries, and records leaving the repository: skipped by name, join and continue stay bounded', async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');
    const mallory = clone('Mallory');

    const a1 = await measuredCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);
    const alices = handed(a1.stderr);
    const bobs = alices === '1-2' ? '2-1' : '1-2';

    // The attacker's objects, pushed with plumbing.
    mallory.sh('fetch', '-q', 'origin', '+refs/splintercat/*:refs/splintercat/*');
    const huge = await bigBlob(mallory);
    // The read itself: refused by its size, in well under a second, without its content in memory.
    const git = new Git({ cwd: mallory.dir });
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    expect(await git.readBlobCapped(huge, 1024 * 1024)).toEqual({
      ok: false,
      reason: '150.0 MiB, over the limit of 1.0 MiB',
    });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(50 * 1024 * 1024);
    git.close();
    const records = mallory.sh('rev-parse', 'refs/splintercat/up/records');
    const kept = entriesOf(mallory, records);
    const tree = mallory.sh('rev-parse', 'upstream^{tree}');
    const nul = forgedRecord(
      'resolution',
      { conflict: bobs, tree },
      {
        files: [{ path: 'vals.txt\u0000.bashrc', kind: 'content', hunks: [{ index: 1, rung: 'person', by: 'x' }] }],
      },
    );
    const outside = forgedRecord(
      'resolution',
      { conflict: bobs, tree: mallory.sh('rev-parse', 'main^{tree}') },
      {
        files: [{ path: '../../outside.txt', kind: 'content', hunks: [] }],
      },
    );
    const forged = commitOf(
      mallory,
      [
        ...kept,
        ['100644', huge, `cell/00/${'0'.repeat(64)}.json`],
        ['100644', blob(mallory, '{"kind": "check", '), `check/11/${'1'.repeat(64)}.json`],
        ['100644', blob(mallory, nul.text), nul.path],
        ['100644', blob(mallory, outside.text), outside.path],
      ],
      records,
    );
    push(mallory, forged, 'refs/splintercat/up/records');
    push(mallory, huge, `refs/splintercat/up/claims/${bobs}`);
    const machines = mallory.sh('for-each-ref', '--format=%(refname)', 'refs/splintercat/up/machines/');
    const state = JSON.parse(mallory.sh('show', `${machines.split('\n')[0]}:state.json`)) as { updatedAt: string };
    const newer = blob(mallory, `${JSON.stringify({ ...state, updatedAt: new Date().toISOString() })}\n`);
    const snapshot = commitOf(
      mallory,
      [
        ['100644', newer, 'state.json'],
        ['100644', huge, 'events.jsonl'],
      ],
      null,
    );
    push(mallory, snapshot, 'refs/splintercat/up/machines/mallory');
    const cache = commitOf(mallory, [['100644', huge, `00/${'0'.repeat(64)}.json`]], null);
    push(mallory, cache, 'refs/splintercat/cache');

    // Alice's status names what it skipped (the records are read as the remote holds them).
    const status = await measuredCli(['status', '--json'], alice.dir);
    expectBounded(status);
    const rejected = (JSON.parse(status.stdout) as { share: { rejected: Array<{ where: string; why: string }> } }).share
      .rejected;
    const named = rejected.map((r) => `${r.where}: ${r.why}`).join('\n');
    expect(named).toMatch(/refs\/splintercat\/up\/records:cell\/00\/0+\.json: 150\.0 MiB, over the limit of 1\.0 MiB/);
    expect(named).toMatch(/refs\/splintercat\/up\/records:check\/11\/1+\.json: not JSON/);
    expect(named).toContain(`refs/splintercat/up/records:${nul.path}: a string holds a NUL byte`);
    expect(named).toContain(`refs/splintercat/up/records:${outside.path}: a resolution record with a bad body`);
    expect(named).toMatch(new RegExp(`refs/splintercat/up/claims/${bobs}: 150\\.0 MiB, over the limit of 64 KiB`));

    const joined = await measuredCli(['join', 'origin', 'up'], bob.dir);
    expectBounded(joined);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stderr).toMatch(
      /snapshots\/up\/mallory: events\.jsonl is 150\.0 MiB, over the limit of 32\.0 MiB; skipped/,
    );
    expect(joined.stdout).not.toMatch(/mallory/);

    const b1 = await measuredCli(['continue', '--name', 'up'], bob.dir);
    expectBounded(b1);
    // The forged resolutions are not taken: Bob is handed his conflict, and takes its bad claim over.
    expect(b1.code, b1.stderr).toBe(3);
    expect(handed(b1.stderr)).toBe(bobs);
    expect(b1.stderr).not.toMatch(new RegExp(`took ${bobs} as`));
    // Named once in the clone: by join, which read the records first, and kept for status.
    expect(joined.stderr + b1.stderr).toMatch(
      /records:cell\/00\/0+\.json: 150\.0 MiB, over the limit of 1\.0 MiB; skipped/,
    );
    expect(b1.stderr).toMatch(/splintercat\/cache:00\/0+\.json: 150\.0 MiB, over the limit of 1\.0 MiB; skipped/);
    expect(bob.sh('ls-remote', 'origin', `refs/splintercat/up/claims/${bobs}`)).not.toContain(huge);
    // What Bob published holds none of it: the records on the remote are records again.
    const published = bob.sh('ls-remote', 'origin', 'refs/splintercat/up/records').split('\t')[0]!;
    const paths = bob.sh('ls-tree', '-r', '--name-only', published);
    expect(paths).not.toMatch(/cell\/00\/0{64}|check\/11\/1{64}/);
    expect(paths).not.toContain(nul.path);
    expect(paths).not.toContain(outside.path);
    expect(bob.sh('merge-base', '--is-ancestor', forged, published)).toBe('');
    // Bob's clone keeps none of it: no tracking ref holds a refused object, doctor finds it healthy.
    expect(bob.sh('for-each-ref', '--format=%(refname)', 'refs/splintercat-remotes/snapshots/')).not.toMatch(/mallory/);
    expect(bob.sh('for-each-ref', '--format=%(objectname)', 'refs/splintercat-remotes/', 'refs/remotes/')).not.toMatch(
      new RegExp(`${snapshot}|${cache}|${huge}`),
    );
    const doctor = await measuredCli(['doctor', '--name', 'up'], bob.dir);
    expectBounded(doctor);
    expect(doctor.code, doctor.stdout).toBe(0);
  });

  it('a records ref pointing at a blob: continue goes on and names it; doctor reports and repairs what an earlier reader kept', async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');
    const mallory = clone('Mallory');
    const a1 = await measuredCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);
    const joined = await measuredCli(['join', 'origin', 'up'], bob.dir);
    expect(joined.code, joined.stderr).toBe(0);

    const junk = blob(mallory, 'not a commit\n');
    push(mallory, junk, 'refs/splintercat/up/records');
    const b1 = await measuredCli(['continue', '--name', 'up'], bob.dir);
    expectBounded(b1);
    expect(b1.code, b1.stderr).toBe(3);
    expect(b1.stderr).toContain('refs/splintercat/up/records: a blob, not a commit; skipped');
    // Bob's records replace the blob on the remote (a compare-and-swap on it): the run is shared again.
    const remote = bob.sh('ls-remote', 'origin', 'refs/splintercat/up/records').split('\t')[0]!;
    expect(bob.sh('cat-file', '-t', remote)).toBe('commit');

    // What an earlier reader kept: the blob as the records seen, a records commit holding a 150 MB
    // entry and a record leaving the repository, a claim of 150 MB tracked.
    const huge = await bigBlob(bob);
    const local = bob.sh('rev-parse', 'refs/splintercat/up/records');
    const outside = forgedRecord(
      'resolution',
      { conflict: '1-2', tree: bob.sh('rev-parse', 'main^{tree}') },
      {
        files: [{ path: '.git/hooks/post-checkout', kind: 'content', hunks: [] }],
      },
    );
    const bad = commitOf(
      bob,
      [
        ...entriesOf(bob, local),
        ['100644', huge, `cell/00/${'0'.repeat(64)}.json`],
        ['100644', blob(bob, outside.text), outside.path],
      ],
      local,
    );
    bob.sh('update-ref', 'refs/splintercat/up/records', bad);
    bob.sh('update-ref', 'refs/splintercat-remotes/origin/up/records', junk);
    bob.sh('update-ref', 'refs/splintercat-remotes/claims/up/2-1', huge);
    // And a file path with a NUL taken into the run state from a forged resolution.
    const stateFile = join(bob.dir, '.git', 'splintercat', 'up', 'state.json');
    const runState = JSON.parse(readFileSync(stateFile, 'utf8')) as { conflicts: Array<{ files: object[] }> };
    runState.conflicts[0]!.files.push({ path: 'vals.txt\u0000.bashrc', kind: 'content', hunks: [] });
    writeFileSync(stateFile, JSON.stringify(runState));

    const report = await measuredCli(['doctor', '--name', 'up'], bob.dir);
    expectBounded(report);
    expect(report.code, report.stdout).toBe(1);
    expect(report.stdout).toMatch(/refs\/splintercat\/up\/records holds 2 object\(s\) that are not records/);
    expect(report.stdout).toContain('refs/splintercat-remotes/origin/up/records: a blob, not a commit');
    expect(report.stdout).toMatch(/refs\/splintercat-remotes\/claims\/up\/2-1: a claim over the limit/);
    expect(report.stdout).toContain('whose path is not inside the repository: "vals.txt\\u0000.bashrc"');

    const repaired = await measuredCli(['doctor', '--name', 'up', '--repair'], bob.dir);
    expectBounded(repaired);
    expect(repaired.code, repaired.stdout).toBe(0);
    expect(repaired.stdout).toMatch(
      /rewrote refs\/splintercat\/up\/records with its \d+ valid record\(s\), without the 2 others/,
    );
    const healthy = await measuredCli(['doctor', '--name', 'up'], bob.dir);
    expect(healthy.code, healthy.stdout).toBe(0);
    expect(healthy.stdout).toMatch(/is healthy/);
    expect(bob.sh('ls-tree', '-r', '--name-only', 'refs/splintercat/up/records')).not.toContain(
      `cell/00/${'0'.repeat(64)}`,
    );

    const b2 = await measuredCli(['continue', '--name', 'up'], bob.dir);
    expectBounded(b2);
    expect(b2.code, b2.stderr).toBe(3);
    const after = await measuredCli(['doctor', '--name', 'up'], bob.dir);
    expect(after.code, after.stdout).toBe(0);
  });
  it('a resolution record naming a tree the remote does not hold: refused, the conflict is handed here', async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');
    const mallory = clone('Mallory');
    const a1 = await measuredCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);
    const bobs = handed(a1.stderr) === '1-2' ? '2-1' : '1-2';

    // A tree written nowhere but in Mallory's clone: the record claims Bob's conflict with it.
    mallory.sh('fetch', '-q', 'origin', '+refs/splintercat/*:refs/splintercat/*');
    const absent = commitOf(mallory, [['100644', blob(mallory, 'never pushed\n'), 'vals.txt']], null);
    const tree = mallory.sh('rev-parse', `${absent}^{tree}`);
    const record = forgedRecord(
      'resolution',
      { conflict: bobs, tree },
      { files: [{ path: 'vals.txt', kind: 'content', hunks: [{ index: 1, rung: 'person', by: 'x' }] }] },
    );
    const records = mallory.sh('rev-parse', 'refs/splintercat/up/records');
    const kept = entriesOf(mallory, records);
    const forged = commitOf(mallory, [...kept, ['100644', blob(mallory, record.text), record.path]], records);
    push(mallory, forged, 'refs/splintercat/up/records');

    const joined = await measuredCli(['join', 'origin', 'up'], bob.dir);
    expect(joined.code, joined.stderr).toBe(0);
    const b1 = await measuredCli(['continue', '--name', 'up'], bob.dir);
    // Not left waiting for a tree that never comes: Bob is handed his conflict.
    expect(b1.code, b1.stderr).toBe(3);
    expect(handed(b1.stderr)).toBe(bobs);
    expect(joined.stderr + b1.stderr).toContain(`whose tree ${tree} the remote does not hold; skipped`);
    const status = await measuredCli(['status', '--json', '--name', 'up'], bob.dir);
    const rejected = (JSON.parse(status.stdout) as { share: { rejected: Array<{ why: string }> } }).share.rejected;
    expect(rejected.map((r) => r.why).join('\n')).toContain(`whose tree ${tree} the remote does not hold`);
  });

  it('a manual cell whose commit is 150 MB: join and continue stay bounded, the cell is not read', async () => {
    const { clone } = team();
    const alice = clone('Alice');
    const bob = clone('Bob');
    const mallory = clone('Mallory');
    const a1 = await measuredCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(a1.code, a1.stderr).toBe(3);

    // A pairwise merge of cell 1-1's two parents, as a teammate's manual merge is, with a 150 MB message.
    mallory.sh('fetch', '-q', 'origin', '+refs/imerge/*:refs/imerge/*');
    const [left, above] = [mallory.sh('rev-parse', 'main~1'), mallory.sh('rev-parse', 'upstream~1')];
    const stamp = 'Mallory <m@example.com> 946684800 +0000';
    const header = `tree ${mallory.sh('rev-parse', 'main^{tree}')}\nparent ${left}\nparent ${above}\nauthor ${stamp}\ncommitter ${stamp}\n\n`;
    const huge = await bigBlob(mallory, BIG, header);
    expect(mallory.sh('cat-file', '-t', huge)).toBe('commit');
    push(mallory, huge, 'refs/imerge/up/manual/1-1');
    // Every commit splintercat reads itself is read capped: named by its size, its content never read.
    const git = new Git({ cwd: mallory.dir });
    const rss = process.memoryUsage().rss;
    expect(await git.readCommitCapped(huge)).toBeNull();
    expect((await readCommitInfo(git, huge)).subject).toBe('(a commit not read: 150.0 MiB, over the limit of 4.0 MiB)');
    expect(process.memoryUsage().rss - rss).toBeLessThan(50 * 1024 * 1024);
    git.close();

    const joined = await measuredCli(['join', 'origin', 'up'], bob.dir);
    expectBounded(joined);
    expect(joined.code, joined.stderr).toBe(0);
    const b1 = await measuredCli(['continue', '--name', 'up'], bob.dir);
    expectBounded(b1);
    expect([0, 3], b1.stderr).toContain(b1.code);
    const status = await measuredCli(['status', '--name', 'up'], bob.dir);
    expectBounded(status);
    expect(status.stdout + status.stderr).not.toMatch(/\{"x":1\}\{"x":1\}/);
  });

  it('a check result whose log.txt is 150 MB: refused by its size, the check reads as not run', async () => {
    const remote = CiRemote.create({ 'check.sh': 'exit 0\n' }, { hook: false });
    const commit = remote.repo.head();
    const huge = await bigBlob(remote.repo);
    const checks = new RemoteCheckRunner({
      git: remote.repo.git,
      remote: 'origin',
      run: 'up',
      workdir: remote.repo.dir,
      outputDir: join(tempDir(), 'logs'),
      commands: { test: 'sh check.sh' },
      // Refused, the result leaves the check to time out as not run: a short limit keeps the test short.
      timeoutSec: 8,
      pollMs: 100,
    });
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    const outcome = checks.run('test', { commit });
    // The CI job, answering this clone's own request (its id and nonce) with a 150 MB log.
    const ref = await requestOnRemote(remote.repo);
    const request = parseRequestMessage(remote.repo.sh('log', '-1', '--format=%B', ref.oid))!;
    const record = {
      splintercat: 'check-result',
      version: request.version,
      id: request.id,
      nonce: request.nonce,
      run: 'up',
      check: 'test',
      commit: request.commit,
      success: true,
      exitCode: 0,
      signal: null,
      timedOut: false,
      durationMs: 10,
      tests: null,
      url: null,
      runner: 'ci',
      finishedAt: new Date().toISOString(),
    };
    const result = commitOf(
      remote.repo,
      [
        ['100644', blob(remote.repo, `${JSON.stringify(record)}\n`), 'result.json'],
        ['100644', huge, 'log.txt'],
      ],
      null,
    );
    push(remote.repo, result, checkRefs('up', request.id).result);
    const checked = await outcome;
    checks.close();
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(100 * 1024 * 1024);
    expect(checked).toMatchObject({ success: false, exitCode: null, timedOut: true });
    expect(checked.tail.join('\n')).toMatch(/log\.txt is 150\.0 MiB, over the limit of 80 KiB/);
  });
});
