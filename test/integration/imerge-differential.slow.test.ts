import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { incorporateUserMerge } from '../../src/imerge/present-conflict.js';
import { GOALS } from '../../src/config/goals.js';
import { GitMerger, IncrementalMerge, type ConflictDetails } from '../../src/imerge/index.js';
import { testGitEnv, type TestRepo } from '../helpers/git-repo.js';
import { createGridRepo, type GridRepoSpec } from '../fixtures/imerge/grid-repo.js';

const env = { ...process.env, ...testGitEnv, GIT_EDITOR: 'true', LC_ALL: 'C' };

function spawn(cmd: string, args: string[], cwd: string): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
}

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawn(cmd, args, cwd);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function blockersOf(repo: TestRepo, name: string): [number, number][] {
  return (JSON.parse(repo.sh('cat-file', 'blob', `refs/imerge/${name}/state`)) as { blockers: [number, number][] })
    .blockers;
}

/** The cell git-imerge left in the working tree, from the message it prepared. */
function pendingCell(repo: TestRepo): [number, number] {
  const text = readFileSync(join(repo.dir, '.git', 'MERGE_MSG'), 'utf8');
  const m = /manual merge (\d+)-(\d+)/.exec(text);
  if (!m) throw new Error(`no pending git-imerge merge: ${text}`);
  return [Number(m[1]), Number(m[2])];
}

/** One conflict presented: its cell, the recorded blockers, and the paths left unmerged. */
type Stop = { cell: [number, number]; blockers: [number, number][]; paths: string[] };

/** The unmerged paths of git-imerge's working tree. */
function unmergedPaths(repo: TestRepo): string[] {
  return [...new Set(repo.sh('diff', '--name-only', '--diff-filter=U').split('\n').filter(Boolean))].sort();
}

/**
 * The resolution rule both tools apply to a conflict: every unmerged path takes branch 1's side
 * ("ours", the cell above); a path branch 1 deleted (modify/delete, rename/delete) is deleted.
 * Here in git-imerge's working tree, then committed.
 */
function resolveInWorkingTree(repo: TestRepo): void {
  const stages = new Map<string, Set<string>>();
  for (const line of repo.sh('ls-files', '-u').split('\n').filter(Boolean)) {
    const path = line.slice(line.indexOf('\t') + 1);
    const stage = line.split(' ')[2]?.split('\t')[0] as string;
    stages.set(path, (stages.get(path) ?? new Set()).add(stage));
  }
  for (const [path, s] of stages) {
    if (s.has('2')) repo.sh('checkout', '--ours', '--', path);
    else repo.sh('rm', '-q', '--', path);
  }
  repo.sh('add', '-A');
  // --cleanup=strip drops the "# Conflicts:" lines git adds, as an editor would.
  repo.sh('commit', '-q', '--no-verify', '--no-edit', '--cleanup=strip');
}

/** The same rule in memory: the conflicted tree with branch 1's stage (or nothing) at each unmerged path. */
function resolveTree(repo: TestRepo, d: ConflictDetails): string {
  const genv = { ...env, GIT_INDEX_FILE: join(repo.dir, '.git', `sc-index-${d.name}`) };
  execFileSync('git', ['read-tree', d.conflictTree], { cwd: repo.dir, env: genv });
  // Paths with no stage at all are not unmerged in git's working tree either: left as merged.
  const info = d.paths
    .filter((p) => p.stages.base || p.stages.ours || p.stages.theirs)
    .map((p) =>
      p.stages.ours ? `${p.stages.ours.mode} ${p.stages.ours.oid}\t${p.path}` : `0 ${'0'.repeat(40)}\t${p.path}`,
    );
  execFileSync('git', ['update-index', '--index-info'], { cwd: repo.dir, env: genv, input: `${info.join('\n')}\n` });
  return execFileSync('git', ['write-tree'], { cwd: repo.dir, env: genv, encoding: 'utf8' }).trim();
}

/**
 * The commits `ref` adds to main and feature, as comparable text: numbered in depth-first order
 * from the tip (parents in order), each with its parents, tree, author, message (the merge's name
 * replaced by NAME) and author date when it is an original commit's (copied authorship).
 * Commits of the original history are named by subject.
 */
