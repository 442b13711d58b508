/**
 * `npm run scale-fixture -- DIR [--small]`: the scale fixture for trying splintercat on a large
 * fork by hand: DIR/repo with branches `main` (the fork, checked out) and `upstream`, and its
 * splintercat.yaml (README, "A large fork").
 *
 * `npm run scale-fixture -- --settle REPO`: at a hand-off, write the right resolution of every
 * conflict handed over into its worktree (what a careful person would write), so the walk can be
 * tried without editing dozens of files; then run `splintercat continue` as the hand-off says.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Handoff } from '../../src/store/run-state.js';
import { cliInvocation } from '../../src/cli/invocation.js';
import { cliMain } from '../_cli.js';
import { scaleConfigYaml } from './config.js';
import {
  conflictAt,
  generateScaleFixture,
  SCALE_FULL,
  SCALE_SMALL,
  scaleConflicts,
  type ScaleOptions,
} from './fixture.js';

const OPTIONS_FILE = 'scale-fixture.json';

/** `splintercat` when installed, else the clone's built CLI by its path: typed as printed, from any directory. */
const splintercat = (): string => cliInvocation({ argv: [process.execPath, cliMain], execArgv: [] }).command;

function make(dir: string, small: boolean): void {
  const repo = join(resolve(dir), 'repo');
  mkdirSync(repo, { recursive: true });
  const options = small ? SCALE_SMALL : SCALE_FULL;
  const fixture = generateScaleFixture(repo, options);
  writeFileSync(join(repo, '.git', OPTIONS_FILE), `${JSON.stringify(options)}\n`);
  writeFileSync(join(repo, 'splintercat.yaml'), scaleConfigYaml(options));
  process.stdout.write(
    [
      `${repo}: ${fixture.sourceFiles} C files, ${options.upstreamCommits} upstream x ${options.forkCommits} fork commits, ${fixture.conflicts.length} conflicts`,
      'Next:',
      `  cd ${repo}`,
      `  ${splintercat()} merge upstream --into main`,
      '',
    ].join('\n'),
  );
}

function settle(repo: string): void {
  const options = JSON.parse(readFileSync(join(repo, '.git', OPTIONS_FILE), 'utf8')) as ScaleOptions;
  const { conflicts } = scaleConflicts(options);
  const status = JSON.parse(
    execFileSync(process.execPath, [cliMain, 'status', '--json'], { cwd: repo, encoding: 'utf8' }),
  ) as {
    human: Handoff | null;
  };
  if (!status.human) {
    process.stdout.write('Nothing is handed over right now (splintercat status says what the run is doing).\n');
    return;
  }
  for (const handed of status.human.conflicts) {
    const conflict = conflictAt({ conflicts }, handed.conflict);
    for (const f of handed.files) {
      const text = conflict?.files[f.path]?.correct;
      if (text === undefined) throw new Error(`the fixture has no resolution for ${f.path} of ${handed.conflict}`);
      writeFileSync(join(handed.worktree, f.path), text);
      process.stdout.write(`settled ${handed.conflict}: ${f.path}\n`);
    }
  }
  process.stdout.write(`Now run: ${splintercat()} continue\n`);
}

// npm runs scripts in the package's directory; INIT_CWD is where the user typed the command.
const here = (path: string): string => resolve(process.env.INIT_CWD ?? process.cwd(), path);
const args = process.argv.slice(2);
const at = args.indexOf('--settle');
if (at >= 0) settle(here(args[at + 1] ?? '.'));
else if (args[0]) make(here(args[0]), args.includes('--small'));
else process.stderr.write('usage: npm run scale-fixture -- DIR [--small] | --settle REPO\n');
