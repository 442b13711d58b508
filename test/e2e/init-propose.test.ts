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
    expect(run.stdout).not.toMatch(/^ {2}# {3}"data\.json":/m);
    expect(run.stdout).toMatch(/^ {2}# {3}"data\.json" +# ours then theirs 2$/m);
    expect(readFileSync(path, 'utf8')).toBe(mine);
    // Without --propose, init still refuses to overwrite, and says how to see a proposal.
    const refused = await runCli(['init'], repo.dir);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('splintercat init --propose');
  });

  it('shows its progress reading past merges on stderr, and says how many it read and that older ones were left out', async () => {
    const repo = forkWithMerges();
    const all = await runCli(['init', '--propose'], repo.dir);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toContain('reading past merges: 1 of 2');
    expect(all.stderr).toContain('reading past merges: 2 of 2');
    expect(all.stdout).toContain("# Proposed from this repository's 2 most recent merges.");
    const one = await runCli(['init', '--propose', '--history-merges', '1'], repo.dir);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toContain('reading past merges: 1 of 1');
    expect(one.stdout).toContain(
      "from this repository's 1 most recent merges (at most that many are read: older ones, if any, are left out; --history-merges reads more)",
    );
    const bad = await runCli(['init', '--propose', '--history-seconds', 'soon'], repo.dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--history-seconds 'soon' is not a positive whole number");
  });
});
