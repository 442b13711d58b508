import { describe, expect, it } from 'vitest';
import { parseConflictText } from '../parse/markers.js';
import { hunkTextsFromMerge, lineMerge, syntaxMerge } from './syntax-merge.js';
import type { Piece } from './merge-entities.js';

const merge = (path: string, base: string, ours: string, theirs: string): Promise<Piece[] | null> =>
  syntaxMerge(path, { base, ours, theirs }, lineMerge);
const text = (pieces: Piece[] | null): string | null =>
  pieces === null || pieces.some((p) => typeof p !== 'string') ? null : pieces.join('');
const conflicts = (pieces: Piece[] | null): string[] =>
  (pieces ?? []).flatMap((p) => (typeof p === 'string' ? [] : [p.reason]));

describe('syntaxMerge: entities', () => {
  it('merges two functions changed on different sides entity by entity (Python)', async () => {
    const base = 'def a():\n    return 1\n\n\ndef b():\n    return 2\n';
    const ours = 'def a():\n    return 10\n\n\ndef b():\n    return 2\n';
    const theirs = 'def a():\n    return 1\n\n\ndef b():\n    return 20\n';
    expect(text(await merge('m.py', base, ours, theirs))).toBe(
      'def a():\n    return 10\n\n\ndef b():\n    return 20\n',
    );
  });

  it('leaves both sides’ new class members at one point to a person: their order is theirs to choose (TypeScript)', async () => {
    const base = 'export class A {\n  x = 1;\n  f(): number { return 1; }\n}\n';
    const ours = 'export class A {\n  x = 1;\n  g(): number { return 2; }\n  f(): number { return 1; }\n}\n';
    const theirs = 'export class A {\n  x = 1;\n  h(): number { return 3; }\n  f(): number { return 1; }\n}\n';
    expect(conflicts(await merge('a.ts', base, ours, theirs))).toEqual(['both sides added entities at the same point']);
    // Apart, each after its own base neighbour, they merge.
    const apart = 'export class A {\n  x = 1;\n  f(): number { return 1; }\n  h(): number { return 3; }\n}\n';
    expect(text(await merge('a.ts', base, ours, apart))).toBe(
      'export class A {\n  x = 1;\n  g(): number { return 2; }\n  f(): number { return 1; }\n  h(): number { return 3; }\n}\n',
    );
  });

  it('leaves a member one side added right after one the other side deleted to a person (celery corpus: `pool = None`)', async () => {
    const base = 'class W:\n    a = 1\n    _state = None\n\n    def f(self):\n        pass\n';
    const ours = 'class W:\n    a = 1\n    pidlock = None\n\n    def f(self):\n        pass\n';
    const theirs = 'class W:\n    a = 1\n    _state = None\n    pool = None\n\n    def f(self):\n        pass\n';
    const merged = await merge('w.py', base, ours, theirs);
    expect(merged === null || conflicts(merged).length > 0).toBe(true);
  });

  it('writes package.json dependency maps sorted as npm does, where the sides touch (typeorm corpus: sql.js beside sqlite3)', async () => {
    const pkg = (deps: string): string => `{\n  "devDependencies": {\n${deps}\n  }\n}\n`;
    const base = pkg('    "sinon": "^2.4.1",\n    "sqlite3": "^3.1.10",\n    "ts-node": "^3.3.0"');
    const ours = pkg(
      '    "sinon": "^2.4.1",\n    "sqlite3": "^3.1.10",\n    "sql.js": "^0.4.0",\n    "ts-node": "^3.3.0"',
    );
    const theirs = pkg('    "sinon": "^2.4.1",\n    "sqlite3": "^3.1.13",\n    "ts-node": "^3.3.0"');
    expect(text(await merge('package.json', base, ours, theirs))).toBe(
      pkg('    "sinon": "^2.4.1",\n    "sql.js": "^0.4.0",\n    "sqlite3": "^3.1.13",\n    "ts-node": "^3.3.0"'),
    );
    // Elsewhere than package.json the side's order is kept.
    expect(text(await merge('deps.json', base, ours, theirs))).toBe(
      pkg('    "sinon": "^2.4.1",\n    "sqlite3": "^3.1.13",\n    "sql.js": "^0.4.0",\n    "ts-node": "^3.3.0"'),
    );
  });

  it('keeps both sides’ new test cases inside a describe block (JavaScript)', async () => {
    const base = "describe('s', () => {\n  it('a', () => {});\n});\n";
    const ours = "describe('s', () => {\n  it('a', () => {});\n  it('b', () => {});\n});\n";
    const theirs = "describe('s', () => {\n  it('a', () => {});\n  it('c', () => {});\n});\n";
    expect(text(await merge('s.test.js', base, ours, theirs))).toBe(
      "describe('s', () => {\n  it('a', () => {});\n  it('b', () => {});\n  it('c', () => {});\n});\n",
    );
  });

  it('leaves additions of both sides at one point of the top level (ordered) as a conflict', async () => {
    const base = 'int a(void) { return 1; }\n';
    const ours = 'int a(void) { return 1; }\nint b(void) { return 2; }\n';
    const theirs = 'int a(void) { return 1; }\nint c(void) { return 3; }\n';
    expect(conflicts(await merge('m.c', base, ours, theirs))).toEqual(['both sides added entities at the same point']);
  });

  it('leaves an entity both sides changed on the same lines, and a deletion of an entity the other side changed', async () => {
    const base = 'func A() int { return 1 }\n\nfunc B() int { return 2 }\n';
    const ours = 'func A() int { return 10 }\n';
    const theirs = 'func A() int { return 11 }\n\nfunc B() int { return 22 }\n';
    const pieces = await merge('m.go', `package m\n\n${base}`, `package m\n\n${ours}`, `package m\n\n${theirs}`);
    expect(conflicts(pieces)).toEqual([
      'both sides changed function_declaration:A',
      'ours deleted function_declaration:B, theirs changed it',
    ]);
  });

  it('abstains when a side reordered entities, keys repeat, or a syntax error stands between entities', async () => {
    const base = 'fn a() {}\nfn b() {}\n';
    expect(await merge('m.rs', base, 'fn b() {}\nfn a() {}\n', 'fn a() { 1; }\nfn b() {}\n')).toBeNull();
    expect(await merge('m.rs', base, 'fn a() {}\n}}} fn b() {}\n', 'fn a() { 1; }\nfn b() {}\n')).toBeNull();
    expect(await merge('m.rs', 'fn a() {}\nfn a() {}\n', base, base)).toBeNull();
    expect(await merge('notes.txt', 'a\n', 'b\n', 'c\n')).toBeNull();
  });

  it('merges around a syntax error inside an entity the grammar cannot read (a C macro), keeping it as each side has it', async () => {
    // tree-sitter-c reads `TAILQ_FOREACH(...) {` with an error node, as in tmux: the error is inside f, in every version.
    const f = 'void\nf(void)\n{\n\tstruct x *x;\n\tTAILQ_FOREACH(x, &xs, entry) {\n\t\tg(x)\n\t}\n}\n';
    const base = `${f}\nint a(void) { return 1; }\n\nint b(void) { return 2; }\n`;
    const ours = `${f}\nint a(void) { return 10; }\n\nint b(void) { return 2; }\n`;
    const theirs = `${f}\nint a(void) { return 1; }\n\nint b(void) { return 20; }\n`;
    expect(text(await merge('m.c', base, ours, theirs))).toBe(
      `${f}\nint a(void) { return 10; }\n\nint b(void) { return 20; }\n`,
    );
  });

  it('takes a side’s change to the text after the last entity (a final newline dropped)', async () => {
    const base = '{\n  "a": 1,\n  "b": 2\n}\n';
    expect(text(await merge('p.json', base, '{\n  "a": 3,\n  "b": 2\n}\n', '{\n  "a": 1,\n  "b": 4\n}'))).toBe(
      '{\n  "a": 3,\n  "b": 4\n}',
    );
  });

  it('abstains where a side deleted an entity next to the other side’s edit in an ordered container (corpus shapes: includes, a docstring)', async () => {
    // One side removed an include, the other added one right after it.
    expect(
      await merge(
        'm.c',
        '#include <a.h>\n#include <b.h>\n\nint x;\n',
        '#include <b.h>\n\nint x;\n',
        '#include <a.h>\n#include <c.h>\n#include <b.h>\n\nint x;\n',
      ),
    ).toBeNull();
    // Each side removed a different one of two adjacent includes.
    expect(
      await merge(
        'm.c',
        '#include <a.h>\n#include <b.h>\n\nint x;\n',
        '#include <a.h>\n\nint x;\n',
        '#include <b.h>\n\nint x;\n',
      ),
    ).toBeNull();
    // A module docstring rewritten (an unnamed entity: deleted and added) next to a constant the other side changed.
    expect(
      await merge('m.py', '"""Doc"""\nVERSION = 1\n', '"""New doc"""\nVERSION = 1\n', '"""Doc"""\nVERSION = 2\n'),
    ).toBeNull();
    // Apart by an untouched entity, the same edits merge.
    expect(
      text(
        await merge(
          'm.py',
          '"""Doc"""\nX = 0\nVERSION = 1\n',
          '"""New doc"""\nX = 0\nVERSION = 1\n',
          '"""Doc"""\nX = 0\nVERSION = 2\n',
        ),
      ),
    ).toBe('"""New doc"""\nX = 0\nVERSION = 2\n');
  });

  it('abstains where a side added an entity between two the other side rewrote (a sweeping change), also in a mapping', async () => {
    expect(
      await merge(
        'm.c',
        'void a(int);\nvoid b(int);\n',
        'void a(int);\nvoid n(int);\nvoid b(int);\n',
        'static void a(int);\nstatic void b(int);\n',
      ),
    ).toBeNull();
    const pkg = (deps: string): string => `{\n  "devDependencies": {\n${deps}\n  }\n}\n`;
    // In the nested mapping: the object is left to the next rung.
    expect(
      conflicts(
        await merge(
          'package.json',
          pkg('    "a": "^1.0.0",\n    "b": "^1.0.0"'),
          pkg('    "a": "^1.0.0",\n    "n": "^1.0.0",\n    "b": "^1.0.0"'),
          pkg('    "a": "^2.0.0",\n    "b": "^2.0.0"'),
        ),
      ),
    ).toEqual(['both sides changed pair:devDependencies']);
    // One neighbour rewritten is an ordinary edit next to an addition: merged (package.json's sorted map stays sorted).
    expect(
      text(
        await merge(
          'deps.json',
          pkg('    "a": "^1.0.0",\n    "b": "^1.0.0"'),
          pkg('    "a": "^1.0.0",\n    "n": "^1.0.0",\n    "b": "^1.0.0"'),
          pkg('    "a": "^2.0.0",\n    "b": "^1.0.0"'),
        ),
      ),
    ).toBe(pkg('    "a": "^2.0.0",\n    "n": "^1.0.0",\n    "b": "^1.0.0"'));
    expect(
      text(
        await merge(
          'package.json',
          pkg('    "a": "^1.0.0",\n    "b": "^1.0.0"'),
          pkg('    "a": "^1.0.0",\n    "n": "^1.0.0",\n    "b": "^1.0.0"'),
          pkg('    "a": "^2.0.0",\n    "b": "^1.0.0"'),
        ),
      ),
    ).toBe(pkg('    "a": "^2.0.0",\n    "b": "^1.0.0",\n    "n": "^1.0.0"'));
  });

  it('tells overloads apart by signature (Java)', async () => {
    const base = 'class A {\n  int f(int x) { return x; }\n  int f(String s) { return 0; }\n}\n';
    const ours = 'class A {\n  int f(int x) { return x + 1; }\n  int f(String s) { return 0; }\n}\n';
    const theirs = 'class A {\n  int f(int x) { return x; }\n  int f(String s) { return 1; }\n}\n';
    expect(text(await merge('A.java', base, ours, theirs))).toBe(
      'class A {\n  int f(int x) { return x + 1; }\n  int f(String s) { return 1; }\n}\n',
    );
  });

  it('knows Kotlin declarations by their identifier child: a class body merges member by member, vals by name', async () => {
    const base =
      'package demo\n\nclass Greeter(val name: String) {\n    val greeting = "hi"\n\n    fun hello(): String = greeting\n\n    fun bye() {\n        println("bye")\n    }\n}\n\nval answer = 42\n';
    const ours = base
      .replace('val greeting = "hi"', 'val greeting = "hello"')
      .replace('val answer = 42', 'val answer = 43');
    const theirs = base.replace('println("bye")', 'println("bye, $name")');
    expect(text(await merge('Greeter.kt', base, ours, theirs))).toBe(
      'package demo\n\nclass Greeter(val name: String) {\n    val greeting = "hello"\n\n    fun hello(): String = greeting\n\n    fun bye() {\n        println("bye, $name")\n    }\n}\n\nval answer = 43\n',
    );
    // One member changed on both sides is left to the next rung.
    const clash = base.replace('println("bye")', 'println("ciao")');
    expect(conflicts(await merge('Greeter.kt', base, theirs, clash)).length).toBeGreaterThan(0);
  });

  it('parses and merges each listed language', async () => {
    const cases: Array<[string, string, string, string]> = [
      [
        'm.rb',
        'def a\n  1\nend\n\ndef b\n  2\nend\n',
        'def a\n  10\nend\n\ndef b\n  2\nend\n',
        'def a\n  1\nend\n\ndef b\n  20\nend\n',
      ],
      [
        'm.php',
        '<?php\nfunction a() { return 1; }\nfunction b() { return 2; }\n',
        '<?php\nfunction a() { return 10; }\nfunction b() { return 2; }\n',
        '<?php\nfunction a() { return 1; }\nfunction b() { return 20; }\n',
      ],
      [
        'M.cs',
        'class M {\n  int A() { return 1; }\n  int B() { return 2; }\n}\n',
        'class M {\n  int A() { return 10; }\n  int B() { return 2; }\n}\n',
        'class M {\n  int A() { return 1; }\n  int B() { return 20; }\n}\n',
      ],
      [
        'm.cpp',
        'int a() { return 1; }\nint b() { return 2; }\n',
        'int a() { return 10; }\nint b() { return 2; }\n',
        'int a() { return 1; }\nint b() { return 20; }\n',
      ],
      [
        'M.kt',
        'fun a(): Int {\n    return 1\n}\n\nfun b(): Int {\n    return 2\n}\n',
        'fun a(): Int {\n    return 10\n}\n\nfun b(): Int {\n    return 2\n}\n',
        'fun a(): Int {\n    return 1\n}\n\nfun b(): Int {\n    return 20\n}\n',
      ],
      [
        'm.tsx',
        'export const A = () => <a/>;\nexport const B = () => <b/>;\n',
        'export const A = () => <i/>;\nexport const B = () => <b/>;\n',
        'export const A = () => <a/>;\nexport const B = () => <u/>;\n',
      ],
    ];
    for (const [path, base, ours, theirs] of cases) {
      const merged = text(await merge(path, base, ours, theirs));
      expect(merged, path).not.toBeNull();
      expect(merged, path).not.toBe(ours);
      expect(merged, path).not.toBe(theirs);
    }
  });
});

