import { describe, expect, it } from 'vitest';
import { allRules, type ResolutionRule } from './rules/index.js';
import { rulesForHunk } from './size-limits.js';

describe('rulesForHunk', () => {
  const large = { base: 'a\n', ours: `${'x'.repeat(300 * 1024)}\n`, theirs: 'b\n' };

  it('tries every rule on a small hunk, and on a large one only the rules whose cost is linear, in order', () => {
    expect(rulesForHunk({ base: 'a\n', ours: 'b\n', theirs: 'c\n' }, allRules)).toEqual(allRules);
    expect(rulesForHunk(large, allRules).map((r) => r.name)).toEqual([
      'identical-sides',
      'one-side-unchanged',
      'whitespace-only',
    ]);
  });

  it('reads the cost from the rule itself, whatever its name', () => {
    const rule = (name: string, cost: ResolutionRule['cost']): ResolutionRule => ({
      name,
      description: 'test',
      enabledByDefault: true,
      cost,
      resolve: () => null,
    });
    const rules = [rule('a-new-comparison', 'linear'), rule('identical-sides', 'superlinear')];
    expect(rulesForHunk(large, rules).map((r) => r.name)).toEqual(['a-new-comparison']);
  });
});
