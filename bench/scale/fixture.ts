/**
 * The scale fixture: a C project with a real `make` build (a few thousand source files in
 * per-area static libraries, per-area test binaries, generated tables), an upstream of 1,000+
 * commits and a fork of 100+, and 30+ conflicts of the kinds real forks have (conflicts.ts),
 * built with `git fast-import` in seconds. The conflicts come in waves: the conflicts of a wave
 * are blocked cells at once (an antichain of the grid), each one of the next wave dominates every
 * one of the wave before, so a run meets them wave by wave, several at a time. What the scripted
 * model and the simulated person do with each is decided here too (`model`, `person`).
 *
 * Used by `npm run bench` (bench/scale.ts, full size) and the slow test (small size).
 */
import { execFileSync } from 'node:child_process';
import { benchGitEnv } from '../_env.js';
import {
  fileName,
  generatedTable,
  makefile,
  moduleFile,
  moduleHeader,
  moduleTests,
  TABLE_GENERATOR,
  TEST_HEADER,
  TEST_RUNNER,
  type Module,
} from './c-project.js';
import { conflictFiles, conflictKinds, type ConflictKind, type ScaleConflict } from './conflicts.js';

export interface ScaleOptions {
  areas: string[];
  modulesPerArea: number;
  filesPerModule: number;
  functionsPerFile: number;
  /** Every `testStride`-th file of a module has a test. */
  testStride: number;
  /** Iterations of each module's stress test (what a test run costs). */
  stressLoops: number;
  forkCommits: number;
  upstreamCommits: number;
  waves: number;
  perWave: number;
  /** Every `headerEvery`-th ordinary upstream commit also raises a module header's revision (the module recompiles). */
  headerEvery: number;
}

/** 2,400 C files, 120 fork and 1,100 upstream commits, 36 conflicts in 6 waves. */
export const SCALE_FULL: ScaleOptions = {
  areas: ['core', 'net', 'fs', 'ui', 'math', 'util'],
  modulesPerArea: 4,
  filesPerModule: 100,
  functionsPerFile: 4,
  testStride: 5,
  stressLoops: 40_000_000,
  forkCommits: 120,
  upstreamCommits: 1100,
  waves: 6,
  perWave: 6,
  headerEvery: 40,
};

/** The slow test's size: the same shapes, a build of seconds. */
export const SCALE_SMALL: ScaleOptions = {
  areas: ['core', 'net', 'fs'],
  modulesPerArea: 1,
  filesPerModule: 8,
  functionsPerFile: 2,
  testStride: 2,
  stressLoops: 100_000,
  forkCommits: 30,
  upstreamCommits: 60,
  waves: 3,
  perWave: 4,
  headerEvery: 10,
};

export interface ScaleFixture {
  dir: string;
  /** The fork's branch (axis i1) and the upstream branch (axis i2). */
  fork: 'main';
  upstream: 'upstream';
  options: ScaleOptions;
  modules: Module[];
  conflicts: ScaleConflict[];
  /** C files in the base tree. */
  sourceFiles: number;
}

/**
 * Where conflict (wave, slot) sits, its kind (the kinds rotate with the wave), and what the model
 * and the person do with it. In every odd wave the model gives up slots 0, 2 and 3 (a person gets
 * them together); the person's first try of the second of them in the last odd wave is wrong (the
 * batch check fails and bisection finds it). In even waves after the first the model's first
 * answer is wrong for a header (the build breaks) and a build fragment (a test fails); both are
 * conflicts of one file, so the retry's right answer for it was never blamed.
 */
