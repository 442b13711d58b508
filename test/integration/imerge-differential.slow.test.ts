import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IncrementalMerge } from '../../src/imerge/index.js';
import { testGitEnv, type TestRepo } from '../helpers/git-repo.js';
import { createGridRepo, type GridRepoSpec } from '../fixtures/imerge/grid-repo.js';

const env = { ...process.env, ...testGitEnv, GIT_EDITOR: 'true', LC_ALL: 'C' };

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

function blockersOf(repo: TestRepo, name: string): [number, number][] {
  return (JSON.parse(repo.sh('cat-file', 'blob', `refs/imerge/${name}/state`)) as { blockers: [number, number][] }).blockers;
}

/** The cell git-imerge left in the working tree: the scratch branch's i1 and the merged ref's i2. */
function pendingCell(repo: TestRepo, name: string): [number, number] {
  void name;
  const text = readFileSync(join(repo.dir, '.git', 'MERGE_MSG'), 'utf8');
  const m = /manual merge (\d+)-(\d+)/.exec(text);
  if (!m) throw new Error(`no pending git-imerge merge: ${text}`);
  return [Number(m[1]), Number(m[2])];
}

interface Run {
  stops: { cell: [number, number]; blockers: [number, number][] }[];
  tree: string;
  /** The result branch's commits since main: tree, author, author date, message. */
  chain: string;
  /** Merges bisection expected to succeed that failed (backtracking). */
  unexpected?: number;
}

function chainOf(repo: TestRepo, ref: string, goal: string): string {
  // Parents are left out: the chain's own commits differ by committer date between the tools;
  // so is a merge commit's author date ("now"); rebased commits keep branch 2's dates.
  return repo.sh('log', '--first-parent', `--format=%T|%an|%ae|${goal === 'rebase' ? '%ai' : ''}|%B`, `main..${ref}`);
}

/** git-imerge start/continue/finish, resolving each conflict by taking the "ours" side (cell above). */
function runGitImerge(repo: TestRepo, name: string, goal: string): Run {
  const stops: Run['stops'] = [];
  run('git-imerge', ['start', '--name', name, '--goal', goal, '--branch', `${name}-out`, 'feature'], repo.dir);
  while (existsSync(join(repo.dir, '.git', 'MERGE_HEAD'))) {
    stops.push({ cell: pendingCell(repo, name), blockers: blockersOf(repo, name) });
    const unmerged = [...new Set(repo.sh('diff', '--name-only', '--diff-filter=U').split('\n').filter(Boolean))];
    if (unmerged.length > 0) repo.sh('checkout', '--ours', '--', ...unmerged);
    repo.sh('add', '-A');
    repo.sh('commit', '-q', '--no-verify', '--no-edit');
    run('git-imerge', ['continue', '--no-edit'], repo.dir);
  }
  run('git-imerge', ['finish', '--name', name], repo.dir);
  repo.sh('checkout', '-q', 'main');
  return { stops, tree: repo.sh('rev-parse', `${name}-out^{tree}`), chain: goal === 'full' ? '' : chainOf(repo, `${name}-out`, goal) };
}