describe('syntaxMerge: data files', () => {
  it('merges JSON key by key, ours’ new keys then theirs’ at one point', async () => {
    const base = '{\n  "a": 1,\n  "b": { "x": 1 }\n}\n';
    const ours = '{\n  "a": 2,\n  "b": { "x": 1 },\n  "c": 3\n}\n';
    const theirs = '{\n  "a": 1,\n  "b": { "x": 1, "y": 2 },\n  "d": 4\n}\n';
    expect(text(await merge('p.json', base, ours, theirs))).toBe(
      '{\n  "a": 2,\n  "b": { "x": 1, "y": 2 },\n  "c": 3,\n  "d": 4\n}\n',
    );
  });

  it('sends two values for one key to the next rung (fast-glob ^3.3.2 against ^3.3.3)', async () => {
    const base = '{\n  "dependencies": {\n    "execa": "^9.0.0"\n  }\n}\n';
    const ours =
      '{\n  "dependencies": {\n    "execa": "^9.0.0",\n    "fast-glob": "^3.3.2",\n    "picomatch": "^4.0.3"\n  }\n}\n';
    const theirs = '{\n  "dependencies": {\n    "execa": "^9.0.0",\n    "fast-glob": "^3.3.3"\n  }\n}\n';
    expect(conflicts(await merge('package.json', base, ours, theirs))).toEqual([
      'both sides added pair:fast-glob differently',
    ]);
  });

  it('merges YAML mappings key by key, nested mappings too, and leaves two values for one key', async () => {
    const base = '# CI\nname: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-latest\n';
    const ours =
      '# CI\nname: ci\non:\n  push:\n    branches: [main]\n  pull_request: {}\njobs:\n  test:\n    runs-on: ubuntu-latest\n';
    const theirs =
      '# CI\nname: ci\non:\n  push:\n    branches: [main]\njobs:\n  test:\n    runs-on: ubuntu-22.04\n  lint:\n    runs-on: ubuntu-latest\n';
    expect(text(await merge('.github/workflows/ci.yml', base, ours, theirs))).toBe(
      '# CI\nname: ci\non:\n  push:\n    branches: [main]\n  pull_request: {}\njobs:\n  test:\n    runs-on: ubuntu-22.04\n  lint:\n    runs-on: ubuntu-latest\n',
    );
    expect(conflicts(await merge('c.yaml', 'a: 1\nb: 2\n', 'a: 3\nb: 2\n', 'a: 4\nb: 2\n'))).toEqual([
      'both sides changed key:a',
    ]);
    expect(await merge('c.yaml', 'a: 1\n', 'a: [1\n', 'a: 2\n')).toBeNull();
  });

  it('leaves comments written at the end of a mapping and the other side’s keys added there as a conflict (corpus shape: a service commented out)', async () => {
    const base = 'services:\n  db:\n    image: pg\n';
    const ours = 'services:\n  db:\n    image: pg\n\n  # cache:\n  #   image: redis\n';
    const theirs = 'services:\n  db:\n    image: pg\n  cache:\n    image: redis\n';
    expect(conflicts(await merge('docker-compose.yml', base, ours, theirs))).toEqual([
      'one side changed the comments at the end, the other added entities there',
    ]);
  });

  it('merges TOML tables key by key', async () => {
    const base = '[package]\nname = "x"\nversion = "1.0.0"\n\n[dependencies]\nserde = "1"\n';
    const ours = '[package]\nname = "x"\nversion = "1.1.0"\n\n[dependencies]\nserde = "1"\n';
    const theirs = '[package]\nname = "x"\nversion = "1.0.0"\n\n[dependencies]\nserde = "1"\ntokio = "1"\n';
    expect(text(await merge('Cargo.toml', base, ours, theirs))).toBe(
      '[package]\nname = "x"\nversion = "1.1.0"\n\n[dependencies]\nserde = "1"\ntokio = "1"\n',
    );
  });
});

describe('hunkTextsFromMerge', () => {
  it('cuts the merged file at git’s clean text into hunk resolutions', () => {
    const file = parseConflictText(
      'head\n<<<<<<< ours\na\n||||||| base\nx\n=======\nb\n>>>>>>> theirs\nmiddle\n<<<<<<< ours\nc\n||||||| base\ny\n=======\nd\n>>>>>>> theirs\ntail\n',
      { path: 'f' },
    );
    expect(hunkTextsFromMerge(file, ['head\nA\nmiddle\nC\ntail\n'])).toEqual(
      new Map([
        [1, 'A\n'],
        [2, 'C\n'],
      ]),
    );
    // The merge disagrees with git's clean text: nothing is taken.
    expect(hunkTextsFromMerge(file, ['head\nA\nMIDDLE\nC\ntail\n'])).toEqual(new Map());
    // A conflict left in the second hunk: the first is still taken.
    expect(
      hunkTextsFromMerge(file, [
        'head\nA\nmiddle\n',
        { base: 'y\n', ours: 'c\n', theirs: 'd\n', reason: 'r' },
        'tail\n',
      ]),
    ).toEqual(new Map([[1, 'A\n']]));
  });
});
