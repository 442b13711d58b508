import { describe, expect, it } from 'vitest';
import { selectChecks } from './select.js';

const select = {
  'src/net/**': ['test-net'],
  'include/net/**': ['test-net'],
  'src/fs/**': ['test-fs'],
  '*.def': ['test-core'],
};
const candidates = ['build', 'test-net', 'test-fs', 'test-core'];

describe('selectChecks', () => {
  it('runs the checks a path selects and every check no glob names', () => {
    expect(selectChecks(candidates, select, ['src/net/socket.c'])).toEqual({
      checks: ['build', 'test-net'],
      skipped: ['test-fs', 'test-core'],
      unmatched: [],
    });
    expect(selectChecks(candidates, select, ['include/net/a.h', 'src/fs/x.c']).checks).toEqual([
      'build',
      'test-net',
      'test-fs',
    ]);
  });

  it('matches a glob without a slash against the file name anywhere', () => {
    expect(selectChecks(candidates, select, ['tools/deep/ops.def']).checks).toEqual(['build', 'test-core']);
  });

  it('runs every candidate for a path no glob covers, or when there are no globs', () => {
    expect(selectChecks(candidates, select, ['src/net/a.c', 'Makefile'])).toEqual({
      checks: candidates,
      skipped: [],
      unmatched: ['Makefile'],
    });
    expect(selectChecks(candidates, {}, ['src/net/a.c']).checks).toEqual(candidates);
  });
});