async function runSplintercat(repo: TestRepo, name: string, goal: string): Promise<Run> {
  const stops: Run['stops'] = [];
  let unexpected = 0;
  const im = await IncrementalMerge.start(repo.git, { name, tip1: 'main', tip2: 'feature', branch: `${name}-out`, goal });
  for (;;) {
    const r = await im.autofill({ jobs: 2, onProgress: (e) => void (e.kind === 'unexpected-conflict' && unexpected++) });
    if (r.complete) break;
    const [i1, i2] = r.next as [number, number];
    stops.push({ cell: [i1, i2], blockers: r.blockers });
    const d = await im.conflictDetails(i1, i2);
    // Take "ours" (the cell above) for every conflicted path, as git checkout --ours does.
    const entries = repo.sh('ls-tree', '-r', d.conflictTree).split('\n');
    const ours = new Map(d.paths.map((p) => [p.path, p.stages.ours?.oid]));
    const fixed = entries.map((l) => {
      const path = l.slice(l.indexOf('\t') + 1);
      const oid = ours.get(path);
      return oid ? l.replace(/blob [0-9a-f]+/, `blob ${oid}`) : l;
    });
    const index = join(repo.dir, '.git', `sc-index-${name}`);
    execFileSync('git', ['update-index', '--index-info'], { cwd: repo.dir, env: { ...env, GIT_INDEX_FILE: index }, input: fixed.map((l) => l.replace(/^(\d+) blob ([0-9a-f]+)\t/, '$1 $2\t')).join('\n') + '\n' });
    const tree = execFileSync('git', ['write-tree'], { cwd: repo.dir, env: { ...env, GIT_INDEX_FILE: index }, encoding: 'utf8' }).trim();
    await im.recordMerge(i1, i2, tree);
  }
  const out = await im.finish();
  return { stops, tree: repo.sh('rev-parse', `${out}^{tree}`), chain: goal === 'full' ? '' : chainOf(repo, `${name}-out`, goal), unexpected };
}

const shapes: [string, string, GridRepoSpec][] = [
  ['no conflict', 'merge', { n1: 5, n2: 4, conflicts: [] }],
  ['one conflict', 'merge', { n1: 6, n2: 5, conflicts: [[3, 2]] }],
  ['several conflicts', 'merge', { n1: 7, n2: 6, conflicts: [[2, 5], [4, 3], [6, 1]] }],
  ['non-monotone (a conflict reverted later on branch 1)', 'merge', { n1: 6, n2: 5, conflicts: [[2, 2]], reverts1: [{ at: 4, conflict: 0 }] }],
  ['goal rebase, two conflicts', 'rebase', { n1: 5, n2: 5, conflicts: [[2, 4], [4, 2]] }],
  ['goal full, one conflict', 'full', { n1: 4, n2: 4, conflicts: [[2, 3]] }],
];

describe('differential: splintercat vs git-imerge 1.2.0', () => {
  for (const [label, goal, spec] of shapes) {
    it(`${label}: same blockers at each stop and the same final tree`, async () => {
      const repo = createGridRepo(spec);
      const ours = await runSplintercat(repo, 'sc', goal);
      const theirs = runGitImerge(repo, 'gi', goal);
      if (spec.conflicts.length > 0) expect(theirs.stops.length).toBeGreaterThan(0);
      // The non-monotone shape really exercises backtracking.
      if (spec.reverts1) expect(ours.unexpected).toBeGreaterThan(0);
      expect(ours.stops).toEqual(theirs.stops);
      expect(ours.tree).toBe(theirs.tree);
      expect(ours.chain.split('\n')).toEqual(theirs.chain.split('\n'));
    }, 60_000);
  }

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
    const d = await im.conflictDetails(2, 2);
    const ours = d.paths[0]?.stages.ours?.oid as string;
    const tree = execFileSync('git', ['mktree'], {
      cwd: repo.dir,
      encoding: 'utf8',
      input: `${repo.sh('ls-tree', d.conflictTree).split('\n').map((l) => (l.endsWith('\tshared.txt') ? l.replace(/blob [0-9a-f]+/, `blob ${ours}`) : l)).join('\n')}\n`,
    }).trim();
    await im.recordMerge(2, 2, tree);
    expect((await im.autofill()).complete).toBe(true);
    const out = await im.finish();
    expect(repo.sh('rev-parse', 'g')).toBe(out);
    expect(repo.sh('show', 'g:shared.txt')).toBe('line 0 changed on main by 2');
    expect(repo.sh('for-each-ref', 'refs/imerge/')).toBe('');
  }, 60_000);

  it('CLI hand-off both ways: git-imerge continues what splintercat presented, and vice versa', () => {
    const sc = (dir: string, ...args: string[]): string =>
      run('node', ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'src/cli/main.ts'), '-C', dir, 'imerge', ...args], join(import.meta.dirname, '..', '..'));
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
