import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';
import { teamArena } from '../helpers/team-arena.js';

/**
 * Paths of another clone, and links in the tree: a clone acts only on its own repository, its own
 * worktrees and its own log directories. `doctor --rebuild` on a joined clone never takes the
 * other clone's directory, so `abort` there removes nothing of the other clone's; a link
 * committed in the tree (`.splintercat/logs`) never sends the logs elsewhere.
 */

/** The one conflict handed over: its worktree's vals.txt. */
function handedFile(run: CliRun): string {
  const cd = /^ *cd (\S+)\s+# conflict (\d+-\d+):/m.exec(run.stderr);
  expect(cd, run.stderr).not.toBeNull();
  return join(cd![1]!, 'vals.txt');
}

/** Alice's merge, a conflict in her worktree with an edit she has not given to `continue` yet; Bob joins. */
async function aliceMidEdit(): Promise<{ alice: TestRepo; bob: TestRepo; file: string }> {
  const arena = teamArena();
  const alice = arena.clone('Alice');
  const started = await runCli(['merge', 'upstream', '--remote', 'origin'], alice.dir);
  expect(started.code, started.stderr).toBe(3);
  const file = handedFile(started);
  writeFileSync(file, 'v1 = ALICE-UNSAVED\nv2 = ALICE-UNSAVED\n');
  const bob = arena.clone('Bob');
  const joined = await runCli(['join', 'origin', 'up'], bob.dir);
  expect(joined.code, joined.stderr).toBe(0);
  return { alice, bob, file };
}

/** Alice's run is as she left it: her edit, her engine refs, her run state. */
function expectAliceIntact(alice: TestRepo, file: string): void {
  expect(readFileSync(file, 'utf8')).toBe('v1 = ALICE-UNSAVED\nv2 = ALICE-UNSAVED\n');
  expect(alice.sh('for-each-ref', '--format=%(refname)', 'refs/imerge/up/state')).toBe('refs/imerge/up/state');
  expect(existsSync(join(alice.dir, '.git', 'splintercat', 'up', 'state.json'))).toBe(true);
}

/** Several CLI runs on three clones each: minutes on a loaded machine, never a hang. */
const TIMEOUT = 180_000;

describe("another clone's paths: doctor --rebuild and abort on a joined clone", () => {
  it(
    "rebuild after join, then abort: Alice's worktree, edit, refs and run are untouched",
    async () => {
      const { alice, bob, file } = await aliceMidEdit();
      const rebuilt = await runCli(['doctor', '--rebuild', '--name', 'up'], bob.dir);
      expect(rebuilt.code, rebuilt.stdout + rebuilt.stderr).toBe(0);
      const state = readFileSync(join(bob.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8');
      expect(state).not.toContain(alice.dir);
      const aborted = await runCli(['abort', '--name', 'up'], bob.dir);
      expect(aborted.code, aborted.stderr).toBe(0);
      expectAliceIntact(alice, file);
      expect(existsSync(join(bob.dir, '.git', 'splintercat', 'up'))).toBe(false);
    },
    TIMEOUT,
  );

  it(
    "a journal holding the other clone's start (as an older join copied it): rebuild takes nothing of it",
    async () => {
      const { alice, bob, file } = await aliceMidEdit();
      copyFileSync(
        join(alice.dir, '.git', 'splintercat', 'up', 'events.jsonl'),
        join(bob.dir, '.git', 'splintercat', 'up', 'events.jsonl'),
      );
      const rebuilt = await runCli(['doctor', '--rebuild', '--name', 'up'], bob.dir);
      expect(rebuilt.code, rebuilt.stdout + rebuilt.stderr).toBe(0);
      expect(rebuilt.stdout).toMatch(/names another directory/);
      const state = readFileSync(join(bob.dir, '.git', 'splintercat', 'up', 'state.json'), 'utf8');
      expect(state).not.toContain(alice.dir);
      const aborted = await runCli(['abort', '--name', 'up'], bob.dir);
      expect(aborted.code, aborted.stderr).toBe(0);
      expectAliceIntact(alice, file);
    },
    TIMEOUT,
  );
});

describe('a link committed in the tree where the logs go', () => {
  /** A repository whose tree has `link` (a symlink to a directory outside), as merged from upstream. */
  function linkedRepo(link: string, to: (outside: string) => string): { repo: TestRepo; outside: string } {
    const outside = mkdtempSync(join(tmpdir(), 'splintercat-outside-'));
    const repo = TestRepo.create();
    repo.commit('base', { 'a.txt': 'a\n' });
    mkdirSync(join(repo.dir, link, '..'), { recursive: true });
    symlinkSync(to(outside), join(repo.dir, link));
    repo.sh('add', '-f', link);
    repo.sh('commit', '-q', '-m', 'upstream: a link');
    writeFileSync(
      join(repo.dir, 'splintercat.yaml'),
      ['check:', '  commands:', '    build: "true"', '  workflow: [build]', ''].join('\n'),
    );
    writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    return { repo, outside };
  }

  it(
    '.splintercat/logs linked outside: the check refuses, naming the link; nothing is written there',
    async () => {
      const { repo, outside } = linkedRepo('.splintercat/logs', (o) => o);
      const run = await runCli(['check', 'build'], repo.dir);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/\.splintercat\/logs is a link/);
      expect(readdirSync(outside)).toEqual([]);
    },
    TIMEOUT,
  );

  it(
    '.splintercat/logs/splintercat.log linked to a file outside: it is never appended to',
    async () => {
      const outside = mkdtempSync(join(tmpdir(), 'splintercat-outside-'));
      const target = join(outside, 'bashrc');
      writeFileSync(target, 'original\n');
      const { repo } = linkedRepo('.splintercat/logs/splintercat.log', () => target);
      repo.branch('upstream');
      repo.checkout('upstream');
      repo.commit('upstream: b', { 'b.txt': 'b\n' });
      repo.checkout('main');
      const run = await runCli(['merge', 'upstream'], repo.dir);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/splintercat\.log is a link/);
      expect(readFileSync(target, 'utf8')).toBe('original\n');
    },
    TIMEOUT,
  );
});
