import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configBeforeMerge } from '../../src/workflow/checkout-config.js';
import { TestRepo } from '../helpers/git-repo.js';

/** main and upstream change a.txt's line differently; upstream also writes splintercat.yaml as given. */
function merged(fork: string | null, upstream: string): TestRepo {
  const repo = TestRepo.create();
  repo.commit('base', { 'a.txt': 'a\n', ...(fork !== null ? { 'splintercat.yaml': fork } : {}) });
  repo.branch('up');
  repo.commit('ours', { 'a.txt': 'a ours\n' });
  repo.checkout('up');
  repo.commit('theirs', { 'a.txt': 'a theirs\n', 'splintercat.yaml': upstream });
  repo.checkout('main');
  try {
    repo.sh('merge', '--no-edit', 'up');
  } catch {
    // the conflict keeps the merge in progress
  }
  return repo;
}

describe('the configuration file before a merge in progress', () => {
  it('is the committed one when the merge changed it, none when the merge brought it, and the file itself otherwise', async () => {
    const changed = merged('llm: {base_url: fork}\n', 'llm: {base_url: upstream}\n');
    expect(await configBeforeMerge(changed.dir)).toEqual({
      path: join(changed.dir, 'splintercat.yaml'),
      text: 'llm: {base_url: fork}\n',
    });
    expect(await configBeforeMerge(merged(null, 'llm: {base_url: upstream}\n').dir)).toBeNull();

    // No merge in progress: the file as it is (the person's edits included).
    const quiet = TestRepo.create();
    quiet.commit('base', { 'splintercat.yaml': 'a: 1\n' });
    writeFileSync(join(quiet.dir, 'splintercat.yaml'), 'a: 2\n');
    expect(await configBeforeMerge(quiet.dir)).toBeUndefined();
  });

  it("a merge driver's view: the committed file even before git records the merge", async () => {
    const repo = TestRepo.create();
    repo.commit('base', { 'splintercat.yaml': 'mine: 1\n' });
    writeFileSync(join(repo.dir, 'splintercat.yaml'), 'theirs: 1\n');
    expect(await configBeforeMerge(repo.dir, true)).toEqual({
      path: join(repo.dir, 'splintercat.yaml'),
      text: 'mine: 1\n',
    });
  });
});
