import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../fixtures/resolve/cli.js';
import { decisionOfChoice } from '../../src/resolve/policy/propose-policy.js';
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
  type PersonTally,
  type RealMerge,
  emptyTally,
} from '../helpers/real-histories.js';
import { dropsAgainstMaintainer, dropsLine, type DropsTally } from '../helpers/real-history-drops.js';

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

/** What one run was like, for the table in the issue's closing note. */
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
  /** The hunks handed to the person, how many one `splintercat take` answered, and the suggestions. */
  person: PersonTally;
  /** Files the policy or the past merges settled (no hand-off for them). */
  byPolicy: string[];
  /** What the finished merge said about its validation. */
  validation: string;
  /** What the resolutions dropped of each side, against what the maintainer's merge dropped. */
  drops: DropsTally;
  /** The finished merge's tree. */
  tree: string;
}

const rows: JourneyRow[] = [];
const twiceRows: Array<{
  first: JourneyRow;
  second: JourneyRow;
  policy: string[];
  alone: JourneyRow | null;
  fresh: JourneyRow;
}> = [];

/**
 * The fork's policy per history: serve-static's 2.0 line keeps a package-lock.json that its
 * upstream line deleted; the policy regenerates it rather than asking.
 */
const policyOf: Record<string, string[]> = {
  'serve-static.bundle': [
    'resolve:',
    '  paths:',
    '    "package-lock.json": {regenerate: npm install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error}',
  ],
};

