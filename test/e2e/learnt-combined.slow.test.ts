import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * A fork whose maintainer combines: each release bumps upstream's version line while the fork
 * rewrites the same lines with its patch; three times the maintainer kept upstream's version and
 * the fork's patch line, dropping the fork's old version (text of both sides, edited). Release 4
 * conflicts the same way.
 */
const deps = (lines: string): string => `[deps]\nname = lib\n${lines}\ntimeout = 30\n`;

function combiningFork(): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'deps.txt': deps('version = 0') });
  repo.branch('up');
  for (let n = 1; n <= 4; n++) {
    repo.checkout('up');
    repo.commit(`release ${n}`, { 'deps.txt': deps(`version = ${n}`) });
    repo.checkout('main');
    repo.commit(`fork work ${n}`, { 'deps.txt': deps(`fork_patch = p${n}\nversion = ${n - 1}-fork`) });
    if (n === 4) break;
    expect(() => repo.sh('merge', '--no-edit', 'up')).toThrow();
    repo.commit(`Merge release ${n}`, { 'deps.txt': deps(`version = ${n}\nfork_patch = p${n}`) });
  }
  return repo;
}

interface Status {
  handoff: {
    conflicts: Array<{
      worktree: string;
      files: Array<{ path: string; blocks?: Array<{ suggestion?: Record<string, unknown> }> }>;
    }>;
  } | null;
}

describe('a combined suggestion, where the maintainer used to combine both sides', () => {
  it('is shown with its evidence and taken with one command; init proposes no side for the path', async () => {
    const repo = combiningFork();
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      ['target:', '  branch: main', 'check:', '  workflow: []', 'imerge:', '  name: up', ''].join('\n'),
    );
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    const run = await runCli(['merge', 'up', '--strategy', 'optimistic'], repo.dir);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(
      /hunk 1 \(lines \d+-\d+\): suggested combined: splintercat take combined deps\.txt 1\n\s+why: .*the maintainer kept both sides combined .*`take combined` writes this hunk's two sides combined/,
    );
    const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as Status;
    const conflict = status.handoff!.conflicts[0]!;
    const suggestion = conflict.files.find((f) => f.path === 'deps.txt')?.blocks?.[0]?.suggestion;
    expect(suggestion).toMatchObject({
      choice: 'combined',
      basis: 'combined',
      command: 'splintercat take combined deps.txt 1',
    });
    const took = await runCli(['take', 'combined', 'deps.txt', '1'], conflict.worktree);
    expect(took.code, took.stderr).toBe(0);
    expect(took.stdout).toContain('deps.txt: took combined for hunk 1; no hunk left, staged');
    const text = readFileSync(join(conflict.worktree, 'deps.txt'), 'utf8');
    expect(text).not.toMatch(/^[<=>|]{7}/m);
    // The first conflict is the fork's last merge against release 4: upstream's version and the fork's patch line, combined.
    expect(text).toBe(deps('version = 4\nfork_patch = p3'));

    const proposed = await runCli(['init', '--propose'], repo.dir);
    expect(proposed.code, proposed.stderr).toBe(0);
    expect(proposed.stdout).not.toMatch(/^ {2}# {3}"deps\.txt":/m);
    expect(proposed.stdout).toMatch(/^ {2}# {3}"deps\.txt" +# combined 3$/m);
  });
});
