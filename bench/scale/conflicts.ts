/**
 * The conflicts of the scale fixture, of the kinds real forks have: both sides edit a function
 * (and its test), a header (a declaration whose definition and callers upstream changed too), a
 * build fragment (flags), a generated file (and its definition), a comment (whitespace and
 * comments only: no compiled byte differs). Each conflict has files of its own, changed by its
 * fork commit and its upstream commit and by no other commit, so the content of every file at the
 * conflict's cell, and the right resolution of it, is known here.
 */
import { generatedTable, type Module } from './c-project.js';

export const conflictKinds = ['function', 'header', 'build', 'generated', 'comment'] as const;
export type ConflictKind = (typeof conflictKinds)[number];

/** One file a conflict's commits touch: its text at the base and after each side's commit, and the right merge. */
export interface ConflictFile {
  base: string;
  fork: string;
  upstream: string;
  /** The resolution a careful person writes. */
  correct: string;
}

/** What the scripted model does with a conflict: resolve it right, resolve it wrong first (a check fails, the retry is right), or give it up to a person. */
type ModelPlan = 'correct' | 'wrong' | 'give-up';

export interface ScaleConflict {
  /** 1-based; commit messages carry `[cN]`. */
  n: number;
  kind: ConflictKind;
  module: Module;
  wave: number;
  slot: number;
  /** The fork commit (i1) and the upstream commit (i2): the conflict's cell. */
  fork: number;
  upstream: number;
  files: Record<string, ConflictFile>;
  model: ModelPlan;
  /** For a conflict given up to a person: their first resolution is right, or breaks the build or a test (then they fix it). */
  person: 'correct' | 'wrong';
  /** The file a wrong resolution gets wrong (its fork side is taken). */
  primary: string;
}

const line = (...lines: string[]): string => `${lines.join('\n')}\n`;

function functionConflict(m: Module, n: number): { files: Record<string, ConflictFile>; primary: string } {
  const fn = `${m.name}_c${n}`;
  const src = (step: string): string =>
    line(`/* ${m.name}/c${n}.c */`, `int ${fn}(int x)`, '{', '    int y = x * 3;', `    ${step}`, '    return y;', '}');
  const test = (want: number): string =>
    line('#include "test.h"', '', `int ${fn}(int x);`, '', `TEST(${fn})`, '{', `    CHECK_EQ(${fn}(1), ${want});`, '}');
  const primary = `src/${m.name}/c${n}.c`;
  return {
    primary,
    files: {
      [primary]: {
        base: src(`y = y + ${n};`),
        fork: src(`y = (y + ${n}) * 3;`),
        upstream: src(`y = y + ${n + 4};`),
        correct: src(`y = (y + ${n + 4}) * 3;`),
      },
      // f(1) = 3 + n at the base; the fork triples it, upstream adds 4: the four values always differ.
      [`tests/${m.area}/c${n}_test.c`]: {
        base: test(3 + n),
        fork: test((3 + n) * 3),
        upstream: test(7 + n),
        correct: test((7 + n) * 3),
      },
    },
  };
}

function headerConflict(m: Module, n: number): { files: Record<string, ConflictFile>; primary: string } {
  const fn = `${m.name}_h${n}`;
  const guard = `${fn.toUpperCase()}_H`;
  const header = (decl: string): string => line(`#ifndef ${guard}`, `#define ${guard}`, '', `${decl};`, '', '#endif');
  const def = (params: string, body: string): string =>
    line(`#include "${fn}.h"`, '', `int ${fn}(${params})`, '{', `    return ${body};`, '}');
  const use = (args: string): string =>
    line(`#include "${fn}.h"`, '', `int ${fn}_use(void)`, '{', `    return ${fn}(${args});`, '}');
  const test = (want: number): string =>
    line(
      '#include "test.h"',
      '',
      `int ${fn}_use(void);`,
      '',
      `TEST(${fn})`,
      '{',
      `    CHECK_EQ(${fn}_use(), ${want});`,
      '}',
    );
  const same = (text: string, upstream: string): ConflictFile => ({
    base: text,
    fork: text,
    upstream,
    correct: upstream,
  });
  const primary = `include/${fn}.h`;
  return {
    primary,
    files: {
      [primary]: {
        base: header(`int ${fn}(int x, int y)`),
        fork: header(`int ${fn}(const int x, int y)`),
        upstream: header(`int ${fn}(int x, int y, int z)`),
        correct: header(`int ${fn}(const int x, int y, int z)`),
      },
      [`src/${m.name}/h${n}.c`]: same(
        def('int x, int y', 'x * 10 + y'),
        def('int x, int y, int z', 'x * 100 + y * 10 + z'),
      ),
      [`src/${m.name}/h${n}_use.c`]: same(use('1, 2'), use('1, 2, 3')),
      [`tests/${m.area}/h${n}_test.c`]: same(test(12), test(123)),
    },
  };
}