/** The run's configuration for the history's ecosystem: the library's own test suite as the `test` check. */
function config(ecosystem: Ecosystem, extra: string[] = []): string {
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
  return ['check:', ...checks, '  workflow: [test]', 'imerge:', '  name: upstream-merge', ...extra, ''].join('\n');
}

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): PersonStep {
  const run = spawnSync('sh', ['-c', command], { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { cwd, command, code: run.status ?? 1, output: `${run.stdout}${run.stderr}` };
}

/**
 * One journey: `splintercat merge` of the merge's upstream side into `into` (checked out at its
 * fork side), the simulated person following every hand-off (with `splintercat take` wherever
 * the maintainer kept a side), then the checks on the result. Returns the row of the note.
 */
function journey(
  merge: RealMerge,
  repo: string,
  env: NodeJS.ProcessEnv,
  branches: { into: string; source: string; name: string } = {
    into: 'fork',
    source: 'upstream',
    name: 'upstream-merge',
  },
  options: { verdicts?: boolean } = {},
): JourneyRow {
  const started = Date.now();
  const transcript: PersonStep[] = [];
  let last = sh(`splintercat merge ${branches.source} --into ${branches.into} --name ${branches.name}`, repo, env);
  transcript.push(last);
  let handoffs = 0;
  const memory: PersonMemory = new Map();
  const person = emptyTally();
  while (last.code === 3 && handoffs < MAX_HANDOFFS) {
    const status = sh(`splintercat status --json --name ${branches.name}`, repo, env);
    expect(status.code, status.output).toBe(0);
    const human = (JSON.parse(status.output) as { handoff: Handoff | null }).handoff;
    expect(human, 'exit 3 with no hand-off in status --json').toBeTruthy();
    handoffs++;
    const steps = followHandoff(repo, merge.merge, human as Handoff, env, memory, person);
    transcript.push(...steps);
    for (const step of steps.slice(0, -1)) expect(step.code, `${step.command} in ${step.cwd}:\n${step.output}`).toBe(0);
    last = steps[steps.length - 1] as PersonStep;
  }
  const account = transcript
    .map((s) => `$ (${s.cwd}) ${s.command} -> ${s.code}\n${s.output.split('\n').slice(-15).join('\n')}`)
    .join('\n');
  expect(last.code, `the run did not finish:\n${account}`).toBe(0);

  // One two-parent merge on the fork branch, original commits kept; a clean checkout at it.
  const tip = gitIn(repo, env, 'rev-parse', branches.into);
  expect(gitIn(repo, env, 'rev-list', '--parents', '-n', '1', tip).split(' ').slice(1), account).toEqual([
    merge.fork,
    merge.upstream,
  ]);
  expect(
    gitIn(repo, env, 'status', '--porcelain', '--untracked-files=no'),
    'the main checkout is not clean after the merge',
  ).toBe('');
  expect(gitIn(repo, env, 'rev-parse', 'HEAD')).toBe(tip);

  const status = JSON.parse(sh(`splintercat status --json --name ${branches.name}`, repo, env).output) as {
    status: string;
    handoff: unknown;
    conflicts: { total: number; hunksByRung: Record<string, number> };
    checks: { total: number };
    grid: { size: { i1: number; i2: number } } | null;
    accepted: unknown[];
  };
  expect(status.status).toBe('done');
  expect(status.handoff, 'a finished run shows no pending hand-off').toBeNull();

  // The test check ran after every hand-off: each `continue` that took a person's edit checked it.
  const journal = readFileSync(join(repo, '.git', 'splintercat', branches.name, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type: string; check?: { name: string } });
  let waiting = false;
  let unchecked = 0;
  for (const event of journal) {
    if (event.type === 'person_needed') {
      if (waiting) unchecked++;
      waiting = true;
    } else if (event.type === 'check_finished' && event.check?.name === 'test') waiting = false;
  }
  if (waiting) unchecked++;
  expect(unchecked, 'hand-offs followed by no test check').toBe(0);

  // The record travels with the merge: the message names every conflicted path, the note holds it all.
  const message = gitIn(repo, env, 'log', '-1', '--format=%B', tip);
  expect(message).toMatch(/\nConflicts:\n/);
  const note = JSON.parse(gitIn(repo, env, 'notes', '--ref=splintercat', 'show', tip)) as {
    conflicts: Array<{ files: Array<{ path: string; decidedBy?: string; hunks: Array<{ rung: string | null }> }> }>;
  } & Parameters<typeof dropsAgainstMaintainer>[2];
  const drops = dropsAgainstMaintainer(repo, env, note, merge.merge);
  console.log(`[${merge.bundle} ${merge.subject}] what the resolutions dropped: ${dropsLine(drops)}`);
  for (const f of note.conflicts.flatMap((c) => c.files)) expect(message).toContain(`    ${f.path}`);
  const byPolicy = [
    ...new Set(
      note.conflicts
        .flatMap((c) => c.files)
        .filter((f) => f.decidedBy === 'policy' || (f.hunks.length > 0 && f.hunks.every((h) => h.rung === 'policy')))
        .map((f) => f.path),
    ),
  ];

  const differing = gitIn(repo, env, 'diff', '--name-only', merge.merge, tip).split('\n').filter(Boolean);
  const writtenDiffering = personsBytesDiffering(transcript, memory, differing);
  const validation = /^ {2}((?:not )?validated\b.*)$/m.exec(last.output)?.[1] ?? '(no validation line)';
  if (ecosystemOf(repo, env) === 'python' && options.verdicts !== false)
    verdictsReadTrue(repo, env, branches.name, validation, writtenDiffering);
  if (differing.length > 0)
    console.log(
      `[${merge.bundle} ${merge.subject}] files that differ from the maintainer's merge:\n  ${differing.join('\n  ')}`,
    );
  for (const lock of differing.filter((f) => f.endsWith('package-lock.json'))) {
    console.log(`[${merge.bundle} ${merge.subject}] ${lockfileDifference(repo, env, merge.merge, tip, lock)}`);
    const command = (policyOf[merge.bundle] ?? []).map((l) => /\{regenerate: (.*)\}$/.exec(l)?.[1]).find(Boolean);
    if (byPolicy.includes(lock) && command)
      console.log(`[${merge.bundle} ${merge.subject}] ${regeneratedAgain(repo, env, tip, lock, command)}`);
  }
  console.log(
    `[${merge.bundle} ${merge.subject}] the merge commit's message:\n${message}\n[${merge.bundle} ${merge.subject}] git notes --ref=splintercat show (first 40 lines):\n${gitIn(repo, env, 'notes', '--ref=splintercat', 'show', tip).split('\n').slice(0, 40).join('\n')}`,
  );
  return {
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
    person,
    byPolicy,
    drops,
    tree: gitIn(repo, env, 'rev-parse', `${tip}^{tree}`),
  };
}

/**
 * Files the person wrote with the maintainer's bytes that differ from the maintainer's merge. On the Node
 * histories a file written at an early cell can be merged again at a later one (a rung then decides it):
 * recorded in the row, asserted where the person's bytes are the last word (werkzeug).
 */
function personsBytesDiffering(transcript: PersonStep[], memory: PersonMemory, differing: string[]): string[] {
  // Files sent back to keep the fork's side were not written with the maintainer's bytes.
  const keptForkSide = new Set(
    transcript.flatMap((t) => /^git (?:checkout HEAD|rm -q --ignore-unmatch) -- '(.+)'$/.exec(t.command)?.[1] ?? []),
  );
  const written = [...new Set([...memory.values()].flatMap((m) => m.files))].filter((f) => !keptForkSide.has(f));
  return written.filter((f) => differing.includes(f));
}

/**
 * The verdicts read true on werkzeug, whose 2019 commits fail many tests on today's Python at both tips:
 * the final merge is validated against the baselines; nothing was blamed or said to have stopped early;
 * status and the reports read the checks as passed against the baselines, never failed.
 */
function verdictsReadTrue(
  repo: string,
  env: NodeJS.ProcessEnv,
  name: string,
  validation: string,
  writtenDiffering: string[],
): void {
  expect(
    writtenDiffering,
    "files the person wrote as the maintainer did that differ from the maintainer's merge",
  ).toEqual([]);
  const decisions = readFileSync(join(repo, '.splintercat', 'logs', 'decisions.log'), 'utf8');
  const statusText = sh(`splintercat status --name ${name}`, repo, env).output;
  const markdown = sh(`splintercat report --name ${name}`, repo, env).output;
  expect(decisions, 'a run said to have stopped early').not.toMatch(/stopped early|may hide more/);
  expect(validation).toMatch(/^validated against the baselines on the merged tree: test fails only as /);
  expect(statusText).toMatch(/checks: \d+ run: (?:\d+ passed, )?\d+ passed against the baselines, 0 failed/);
  expect(statusText).not.toMatch(/FAILED|check failed/);
  expect(statusText).toContain(`  ${validation}`);
  expect(markdown).toContain('passed against the baselines (');
  expect(markdown).not.toContain('**failed**');
}

/** The history's configuration written in `repo`, and Debian's python3 first on PATH for a Python one. */
function configure(repo: string, root: string, env: NodeJS.ProcessEnv, extra: string[] = []): void {
  const ecosystem = ecosystemOf(repo, env);
  // Debian's python3 (python3-pytest), whatever other interpreter the machine's PATH has first.
  if (ecosystem === 'python') env.PATH = `${join(root, 'bin')}:/usr/bin:/bin:${env.PATH ?? ''}`;
  writeFileSync(join(repo, 'splintercat.yaml'), config(ecosystem, extra));
}

/** How the tree's lockfile (what the policy's command generated) differs from the maintainer's. */
function lockfileDifference(repo: string, env: NodeJS.ProcessEnv, theirs: string, ours: string, path: string): string {
  const read = (commit: string): { lockfileVersion?: number; packages?: Record<string, { version?: string }> } =>
    JSON.parse(gitIn(repo, env, 'show', `${commit}:${path}`)) as {
      lockfileVersion?: number;
      packages?: Record<string, { version?: string }>;
    };
  const [m, t] = [read(theirs), read(ours)];
  const versions = (l: typeof m): Map<string, string> =>
    new Map(Object.entries(l.packages ?? {}).map(([k, v]) => [k, v.version ?? '']));
  const [mv, tv] = [versions(m), versions(t)];
  const changed = [...tv].filter(([k, v]) => mv.has(k) && mv.get(k) !== v).map(([k, v]) => `${k} ${mv.get(k)} -> ${v}`);
  const only = (a: Map<string, string>, b: Map<string, string>): string[] => [...a.keys()].filter((k) => !b.has(k));
  return [
    `${path}: the maintainer's has lockfileVersion ${m.lockfileVersion}, ${mv.size} package entries; the generated one lockfileVersion ${t.lockfileVersion}, ${tv.size}`,
    `  only in the maintainer's: ${only(mv, tv).slice(0, 8).join(', ') || 'none'}${only(mv, tv).length > 8 ? ', ...' : ''}`,
    `  only in the generated one: ${only(tv, mv).slice(0, 8).join(', ') || 'none'}${only(tv, mv).length > 8 ? ', ...' : ''}`,
    `  other versions (${changed.length}): ${changed.slice(0, 8).join('; ') || 'none'}${changed.length > 8 ? '; ...' : ''}`,
    `  ${gitIn(repo, env, 'diff', '--shortstat', theirs, ours, '--', path)}`,
  ].join('\n');
}

/** Whether the tree's lockfile is what the policy's command writes from the merge's own manifest. */
function regeneratedAgain(repo: string, env: NodeJS.ProcessEnv, tip: string, path: string, command: string): string {
  const dir = join(tempDir('splintercat-regenerate-'), 'tree');
  gitIn(repo, env, 'worktree', 'add', '-q', '--detach', dir, tip);
  try {
    const run = sh(command, dir, env);
    if (run.code !== 0) return `${path}: the regenerate command failed on the merge's tree: ${run.output.slice(-300)}`;
    const diff = gitIn(dir, env, 'diff', '--shortstat', '--', path);
    return diff === ''
      ? `${path}: running the policy's command again on the merge's tree changes nothing: the lockfile is what it generates`
      : `${path}: running the policy's command again on the merge's tree changes it (${diff}): it was generated at an earlier cell`;
  } finally {
    gitIn(repo, env, 'worktree', 'remove', '--force', dir);
  }
}

function saveRows(): void {
  const out = join(repoRoot, 'test-results');
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, 'real-histories.json'), `${JSON.stringify(rows, null, 2)}\n`);
}

