import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Git } from '../../src/git/index.js';
import { loadRunSnapshot } from '../../src/report/index.js';
import { CONFLICT_DETAILS_FILE } from '../../src/report/conflict-details-cache.js';
import { gitSpy } from '../helpers/git-spy.js';
import { testGitEnv } from '../helpers/git-repo.js';
import { recordedRun } from '../fixtures/report/recorded-run.js';

const redone = (calls: string[]): string[] => calls.filter((c) => /(^| )(merge-tree|diff|diff-tree) /.test(c));

describe("a report keeps each conflict's git details beside the run", () => {
  it('by resolution commit: the next report redoes no merge-tree nor diff; a damaged, oversized or foreign file is ignored and written again', async () => {
    const { repo, store, name } = await recordedRun();
    const file = join(store.paths(name).dir, CONFLICT_DETAILS_FILE);
    const spy = gitSpy();
    const git = new Git({ cwd: repo.dir, env: testGitEnv, gitBinary: spy.binary });
    try {
      const first = (await loadRunSnapshot(git, store, name))!.conflicts;
      expect(Object.keys(first).length).toBeGreaterThan(0);
      expect(first['3-3']?.diff).toMatch(/^\+v3 = merged3$/m);
      expect(redone(spy.calls()).length).toBeGreaterThan(0);
      // The conflicted merges go through long-lived merge-tree --stdin processes, not one each.
      expect(spy.calls().filter((c) => /merge-tree .*--no-messages/.test(c))).toEqual([]);
      expect(spy.calls().filter((c) => c.startsWith('merge-tree --write-tree --stdin')).length).toBeGreaterThan(0);
      // And every resolution's diff through one diff-tree --stdin.
      expect(spy.calls().filter((c) => c.startsWith('diff '))).toEqual([]);
      expect(spy.calls().filter((c) => c.startsWith('diff-tree --stdin'))).toHaveLength(1);
      expect(existsSync(file)).toBe(true);

      spy.reset();
      expect((await loadRunSnapshot(git, store, name))!.conflicts).toEqual(first);
      expect(redone(spy.calls())).toEqual([]);

      const good = readFileSync(file, 'utf8');
      const stored = JSON.parse(good) as { entries: Record<string, { diff: string; paths: string[] }> };
      const [commit, entry] = Object.entries(stored.entries)[0]!;
      const variants = {
        damaged: good.slice(0, 40),
        'a side past its bound': JSON.stringify({
          ...stored,
          entries: { ...stored.entries, [commit]: { ...entry, diff: 'x'.repeat(300_000) } },
        }),
        'another version': JSON.stringify({ ...stored, version: 2 }),
      };
      for (const [what, text] of Object.entries(variants)) {
        writeFileSync(file, text);
        spy.reset();
        expect((await loadRunSnapshot(git, store, name))!.conflicts, what).toEqual(first);
        expect(redone(spy.calls()).length, what).toBeGreaterThan(0);
        expect(JSON.parse(readFileSync(file, 'utf8')), what).toEqual(JSON.parse(good));
      }

      // An entry kept for other files is not this conflict's: it is looked up again.
      writeFileSync(
        file,
        JSON.stringify({ ...stored, entries: { ...stored.entries, [commit]: { ...entry, paths: ['other.txt'] } } }),
      );
      spy.reset();
      expect((await loadRunSnapshot(git, store, name))!.conflicts).toEqual(first);
      expect(redone(spy.calls()).length).toBeGreaterThan(0);
    } finally {
      git.close();
    }
  }, 120_000);
});
