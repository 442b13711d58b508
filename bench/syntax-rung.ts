/**
 * Time of the syntax-aware rung and of the whole ladder per conflicted file of the corpus
 * (issue 13): `node --import tsx bench/syntax-rung.ts [CORPUS_DIR] [--json]`.
 * - rung: parse base/ours/theirs with tree-sitter, match entities, merge, re-parse (files with a grammar);
 * - ladder: git's merge (`git merge-file`) then cache-less rules and the rung, per file, as the driver runs it.
 * Grammar loading is measured apart (once per language and process). Default corpus: ../shared/corpus.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Git } from '../src/git/index.js';
import {
  mergeFileTexts,
  parseConflictText,
  readCorpus,
  resolveConflictedFile,
  selectRules,
} from '../src/resolve/index.js';
import { parserFor } from '../src/resolve/syntax/grammar.js';
import { grammarForPath, type GrammarId } from '../src/resolve/syntax/languages.js';
import { lineMerge, syntaxMerge } from '../src/resolve/syntax/syntax-merge.js';

const quantile = (xs: number[], q: number): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};
const ms = (x: number): string => `${x.toFixed(2)} ms`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
  const dir = args.find((a) => !a.startsWith('--')) ?? resolve(root, '../shared/corpus');
  const git = new Git({ cwd: root });
  const switches = { code: true, data: true };
  const rules = selectRules();
  try {
    const cases = (await readCorpus(dir)).filter((c) => c.ours !== null && c.theirs !== null);
    const loads: Record<string, number> = {};
    for (const id of new Set(cases.map((c) => grammarForPath(c.path)).filter((g): g is GrammarId => g !== null))) {
      const t0 = performance.now();
      await parserFor(id);
      loads[id] = performance.now() - t0;
    }
    const rung: number[] = [];
    const ladder: number[] = [];
    const without: number[] = [];
    for (const c of cases) {
      const versions = { base: c.base ?? '', ours: c.ours as string, theirs: c.theirs as string };
      if (grammarForPath(c.path) !== null) {
        const t0 = performance.now();
        await syntaxMerge(c.path, versions, lineMerge, switches);
        rung.push(performance.now() - t0);
      }
      const t1 = performance.now();
      const merged = await mergeFileTexts(git, versions);
      await resolveConflictedFile(parseConflictText(merged.text, { path: c.path }), {
        path: c.path,
        rules,
        sides: c,
        syntax: switches,
      });
      ladder.push(performance.now() - t1);
      const t2 = performance.now();
      const again = await mergeFileTexts(git, versions);
      await resolveConflictedFile(parseConflictText(again.text, { path: c.path }), { path: c.path, rules, sides: c });
      without.push(performance.now() - t2);
    }
    const summary = {
      files: cases.length,
      rungFiles: rung.length,
      rung: { median: quantile(rung, 0.5), p90: quantile(rung, 0.9), max: quantile(rung, 1) },
      ladder: { median: quantile(ladder, 0.5), p90: quantile(ladder, 0.9), max: quantile(ladder, 1) },
      ladderWithoutRung: { median: quantile(without, 0.5), p90: quantile(without, 0.9), max: quantile(without, 1) },
      grammarLoadMs: loads,
    };
    if (args.includes('--json')) console.log(JSON.stringify(summary, null, 2));
    else {
      console.log(
        `syntax rung (parse x3, match, merge, re-parse) over ${rung.length} files with a grammar: median ${ms(summary.rung.median)}, p90 ${ms(summary.rung.p90)}, max ${ms(summary.rung.max)}`,
      );
      console.log(
        `whole ladder (git merge-file + rules + syntax rung) over ${ladder.length} files: median ${ms(summary.ladder.median)}, p90 ${ms(summary.ladder.p90)}, max ${ms(summary.ladder.max)} (target: median < 50 ms)`,
      );
      console.log(
        `the same ladder without the rung: median ${ms(summary.ladderWithoutRung.median)}, p90 ${ms(summary.ladderWithoutRung.p90)}, max ${ms(summary.ladderWithoutRung.max)}`,
      );
      console.log(
        `grammar load, once per language: ${Object.entries(loads)
          .map(([k, v]) => `${k} ${ms(v)}`)
          .join(', ')}`,
      );
    }
    if (summary.ladder.median >= 50) process.exitCode = 1;
  } finally {
    git.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
