/**
 * The texts of the scale fixture's C project: a Makefile with per-area static libraries and
 * per-area test binaries (out-of-tree with `BUILD=DIR`), a libtest-style test runner (the format
 * splintercat's cargo parser names failing tests from), a table generator for the generated
 * files, and the module sources. Pure functions of their parameters: the history builder
 * (fixture.ts) calls them with each commit's values.
 */

/** A module's identity: `net02` in area `net`. */
export interface Module {
  name: string;
  area: string;
}

/** The value a fixture function returns for `x` (the C loop, computed the same way). */
function functionValue(seed: number, rounds: number, x: number): number {
  let s = seed;
  for (let i = 0; i < rounds; i++) {
    s = (s * 33 + x + i * 7) % 65521;
    if (s % 3 === 0) s += 1;
  }
  return s;
}

/** One ordinary function of the fixture (what most of the 2,000+ files hold). */
function functionText(name: string, seed: number, rounds: number): string {
  return [
    `int ${name}(int x)`,
    '{',
    `    int s = ${seed};`,
    `    for (int i = 0; i < ${rounds}; i++) {`,
    '        s = (s * 33 + x + i * 7) % 65521;',
    '        if (s % 3 == 0) s += 1;',
    '    }',
    '    return s;',
    '}',
  ].join('\n');
}

/** Seed and rounds of function `k` of file `file` of module `m` (stable: tests expect its values). */
function functionParams(moduleIndex: number, file: number, k: number): { seed: number; rounds: number } {
  return { seed: ((moduleIndex * 131 + file * 17 + k * 7) % 997) + 3, rounds: ((file + k) % 5) + 4 };
}

export const fileName = (file: number): string => `f${String(file).padStart(3, '0')}`;

/**
 * File `file` of module `m`: its functions and a revision function ordinary commits change (a
 * real recompile, no test depends on it). Fork and upstream change disjoint files (odd and even),
 * so ordinary commits never conflict.
 */
export function moduleFile(m: Module, moduleIndex: number, file: number, functions: number, rev: number): string {
  const base = `${m.name}_${fileName(file)}`;
  const parts = [`#include "${m.name}.h"`, '', `/* ${m.name}/${fileName(file)}.c */`, ''];
  parts.push(`int ${base}_rev(void) { return ${rev}; }`, '');
  for (let k = 0; k < functions; k++) {
    const { seed, rounds } = functionParams(moduleIndex, file, k);
    parts.push(functionText(`${base}_${k}`, seed, rounds), '');
  }
  return parts.join('\n');
}

/** The module header: a revision macro (ordinary upstream commits raise it: the module recompiles) and prototypes. */
export function moduleHeader(m: Module, files: number, functions: number, rev: number): string {
  const guard = `${m.name.toUpperCase()}_H`;
  const lines = [`#ifndef ${guard}`, `#define ${guard}`, '', `#define ${m.name.toUpperCase()}_REV ${rev}`, ''];
  for (let f = 0; f < files; f++) {
    lines.push(`int ${m.name}_${fileName(f)}_rev(void);`);
    for (let k = 0; k < functions; k++) lines.push(`int ${m.name}_${fileName(f)}_${k}(int x);`);
  }
  lines.push('', `#endif /* ${guard} */`, '');
  return lines.join('\n');
}

/** A module's tests: the first function of every `stride`-th file, and a stress test (a test run that costs time). */
export function moduleTests(
  m: Module,
  moduleIndex: number,
  files: number,
  stride: number,
  stressLoops: number,
): string {
  const lines = ['#include "test.h"', `#include "${m.name}.h"`, ''];
  for (let f = 0; f < files; f += stride) {
    const { seed, rounds } = functionParams(moduleIndex, f, 0);
    const x = (f % 9) + 1;
    lines.push(
      `TEST(${m.name}_${fileName(f)})`,
      '{',
      `    CHECK_EQ(${m.name}_${fileName(f)}_0(${x}), ${functionValue(seed, rounds, x)});`,
      '}',
      '',
    );
  }
  lines.push(
    `TEST(${m.name}_stress)`,
    '{',
    '    unsigned long s = 1;',
    `    for (unsigned long i = 0; i < ${stressLoops}UL; i++) s = s * 6364136223846793005UL + i;`,
    '    CHECK_EQ(s != 0 || s == 0, 1);',
    '}',
    '',
  );
  return lines.join('\n');
}