function plan(o: ScaleOptions, modules: Module[]): Omit<ScaleConflict, 'files' | 'primary'>[] {
  const gapA = Math.floor(o.forkCommits / o.waves);
  const gapB = Math.floor(o.upstreamCommits / o.waves);
  const stepA = Math.max(1, Math.floor((gapA - 1) / o.perWave));
  const stepB = Math.floor(gapB / (o.perWave + 1));
  if (stepB < 1 || stepA * (o.perWave - 1) >= gapA) throw new Error('scale fixture: too many conflicts for the axes');
  const lastOdd = o.waves % 2 === 0 ? o.waves - 1 : o.waves - 2;
  const out: Omit<ScaleConflict, 'files' | 'primary'>[] = [];
  for (let wave = 0; wave < o.waves; wave++) {
    const givenUp = wave % 2 === 1 ? [0, 2, 3].filter((s) => s < o.perWave) : [];
    for (let slot = 0; slot < o.perWave; slot++) {
      const n = out.length + 1;
      const kind = conflictKinds[(slot + wave) % conflictKinds.length] as ConflictKind;
      const wrong = wave % 2 === 0 && wave > 0 && (kind === 'header' || kind === 'build');
      out.push({
        n,
        kind,
        module: modules[(n * 7) % modules.length] as Module,
        wave,
        slot,
        fork: 1 + wave * gapA + slot * stepA,
        upstream: 1 + wave * gapB + (o.perWave - 1 - slot) * stepB,
        model: givenUp.includes(slot) ? 'give-up' : wrong ? 'wrong' : 'correct',
        person: wave === lastOdd && slot === givenUp[1] ? 'wrong' : 'correct',
      });
    }
  }
  return out;
}

/** The fixture's conflicts (with their files) for these options, without building anything. */
export function scaleConflicts(o: ScaleOptions): { modules: Module[]; conflicts: ScaleConflict[] } {
  const modules = o.areas.flatMap((area) =>
    Array.from({ length: o.modulesPerArea }, (_, k) => ({ name: `${area}${String(k + 1).padStart(2, '0')}`, area })),
  );
  const conflicts = plan(o, modules).map((c) => ({ ...c, ...conflictFiles(c.kind, c.module, c.n) }));
  return { modules, conflicts };
}

/** The fast-import stream writer: commits with inline file contents, fixed dates. */
class Stream {
  private readonly out: string[] = [];
  private time = 1_700_000_000;

  commit(ref: string, mark: number, from: number | null, message: string, files: Record<string, string>): void {
    const data = (s: string): string => `data ${Buffer.byteLength(s)}\n${s}\n`;
    this.out.push(`commit ${ref}\nmark :${mark}\ncommitter Scale <scale@example.com> ${this.time++} +0000\n`);
    this.out.push(data(message));
    if (from !== null) this.out.push(`from :${from}\n`);
    for (const [path, text] of Object.entries(files)) {
      const mode = path.endsWith('.sh') ? '100755' : '100644';
      this.out.push(`M ${mode} inline ${path}\n${data(text)}`);
    }
  }

  text(): string {
    return this.out.join('');
  }
}

function baseTree(o: ScaleOptions, modules: Module[], conflicts: ScaleConflict[]): Record<string, string> {
  const files: Record<string, string> = {
    Makefile: makefile(o.areas),
    '.gitignore': 'build/\n',
    'tests/test.h': TEST_HEADER,
    'tests/runner.c': TEST_RUNNER,
    'tools/gen-table.sh': TABLE_GENERATOR,
    'tools/base_ops.def': 'OP(nop, 0)\n',
    'src/gen/base_ops.c': generatedTable('base_ops', 'OP(nop, 0)\n'),
  };
  modules.forEach((m, mi) => {
    files[`include/${m.name}.h`] = moduleHeader(m, o.filesPerModule, o.functionsPerFile, 0);
    for (let f = 0; f < o.filesPerModule; f++)
      files[`src/${m.name}/${fileName(f)}.c`] = moduleFile(m, mi, f, o.functionsPerFile, 0);
    files[`tests/${m.area}/${m.name}_test.c`] = moduleTests(m, mi, o.filesPerModule, o.testStride, o.stressLoops);
  });
  for (const c of conflicts) for (const [path, f] of Object.entries(c.files)) files[path] = f.base;
  return files;
}

