import { describe, expect, it } from 'vitest';
import { validateResolvedText } from './validate.js';

describe('validateResolvedText', () => {
  it('rejects leftover markers, including a lone separator in code', () => {
    expect(validateResolvedText('a.c', 'x\n<<<<<<< HEAD\ny\n')).toEqual({ ok: false, problems: ['conflict markers are still present'] });
    expect(validateResolvedText('a.c', 'x\n=======\ny\n').ok).toBe(false);
    expect(validateResolvedText('README.md', 'Title\n=======\ntext\n').ok).toBe(true);
    expect(validateResolvedText('a.c', 'int x;\n').ok).toBe(true);
  });

  it('parses JSON, YAML, TypeScript and JavaScript', () => {
    expect(validateResolvedText('p.json', '{"a": 1}').ok).toBe(true);
    expect(validateResolvedText('p.json', '{"a": 1,}').ok).toBe(false);
    expect(validateResolvedText('c.yaml', 'a: 1\nb: [1, 2]\n').ok).toBe(true);
    expect(validateResolvedText('c.yml', 'a: [1, 2\nb: 3\n').ok).toBe(false);
    expect(validateResolvedText('m.ts', 'export const a: number = 1;\n').ok).toBe(true);
    const bad = validateResolvedText('m.ts', 'export const a = {;\n');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems[0]).toMatch(/^syntax error: line 1:/);
    expect(validateResolvedText('x.jsx', 'const a = <div>{1}</div>;\n').ok).toBe(true);
    expect(validateResolvedText('x.mjs', 'function (\n').ok).toBe(false);
  });
});