/** The shared test header: TEST() defines a test function, CHECK_EQ() fails it with file and line. */
export const TEST_HEADER = `#ifndef TEST_H
#define TEST_H

void test_fail(const char *file, int line, long got, long want);

#define TEST(name) void test_##name(void)
#define CHECK_EQ(got, want) \\
    do { \\
        long got_ = (long)(got), want_ = (long)(want); \\
        if (got_ != want_) { test_fail(__FILE__, __LINE__, got_, want_); return; } \\
    } while (0)

#endif
`;

/**
 * The runner of one area's tests, in libtest's format (\`running N tests\`, \`test a::b ... ok\`,
 * \`---- a::b stdout ----\` with a \`panicked at file:line:col:\` line, \`failures:\`, \`test result:\`),
 * so a failing test is named by its identity in the check's log. The table of tests is generated
 * by the Makefile from the TEST() lines of the area's files.
 */
export const TEST_RUNNER = `#include <stdio.h>
#include <string.h>
#include "test.h"

#define T(name) void test_##name(void);
#include TABLE
#undef T

struct test { const char *name; void (*fn)(void); };
#define T(name) { #name, test_##name },
static const struct test tests[] = {
#include TABLE
};
#undef T

static int failed_now;
static char message[512];
static const char *current;

void test_fail(const char *file, int line, long got, long want)
{
    failed_now = 1;
    snprintf(message, sizeof message, "thread '%s::%s' panicked at %s:%d:1:\\nexpected %ld, got %ld\\n",
             AREA, current, file, line, want, got);
}

int main(void)
{
    size_t n = sizeof tests / sizeof tests[0];
    static char failures[1 << 16];
    static char names[1 << 14];
    size_t passed = 0, failed = 0;
    printf("running %zu tests\\n", n);
    for (size_t i = 0; i < n; i++) {
        current = tests[i].name;
        failed_now = 0;
        tests[i].fn();
        printf("test %s::%s ... %s\\n", AREA, current, failed_now ? "FAILED" : "ok");
        if (failed_now) {
            failed++;
            size_t used = strlen(failures);
            snprintf(failures + used, sizeof failures - used, "---- %s::%s stdout ----\\n%s\\n", AREA, current, message);
            used = strlen(names);
            snprintf(names + used, sizeof names - used, "    %s::%s\\n", AREA, current);
        } else {
            passed++;
        }
    }
    if (failed > 0) printf("\\nfailures:\\n\\n%s\\nfailures:\\n%s\\n", failures, names);
    printf("\\ntest result: %s. %zu passed; %zu failed\\n\\n", failed ? "FAILED" : "ok", passed, failed);
    return failed ? 101 : 0;
}
`;

/** The generator of \`src/gen/NAME.c\` from \`tools/NAME.def\` (\`OP(name, code)\` lines): a table, its size and the sum of its codes. */
export const TABLE_GENERATOR = `#!/bin/sh
# Usage: sh tools/gen-table.sh tools/NAME.def > src/gen/NAME.c   (generated files are committed)
set -e
name=$(basename "$1" .def)
awk -v name="$name" '
BEGIN {
    print "/* Generated by tools/gen-table.sh from tools/" name ".def: do not edit. */"
    print "struct op { const char *name; int code; };"
    print "const struct op " name "_ops[] = {"
}
/^OP\\([a-z0-9_]*, *[0-9]*\\)$/ {
    s = $0; sub(/^OP\\(/, "", s); sub(/\\)$/, "", s); split(s, p, /, */)
    printf "    { \\"%s\\", %s },\\n", p[1], p[2]; n++; sum += p[2]
}
END {
    print "};"
    printf "const int %s_count = %d, %s_sum = %d;\\n", name, n, name, sum
}' "$1"
`;

