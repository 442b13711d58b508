/**
 * Resolution ladder coverage and precision on the conflict corpus
 * (design.md §11): `node --import tsx bench/ladder.ts [CORPUS_DIR] [--syntax] [--all-rules] [--json]`.
 * Default corpus: ../shared/corpus next to the repository.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Git } from '../src/git/index.js';
import { allRules, formatEvalReport, readCorpus, runEval, selectRules } from '../src/resolve/index.js';

/** `--syntax` turns the syntax-aware rung on (code and data); `--all-rules` turns on every rule and the rung. */

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
  const dir = args.find((a) => !a.startsWith('--')) ?? resolve(root, '../shared/corpus');
  const git = new Git({ cwd: root });
  try {
    const started = performance.now();
    const cases = await readCorpus(dir);
    const all = args.includes('--all-rules');
    const syntax = all || args.includes('--syntax') ? { code: true, data: true } : { code: false, data: false };
    const report = await runEval(dir, cases, { git, rules: all ? [...allRules] : selectRules(), syntax });
    const seconds = (performance.now() - started) / 1000;
    if (args.includes('--json')) console.log(JSON.stringify({ ...report, seconds }, null, 2));
    else console.log(`${formatEvalReport(report)}\n\n${report.cases} cases in ${seconds.toFixed(1)} s`);
  } finally {
    git.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
