import { describe, expect, it } from 'vitest';
import { firstTests } from './test-list.js';

describe('firstTests', () => {
  it('names the first n tests, says when there are more, and renders each as asked', () => {
    const tests = ['a > one', 'b', 'c', 'd'];
    expect(firstTests(tests)).toBe('a > one; b; c; ...');
    expect(firstTests(tests, 4)).toBe('a > one; b; c; d');
    expect(firstTests(tests, 2, (t) => `<code>${t.replace('>', '&gt;')}</code>`)).toBe(
      '<code>a &gt; one</code>; <code>b</code>; ...',
    );
    expect(firstTests([])).toBe('');
  });
});