function describeGraph(repo: TestRepo, ref: string): string[] {
  const originals = new Map<string, string>();
  const originalDates = new Set<string>();
  for (const line of repo.sh('log', '--format=%H %at %s', 'main', 'feature').split('\n')) {
    const [h, at, ...subject] = line.split(' ');
    originals.set(h as string, `orig:${subject.join(' ')}`);
    originalDates.add(at as string);
  }
  const commits = new Map<string, { parents: string[]; text: string }>();
  const raw = repo.sh('log', '--format=%H%x00%P%x00%T%x00%an <%ae>%x00%at%x00%B%x1e', ref, '--not', 'main', 'feature');
  for (const record of raw
    .split('\x1e')
    .map((r) => r.replace(/^\n/, ''))
    .filter(Boolean)) {
    const [h, p, tree, author, at, body] = record.split('\0') as string[];
    const message = (body as string).replace(/imerge '(sc|gi)[^']*'/g, "imerge 'NAME'");
    const date = originalDates.has(at as string) ? at : 'new';
    commits.set(h as string, {
      parents: (p as string).split(' ').filter(Boolean),
      text: `tree=${tree} author=${author} date=${date} msg=${JSON.stringify(message)}`,
    });
  }
  const ids = new Map<string, string>();
  const lines: string[] = [];
  const visit = (h: string): string => {
    const known = originals.get(h) ?? ids.get(h);
    if (known) return known;
    const c = commits.get(h);
    if (!c) throw new Error(`commit ${h} of ${ref} is neither new nor original`);
    const id = `#${ids.size}`;
    ids.set(h, id);
    const slot = lines.push('') - 1;
    lines[slot] = `${id} <- [${c.parents.map(visit).join(', ')}] ${c.text}`;
    return id;
  };
  const tip = repo.sh('rev-parse', ref);
  return [`tip ${visit(tip)}`, ...lines];
}

/** A refusal, as the part of the message both tools share. */
function refusal(message: string): string {
  const m =
    /Cannot simplify to \S+ because merge \d+-\d+ is not yet done|are merge commits|cannot be (?:fast-forwarded|updated)/.exec(
      message,
    );
  return `refused: ${m ? m[0] : message}`;
}

interface Run {
  stops: Stop[];
  /** `simplify --goal G` into a branch of its own, for every goal, on the complete merge. */
  goals: Record<string, string[] | string>;
  /** `finish` with the merge's own goal. */
  finished: string[];
  /** Merges bisection expected to succeed that failed (backtracking); splintercat only. */
  unexpected?: number;
}

interface Options {
  goal: string;
  firstParent?: boolean;
  /** Simplify to every goal before finishing (default true). */
  sweep?: boolean;
}

function startGitImerge(repo: TestRepo, name: string, o: Options): void {
  run(
    'git-imerge',
    [
      'start',
      '--name',
      name,
      '--goal',
      o.goal,
      '--branch',
      `${name}-out`,
      ...(o.firstParent ? ['--first-parent'] : []),
      'feature',
    ],
    repo.dir,
  );
}

/** git-imerge continues from the conflict it presented, resolving each with the rule above. */
function gitImergeStops(repo: TestRepo, name: string, stops: Stop[]): void {
  while (existsSync(join(repo.dir, '.git', 'MERGE_HEAD'))) {
    stops.push({ cell: pendingCell(repo), blockers: blockersOf(repo, name), paths: unmergedPaths(repo) });
    resolveInWorkingTree(repo);
    run('git-imerge', ['continue', '--name', name, '--no-edit'], repo.dir);
  }
}

function finishGitImerge(repo: TestRepo, name: string, o: Options, stops: Stop[], sweep = o.sweep ?? true): Run {
  const goals: Run['goals'] = {};
  for (const g of sweep ? GOALS : []) {
    const r = spawn('git-imerge', ['simplify', '--name', name, '--goal', g, '--branch', `${name}-${g}`], repo.dir);
    goals[g] = r.status === 0 ? describeGraph(repo, `${name}-${g}`) : refusal(r.stderr);
  }
  run('git-imerge', ['finish', '--name', name, '--goal', o.goal], repo.dir);
  repo.sh('checkout', '-q', 'main');
  return { stops, goals, finished: describeGraph(repo, `${name}-out`) };
}

async function splintercatStops(
  repo: TestRepo,
  im: IncrementalMerge,
  stops: Stop[],
  until = Infinity,
): Promise<number> {
  let unexpected = 0;
  while (stops.length < until) {
    // Every merge whose base the grid's ancestry knows goes through stand-ins (shortWalk 0), so
    // this suite also holds them to git-imerge's results (all 472 of its merges, when measured).
    const merger = new GitMerger(repo.git, undefined, { shortWalk: 0 });
    const r = await im.autofill({
      jobs: 2,
      merger,
      onProgress: (e) => void (e.kind === 'unexpected-conflict' && unexpected++),
    });
    if (r.complete) break;
    const [i1, i2] = r.next as [number, number];
    const d = await im.conflictDetails(i1, i2);
    stops.push({ cell: [i1, i2], blockers: r.blockers, paths: d.paths.map((p) => p.path).sort() });
    await im.recordMerge(i1, i2, resolveTree(repo, d));
  }
  return unexpected;
}

