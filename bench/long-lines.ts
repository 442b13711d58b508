/**
 * Memory and time of `splintercat resolve --no-model` on a conflicted one-line file of 10 MB per side
 * (a minified bundle both sides changed), against the same shape at 10 KB in the same run:
 * `node --import tsx bench/long-lines.ts [--quick]` (`--quick`: 2 MB). Printed as ratios.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliMain, ensureBuilt } from './_cli.js';

const env = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** One line of `words` words; every thousandth changed on a side. */
function line(words: number, side: string): string {
  const out: string[] = [];
  for (let k = 0; k < words; k++) out.push(k % 1000 === 0 && side !== 'base' ? `${side}${k}` : `w${k}`);
  return out.join(' ');
}

/** A repository with `bundle.js` conflicted by `git merge` (each side about `bytes` long). */
function conflicted(root: string, bytes: number): string {
  const dir = join(root, `repo-${bytes}`);
  mkdirSync(dir);
  const git = (...args: string[]): void => void execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  const words = Math.max(10, Math.floor(bytes / 8));
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'bundle.js'), line(words, 'base'));
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('branch', 'up');
  writeFileSync(join(dir, 'bundle.js'), line(words, 'fork'));
  git('commit', '-q', '-am', 'fork');
  git('checkout', '-q', 'up');
  writeFileSync(join(dir, 'bundle.js'), line(words, 'up'));
  git('commit', '-q', '-am', 'up');
  git('checkout', '-q', 'main');
  spawnSync('git', ['merge', 'up'], { cwd: dir, env, stdio: 'ignore' });
  return dir;
}

/** Peak memory (MB) and seconds of `resolve --no-model` in `dir`. */
function measure(dir: string, root: string): { mb: number; seconds: number } {
  const report = join(root, `rss-${Date.now()}`);
  const preload = join(root, 'maxrss.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(report)}, String(process.resourceUsage().maxRSS)));\n`,
  );
  const started = performance.now();
  spawnSync(process.execPath, ['--require', preload, cliMain, 'resolve', '--no-model'], {
    cwd: dir,
    env,
    stdio: 'ignore',
  });
  const seconds = (performance.now() - started) / 1000;
  return { mb: Number(readFileSync(report, 'utf8')) / 1024, seconds };
}

function main(): void {
  ensureBuilt();
  const big = process.argv.includes('--quick') ? 2_000_000 : 10_000_000;
  const root = mkdtempSync(join(tmpdir(), 'splintercat-bench-long-'));
  try {
    const baseline = measure(conflicted(root, 10_000), root);
    const large = measure(conflicted(root, big), root);
    const mb = (n: number): string => `${n.toFixed(0)} MB`;
    console.log(`baseline (10 KB line): ${mb(baseline.mb)} peak, ${baseline.seconds.toFixed(2)} s`);
    console.log(`${big / 1_000_000} MB line: ${mb(large.mb)} peak, ${large.seconds.toFixed(2)} s`);
    console.log(
      `ratio: ${(large.mb / baseline.mb).toFixed(1)}x memory, ${(large.seconds / baseline.seconds).toFixed(1)}x time, for ${(big / 10_000).toFixed(0)}x the text`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main();
