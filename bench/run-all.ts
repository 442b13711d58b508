/**
 * `npm run bench [-- --quick]`: every benchmark script in bench/, one after the other, each as its own
 * `node --import tsx bench/X.ts` process, output under a heading, then one summary line per benchmark.
 * A script is every `*.ts` here except this one and helpers (names starting with `_`, folders such as
 * `lib/`), so a new benchmark joins by being added. `--quick` is passed to the scripts that mention
 * it (their smaller variant). Exits 1 when any benchmark failed.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const self = basename(fileURLToPath(import.meta.url));

/** The benchmark scripts of bench/, in name order. */
function benchmarkScripts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => e.name)
    .filter((name) => name !== self && !name.startsWith('_'))
    .sort();
}

/** Run one script with inherited output; resolves with its exit code (or the signal that ended it). */
function run(script: string, args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join('bench', script), ...args], {
      cwd: root,
      stdio: 'inherit',
    });
    child.on('error', (error) => {
      console.error(`could not start ${script}: ${error.message}`);
      resolvePromise({ code: 1, signal: null });
    });
    child.on('exit', (code, signal) => resolvePromise({ code, signal }));
  });
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const scripts = benchmarkScripts(here);
  const results: Array<{ name: string; ok: boolean; detail: string; seconds: number }> = [];
  for (const script of scripts) {
    const name = script.replace(/\.ts$/, '');
    const args = quick && readFileSync(join(here, script), 'utf8').includes("'--quick'") ? ['--quick'] : [];
    process.stdout.write(`\n=== ${name}${args.length > 0 ? ' (--quick)' : ''} ===\n`);
    const started = performance.now();
    const { code, signal } = await run(script, args);
    const seconds = (performance.now() - started) / 1000;
    const ok = code === 0;
    results.push({ name, ok, detail: ok ? 'ok' : signal ? `failed (${signal})` : `failed (exit ${code})`, seconds });
  }
  const width = Math.max(0, ...results.map((r) => r.name.length));
  process.stdout.write(`\n=== summary${quick ? ' (--quick)' : ''} ===\n`);
  for (const r of results)
    process.stdout.write(`${r.name.padEnd(width)}  ${r.detail.padEnd(16)} ${r.seconds.toFixed(1).padStart(7)} s\n`);
  if (results.some((r) => !r.ok)) process.exitCode = 1;
}

await main();