function buildConflict(m: Module, n: number): { files: Record<string, ConflictFile>; primary: string } {
  const fn = `${m.name}_b${n}`;
  const object = `$(BUILD)/src/${m.name}/b${n}.o`;
  const fragment = (flags: string): string =>
    line(`# build flags of src/${m.name}/b${n}.c`, `${object}: mk/${fn}.mk`, `${object}: EXTRA := ${flags}`);
  const src = line(
    '#ifndef B_FORK',
    '#define B_FORK 0',
    '#endif',
    '',
    `int ${fn}(void)`,
    '{',
    '    return B_LEVEL * 10 + B_FORK;',
    '}',
  );
  // Each side's test checks its own flag (the fork's B_FORK, upstream's B_LEVEL): only the fragment conflicts.
  const test = (name: string, expr: string, want: number): string =>
    line(
      '#include "test.h"',
      '',
      `int ${fn}(void);`,
      '',
      `TEST(${fn}_${name})`,
      '{',
      `    CHECK_EQ(${expr}, ${want});`,
      '}',
    );
  const level = (want: number): string => test('level', `${fn}() / 10`, want);
  const forked = (want: number): string => test('fork', `${fn}() % 10`, want);
  const primary = `mk/${fn}.mk`;
  return {
    primary,
    files: {
      [primary]: {
        base: fragment('-DB_LEVEL=1'),
        fork: fragment('-DB_LEVEL=1 -DB_FORK=1'),
        upstream: fragment('-DB_LEVEL=2'),
        correct: fragment('-DB_LEVEL=2 -DB_FORK=1'),
      },
      [`src/${m.name}/b${n}.c`]: { base: src, fork: src, upstream: src, correct: src },
      [`tests/${m.area}/b${n}_level_test.c`]: { base: level(1), fork: level(1), upstream: level(2), correct: level(2) },
      [`tests/${m.area}/b${n}_fork_test.c`]: {
        base: forked(0),
        fork: forked(1),
        upstream: forked(0),
        correct: forked(1),
      },
    },
  };
}

function generatedConflict(m: Module, n: number): { files: Record<string, ConflictFile>; primary: string } {
  const name = `${m.name}_g${n}`;
  const base = line('OP(load, 1)', 'OP(store, 2)', 'OP(jump, 3)');
  const fork = `${base}OP(fork_${n}, 100)\n`;
  const upstream = `${base}OP(up_${n}, 200)\n`;
  const correct = `${base}OP(fork_${n}, 100)\nOP(up_${n}, 200)\n`;
  const primary = `src/gen/${name}.c`;
  return {
    primary,
    files: {
      [`tools/${name}.def`]: { base, fork, upstream, correct },
      [primary]: {
        base: generatedTable(name, base),
        fork: generatedTable(name, fork),
        upstream: generatedTable(name, upstream),
        correct: generatedTable(name, correct),
      },
    },
  };
}

function commentConflict(m: Module, n: number): { files: Record<string, ConflictFile>; primary: string } {
  const fn = `${m.name}_m${n}`;
  const src = (comment: string, body: string): string =>
    line(`#include "${m.name}.h"`, '', comment, `int ${fn}(void)`, '{', body, '}');
  const primary = `src/${m.name}/m${n}.c`;
  return {
    primary,
    files: {
      [primary]: {
        base: src(`/* ${fn}: the magic value. */`, `    return ${n};`),
        fork: src(`/* ${fn}: the magic value (kept by the fork). */`, `\treturn ${n};`),
        upstream: src(`/*  ${fn}: the magic value, number ${n}. */`, `    return ${n};`),
        correct: src(`/* ${fn}: the magic value, number ${n} (kept by the fork). */`, `\treturn ${n};`),
      },
    },
  };
}

/** The files of conflict `n` of `kind` in module `m`, and the one a wrong resolution gets wrong. */
export function conflictFiles(
  kind: ConflictKind,
  m: Module,
  n: number,
): { files: Record<string, ConflictFile>; primary: string } {
  switch (kind) {
    case 'function':
      return functionConflict(m, n);
    case 'header':
      return headerConflict(m, n);
    case 'build':
      return buildConflict(m, n);
    case 'generated':
      return generatedConflict(m, n);
    case 'comment':
      return commentConflict(m, n);
  }
}
