import { describe, expect, it } from 'vitest';
import { sameCompiledCode } from './same-code.js';

const c = (comment: string, body: string): string => `${comment}\nint f(int x)\n{\n${body}\n}\n`;

describe('sameCompiledCode', () => {
  it('holds for comments and indentation that differ on the same lines', async () => {
    expect(
      await sameCompiledCode('src/a.c', [
        c('/* the value */', '    return x + 1;'),
        c('/*  the value, kept by the fork */', '\treturn x+1; // one more'),
        c('// the value', '  return   x  +  1 ;'),
      ]),
    ).toEqual({ same: true });
  });

  it('refuses a changed token, a token moved to another line, and a text that does not parse', async () => {
    expect((await sameCompiledCode('src/a.c', [c('', '    return x + 1;'), c('', '    return x + 2;')])).same).toBe(
      false,
    );
    // A line more before the code changes what __LINE__ expands to.
    expect((await sameCompiledCode('src/a.c', [c('/* a */', 'return x;'), c('/* a\n   b */', 'return x;')])).same).toBe(
      false,
    );
    expect((await sameCompiledCode('src/a.c', [c('', 'return x;'), c('', 'return x')])).same).toBe(false);
  });

  it('keeps whitespace inside strings significant', async () => {
    expect((await sameCompiledCode('src/a.c', ['const char *s = "a b";\n', 'const char *s = "a  b";\n'])).same).toBe(
      false,
    );
  });

  it('proves nothing in languages where whitespace can be syntax, or without a grammar', async () => {
    expect((await sameCompiledCode('a.py', ['x = 1\n', 'x = 1  # one\n'])).same).toBe(false);
    expect((await sameCompiledCode('Makefile', ['a:\n', 'a: \n'])).same).toBe(false);
  });
});
