import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../fixtures/resolve/cli.js';
import { tempDir } from '../helpers/git-repo.js';
import {
  cloneFork,
  ecosystemOf,
  followHandoff,
  gitIn,
  listRealMerges,
  maintainerEnv,
  realHistoriesDir,
  type Ecosystem,
  type Handoff,
  type PersonMemory,
  type PersonStep,
  type RealMerge,
} from '../helpers/real-histories.js';

/**
 * The fork maintainer's journey on real histories (issue 11): each merge listed in
 * `../shared/real-histories/README.md` is run with `splintercat merge`, offline (no
 * model), the library's own test suite as the `test` check: mocha for the Node
 * libraries (their dependencies installed by `check.setup`), pytest with Debian's
 * packages for werkzeug (`.ci/run` installs them). A script stands in for the person:
 * it reads only `status --json` and does what the hand-off prints, writing each file
 * as the maintainer committed it. The run must end with a two-parent merge and a clean
 * checkout, with the test check run after every hand-off; where the person wrote the
 * maintainer's bytes the result has them. On werkzeug, whose 2019 commits fail many
 * tests on today's Python at both tips, nothing may be blamed or said to have stopped
 * early, and the merge must be validated against those baselines.
 */
const available = existsSync(join(realHistoriesDir, 'README.md'));
if (!available) {
  const why = `../shared/real-histories is missing (looked in ${realHistoriesDir}): it holds the git bundles of real fork histories, and CI provides it beside the clone`;
  if (process.env.CI) throw new Error(why);
  console.warn(`[skipped] the real-history journey suite: ${why}`);
}
const merges: RealMerge[] = available ? listRealMerges() : [];
const MAX_HANDOFFS = 40;

/** What one run was like, for the table in the closing note. */
interface JourneyRow {
  merge: string;
  /** The README's first-parent grid, and the grid the engine merged (git-imerge's boundaries). */
  grid: string;
  engineGrid: string;
  conflicts: number;
  hunksByRung: Record<string, number>;
  handoffs: number;
  checks: number;
  wallSeconds: number;
  differing: string[];
  /** Of those, files the person wrote with the maintainer's bytes at a hand-off. */
  writtenDiffering: string[];
  /** Failures the person accepted as expected at a step (`continue --accept-failure`). */
  accepted: number;
  outcome: string;
  /** What the finished merge said about its validation. */
  validation: string;
}

const rows: JourneyRow[] = [];

