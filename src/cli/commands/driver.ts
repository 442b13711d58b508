import { readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../errors/index.js';
import { Git } from '../../git/index.js';
import { decodeBytes, encodeText, encodingOf } from '../../resolve/parse/encoding.js';
import { mergeFileTexts } from '../../resolve/parse/merge-file.js';
import { globalOptions } from '../context.js';
import { ExitCode } from '../exit-codes.js';
import { terminalText } from '../../util/safe-print.js';

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
      async (
        base: string,
        current: string,
        other: string,
        path: string | undefined,
        markerSize: string | undefined,
        _opts: unknown,
        cmd: Command,
      ) => {
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
          process.stderr.write(terminalText(`splintercat driver: ${path ?? current} is binary; left for a human\n`));
          process.exitCode = ExitCode.Failed;
          return;
        }
        // The three versions are held with one encoding and %A is written back with it: a file that
        // is not UTF-8 keeps every byte outside the hunks resolved.
        const encoding = encodingOf(ob, ab, bb);
        const [o, a, b] = [ob, ab, bb].map((x) => decodeBytes(x, encoding)) as [string, string, string];
        const git = new Git({ cwd: global.cwd });
        try {
          const label = path ?? 'file';
          // git's own merge goes to %A first: whatever fails after this (a bad config, a
          // crash), git records a conflict whose file shows both sides, never just ours.
          const merged = await mergeFileTexts(git, {
            base: o,
            ours: a,
            theirs: b,
            style: 'diff3',
            markerSize: size,
            labels: { ours: `ours:${label}`, base: `base:${label}`, theirs: `theirs:${label}` },
            encoding,
          });
          await writeFile(abs(current), encodeText(merged.text, encoding));
          if (merged.conflicts === 0) return;
          // A generated file is decided whole (one side's file, then its tool): no block is resolved alone.
          const { generatedDriverNote } = await import('../../resolve/data/generated-files.js');
          const whole = generatedDriverNote(label, [a, b, o]);
          if (whole !== null) {
            process.stderr.write(`splintercat driver: ${whole}\n`);
            process.exitCode = ExitCode.Failed;
            return;
          }
          // Only a file git could not merge alone loads the configuration and the ladder.
          const { loadCliConfig } = await import('../run-context.js');
          const [{ ladderFromConfig }, { resolveFileText }] = await Promise.all([
            import('../../resolve/setup.js'),
            import('../../resolve/ladder.js'),
          ]);
          const { config } = await loadCliConfig(global, true);
          const inRepo = (await git.run(['rev-parse', '--git-dir'], { okExitCodes: [0, 128] })).exitCode === 0;
          const setup = await ladderFromConfig(config.resolve, inRepo ? git : null);
          const result = await resolveFileText(merged.text, {
            path: label,
            rules: setup.rules,
            cache: setup.cache,
            markerSize: size,
            provenance: { file: label },
            sides: { base: o, ours: a, theirs: b },
            syntax: setup.syntax,
          });
          await writeFile(abs(current), encodeText(result.text, encoding));
          const by = result.resolutions.map((r) => r.by).join(', ');
          if (result.remaining.length > 0) {
            process.stderr.write(
              terminalText(
                `splintercat driver: ${label}: ${result.remaining.length} conflict hunk(s) left${by ? ` (resolved: ${by})` : ''}\n`,
              ),
            );
            process.exitCode = ExitCode.Failed;
          } else {
            process.stderr.write(
              terminalText(`splintercat driver: ${label}: resolved ${result.resolutions.length} hunk(s) (${by})\n`),
            );
          }
        } finally {
          git.close();
        }
      },
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