describe.skipIf(!available)(
  'real fork histories: the maintainer journey (offline, the library test suite as the check)',
  () => {
    it.each(merges.map((m) => [`${m.bundle.replace('.bundle', '')} ${m.subject}`, m] as const))(
      '%s',
      (_title, merge) => {
        const root = tempDir('splintercat-journey-');
        const env = maintainerEnv(root);
        const repo = cloneFork(merge, root, env);
        configure(repo, root, env, policyOf[merge.bundle]);
        rows.push(journey(merge, repo, env));
        saveRows();
      },
    );
  },
);

/** A policy line per file the person settled the same way throughout a merge (from its note), as YAML entries. */
function policyFromRecord(repo: string, env: NodeJS.ProcessEnv, commit: string): string[] {
  const note = JSON.parse(gitIn(repo, env, 'notes', '--ref=splintercat', 'show', commit)) as {
    conflicts: Array<{ files: Array<{ path: string; hunks: Array<{ rung: string | null; choice?: string }> }> }>;
  };
  const byPath = new Map<string, Set<string>>();
  for (const f of note.conflicts.flatMap((c) => c.files))
    for (const h of f.hunks)
      if (h.rung === 'person') byPath.set(f.path, (byPath.get(f.path) ?? new Set()).add(h.choice ?? 'other text'));
  return [...byPath].flatMap(([path, choices]) => {
    const only = choices.size === 1 ? decisionOfChoice[[...choices][0] as string] : undefined;
    return only ? [`    ${JSON.stringify(path)}: ${only}`] : [];
  });
}