/** The run's configuration for the history's ecosystem: the library's own test suite as the `test` check. */
function config(ecosystem: Ecosystem): string {
  const checks =
    ecosystem === 'python'
      ? [
          "  # Debian's python3 with python3-pytest (and the packages the commits under test import)",
          '  commands:',
          '    test: PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider tests --ignore=tests/test_serving.py',
          '  timeout: 300',
        ]
      : [
          '  # the dependencies of the commit under test, installed in each worktree when package.json changes',
          '  setup: npm install --no-audit --no-fund --no-package-lock --loglevel=error',
          '  setup_when: [package.json]',
          '  setup_network: true',
          '  writable: ["~/.npm"]',
          '  # a hung suite (a server left listening) is cut short; these suites take seconds',
          '  timeout: 120',
          '  commands:',
          '    test: npm test',
        ];
  return ['check:', ...checks, '  workflow: [test]', 'imerge:', '  name: upstream-merge', ''].join('\n');
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): PersonStep {
  const run = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { cwd, command, code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

describe.skipIf(!available)(
  'real fork histories: the maintainer journey (offline, the library test suite as the check)',
  () => {
    it.each(merges.map((m) => [`${m.bundle.replace('.bundle', '')} ${m.subject}`, m] as const))(
      '%s',
      (_title, merge) => {
        const started = Date.now();
        const root = tempDir('splintercat-journey-');
        const env = maintainerEnv(root);
        const repo = cloneFork(merge, root, env);
        const ecosystem = ecosystemOf(repo, env);
        // Debian's python3 (python3-pytest), whatever other interpreter the machine's PATH has first.
        if (ecosystem === 'python') env.PATH = `${join(root, 'bin')}:/usr/bin:/bin:${env.PATH ?? ''}`;
        writeFileSync(join(repo, 'splintercat.yaml'), config(ecosystem));

        const transcript: PersonStep[] = [];
        let last = sh('splintercat merge upstream --into fork', repo, env);
        transcript.push(last);
        let handoffs = 0;
        const memory: PersonMemory = new Map();
        while (last.code === 3 && handoffs < MAX_HANDOFFS) {
          const status = sh('splintercat status --json', repo, env);
          expect(status.code, status.output).toBe(0);
          const human = (JSON.parse(status.output) as { human: Handoff | null }).human;
          expect(human, 'exit 3 with no hand-off in status --json').toBeTruthy();
          handoffs++;
          const steps = followHandoff(repo, merge.merge, human as Handoff, env, memory);
          transcript.push(...steps);
          for (const step of steps.slice(0, -1))
            expect(step.code, `${step.command} in ${step.cwd}:\n${step.output}`).toBe(0);
          last = steps[steps.length - 1] as PersonStep;
        }
        const account = transcript
          .map((s) => `$ (${s.cwd}) ${s.command} -> ${s.code}\n${s.output.split('\n').slice(-15).join('\n')}`)
          .join('\n');
        expect(last.code, `the run did not finish:\n${account}`).toBe(0);

        // One two-parent merge on the fork branch, original commits kept; a clean checkout at it.
        const tip = gitIn(repo, env, 'rev-parse', 'fork');
        expect(gitIn(repo, env, 'rev-list', '--parents', '-n', '1', tip).split(' ').slice(1)).toEqual([
          merge.fork,
          merge.upstream,
        ]);
        expect(
          gitIn(repo, env, 'status', '--porcelain', '--untracked-files=no'),
          'the main checkout is not clean after the merge',
        ).toBe('');
        expect(gitIn(repo, env, 'rev-parse', 'HEAD')).toBe(tip);

        const status = JSON.parse(sh('splintercat status --json', repo, env).output) as {
          status: string;
          human: unknown;
          conflicts: { total: number; hunksByRung: Record<string, number> };
          checks: { total: number };
          grid: { size: { i1: number; i2: number } } | null;
          accepted: unknown[];
        };
        expect(status.status).toBe('done');
        expect(status.human, 'a finished run shows no pending hand-off').toBeNull();

        // The test check ran after every hand-off: each `continue` that took a person's edit checked it.
        const journal = readFileSync(join(repo, '.git', 'splintercat', 'upstream-merge', 'events.jsonl'), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { type: string; check?: { name: string } });
        let waiting = false;
        let unchecked = 0;
        for (const event of journal) {
          if (event.type === 'human_needed') {
            if (waiting) unchecked++;
            waiting = true;
          } else if (event.type === 'check_finished' && event.check?.name === 'test') waiting = false;
        }
        if (waiting) unchecked++;
        expect(unchecked, 'hand-offs followed by no test check').toBe(0);

        const differing = gitIn(repo, env, 'diff', '--name-only', merge.merge, tip).split('\n').filter(Boolean);
        // Where the person wrote the maintainer's bytes (not sent back to keep the fork's side), the result has them.
        const keptForkSide = new Set(
          transcript.flatMap(
            (t) => /^git (?:checkout HEAD|rm -q --ignore-unmatch) -- '(.+)'$/.exec(t.command)?.[1] ?? [],
          ),
        );
        const written = [...new Set([...memory.values()].flatMap((m) => m.files))].filter((f) => !keptForkSide.has(f));
        // On the Node histories a file written at an early cell can be merged again at a later one (a rung then
        // decides it): recorded in the row, asserted where the person's bytes are the last word (werkzeug).
        const writtenDiffering = written.filter((f) => differing.includes(f));

        // The verdicts read true: the final merge says whether it is validated and against what; where nothing
        // was blamed, status and the reports read the checks as passed (against the baselines), never failed.
        const validation = /^ {2}((?:not )?validated\b.*)$/m.exec(last.output)?.[1] ?? '(no validation line)';
        const decisions = readFileSync(join(repo, '.splintercat', 'logs', 'decisions.log'), 'utf8');
        const statusText = sh('splintercat status', repo, env).output;
        const markdown = sh('splintercat report', repo, env).output;
        if (ecosystem === 'python') {
          expect(
            writtenDiffering,
            "files the person wrote as the maintainer did that differ from the maintainer's merge",
          ).toEqual([]);
          expect(decisions, 'a run said to have stopped early').not.toMatch(/stopped early|may hide more/);
          expect(validation).toMatch(/^validated against the baselines on the merged tree: test fails only as /);
          expect(statusText).toMatch(/checks: \d+ run: (?:\d+ passed, )?\d+ passed against the baselines, 0 failed/);
          expect(statusText).not.toMatch(/FAILED|check failed/);
          expect(statusText).toContain(`  ${validation}`);
          expect(markdown).toContain('passed against the baselines (');
          expect(markdown).not.toContain('**failed**');
        }
        if (differing.length > 0)
          console.log(
            `[${merge.bundle} ${merge.subject}] files that differ from the maintainer's merge:\n  ${differing.join('\n  ')}`,
          );
        rows.push({
          merge: `${merge.bundle.replace('.bundle', '')} ${merge.subject}`,
          grid: merge.grid,
          engineGrid: status.grid ? `${status.grid.size.i1} x ${status.grid.size.i2}` : '?',
          conflicts: status.conflicts.total,
          hunksByRung: status.conflicts.hunksByRung,
          handoffs,
          checks: status.checks.total,
          wallSeconds: Math.round((Date.now() - started) / 1000),
          differing,
          writtenDiffering,
          accepted: status.accepted.length,
          outcome: status.status,
          validation,
        });
        const out = join(repoRoot, 'test-results');
        mkdirSync(out, { recursive: true });
        writeFileSync(join(out, 'real-histories.json'), `${JSON.stringify(rows, null, 2)}\n`);
      },
    );
  },
);
