import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * The survival audit through the real CLI: a person's `take` that drops a side's lines is said at
 * `continue` (before any check runs), and counted in the merge commit, with the lines in the note;
 * upstream's lines are printed escaped; a modify/delete decision reports the whole side's change.
 */
const router = (...middle: string[]): string =>
  ['function route(req) {', '  const path = req.url;', ...middle, '  return dispatch(path);', '}', ''].join('\n');
const forkLines = ['  if (path.startsWith("/fork")) {', '    audit(req);', '  }'];

/** `main` (the fork) and `up` (upstream) from one base, one commit each; `up` merges into `main`. */
function fork(files: {
  base: Record<string, string>;
  ours: Record<string, string | null>;
  theirs: Record<string, string | null>;
}): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', files.base);
  repo.branch('up');
  repo.commit('fork change', files.ours);
  repo.checkout('up');
  repo.commit('upstream change', files.theirs);
  repo.checkout('main');
  writeFileSync(
    join(repo.dir, 'splintercat.yaml'),
    // The manual resolver: every conflict goes to the person, whatever the rules or the syntax merge could do.
    [
      'target:',
      '  branch: main',
      'check:',
      '  workflow: []',
      'merge:',
      '  resolver: manual',
      'imerge:',
      '  name: up',
      '',
    ].join('\n'),
  );
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
  return repo;
}

interface Status {
  handoff: { conflicts: Array<{ worktree: string }> } | null;
  drops: { fork: Array<{ path: string; lost: number; reason: string | null }>; upstream: unknown[] };
}

/** Merge `up`, run `person` in the hand-off's worktree, then `continue`: its output and the finished state. */
async function handOff(
  repo: TestRepo,
  person: (worktree: string) => Promise<void>,
): Promise<{ continued: string; status: Status }> {
  const run = await runCli(['merge', 'up', '--strategy', 'optimistic'], repo.dir);
  expect(run.code, run.stderr).toBe(3);
  const before = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as Status;
  const worktree = before.handoff!.conflicts[0]!.worktree;
  await person(worktree);
  const continued = await runCli(['continue'], worktree);
  expect(continued.code, continued.stderr).toBe(0);
  const status = JSON.parse((await runCli(['status', '--json'], repo.dir)).stdout) as Status;
  return { continued: continued.stderr, status };
}

