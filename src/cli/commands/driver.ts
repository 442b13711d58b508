import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { Git } from '../../git/index.js';
import { decodeBytes, encodeText, encodingOf } from '../../resolve/parse/encoding.js';
import { mergeFileTexts } from '../../resolve/parse/merge-file.js';
import { configRequest, globalOptions } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { terminalText } from '../../util/safe-print.js';

/** The three versions of one file, decoded with the encoding they share. */
interface DriverFile {
  label: string;
  o: string;
  a: string;
  b: string;
  encoding: ReturnType<typeof encodingOf>;
  size: number | undefined;
  /** Where the result goes: %A. */
  out: string;
}

/** The ladder on what git's merge left; the result goes to %A and the outcome to stderr. */
async function resolveLeft(
  git: Git,
  global: ReturnType<typeof globalOptions>,
  f: DriverFile,
  merged: string,
): Promise<void> {
  // Only a file git could not merge alone loads the configuration and the ladder.
  const { configFor } = await import('../../workflow/config-for.js');
  const [{ ladderFromConfig }, { resolveFileText }] = await Promise.all([
    import('../../resolve/setup.js'),
    import('../../resolve/ladder.js'),
  ]);
  const { config } = await configFor.inMerge(configRequest(global), { driver: true });
  const inRepo = (await git.run(['rev-parse', '--git-dir'], { okExitCodes: [0, 128] })).exitCode === 0;
  const setup = await ladderFromConfig(config.resolve, inRepo ? git : null);
  const result = await resolveFileText(merged, {
    path: f.label,
    rules: setup.rules,
    cache: setup.cache,
    markerSize: f.size,
    provenance: { file: f.label },
    sides: { base: f.o, ours: f.a, theirs: f.b },
    syntax: setup.syntax,
  });
  await writeFile(f.out, encodeText(result.text, f.encoding));
  const by = result.resolutions.map((r) => r.by).join(', ');
  if (result.remaining.length > 0) {
    const left = `${result.remaining.length} conflict hunk(s) left${by ? ` (resolved: ${by})` : ''}`;
    process.stderr.write(terminalText(`splintercat driver: ${f.label}: ${left}\n`));
    process.exitCode = ExitCode.Failed;
  } else {
    const done = `resolved ${result.resolutions.length} hunk(s) (${by})`;
    process.stderr.write(terminalText(`splintercat driver: ${f.label}: ${done}\n`));
  }
}

/** git's own merge to %A first, then a generated file decided whole, else the ladder on what is left. */
async function mergeThree(git: Git, global: ReturnType<typeof globalOptions>, f: DriverFile): Promise<void> {
  const { label } = f;
  // git's own merge goes to %A first: whatever fails after this (a bad config, a
  // crash), git records a conflict whose file shows both sides, never just ours.
  const merged = await mergeFileTexts(git, {
    base: f.o,
    ours: f.a,
    theirs: f.b,
    style: 'diff3',
    markerSize: f.size,
    labels: { ours: `ours:${label}`, base: `base:${label}`, theirs: `theirs:${label}` },
    encoding: f.encoding,
  });
  await writeFile(f.out, encodeText(merged.text, f.encoding));
  if (merged.conflicts === 0) return;
  // A generated file is decided whole (one side's file, then its tool): no hunk is resolved alone.
  const { generatedDriverNote } = await import('../../resolve/data/generated-files.js');
  const whole = generatedDriverNote(label, [f.a, f.b, f.o]);
  if (whole !== null) {
    process.stderr.write(`splintercat driver: ${whole}\n`);
    process.exitCode = ExitCode.Failed;
    return;
  }
  await resolveLeft(git, global, f, merged.text);
}

/** The driver's arguments: %O %A %B, then %P and %L when git passes them. */
type DriverArgs = [base: string, current: string, other: string, path?: string, markerSize?: string];

async function runDriver([base, current, other, path, markerSize]: DriverArgs, cmd: Command): Promise<void> {
  const global = globalOptions(cmd);
  const size = markerSize === undefined ? undefined : Number(markerSize);
  if (size !== undefined && !(Number.isInteger(size) && size > 0)) {
    throw new UsageError('driver_marker_size', {
      what: `Invalid conflict marker size '${markerSize}'`,
      fix: 'Configure the driver as `splintercat driver %O %A %B %P %L` (the 5th argument is %L, a positive number)',
    });
  }
  const abs = (p: string): string => (isAbsolute(p) ? p : resolvePath(global.cwd, p));
  // In argument order, so the message names the first missing one whatever the timing.
  const ob = await readSide(abs(base), '%O');
  const ab = await readSide(abs(current), '%A');
  const bb = await readSide(abs(other), '%B');
  if ([ob, ab, bb].some((t) => t.subarray(0, 8000).includes(0))) {
    // Binary content: leave %A as ours and report a conflict, as git's binary driver does.
    process.stderr.write(terminalText(`splintercat driver: ${path ?? current} is binary; left for the person\n`));
    process.exitCode = ExitCode.Failed;
    return;
  }
  // The three versions are held with one encoding and %A is written back with it: a file that
  // is not UTF-8 keeps every byte outside the hunks resolved.
  const encoding = encodingOf(ob, ab, bb);
  const [o, a, b] = [ob, ab, bb].map((x) => decodeBytes(x, encoding)) as [string, string, string];
  const git = new Git({ cwd: global.cwd });
  try {
    await mergeThree(git, global, { label: path ?? 'file', o, a, b, encoding, size, out: abs(current) });
  } finally {
    git.close();
  }
}

/**
 * `splintercat driver %O %A %B %P [%L]`: a git merge driver. git's own
 * merge first, the ladder on what is left; the result goes to %A; exit 0
 * when clean, 1 with markers left only on the hunks not resolved.
 */
export function registerDriver(program: Command): Command {
  return program
    .command('driver')
    .description('git merge driver: splintercat driver %O %A %B %P [%L]')
    .argument('<base>', '%O: the base version (temp file)')
    .argument('<current>', '%A: our version; the result is written here')
    .argument('<other>', '%B: their version')
    .argument('[path]', '%P: the path being merged (for messages and the cache)')
    .argument('[markerSize]', '%L: conflict marker size')
    .action(
      (
        base: string,
        current: string,
        other: string,
        path: string | undefined,
        markerSize: string | undefined,
        _opts: unknown,
        cmd: Command,
      ) => runDriver([base, current, other, path, markerSize], cmd),
    );
}

async function readSide(file: string, name: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new UsageError('driver_input_missing', {
      what: `Cannot read ${name} (${file})`,
      why: 'git passes the three versions as temporary files; this one is missing or unreadable',
      fix: 'Configure the driver as `splintercat driver %O %A %B %P %L` in merge.splintercat.driver',
      cause: error,
    });
  }
}
