/** The generated grid of bench/drive.ts: many conflicts at known cells, built by fast-import. */
import { execFileSync } from 'node:child_process';
import { benchGitEnv } from './_env.js';

function git(dir: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd: dir,
    env: benchGitEnv,
    input,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  }).trimEnd();
}

/** A small deterministic generator (LCG), so every run builds the same grid. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Conflicting pairs (main commit, feature commit): distinct main commits, feature commits at random. */
export function conflictPairs(n1: number, n2: number, count: number): [number, number][] {
  const next = random(14);
  const mains = new Set<number>();
  while (mains.size < Math.min(count, n1)) mains.add(1 + Math.floor(next() * n1));
  return [...mains].sort((a, b) => a - b).map((a) => [a, 1 + Math.floor(next() * n2)]);
}

/**
 * A repository with `files` files at the base, n1 commits on main and n2 on feature (fast-import,
 * fixed dates: the same commit ids every run). Every commit adds a file and edits a base file of its
 * own side (clean merges with real work); conflict k: main commit a and feature commit b rewrite the
 * one line of conflicts/ck.txt differently.
 */
export function generateGrid(dir: string, n1: number, n2: number, pairs: [number, number][], files: number): void {
  git(dir, ['init', '-q', '-b', 'main']);
  for (const [k, v] of [
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['commit.gpgsign', 'false'],
  ])
    git(dir, ['config', k as string, v as string]);
  const out: string[] = [];
  const data = (s: string): string => `data ${Buffer.byteLength(s)}\n${s}\n`;
  let t = 1_700_000_000;
  const commit = (ref: string, mark: number, from: number | null, msg: string, mods: [string, string][]): void => {
    out.push(`commit ${ref}\nmark :${mark}\ncommitter Bench <bench@example.com> ${t++} +0000\n${data(msg)}`);
    if (from !== null) out.push(`from :${from}\n`);
    for (const [p, c] of mods) out.push(`M 100644 inline ${p}\n${data(c)}`);
  };
  const base: [string, string][] = [];
  for (let k = 0; k < files; k++) base.push([`src/d${k % 100}/file-${k}.txt`, `file ${k}\nline 2\nline 3\n`]);
  pairs.forEach((_, k) => base.push([`conflicts/c${k}.txt`, `conflict ${k}\n`]));
  commit('refs/heads/main', 1, null, 'base', base);
  const side = (name: 'main' | 'feature', n: number, which: 0 | 1, marks: number): void => {
    for (let i = 1; i <= n; i++) {
      const edited = (2 * i + which) % files;
      const mods: [string, string][] = [
        [`${name}/c${i}.txt`, `${name} ${i}\n`],
        [`src/d${edited % 100}/file-${edited}.txt`, `file ${edited}\nline 2 edited by ${name} ${i}\nline 3\n`],
      ];
      pairs.forEach((p, k) => {
        if (p[which] === i) mods.push([`conflicts/c${k}.txt`, `conflict ${k} as ${name} ${i} has it\n`]);
      });
      commit(`refs/heads/${name}`, marks + i, i === 1 ? 1 : marks + i - 1, `${name} ${i}`, mods);
    }
  };
  side('main', n1, 0, 100_000);
  side('feature', n2, 1, 200_000);
  git(dir, ['fast-import', '--quiet'], out.join(''));
  git(dir, ['checkout', '-q', '-f', 'main']);
}
