import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';

const lines = (edits: Record<number, string>): string =>
  Array.from({ length: 30 }, (_, i) => `${edits[i] ?? `line ${i}`}\n`).join('');

interface Hunk {
  index: number;
  rung: string | null;
  by: string | null;
}

describe('hunk numbers and what is learnt from a person', () => {
  it('numbers each hunk of a file once (rule and person alike) and counts what was learnt of what the person resolved', async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'f.txt': lines({}) });
    repo.branch('upstream');
    // Hunks 1 and 3 differ; hunk 2 only in spacing (whitespace-only takes it).
    repo.commit('fork', { 'f.txt': lines({ 2: 'fork a', 15: 'both  b', 28: 'fork c' }) });
    repo.checkout('upstream');
    repo.commit('upstream', { 'f.txt': lines({ 2: 'up a', 15: 'both b', 28: 'up c' }) });
    repo.checkout('main');
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      'target:\n  branch: main\ncheck:\n  commands: {}\n  workflow: []\nimerge:\n  name: up\n',
    );
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    expect((await runCli(['merge', 'upstream'], repo.dir)).code).toBe(3);
    const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as {
      handoff: { conflicts: Array<{ worktree: string; files: Array<{ hunks: number }> }> };
    };
    const handed = status.handoff.conflicts[0]!;
    expect(handed.files[0]?.hunks).toBe(2);
    const state = (): { conflicts: Array<{ files: Array<{ hunks: Hunk[] }> }> } =>
      JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8'));
    const open = state().conflicts[0]!.files[0]!.hunks;
    expect(open.map((h) => [h.index, h.by])).toEqual([
      [1, null],
      [2, 'whitespace-only'],
      [3, null],
    ]);
    writeFileSync(join(handed.worktree, 'f.txt'), lines({ 2: 'fork a', 15: 'both  b', 28: 'up c' }));
    const done = await runCli(['continue'], repo.dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(/learnt 2 of 2 hunk\(s\) of f\.txt/);
    expect(done.stderr).toMatch(/f\.txt#1:person, f\.txt#2:whitespace-only, f\.txt#3:person/);
    const hunks = state().conflicts[0]!.files[0]!.hunks;
    expect(hunks.map((h) => [h.index, h.rung])).toEqual([
      [1, 'person'],
      [2, 'rule'],
      [3, 'person'],
    ]);
  });
});