describe('what a resolution dropped', () => {
  it('`take theirs` dropping three fork lines: said at continue, counted in the message, listed in the note', async () => {
    const repo = fork({
      base: { 'lib/router.js': router() },
      ours: { 'lib/router.js': router(...forkLines) },
      theirs: { 'lib/router.js': router('  log.debug(path);') },
    });
    const { continued, status } = await handOff(repo, async (worktree) => {
      const took = await runCli(['take', 'theirs', 'lib/router.js'], worktree);
      expect(took.code, took.stderr).toBe(0);
    });
    expect(continued).toMatch(/your resolution of `lib\/router\.js` drops 3 lines the fork added:/);
    expect(continued).toMatch(/dropped 3: {3}if \(path\.startsWith\("\/fork"\)\) \{/);
    expect(continued).toMatch(/dropped 4: {5}audit\(req\);/);
    expect(status.drops.fork).toEqual([
      expect.objectContaining({ path: 'lib/router.js', lost: 3, reason: "a person's take theirs" }),
    ]);
    expect(status.drops.upstream).toEqual([]);
    const message = repo.sh('log', '-1', '--format=%B', 'main');
    expect(message).toMatch(
      /^What the merge dropped:\n {4}lib\/router\.js: drops 3 lines the fork added \[cell 1-1, a person \(theirs\)\]$/m,
    );
    const note = JSON.parse(repo.sh('notes', '--ref=splintercat', 'show', 'main')) as {
      drops: {
        cells: Array<{ conflict: string; path: string; ours: { dropped: number; lines: Array<{ text: string }> } }>;
        final: { files: Array<{ path: string; drops: { ours: { dropped: number } } }> };
      };
    };
    expect(note.drops.cells).toEqual([
      expect.objectContaining({ conflict: '1-1', path: 'lib/router.js', reason: "a person's take theirs" }),
    ]);
    expect(note.drops.cells[0]!.ours.lines.map((l) => l.text)).toEqual(forkLines);
    expect(note.drops.final.files).toEqual([
      { path: 'lib/router.js', drops: { ours: expect.objectContaining({ dropped: 3 }) } },
    ]);
  });

  it('a resolution keeps its drops through `doctor --rebuild` from the journal', async () => {
    const repo = fork({
      base: { 'lib/router.js': router() },
      ours: { 'lib/router.js': router(...forkLines) },
      theirs: { 'lib/router.js': router('  log.debug(path);') },
    });
    await handOff(repo, async (worktree) => {
      expect((await runCli(['take', 'theirs', 'lib/router.js'], worktree)).code).toBe(0);
    });
    const runDir = join(repo.dir, '.git', 'splintercat', 'up');
    const cellDrops = (): unknown =>
      (
        JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as {
          conflicts: Array<{ files: Array<{ drops?: { ours?: { dropped: number } } }> }>;
        }
      ).conflicts.flatMap((c) => c.files.map((f) => f.drops?.ours?.dropped ?? 0));
    expect(cellDrops()).toEqual([3]);
    rmSync(join(runDir, 'state.json'));
    rmSync(join(runDir, 'state.json.bak'), { force: true });
    const rebuilt = await runCli(['doctor', '--name', 'up', '--rebuild'], repo.dir);
    expect(rebuilt.code, rebuilt.stderr + rebuilt.stdout).toBe(0);
    expect(cellDrops()).toEqual([3]);
  });

  it('says nothing of a function the person moved, and keeps both sides unreported', async () => {
    const helper = ['function helper(x) {', '  return x * 2;', '}'];
    const base = ['const a = 1;', '', 'function main() {', '  return a;', '}', ''].join('\n');
    const repo = fork({
      base: { 'm.js': base },
      ours: { 'm.js': ['const a = 1;', ...helper, '', 'function main() {', '  return a;', '}', ''].join('\n') },
      theirs: { 'm.js': ['const a = 2;', '', 'function main() {', '  return a;', '}', ''].join('\n') },
    });
    const { continued, status } = await handOff(repo, async (worktree) => {
      // The person keeps upstream's constant and moves the fork's helper below main.
      const resolved = ['const a = 2;', '', 'function main() {', '  return a;', '}', '', ...helper, ''].join('\n');
      writeFileSync(join(worktree, 'm.js'), resolved);
    });
    expect(continued).not.toMatch(/drops|brings back|rewrites/);
    expect(status.drops).toMatchObject({ fork: [], upstream: [] });
    expect(repo.sh('log', '-1', '--format=%B', 'main')).not.toMatch(/What the merge dropped/);
  });

  it('upstream lines are printed escaped: a control sequence in a dropped line never reaches the terminal raw', async () => {
    const hostile = '  evil("\u001b]52;c;Y3VybCBldmls\u0007");';
    const repo = fork({
      base: { 'lib/router.js': router() },
      ours: { 'lib/router.js': router('  fork();') },
      theirs: { 'lib/router.js': router(hostile) },
    });
    const { continued } = await handOff(repo, async (worktree) => {
      expect((await runCli(['take', 'ours', 'lib/router.js'], worktree)).code).toBe(0);
    });
    expect(continued).toMatch(/drops 1 line upstream added:/);
    expect(continued).toContain('evil("\\e]52;c;Y3VybCBldmls\\x07");');
    expect(continued).not.toContain('\u001b]52');
    const message = repo.sh('log', '-1', '--format=%B', 'main');
    expect(message).toMatch(/lib\/router\.js: drops 1 line upstream added \[cell 1-1, a person \(ours\)\]/);
    expect(message).not.toContain('\u001b');
  });

  it('a modify/delete kept as upstream changed it reports the whole of the fork’s deletion', async () => {
    const old = ['export function legacy() {', '  return 1;', '}', ''].join('\n');
    const repo = fork({
      base: { 'old.js': old, 'keep.txt': 'k\n' },
      ours: { 'old.js': null },
      theirs: { 'old.js': old.replace('return 1;', 'return 2;') },
    });
    const { continued, status } = await handOff(repo, async (worktree) => {
      repo.sh('-C', worktree, 'add', '--', 'old.js');
    });
    expect(continued).toMatch(/your resolution of `old\.js` keeps the file the fork deleted \(2 lines\):/);
    expect(status.drops.fork).toEqual([expect.objectContaining({ path: 'old.js', lost: 2 })]);
    expect(repo.sh('log', '-1', '--format=%B', 'main')).toMatch(/old\.js: keeps the file the fork deleted \(2 lines\)/);
  });

  it('resolve.review_drops: ask hands over a cached answer that drops fork lines with no recorded reason', async () => {
    const repo = fork({
      base: { 'lib/router.js': router() },
      ours: { 'lib/router.js': router(...forkLines) },
      theirs: { 'lib/router.js': router('  log.debug(path);') },
    });
    await handOff(repo, async (worktree) => {
      expect((await runCli(['take', 'theirs', 'lib/router.js'], worktree)).code).toBe(0);
    });
    // The same merge again, from the fork's tip before it: the cache has the person's answer to the hunk.
    repo.sh('reset', '-q', '--hard', 'main~1');
    const ladder = ['target:', '  branch: main', 'check:', '  workflow: []', 'resolve:', '  review_drops: ask', ''];
    writeFileSync(join(repo.dir, 'splintercat.yaml'), ladder.join('\n'));
    const run = await runCli(['merge', 'up', '--name', 'again', '--strategy', 'optimistic'], repo.dir);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toMatch(
      /the resolution by cache \(person:person\) of `lib\/router\.js` drops 3 lines the fork added:/,
    );
    expect(run.stderr).toMatch(/resolve\.review_drops asks you to confirm it/);
    const status = JSON.parse((await runCli(['status', '--json', '--name', 'again'], repo.dir)).stdout) as Status;
    const worktree = status.handoff!.conflicts[0]!.worktree;
    // The person confirms it as it is.
    const continued = await runCli(['continue', '--name', 'again'], worktree);
    expect(continued.code, continued.stderr).toBe(0);
    expect(repo.sh('show', 'main:lib/router.js').trim()).toBe(router('  log.debug(path);').trim());
    expect(repo.sh('log', '-1', '--format=%B', 'main')).toMatch(
      /lib\/router\.js: drops 3 lines the fork added \[cell 1-1, cache \(person:person\), no recorded reason\]/,
    );
  });
});