/** The bundles whose README rows hold two merges, the later one's fork side holding the earlier merge. */
const twice = [...new Set(merges.map((m) => m.bundle))].filter((b) => merges.filter((m) => m.bundle === b).length >= 2);

describe.skipIf(!available)('real fork histories: the second merge reuses what the first decided', () => {
  // Three journeys in one test (the first merge, the second, the first again in a fresh clone).
  it.each(twice)('%s', { timeout: 1_800_000 }, (bundle) => {
    const root = tempDir('splintercat-twice-');
    const env = maintainerEnv(root);
    const pair = merges.filter((m) => m.bundle === bundle);
    const clone = cloneFork(pair[0] as RealMerge, root, env);
    const holds = (a: RealMerge, b: RealMerge): boolean =>
      spawnSync('git', ['merge-base', '--is-ancestor', a.merge, b.fork], { cwd: clone, env }).status === 0;
    const first = pair.find((a) => pair.some((b) => b !== a && holds(a, b)));
    const second = pair.find((b) => first && b !== first && holds(first, b));
    expect(first && second, `${bundle}: no merge whose fork side holds the other`).toBeTruthy();
    const [one, two] = [first as RealMerge, second as RealMerge];
    gitIn(clone, env, 'checkout', '-q', '-B', 'fork', one.fork);
    gitIn(clone, env, 'branch', '-f', 'upstream', one.upstream);
    configure(clone, root, env, policyOf[bundle]);
    const firstRow = journey(one, clone, env);

    // What the first merge decided: its cache (kept in the clone) and, written down as policy, every
    // file the person settled the same way throughout it.
    const learnt = policyFromRecord(clone, env, gitIn(clone, env, 'rev-parse', 'fork'));
    const regenerate = (policyOf[bundle] ?? []).filter((l) => l.startsWith('    '));
    gitIn(clone, env, 'checkout', '-q', '-B', 'fork2', two.fork);
    gitIn(clone, env, 'branch', '-f', 'upstream2', two.upstream);
    const paths = [...regenerate, ...learnt];
    configure(clone, root, env, paths.length > 0 ? ['resolve:', '  paths:', ...paths] : []);
    const row = journey(two, clone, env, { into: 'fork2', source: 'upstream2', name: 'second-merge' });
    const alone = rows.find((r) => r.merge === row.merge);
    console.log(
      `[${bundle}] ${row.merge} after ${firstRow.merge} (policy: ${learnt.length} line(s) from the first merge${regenerate.length ? ', plus regenerate' : ''}): ${row.handoffs} hand-off(s), ${row.person.hunks} hunk(s) handed; alone: ${alone ? `${alone.handoffs} hand-off(s), ${alone.person.hunks} hunk(s)` : 'not run in this process'}`,
    );
    // The fork's memory travels: a fresh clone that takes in the cache as the README says (fetch
    // refs/splintercat/cache, then merge) makes the first merge again with the same tree.
    const fresh = cloneFork(one, tempDir('splintercat-fresh-'), env);
    gitIn(fresh, env, 'fetch', '-q', clone, '+refs/splintercat/cache:refs/splintercat/cache');
    configure(fresh, root, env, policyOf[bundle]);
    // A failure the first clone's person accepted is not in the memory: the fresh clone's checks
    // fail there until its person accepts it again, so its verdicts are not those of a clean run.
    const replayed = journey(one, fresh, env, undefined, { verdicts: false });
    console.log(
      `[${bundle}] ${one.subject} again in a fresh clone with the imported cache: ${replayed.handoffs} hand-off(s) (${firstRow.handoffs} in the clone that made the answers), ${replayed.person.hunks} hunk(s) handed; tree ${replayed.tree === firstRow.tree ? 'the same' : `differs (${gitIn(fresh, env, 'diff', '--name-only', firstRow.tree, replayed.tree).split('\n').join(', ')})`}`,
    );
    expect(replayed.tree, 'the fresh clone with the imported cache made another tree').toBe(firstRow.tree);
    expect(replayed.handoffs).toBeLessThanOrEqual(firstRow.handoffs);
    twiceRows.push({ first: firstRow, second: row, policy: learnt, alone: alone ?? null, fresh: replayed });
    const out = join(repoRoot, 'test-results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'real-histories-twice.json'), `${JSON.stringify(twiceRows, null, 2)}\n`);
    if (alone) expect(row.handoffs).toBeLessThanOrEqual(alone.handoffs);
  });
});
