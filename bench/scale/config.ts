/**
 * The fixture's `splintercat.yaml`, as the README's "A large fork" section shows it: a full build
 * and test (the workflow checks), per-area tests as the fast checks, test selection by area, and
 * an out-of-tree build directory per run.
 */
import type { ScaleOptions } from './fixture.js';

export function scaleConfigYaml(o: Pick<ScaleOptions, 'areas'>, buildDir = '../scale-build'): string {
  const make = 'make -s BUILD="$SPLINTERCAT_BUILD_DIR"';
  const lines = [
    'check:',
    '  # one build directory per run, outside the worktrees, kept between checks',
    `  build_dir: ${buildDir}`,
    '  commands:',
    `    build: make -j2 -s BUILD="$SPLINTERCAT_BUILD_DIR"`,
    `    test: ${make} test`,
    ...o.areas.map((a) => `    test-${a}: ${make} test-${a}`),
    '  # the full checks: every 20 resolutions, and always before the merge is finished',
    '  workflow: [build, test]',
    '  full_every: 20',
    '  # the checks after each resolution: the build and the tests its files select',
    `  fast: [build, ${o.areas.map((a) => `test-${a}`).join(', ')}]`,
    '  select:',
    ...o.areas.flatMap((a) => [
      `    "{src/${a}*,tests/${a}}/**": [test-${a}]`,
      `    "{include,mk,tools,src/gen}/${a}*": [test-${a}]`,
    ]),
    'merge:',
    '  parallel: 2',
    '',
  ];
  return lines.join('\n');
}