async function finishSplintercat(
  repo: TestRepo,
  im: IncrementalMerge,
  o: Options,
  stops: Stop[],
  sweep = o.sweep ?? true,
): Promise<Run> {
  const goals: Run['goals'] = {};
  for (const g of sweep ? GOALS : []) {
    const branch = `${im.name}-${g}`;
    goals[g] = await im.simplify({ goal: g, branch }).then(
      () => describeGraph(repo, branch),
      (error: Error) => refusal(error.message),
    );
  }
  await im.finish({ goal: o.goal });
  return { stops, goals, finished: describeGraph(repo, `${im.name}-out`) };
}

function runGitImerge(repo: TestRepo, name: string, o: Options): Run {
  const stops: Stop[] = [];
  startGitImerge(repo, name, o);
  gitImergeStops(repo, name, stops);
  return finishGitImerge(repo, name, o, stops);
}

async function runSplintercat(repo: TestRepo, name: string, o: Options): Promise<Run> {
  const stops: Stop[] = [];
  const im = await IncrementalMerge.start(repo.git, {
    name,
    tip1: 'main',
    tip2: 'feature',
    branch: `${name}-out`,
    goal: o.goal,
    firstParent: o.firstParent,
  });
  const unexpected = await splintercatStops(repo, im, stops);
  return { ...(await finishSplintercat(repo, im, o, stops)), unexpected };
}

/** git-imerge starts and resolves the first conflict in its working tree; splintercat records that commit and finishes. */
async function runGitImergeThenSplintercat(repo: TestRepo, name: string, o: Options): Promise<Run> {
  const stops: Stop[] = [];
  startGitImerge(repo, name, o);
  stops.push({ cell: pendingCell(repo), blockers: blockersOf(repo, name), paths: unmergedPaths(repo) });
  resolveInWorkingTree(repo);
  const im = await IncrementalMerge.load(repo.git, name);
  expect(await incorporateUserMerge(repo.git, im, false)).toEqual(stops[0]?.cell);
  repo.sh('checkout', '-q', 'main');
  await splintercatStops(repo, im, stops);
  return finishSplintercat(repo, im, o, stops, false);
}

/** splintercat starts and records the first resolution; git-imerge continues, resolves the rest and finishes. */
async function runSplintercatThenGitImerge(repo: TestRepo, name: string, o: Options): Promise<Run> {
  const stops: Stop[] = [];
  const im = await IncrementalMerge.start(repo.git, {
    name,
    tip1: 'main',
    tip2: 'feature',
    branch: `${name}-out`,
    goal: o.goal,
    firstParent: o.firstParent,
  });
  await splintercatStops(repo, im, stops, 1);
  run('git-imerge', ['continue', '--name', name, '--no-edit'], repo.dir);
  gitImergeStops(repo, name, stops);
  return finishGitImerge(repo, name, o, stops, false);
}

/** A file of n distinct lines (tagged, so files never look alike to rename detection), some changed. */
const text = (n: number, changed: Record<number, string> = {}, tag = 'text'): string =>
  Array.from({ length: n }, (_, k) => changed[k] ?? `${tag} line ${k} of a file long enough for rename detection`).join(
    '\n',
  ) + '\n';

interface Shape {
  label: string;
  goal: string;
  spec: GridRepoSpec;
  firstParent?: boolean;
  /** Also hand the merge from one tool to the other after the first stop, both ways. */
  handOff?: boolean;
  /** Simplify to the merge's own goal only (shapes about autofill; keeps the suite's time down). */
  ownGoalOnly?: boolean;
}

