import { describe, expect, it } from 'vitest';
import { validateResolvedText } from './validate-text.js';

describe('validateResolvedText', () => {
  it('rejects leftover markers, including a lone separator in code', async () => {
    expect(await validateResolvedText('a.c', 'x\n<<<<<<< HEAD\ny\n')).toEqual({
      ok: false,
      problems: ['conflict markers are still present'],
    });
    expect((await validateResolvedText('a.c', 'x\n=======\ny\n')).ok).toBe(false);
    expect((await validateResolvedText('README.md', 'Title\n=======\ntext\n')).ok).toBe(true);
    expect((await validateResolvedText('a.c', 'int x;\n')).ok).toBe(true);
  });

  it('parses JSON (no repeated keys), JSONC, YAML and TOML', async () => {
    expect((await validateResolvedText('p.json', '{"a": 1}')).ok).toBe(true);
    expect((await validateResolvedText('p.json', '{"a": 1,}')).ok).toBe(false);
    expect(await validateResolvedText('package.json', '{"version": "1.0.0", "version": "1.0.1"}')).toEqual({
      ok: false,
      problems: ['not valid JSON: line 1, column 22: duplicate key "version"'],
    });
    // a correct tsconfig.json answer was once refused as strict JSON
    expect(
      (await validateResolvedText('tsconfig.build.json', '{\n  // build\n  "extends": "./tsconfig.json",\n}\n')).ok,
    ).toBe(true);
    expect((await validateResolvedText('.vscode/settings.json', '{ "editor.tabSize": 2, /* team */ }')).ok).toBe(true);
    expect((await validateResolvedText('c.yaml', 'a: 1\nb: [1, 2]\n')).ok).toBe(true);
    expect((await validateResolvedText('c.yml', 'a: [1, 2\nb: 3\n')).ok).toBe(false);
    expect((await validateResolvedText('Cargo.toml', '[package]\nname = "x"\nname = "y"\n')).ok).toBe(false);
  });

  it.each([
    ['m.ts', 'export const a: number = 1;\n', 'export const a = {;\n'],
    ['x.jsx', 'const a = <div>{1}</div>;\n', 'function (\n'],
    ['v.tsx', 'export const V = () => <b>{1}</b>;\n', 'export const V = () => <b>{1</b>;\n'],
    ['a.py', 'def f(x):\n    return x\n', 'def f(x:\n    return x\n'],
    ['a.go', 'package a\n\nfunc F() int { return 1 }\n', 'package a\n\nfunc F() int { return 1 \n'],
    ['a.rs', 'fn main() { let x = 1; }\n', 'fn main() { let x = ; }\n'],
    ['A.java', 'class A { int f() { return 1; } }\n', 'class A { int f() { return 1; }\n'],
    ['a.c', 'int main(void) { return 0; }\n', 'int main(void) { return 0; \n'],
    ['a.cpp', 'namespace n { class A { int f(); }; }\n', 'namespace n { class A { int f(; }; }\n'],
    ['a.rb', 'def f(x)\n  x + 1\nend\n', 'def f(x)\n  x +\n'],
    ['a.php', '<?php\nfunction f($x) { return $x; }\n', '<?php\nfunction f($x) { return $x }\n'],
    ['A.cs', 'class A { int F() { return 1; } }\n', 'class A { int F() { return 1 } }\n'],
  ])('parses %s with its tree-sitter grammar and says where the error is', async (path, good, bad) => {
    expect(await validateResolvedText(path, good)).toEqual({ ok: true });
    const v = await validateResolvedText(path, bad);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.problems[0]).toMatch(/^syntax error \(\w+ grammar\): line \d+, column \d+: /);
  });

  it('does not blame the resolution for errors the inputs already had', async () => {
    const macro = 'int x = FOO(;\n';
    expect((await validateResolvedText('a.c', macro)).ok).toBe(false);
    expect((await validateResolvedText('a.c', macro, { inputs: [macro, 'int y;\n'] })).ok).toBe(true);
    expect((await validateResolvedText('a.c', macro, { inputs: ['int x;\n', 'int y;\n'] })).ok).toBe(false);
  });
});
