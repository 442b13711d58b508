import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestRepo } from '../helpers/git-repo.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { forkBlock, habitFork } from '../fixtures/workflow/habit-fork.js';

/**
 * The fork's memory at a hand-off: the suggestions its own past merges give (with the evidence
 * and the one command that takes each), followed to the letter; `resolve.learnt: apply` taking
 * the strong ones without asking; `eval --learnt` learning only from earlier merges.
 */
function configure(repo: TestRepo, extra: string[] = []): void {
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    ['target:', '  branch: main', 'check:', '  workflow: []', 'imerge:', '  name: up', ...extra, ''].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
}

interface HandoffHunk {
  hunk: number;
  take: Record<string, string>;
  suggestion?: { choice: string; command: string; evidence: string; basis: string; agree: number; of: number };
}
interface Status {
  handoff: { conflicts: Array<{ worktree: string; files: Array<{ path: string; blocks?: HandoffHunk[] }> }> } | null;
}

describe('suggestions learnt from the fork’s own merges', () => {
  it('shows each hunk with its suggestion and evidence; running the suggested commands finishes the merge', async () => {
    const repo = habitFork();
    configure(repo);
    let run = await runCli(['merge', 'up', '--strategy', 'optimistic'], repo.dir);
    const seen: Record<string, HandoffHunk['suggestion']> = {};
    const texts: string[] = [];
    while (run.code === 3) {
      texts.push(run.stderr);
      const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as Status;
      const conflict = status.handoff!.conflicts[0]!;
      // The person takes every suggestion, one command each, in the conflict's worktree.
      for (const f of conflict.files)
        for (const b of f.blocks ?? []) {
          seen[f.path] = b.suggestion;
          const took = await runCli(b.suggestion!.command.split(' ').slice(1), conflict.worktree);
          expect(took.code, took.stderr).toBe(0);
        }
      run = await runCli(['continue'], conflict.worktree);
    }
    expect(run.code, run.stderr).toBe(0);
    expect(seen['config.ini']).toMatchObject({ choice: 'ours', basis: 'similar', agree: 3, of: 3 });
    expect(seen['banner.txt']).toMatchObject({ choice: 'theirs', basis: 'habit', agree: 3, of: 3 });
    const text = texts.join('\n');
    expect(text).toMatch(
      /config\.ini .*\n\s+hunk 1 \(lines \d+-\d+\): suggested ours: splintercat take ours config\.ini 1\n\s+why: in 3 of 3 earlier merge\(s\) that conflicted on these same lines/,
    );
    expect(text).toMatch(
      /banner\.txt .*\n\s+hunk 1 .*: suggested theirs: splintercat take theirs banner\.txt 1\n\s+why: in 3 of the last 3 merge\(s\) that conflicted in banner\.txt where both sides replaced the same lines \(\d{4}-\d\d-\d\d\), the maintainer kept theirs/,
    );
    expect(repo.sh('show', 'main:config.ini')).toContain(forkBlock);
    expect(repo.sh('show', 'main:banner.txt')).toBe('header\nLib 4\nfooter');
    // The record travels with the merge: who settled what in the message, everything in the note.
    const message = repo.sh('log', '-1', '--format=%B', 'main');
    expect(message).toMatch(
      /^Merge up into main\n\nMerged with splintercat \(run up\): 2 x 1 grid, 2 conflict\(s\), 2 hunk\(s\)\.\n\nConflicts:\n/,
    );
    expect(message).toMatch(/^ {4}config\.ini: 1 hunk by a person \(ours\) \[cell 1-1\]$/m);
    expect(message).toMatch(/^ {4}banner\.txt: 1 hunk by a person \(theirs\) \[cell 2-1\]$/m);
    expect(message).toMatch(/Full record: git notes --ref=splintercat show HEAD$/);
    const note = JSON.parse(repo.sh('notes', '--ref=splintercat', 'show', 'main')) as {
      run: string;
      conflicts: Array<{ id: string; files: Array<{ path: string; hunks: Array<{ rung: string; by: string }> }> }>;
    };
    expect(note.run).toBe('up');
    expect(note.conflicts.map((c) => [c.id, c.files[0]?.path, c.files[0]?.hunks[0]?.rung])).toEqual([
      ['1-1', 'config.ini', 'person'],
      ['2-1', 'banner.txt', 'person'],
    ]);
  });

  it('resolve.learnt: apply takes what earlier conflicts on the same lines agree on, and hands over the rest', async () => {
    const repo = habitFork();
    configure(repo, ['resolve:', '  learnt: apply', '  paths:', '    "confg/*.ini": ours']);
    const run = await runCli(['merge', 'up', '--strategy', 'optimistic'], repo.dir);
    expect(run.code, run.stderr).toBe(3);
    // A glob that matches nothing is a warning, not an error.
    expect(run.stderr).toMatch(
      /resolve\.paths: "confg\/\*\.ini" matches no file of [0-9a-f]{12} or [0-9a-f]{12}; check the glob/,
    );
    const state = JSON.parse(readFileSync(join(repo.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8')) as {
      conflicts: Array<{ files: Array<{ path: string; hunks: Array<{ rung: string | null; by: string | null }> }> }>;
    };
    const hunks = Object.fromEntries(
      state.conflicts.flatMap((c) => c.files.map((f) => [f.path, f.hunks.map((h) => [h.rung, h.by])])),
    );
    expect(hunks['config.ini']).toEqual([['learnt', 'learnt: ours (3 of 3 merges)']]);
    expect(hunks['banner.txt']).toEqual([[null, null]]);
  });

  it('eval --learnt learns only from merges earlier than the one replayed', async () => {
    const repo = habitFork();
    repo.sh('checkout', '-q', 'up');
    repo.sh('branch', '-D', 'main');
    const r = await runCli(['eval', '--repo', repo.dir, '--learnt', '--json'], repo.dir);
    expect(r.code, r.stderr).toBe(0);
    const learnt = (JSON.parse(r.stdout) as { learnt: { left: number; suggested: number; equal: number } }).learnt;
    expect(learnt).toMatchObject({ left: 0, suggested: 0 });
    const all = await runCli(['eval', '--repo', habitFork().dir, '--learnt', '--json'], repo.dir);
    const counts = (JSON.parse(all.stdout) as { learnt: { left: number; suggested: number; equal: number } }).learnt;
    // Three merges of two conflicted files: the first merge has nothing earlier to learn from, and in
    // the second a habit resting on the first merge alone is not shown.
    expect(counts.left).toBe(6);
    expect(counts.suggested).toBe(3);
    expect(counts.equal).toBe(3);
  });

  it('init proposes a policy from the past merges, commented out; the lines accepted settle the next merge', async () => {
    const repo = habitFork();
    const init = await runCli(['init'], repo.dir);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/proposes 2 resolve\.paths line\(s\) from the repository's past merges, commented out/);
    const path = join(repo.dir, 'splintercat.yaml');
    const text = readFileSync(path, 'utf8');
    expect(text).toMatch(
      /^ {2}paths: \{\}\n {2}# {3}"banner\.txt": theirs +# theirs in all 3 merges that conflicted there/m,
    );
    expect(text).toMatch(/^ {2}# {3}"config\.ini": ours +# ours in all 3 merges that conflicted there/m);
    // The maintainer accepts both lines, as the comment says.
    const accepted = text
      .replace('\n  paths: {}\n', '\n  paths:\n')
      .replace(/^ {2}# ( {2}"banner\.txt": theirs)/m, '  $1')
      .replace(/^ {2}# ( {2}"config\.ini": ours)/m, '  $1');
    writeFileSync(path, accepted);
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    const run = await runCli(
      ['merge', 'up', '--into', 'main', '--name', 'up', '--strategy', 'optimistic', '--set', 'check.workflow=[]'],
      repo.dir,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(repo.sh('log', '-1', '--format=%B', 'main')).toMatch(
      /^ {4}config\.ini: 1 hunk by the policy \(config\.ini: ours\) \[cell 1-1\]$/m,
    );
  });

  it('a hand-off of a run beside a finished one names it, so continue resumes it', async () => {
    const repo = habitFork();
    // The first merge is settled by the policy alone, and finishes.
    configure(repo, ['resolve:', '  paths:', '    "config.ini": ours', '    "banner.txt": theirs']);
    expect((await runCli(['merge', 'up', '--strategy', 'optimistic'], repo.dir)).code).toBe(0);
    configure(repo);

    repo.checkout('up');
    repo.commit('release 5', { 'banner.txt': 'header\nLib 5\nfooter\n' });
    repo.checkout('main');
    repo.commit('fork work 5', { 'banner.txt': 'header\nLib 4, fork edition 5\nfooter\n' });
    const again = await runCli(['merge', 'up', '--name', 'again', '--strategy', 'optimistic'], repo.dir);
    expect(again.code, again.stderr).toBe(3);
    expect(again.stderr).toMatch(/\n {2}splintercat continue --name again\n/);
    const worktree = /^\s+cd (\S+)\s+# conflict/m.exec(again.stderr)?.[1] as string;
    expect((await runCli(['take', 'theirs', 'banner.txt', '1'], worktree)).stdout).toMatch(
      /Then: splintercat continue --name again/,
    );
    const resumed = await runCli(['continue', '--name', 'again'], worktree);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(repo.sh('show', 'main:banner.txt')).toBe('header\nLib 5\nfooter');
  });
});
