/**
 * The fork-sync fixture: the shape of a real sync of a long-lived fork (a thousand upstream
 * commits, a hundred fork ones, hundreds of conflicts, a tree of thousands of files), built with
 * `git fast-import` in seconds. Every commit edits a file of its own side (clean merges with real
 * work); conflict k is a fork commit and an upstream commit rewriting the one line of
 * `conflicts/ck.txt` differently (several per fork commit, each at its own upstream commit, so
 * every one is its own blocked cell). Besides, some fork commits also add a message to the
 * locale files and bump the lockfile, and some upstream commits do the same: the churn a real
 * sync has, which conflicts where both touch it and which the ladder settles (data files key by
 * key, the lockfile by the fork's policy).
 *
 * Used by bench/sync.ts (the drive) and the e2e tests of `status` and `report` at this size.
 */
import { execFileSync } from 'node:child_process';
import { benchGitEnv } from '../_env.js';

export interface SyncOptions {
  forkCommits: number;
  upstreamCommits: number;
  /** Conflicts of `conflicts/ck.txt`, each at its own cell. */
  conflicts: number;
  /** Files in the base tree (besides the conflict, locale and lock files). */
  files: number;
  /** Every `localeEvery`-th fork commit adds a message to the locale files and bumps the lockfile (0: none). */
  localeEvery: number;
  /** Every `upstreamLocaleEvery`-th upstream commit does the same (0: none). */
  upstreamLocaleEvery: number;
}

const LOCALES = ['de', 'en', 'fr'];
export const LOCKFILE = 'package-lock.json';

/** A small deterministic generator (LCG): the same fixture every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Conflict k's cell (fork commit, upstream commit): fork commits spread evenly, upstream ones at
 * random but distinct, so conflicts are not all in one chain nor all side by side.
 */
function syncConflictCells(o: SyncOptions): Array<[number, number]> {
  if (o.conflicts > o.upstreamCommits) throw new Error('sync fixture: more conflicts than upstream commits');
  const next = random(1015);
  const ups = new Set<number>();
  while (ups.size < o.conflicts) ups.add(1 + Math.floor(next() * o.upstreamCommits));
  const upList = [...ups];
  return upList.map((b, k) => [1 + Math.floor((k * o.forkCommits) / o.conflicts), b]);
}

/** A locale file: `message0` and `message1` say which fork and upstream commit last reworded them. */
function localeFile(lang: string, keys: number, reworded: { fork: number; upstream: number }): string {
  const text = (k: number): string =>
    k === 0 && reworded.fork > 0
      ? `${lang} text of message0, reworded by fork ${reworded.fork}`
      : k === 1 && reworded.upstream > 0
        ? `${lang} text of message1, reworded by upstream ${reworded.upstream}`
        : `${lang} text of message${k}`;
  const entries = Array.from({ length: keys }, (_, k) => `  "message${k}": "${text(k)}"`);
  return `{\n${entries.join(',\n')}\n}\n`;
}

function lockFile(version: string, deps: Record<string, string>): string {
  return `${JSON.stringify({ name: 'app', version, lockfileVersion: 3, packages: deps }, null, 2)}\n`;
}

/**
 * Build the fixture in `dir` (an empty directory): branches `main` (the fork, checked out) and
 * `upstream`. Returns the conflicts' cells.
 */
export function generateSyncFixture(dir: string, o: SyncOptions): Array<[number, number]> {
  const git = (args: string[], input?: string): string =>
    execFileSync('git', args, { cwd: dir, env: benchGitEnv, input, encoding: 'utf8', maxBuffer: 1 << 30 });
  git(['init', '-q', '-b', 'main']);
  for (const [k, v] of [
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['commit.gpgsign', 'false'],
  ])
    git(['config', k as string, v as string]);
  const cells = syncConflictCells(o);
  const out: string[] = [];
  const data = (s: string): string => `data ${Buffer.byteLength(s)}\n${s}\n`;
  let t = 1_700_000_000;
  const commit = (ref: string, mark: number, from: number | null, msg: string, mods: Array<[string, string]>): void => {
    out.push(`commit ${ref}\nmark :${mark}\ncommitter Bench <bench@example.com> ${t++} +0000\n${data(msg)}`);
    if (from !== null) out.push(`from :${from}\n`);
    for (const [p, c] of mods) out.push(`M 100644 inline ${p}\n${data(c)}`);
  };
  const KEYS = 20;
  const base: Array<[string, string]> = [];
  for (let k = 0; k < o.files; k++) base.push([`src/d${k % 100}/file-${k}.txt`, `file ${k}\nline 2\nline 3\n`]);
  cells.forEach((_, k) => base.push([`conflicts/c${k}.txt`, `conflict ${k}\n`]));
  for (const lang of LOCALES) base.push([`locales/${lang}.json`, localeFile(lang, KEYS, { fork: 0, upstream: 0 })]);
  base.push([LOCKFILE, lockFile('1.0.0', { left: '1.0.0', right: '1.0.0' })]);
  commit('refs/heads/main', 1, null, 'base', base);
  const side = (name: 'main' | 'upstream', n: number, which: 0 | 1, marks: number, every: number): void => {
    const byCommit = new Map<number, number[]>();
    cells.forEach((c, k) => byCommit.set(c[which], [...(byCommit.get(c[which]) ?? []), k]));
    // The fork rewords message0, upstream message1: adjacent lines, so every cell where both did
    // since its base conflicts as text, and the data-file merge settles it key by key.
    let bumps = 0;
    for (let i = 1; i <= n; i++) {
      const edited = (2 * i + which) % o.files;
      const mods: Array<[string, string]> = [
        [`${name}/c${i}.txt`, `${name} ${i}\n`],
        [`src/d${edited % 100}/file-${edited}.txt`, `file ${edited}\nline 2 edited by ${name} ${i}\nline 3\n`],
      ];
      for (const k of byCommit.get(i) ?? [])
        mods.push([`conflicts/c${k}.txt`, `conflict ${k} as ${name} ${i} has it\n`]);
      if (every > 0 && i % every === 0) {
        const reworded = which === 0 ? { fork: i, upstream: 0 } : { fork: 0, upstream: i };
        for (const lang of LOCALES) mods.push([`locales/${lang}.json`, localeFile(lang, KEYS, reworded)]);
        bumps++;
        const version = `1.${bumps}.${i}`;
        mods.push([
          LOCKFILE,
          lockFile(version, which === 0 ? { left: version, right: '1.0.0' } : { left: '1.0.0', right: version }),
        ]);
      }
      commit(`refs/heads/${name}`, marks + i, i === 1 ? 1 : marks + i - 1, `${name} ${i}`, mods);
    }
  };
  side('main', o.forkCommits, 0, 100_000, o.localeEvery);
  side('upstream', o.upstreamCommits, 1, 200_000, o.upstreamLocaleEvery);
  git(['fast-import', '--quiet'], out.join(''));
  git(['checkout', '-q', '-f', 'main']);
  return cells;
}