const shapes: Shape[] = [
  { label: 'no conflict', goal: 'merge', ownGoalOnly: true, spec: { n1: 5, n2: 4, conflicts: [] } },
  { label: 'one conflict', goal: 'merge', spec: { n1: 6, n2: 5, conflicts: [[3, 2]] } },
  {
    label: 'several conflicts',
    goal: 'merge',
    spec: {
      n1: 7,
      n2: 6,
      conflicts: [
        [2, 5],
        [4, 3],
        [6, 1],
      ],
    },
  },
  {
    label: 'non-monotone (a conflict reverted later on branch 1)',
    goal: 'merge',
    ownGoalOnly: true,
    spec: { n1: 6, n2: 5, conflicts: [[2, 2]], reverts1: [{ at: 4, conflict: 0 }] },
  },
  {
    label: 'goal rebase, two conflicts',
    goal: 'rebase',
    spec: {
      n1: 5,
      n2: 5,
      conflicts: [
        [2, 4],
        [4, 2],
      ],
    },
  },
  { label: 'goal full, one conflict', goal: 'full', spec: { n1: 4, n2: 4, conflicts: [[2, 3]] } },
  {
    label: 'goal border, a file renamed on branch 1 and edited on branch 2 (clean)',
    goal: 'border',
    spec: {
      n1: 4,
      n2: 4,
      conflicts: [[3, 2]],
      baseFiles: { 'moved.txt': text(12) },
      edits1: { 2: [{ rename: 'moved.txt', to: 'renamed.txt' }] },
      edits2: { 3: [{ write: 'moved.txt', content: text(12, { 9: 'line 9 edited on feature' }) }] },
    },
  },
  {
    label:
      'goal border-with-history, rename conflicts (renamed and edited on one side, edited on the other; renamed differently on both)',
    goal: 'border-with-history',
    spec: {
      n1: 4,
      n2: 5,
      conflicts: [],
      baseFiles: { 'moved.txt': text(12), 'twice.txt': text(12, {}, 'twice') },
      edits1: {
        2: [{ rename: 'moved.txt', to: 'renamed.txt', content: text(12, { 3: 'line 3 changed on main' }) }],
        3: [{ rename: 'twice.txt', to: 'twice-main.txt' }],
      },
      edits2: {
        2: [{ rename: 'twice.txt', to: 'twice-feature.txt' }],
        3: [{ write: 'moved.txt', content: text(12, { 3: 'line 3 changed on feature' }) }],
      },
    },
  },
  {
    label:
      'goal rebase-with-history, deleted files modified on the other side (modify/delete both ways, rename/delete)',
    goal: 'rebase-with-history',
    handOff: true,
    spec: {
      n1: 4,
      n2: 5,
      conflicts: [],
      baseFiles: { 'doomed.txt': text(4), 'kept.txt': text(4), 'gone.txt': text(12) },
      edits1: {
        1: [{ write: 'kept.txt', content: text(4, { 1: 'kept edited on main' }) }],
        2: [{ rename: 'gone.txt', to: 'gone2.txt' }],
        3: [{ delete: 'doomed.txt' }],
      },
      edits2: {
        1: [{ delete: 'gone.txt' }],
        2: [{ write: 'doomed.txt', content: text(4, { 2: 'doomed edited on feature' }) }],
        4: [{ delete: 'kept.txt' }],
      },
    },
  },
  {
    label: 'goal border-with-history2, merges in the history of both branches (--first-parent)',
    goal: 'border-with-history2',
    firstParent: true,
    handOff: true,
    spec: {
      n1: 5,
      n2: 5,
      conflicts: [
        [3, 2],
        [5, 4],
      ],
      merged1: [2, 3],
      merged2: [2],
    },
  },
  {
    label: 'goal rebase, merges in the history of branch 1 only (--first-parent)',
    goal: 'rebase',
    firstParent: true,
    spec: { n1: 4, n2: 3, conflicts: [[2, 2]], merged1: [2] },
  },
];

