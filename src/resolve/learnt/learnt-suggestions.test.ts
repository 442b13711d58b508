import { describe, expect, it } from 'vitest';
import { Git } from '../../git/index.js';
import { forkWithMerges } from '../../../test/fixtures/resolve/history.js';
import { nullLogger, type Logger } from '../../log/logger.js';
import { LearntSuggestions } from './learnt-suggestions.js';

describe('LearntSuggestions at run time', () => {
  it('replays past merges only for resolve.learnt.seconds, says what it left out, and goes on from there next run', async () => {
    const repo = forkWithMerges(3);
    const git = new Git({ cwd: repo.dir });
    try {
      const said: string[] = [];
      const log: Logger = { ...nullLogger, decision: (_o, msg) => void said.push(msg ?? '') };
      const settings = { mode: 'suggest' as const, threshold: 1, min_merges: 3, merges: 200, seconds: 1.5 };
      // Each look at the clock is a second later: 1.5 s allows one merge a run.
      let clock = 0;
      await new LearntSuggestions(git, settings, log, () => (clock += 1000)).load('HEAD');
      expect(said.at(-1)).toMatch(
        /1 past merge\(s\) of the fork read \(1 replayed now\).*; 2 older one\(s\) left out when resolve\.learnt\.seconds \(1\.5 s\) ran out, read by a later run$/,
      );
      clock = 0;
      await new LearntSuggestions(git, settings, log, () => (clock += 1000)).load('HEAD');
      expect(said.at(-1)).toMatch(/^\[learnt\] 2 past merge\(s\) of the fork read \(1 replayed now\).*; 1 older one/);
      await new LearntSuggestions(git, { ...settings, seconds: 60 }, log).load('HEAD');
      expect(said.at(-1)).toMatch(/^\[learnt\] 3 past merge\(s\) of the fork read \(1 replayed now\)[^;]*$/);
    } finally {
      git.close();
    }
  });
});