/** What gen-table.sh prints for a definition file (the committed generated file). */
export function generatedTable(name: string, def: string): string {
  const ops = def
    .split('\n')
    .map((l) => /^OP\(([a-z0-9_]*), *([0-9]*)\)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  const sum = ops.reduce((total, m) => total + Number(m[2]), 0);
  return [
    `/* Generated by tools/gen-table.sh from tools/${name}.def: do not edit. */`,
    'struct op { const char *name; int code; };',
    `const struct op ${name}_ops[] = {`,
    ...ops.map((m) => `    { "${m[1]}", ${m[2]} },`),
    '};',
    `const int ${name}_count = ${ops.length}, ${name}_sum = ${sum};`,
    '',
  ].join('\n');
}

/**
 * The Makefile. \`make\` builds one static library per area; \`make test-AREA\` builds and runs
 * that area's tests and checks the area's generated files (a stale one fails as test
 * \`gen::NAME\`); \`make test\` does it for every area. Objects depend on their headers (-MMD) and
 * on the build fragments that give them flags (\`mk/*.mk\`), never on this file, so an
 * incremental build recompiles what changed and nothing else. \`BUILD=DIR\` builds out of tree.
 */
export function makefile(areas: readonly string[]): string {
  // No built-in rules: otherwise make searches them to remake each of the thousands of included
  // .d files at every start, seconds of a no-op build that a real project's Makefile avoids.
  return `MAKEFLAGS += --no-builtin-rules
.SUFFIXES:
BUILD ?= build
CC ?= cc
CFLAGS ?= -O0 -w
AREAS := ${areas.join(' ')}

all: $(foreach a,$(AREAS),$(BUILD)/lib$(a).a) $(BUILD)/libgen.a

-include mk/*.mk

GEN_SRCS := $(sort $(wildcard src/gen/*.c))
GEN_OBJS := $(GEN_SRCS:%.c=$(BUILD)/%.o)
$(BUILD)/libgen.a: $(GEN_OBJS)
\t@rm -f $@
\t@ar rcs $@ $^

define area
$(1)_SRCS := $$(sort $$(wildcard src/$(1)[0-9]*/*.c))
$(1)_OBJS := $$($(1)_SRCS:%.c=$(BUILD)/%.o)
ALL_OBJS += $$($(1)_OBJS)
$(BUILD)/lib$(1).a: $$($(1)_OBJS)
\t@rm -f $$@
\t@ar rcs $$@ $$^
$(BUILD)/tests/$(1)_table.h: $$(wildcard tests/$(1)/*.c)
\t@mkdir -p $$(@D)
\t@sed -n 's/^TEST(\\([A-Za-z0-9_]*\\))$$$$/T(\\1)/p' $$^ > $$@.tmp && mv $$@.tmp $$@
$(BUILD)/tests/run_$(1): tests/runner.c $$(wildcard tests/$(1)/*.c) $(BUILD)/tests/$(1)_table.h $(BUILD)/lib$(1).a $(BUILD)/libgen.a
\t@$(CC) $(CFLAGS) -I. -Iinclude -Itests -DAREA='"$(1)"' -DTABLE='"$(BUILD)/tests/$(1)_table.h"' -o $$@ tests/runner.c $$(wildcard tests/$(1)/*.c) $(BUILD)/lib$(1).a $(BUILD)/libgen.a
test-$(1): $(BUILD)/tests/run_$(1)
\t+@status=0; $(BUILD)/tests/run_$(1) || status=101; $(MAKE) -s check-gen GEN_AREA=$(1) || status=101; exit $$$$status
endef
$(foreach a,$(AREAS),$(eval $(call area,$(a))))

$(BUILD)/%.o: %.c
\t@mkdir -p $(@D)
\t@$(CC) $(CFLAGS) $(EXTRA) -Iinclude -MMD -MP -c $< -o $@

-include $(ALL_OBJS:.o=.d) $(GEN_OBJS:.o=.d)

GEN_AREA ?=
check-gen:
\t@status=0; for def in tools/$(GEN_AREA)*.def; do \\
\t  [ -e "$$def" ] || continue; name=$$(basename $$def .def); \\
\t  if sh tools/gen-table.sh $$def | cmp -s - src/gen/$$name.c; then echo "test gen::$$name ... ok"; \\
\t  else echo "test gen::$$name ... FAILED"; \\
\t    printf -- "---- gen::%s stdout ----\\nthread 'gen::%s' panicked at src/gen/%s.c:1:1:\\nstale: regenerate it with tools/gen-table.sh\\n\\n" $$name $$name $$name; \\
\t    status=101; fi; \\
\tdone; exit $$status

test: all $(foreach a,$(AREAS),$(BUILD)/tests/run_$(a))
\t+@status=0; for a in $(AREAS); do $(BUILD)/tests/run_$$a || status=101; done; $(MAKE) -s check-gen || status=101; exit $$status

.PHONY: all test check-gen $(foreach a,$(AREAS),test-$(a))
`;
}