/**
 * The commits of one side: the conflicts' commits where the plan puts them, and ordinary
 * commits in between (each changes one file's revision function; fork and upstream change
 * disjoint files, so they never conflict; some upstream ones raise a module header's revision).
 */
function side(
  stream: Stream,
  o: ScaleOptions,
  modules: Module[],
  conflicts: ScaleConflict[],
  which: 'fork' | 'upstream',
): void {
  const count = which === 'fork' ? o.forkCommits : o.upstreamCommits;
  const ref = which === 'fork' ? 'refs/heads/main' : 'refs/heads/upstream';
  const marks = which === 'fork' ? 100_000 : 200_000;
  const byCommit = new Map(conflicts.map((c) => [which === 'fork' ? c.fork : c.upstream, c]));
  const revs = new Map<string, number>();
  let ordinary = 0;
  for (let i = 1; i <= count; i++) {
    const from = i === 1 ? 1 : marks + i - 1;
    const c = byCommit.get(i);
    if (c) {
      const files = Object.fromEntries(
        Object.entries(c.files)
          .filter(([, f]) => f[which] !== f.base)
          .map(([path, f]) => [path, f[which]]),
      );
      stream.commit(ref, marks + i, from, `${which} ${i}: [c${c.n}] ${c.kind} change in ${c.module.name}\n`, files);
      continue;
    }
    ordinary++;
    const mi = (ordinary * 13 + (which === 'fork' ? 5 : 0)) % modules.length;
    const m = modules[mi] as Module;
    const half = Math.floor(o.filesPerModule / 2);
    const f = 2 * ((ordinary * 7) % half) + (which === 'fork' ? 1 : 0);
    const rev = (which === 'fork' ? 10_000 : 0) + i;
    const files: Record<string, string> = {
      [`src/${m.name}/${fileName(f)}.c`]: moduleFile(m, mi, f, o.functionsPerFile, rev),
    };
    let what = `${m.name}/${fileName(f)}`;
    if (which === 'upstream' && ordinary % o.headerEvery === 0) {
      revs.set(m.name, i);
      files[`include/${m.name}.h`] = moduleHeader(m, o.filesPerModule, o.functionsPerFile, i);
      what += ` and ${m.name}.h`;
    }
    stream.commit(ref, marks + i, from, `${which} ${i}: revise ${what}\n`, files);
  }
}

function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd: dir, env: benchGitEnv, input, encoding: 'utf8', maxBuffer: 1 << 30 });
}

/** Build the fixture's repository in `dir` (an empty directory): branches `main` (the fork, checked out) and `upstream`. */
export function generateScaleFixture(dir: string, o: ScaleOptions): ScaleFixture {
  const { modules, conflicts } = scaleConflicts(o);
  git(dir, ['init', '-q', '-b', 'main']);
  for (const [k, v] of [
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['commit.gpgsign', 'false'],
    ['user.name', 'Scale Fixture'],
    ['user.email', 'scale@example.com'],
  ])
    git(dir, ['config', k as string, v as string]);
  const stream = new Stream();
  const base = baseTree(o, modules, conflicts);
  stream.commit('refs/heads/main', 1, null, 'base: the C project\n', base);
  side(stream, o, modules, conflicts, 'fork');
  side(stream, o, modules, conflicts, 'upstream');
  git(dir, ['fast-import', '--quiet'], stream.text());
  git(dir, ['checkout', '-q', '-f', 'main']);
  const sourceFiles = Object.keys(base).filter((p) => p.endsWith('.c')).length;
  return { dir, fork: 'main', upstream: 'upstream', options: o, modules, conflicts, sourceFiles };
}

/** The conflict at a grid cell (`I1-I2`), if the fixture put one there. */
export function conflictAt(fixture: Pick<ScaleFixture, 'conflicts'>, id: string): ScaleConflict | undefined {
  const [i1, i2] = id.split('-').map(Number);
  return fixture.conflicts.find((c) => c.fork === i1 && c.upstream === i2);
}
