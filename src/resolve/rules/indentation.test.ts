import { describe, expect, it } from 'vitest';
import { indentationIsLayout, indentationOf } from './indentation.js';

describe('indentation', () => {
  it('knows free-form file types and doubts the rest', () => {
    expect(['src/a.ts', 'tmux.h', 'lib/X.JAVA', 'package.json'].map(indentationIsLayout)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(
      ['celery/app.py', 'Makefile', 'ci.yml', 'README.md', 'docs/index.rst', 'CHANGES', 'Makefile.am'].map(
        indentationIsLayout,
      ),
    ).toEqual([false, false, false, false, false, false, false]);
  });
  it('reads it from the language table, so every file of a language says the same', () => {
    expect(['lib/a.rb', 'lib/tasks/a.rake', 'a.gemspec', 'Rakefile', 'Gemfile'].map(indentationIsLayout)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(['.eslintrc', 'a.json5', 'Cargo.lock', 'a.'].map(indentationIsLayout)).toEqual([false, false, false, false]);
  });
  it('lists the leading whitespace of non-blank lines', () => {
    expect(indentationOf('a\n\n  b\n\t c\n   \n')).toEqual(['', '  ', '\t ']);
  });
});
