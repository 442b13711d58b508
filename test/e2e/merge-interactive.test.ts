import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testGitEnv, type TestRepo } from '../helpers/git-repo.js';
import { cliShellCommand, runCli } from '../fixtures/resolve/cli.js';
import { chainRepo, valuesFile, writeChainConfig } from '../fixtures/workflow/chain-repo.js';

function configure(repo: TestRepo): void {
  writeChainConfig(repo.dir, ['merge:', '  strategy: per_conflict']);
}

interface Session {
  code: number;
  stderr: string;
  /** Every question asked, in order. */
  questions: string[];
}

/** Run the CLI and answer each `[y/n]` question on its stdin as `answer(question)` says, when it is asked. */
function converse(args: string[], cwd: string, answer: (question: string) => 'y' | 'n'): Promise<Session> {
  return new Promise((done) => {
    const child = spawn('/bin/sh', ['-c', `exec ${cliShellCommand} ${args.join(' ')}`], {
      cwd,
      env: { ...process.env, ...testGitEnv },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    let scanned = 0;
    const questions: string[] = [];
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (;;) {
        const at = stderr.indexOf(' [y/n] ', scanned);
        if (at < 0) break;
        const question = stderr.slice(stderr.lastIndexOf('\n', at) + 1, at);
        questions.push(question);
        scanned = at + 7;
        child.stdin.write(`${answer(question)}\n`);
      }
    });
    child.stdout.resume();
    child.on('close', (code) => {
      done({ code: code ?? 1, stderr, questions });
    });
  });
}

describe('splintercat merge --interactive', () => {
  it('asks before every check command and every resolution, showing the command and the diff; yes to all merges', async () => {
    const repo = chainRepo(
      2,
      () => '1  ',
      () => '1',
    );
    configure(repo);
    const run = await converse(['merge', 'upstream', '--interactive'], repo.dir, () => 'y');
    expect(run.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(run.code).toBe(0);
    expect(run.questions.filter((q) => q === "Run check 'build'?").length).toBeGreaterThanOrEqual(3);
    expect(run.questions).toContain('Record this resolution of 1-1? (no = leave it to you)');
    expect(run.questions).toContain('Record this resolution of 2-2? (no = leave it to you)');
    expect(run.stderr).toContain('$ node check.mjs');
    expect(run.stderr).toMatch(/vals\.txt: hunk 1 by rule \(\S+\)/);
    // The rule kept the fork's spacing: nothing changes against the fork side, the upstream line does.
    expect(run.stderr).toMatch(
      /^Against the fork side:\n\(identical\)\nAgainst the upstream side:\ndiff --git a\/vals\.txt b\/vals\.txt\n/m,
    );
    expect(run.stderr).toMatch(/^-v1 = 1\n\+v1 = 1 {2}$/m);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['1  ', '1  ']).trimEnd());
  });

  it('a declined resolution goes to the person as a plain conflict; continue takes the edit', async () => {
    const repo = chainRepo(
      1,
      () => '1  ',
      () => '1',
    );
    configure(repo);
    const first = await converse(['merge', 'upstream', '--interactive'], repo.dir, (q) =>
      q.startsWith('Record') ? 'n' : 'y',
    );
    expect(first.code).toBe(3);
    const file = /^\s+(\/\S+vals\.txt)$/m.exec(first.stderr)?.[1] as string;
    expect(readFileSync(file, 'utf8')).toMatch(/^<<<<<<< /m);
    const events = readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8');
    expect(events).toMatch(/"type":"decision","kind":"resolution","by":"person","decision":"declined"/);
    writeFileSync(file, valuesFile(['human']));
    const second = await runCli(['continue'], repo.dir);
    expect(second.code).toBe(0);
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['human']).trimEnd());
  });

  it('a declined command stops the run cleanly; continue asks again and finishes', async () => {
    const repo = chainRepo(
      1,
      () => '1  ',
      () => '1',
    );
    configure(repo);
    const fork = repo.sh('rev-parse', 'main');
    const first = await converse(['merge', 'upstream', '--interactive'], repo.dir, () => 'n');
    expect(first.code).toBe(1);
    expect(first.questions).toEqual(["Run check 'build'?"]);
    expect(first.stderr).toMatch(/Resume with: splintercat continue/);
    expect(repo.sh('rev-parse', 'main')).toBe(fork);
    const second = await converse(['continue', '--interactive'], repo.dir, () => 'y');
    expect(second.code).toBe(0);
    expect(second.questions[0]).toBe("Run check 'build'?");
    expect(repo.sh('rev-list', '--parents', '-n', '1', 'main').split(' ')).toHaveLength(3);
  });
});
