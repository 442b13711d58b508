import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Git } from '../../src/git/index.js';
import { imergeEngines } from '../../src/workflow/imerge-adapter.js';
import { crossRepo } from '../fixtures/workflow/chain-repo.js';
import { tempDir, testGitEnv } from '../helpers/git-repo.js';

/**
 * Two clones of one fork, each with its own person, start the same merge, resolve its first
 * conflict the same way and fill the grid past it: returns each clone's engine refs.
 */
async function twoClones(shared: boolean): Promise<[Map<string, string>, Map<string, string>]> {
  const origin = crossRepo(
    3,
    (k) => `F${k}`,
    (k) => `U${k}`,
  );
  const refs: Map<string, string>[] = [];
  for (const [k, person] of ['Alice', 'Bob'].entries()) {
    const dir = join(tempDir(), 'repo');
    execFileSync('git', ['clone', '-q', origin.dir, dir], { env: { ...process.env, ...testGitEnv } });
    execFileSync('git', ['branch', '-q', 'upstream', 'origin/upstream'], { cwd: dir });
    // Each clone's own person, and a clock some time apart.
    const date = `${1_700_000_000 + k * 3600} +0000`;
    const env = { ...testGitEnv, GIT_AUTHOR_NAME: person, GIT_COMMITTER_NAME: person };
    const git = new Git({ cwd: dir, env: { ...env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
    onTestFinished(() => git.close());
    const [forkTip, upstreamTip] = [await git.resolve('main'), await git.resolve('upstream')];
    const engine = await imergeEngines(git, 1, { shared }).open({
      ...{ name: 'up', forkTip, upstreamTip, branch: 'main' },
      ...{ goal: 'merge', firstParent: true },
    });
    const [first] = await engine.autofill();
    expect(first).toBeDefined();
    const cell = await engine.conflictCell(first!);
    await engine.recordMerge(first!, await git.resolve(`${cell.above}^{tree}`));
    await engine.autofill();
    refs.push(new Map((await git.forEachRef('refs/imerge/up/')).map((r) => [r.ref, r.oid])));
  }
  return [refs[0]!, refs[1]!];
}

/** The refs of the grid's inner cells (the edges are the tips' own commits, the same anyway). */
function innerCells(refs: Map<string, string>): string[] {
  return [...refs.keys()].filter((ref) => /\/(auto|manual)\/[1-9]\d*-[1-9]\d*$/.test(ref));
}

describe('the grid of a shared run', () => {
  it('holds the same commits on every clone: the same resolution and autofill make the same refs', async () => {
    const [alice, bob] = await twoClones(true);
    const cells = innerCells(alice);
    expect(cells.some((ref) => ref.includes('/manual/'))).toBe(true);
    expect(cells.length).toBeGreaterThan(1);
    for (const ref of cells) expect(bob.get(ref), ref).toBe(alice.get(ref));
  });

  it("of a run not shared: each clone's own, its person's and dated now", async () => {
    const [alice, bob] = await twoClones(false);
    const cells = innerCells(alice);
    expect(cells.length).toBeGreaterThan(1);
    for (const ref of cells) expect(bob.get(ref), ref).not.toBe(alice.get(ref));
  });
});
