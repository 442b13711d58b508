import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { recordedRun, type RecordedRun } from '../fixtures/report/recorded-run.js';

let run: RecordedRun;

beforeAll(async () => {
  // Stopped for the person at its first conflict: refs, worktree and state all present.
  run = await recordedRun({ stopForPerson: true });
  expect(run.outcome.kind).toBe('needs_person');
});

describe('splintercat status / report / ui (CLI)', () => {
  it('status: phase, elapsed, conflicts done and left, cost by role, and the diagram with the blocker', async () => {
    const status = await runCli(['status'], run.repo.dir);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^Merge 'up': needs_person — 1 file\(s\) in 1 conflict\(s\) need the person/);
    expect(status.stdout).toMatch(/^ {2}attempts: 1; #1 optimistic, 0 resolved, open$/m);
    expect(status.stdout).toMatch(/^ {2}phase: resolve_conflicts; elapsed \S+ \(stopped at \d\d:\d\d:\d\d\)$/m);
    expect(status.stdout).toMatch(
      /^ {2}conflicts: 0 done, 1 left \(of 1\); hunks by rung: cache 0, policy 0, generated 0, rule 0, syntax 0, learnt 0, model 0, person 0; open 1$/m,
    );
    expect(status.stdout).toMatch(/^ {2}models: resolver 0 calls 0\+0 tokens \$0\.0000; .*; cost \$0\.0000$/m);
    expect(status.stdout).toMatch(/^ {3}0 - \*{5} - main\n {7}\*#/m);
    expect(status.stdout).toContain(
      'C/P/G/R/S/L/M/H = conflict resolved by cache / policy / regenerate / rule / syntax merge / learnt / model / person',
    );
    const json = JSON.parse((await runCli(['status', '--json'], run.repo.dir)).stdout);
    expect(json).toMatchObject({
      name: 'up',
      status: 'needs_person',
      live: false,
      conflicts: { total: 1, left: 1 },
      grid: { size: { i1: 4, i2: 4 }, blockers: 1 },
      currentCheck: null,
    });
    expect(json.grid.diagram).toMatch(/\*#/);
  });

  it('report: Markdown on stdout without options; HTML and Markdown files with them', async () => {
    const md = await runCli(['report'], run.repo.dir);
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^## splintercat: upstream merged into main — needs person\n/);
    expect(md.stdout).toMatch(/<summary>Conflict 1-1 — needs person, 1 file\(s\)<\/summary>/);
    // `--md` with no file, as the README writes it: the same Markdown on stdout.
    const bare = await runCli(['report', '--md'], run.repo.dir);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stdout).toBe(md.stdout);
    const dir = tempDir();
    const files = await runCli(['report', '--html', join(dir, 'r.html'), '--md', join(dir, 'r.md')], run.repo.dir);
    expect(files.stdout).toBe(`HTML report: ${join(dir, 'r.html')}\nMarkdown report: ${join(dir, 'r.md')}\n`);
  });

  it('report and ui errors say what, why and how to fix, with exit codes 1 and 2', async () => {
    const unwritable = await runCli(['report', '--html', '/nonexistent-dir/r.html'], run.repo.dir);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(/The HTML report could not be written to \/nonexistent-dir\/r\.html/);
    expect(unwritable.stderr).toMatch(/its directory must exist/);
    const missing = await runCli(['report', '--name', 'nosuch'], run.repo.dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/There is no run state for the merge 'nosuch'/);
    const port = await runCli(['ui', '--port', '99999'], run.repo.dir);
    expect(port.code).toBe(2);
    expect(port.stderr).toMatch(/'99999' is not a port number/);
  });
});