describe('differential: splintercat vs git-imerge 1.2.0', () => {
  for (const { label, goal, spec, firstParent, handOff, ownGoalOnly } of shapes) {
    it(`${label}: same blockers at each stop, same results for ${ownGoalOnly ? 'its goal' : 'every goal'}`, async () => {
      const o: Options = { goal, firstParent, sweep: !ownGoalOnly };
      const repo = createGridRepo(spec);
      const ours = await runSplintercat(repo, 'sc', o);
      const theirs = runGitImerge(repo, 'gi', o);
      if (spec.conflicts.length > 0 || handOff) expect(theirs.stops.length).toBeGreaterThan(0);
      // The non-monotone shape really exercises backtracking.
      if (spec.reverts1) expect(ours.unexpected).toBeGreaterThan(0);
      expect(ours.stops).toEqual(theirs.stops);
      expect(ours.finished).toEqual(theirs.finished);
      for (const g of GOALS) expect(ours.goals[g], `goal ${g}`).toEqual(theirs.goals[g]);
      // finish wrote what simplify writes for that goal.
      if (!ownGoalOnly) expect(ours.finished).toEqual(ours.goals[goal]);
      if (!handOff) return;
      const a = await runGitImergeThenSplintercat(repo, 'gi-sc', o);
      const b = await runSplintercatThenGitImerge(repo, 'sc-gi', o);
      for (const relay of [a, b]) {
        expect(relay.stops).toEqual(theirs.stops);
        expect(relay.finished).toEqual(theirs.finished);
      }
    }, 120_000);
  }

  it('both refuse goal rebase when branch 2 has merges, and accept the other goals', async () => {
    const repo = createGridRepo({ n1: 2, n2: 3, conflicts: [], merged2: [2] });
    const r = spawn('git-imerge', ['start', '--name', 'gi', '--goal', 'rebase', '--first-parent', 'feature'], repo.dir);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('are merge commits');
    await expect(
      IncrementalMerge.start(repo.git, { name: 'sc', tip2: 'feature', goal: 'rebase', firstParent: true }),
    ).rejects.toMatchObject({ code: 'imerge_rebase_merges' });
    expect(repo.sh('for-each-ref', 'refs/imerge/')).toBe('');
  }, 60_000);

  it('git-imerge diagrams and finishes a merge splintercat started', async () => {
    const repo = createGridRepo({ n1: 4, n2: 4, conflicts: [] });
    const im = await IncrementalMerge.start(repo.git, { name: 'x', tip2: 'feature' });
    await im.autofill();
    expect(run('git-imerge', ['diagram', '--name', 'x'], repo.dir)).toBe(im.diagram());
    run('git-imerge', ['finish', '--name', 'x'], repo.dir);
    expect(repo.sh('log', '-1', '--format=%s', 'x')).toBe('Merge feature into main (using imerge)');
    expect(repo.sh('rev-parse', 'x^{tree}')).toBe(repo.sh('merge-tree', '--write-tree', 'main', 'feature'));
  }, 60_000);

  it('splintercat loads, continues and finishes a merge git-imerge started', async () => {
    const repo = createGridRepo({ n1: 4, n2: 4, conflicts: [[2, 2]] });
    run('git-imerge', ['start', '--name', 'g', 'feature'], repo.dir);
    repo.sh('reset', '-q', '--merge');
    repo.sh('checkout', '-q', 'main');
    const im = await IncrementalMerge.load(repo.git, 'g');
    expect(im.tip1).toBe('main');
    const r = await im.autofill();
    expect(r.next).toEqual([2, 2]);
    expect(r.blockers).toEqual(blockersOf(repo, 'g'));
    await im.recordMerge(2, 2, resolveTree(repo, await im.conflictDetails(2, 2)));
    expect((await im.autofill()).complete).toBe(true);
    const out = await im.finish();
    expect(repo.sh('rev-parse', 'g')).toBe(out);
    expect(repo.sh('show', 'g:shared.txt')).toBe('line 0 changed on main by 2');
    expect(repo.sh('for-each-ref', 'refs/imerge/')).toBe('');
  }, 60_000);

  it('CLI hand-off both ways: git-imerge continues what splintercat presented, and vice versa', () => {
    const sc = (dir: string, ...args: string[]): string =>
      run(
        'node',
        ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src/cli/main.ts'), '-C', dir, 'imerge', ...args],
        join(import.meta.dirname, '..', '..'),
      );
    const resolveOurs = (repo: TestRepo): void => {
      repo.sh('checkout', '--ours', '--', 'shared.txt');
      repo.sh('add', 'shared.txt');
      repo.sh('commit', '-q', '--no-edit');
    };
    const spec: GridRepoSpec = { n1: 4, n2: 4, conflicts: [[2, 2]] };
    const a = createGridRepo(spec);
    sc(a.dir, 'start', '--name', 'h', 'feature');
    resolveOurs(a);
    run('git-imerge', ['continue', '--no-edit'], a.dir);
    run('git-imerge', ['finish'], a.dir);
    const b = createGridRepo(spec);
    run('git-imerge', ['start', '--name', 'h', 'feature'], b.dir);
    resolveOurs(b);
    sc(b.dir, 'continue', '--no-edit');
    sc(b.dir, 'finish');
    expect(a.sh('rev-parse', 'h^{tree}')).toBe(b.sh('rev-parse', 'h^{tree}'));
    expect(a.sh('log', '-1', '--format=%s', 'h')).toBe(b.sh('log', '-1', '--format=%s', 'h'));
    expect(b.sh('for-each-ref', 'refs/imerge', 'refs/heads/imerge')).toBe('');
  }, 90_000);
});
