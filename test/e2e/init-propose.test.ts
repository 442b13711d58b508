import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../fixtures/resolve/cli.js';
import { TestRepo } from '../helpers/git-repo.js';

/**
 * `init --propose`: what the past merges propose for resolve.paths, printed with its evidence, the
 * configuration untouched; a union whose result did not parse in its own evidence merges is never proposed.
 */
const json = (v: string) => `{\n  "name": "app",\n  "v": ${v}\n}\n`;

/** Two past merges: banner.txt settled with upstream's side both times, data.json with both sides (which is no JSON). */
function forkWithMerges(): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'banner.txt': 'banner 0\n', 'data.json': json('0') });
  for (const k of [1, 2]) {
    repo.branch(`up${k}`);
    repo.commit(`fork ${k}`, { 'banner.txt': `fork banner ${k}\n`, 'data.json': json(`${k}0`) });
    repo.checkout(`up${k}`);
    repo.commit(`upstream ${k}`, { 'banner.txt': `upstream banner ${k}\n`, 'data.json': json(`${k}1`) });
    repo.checkout('main');
    repo.sh('merge', '-q', `up${k}`, '--no-ff', '-m', `merge ${k}`, '--strategy-option=ours', '--no-commit');
    // The maintainer keeps upstream's banner and both values (the merge commit holds JSON that does not parse).
    repo.write({
      'banner.txt': `upstream banner ${k}\n`,
      'data.json': `{\n  "name": "app",\n  "v": ${k}0\n  "v": ${k}1\n}\n`,
    });
    repo.sh('add', '-A');
    repo.sh('commit', '-q', '-m', `merge ${k}`);
    repo.commit(`fix data.json after merge ${k}`, { 'data.json': json(`${k}1`) });
  }
  return repo;
}

describe('init --propose', () => {
  it('prints the proposal with its evidence and leaves the configuration as it is; a union that did not parse is left out', async () => {
    const repo = forkWithMerges();
    const path = join(repo.dir, 'splintercat.yaml');
    const mine = 'target:\n  branch: main\n';
    writeFileSync(path, mine);
    const run = await runCli(['init', '--propose'], repo.dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `Nothing was written. To accept a line, add it without its \`# \` under resolve.paths in ${path}.`,
    );
    expect(run.stdout).toMatch(/^ {2}# {3}"banner\.txt": theirs +# theirs in all 2 merges that conflicted there/m);
    expect(run.stdout).not.toMatch(/data\.json/);
    expect(readFileSync(path, 'utf8')).toBe(mine);
    // Without --propose, init still refuses to overwrite, and says how to see a proposal.
    const refused = await runCli(['init'], repo.dir);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('splintercat init --propose');
  });
});
