import { describe, expect, it } from 'vitest';
import { allRules, selectRules, unknownRuleNames } from './index.js';

describe('selectRules', () => {
  it('applies config overrides by name', () => {
    expect(selectRules().map((r) => r.name)).toEqual(allRules.filter((r) => r.enabledByDefault).map((r) => r.name));
    expect(selectRules({ 'remerge-words': true }).map((r) => r.name)).toContain('remerge-words');
    expect(selectRules({ 'whitespace-only': false }).map((r) => r.name)).not.toContain('whitespace-only');
    expect(unknownRuleNames({ 'whitespace-onyl': true, 'remerge-lines': false })).toEqual(['whitespace-onyl']);
  });
});
