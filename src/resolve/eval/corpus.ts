import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../../errors/index.js';
import type { EvalCase } from './score-case.js';

interface CorpusMeta {
  id: string;
  path: string;
  repo?: string;
  merge_commit?: string;
  merge_date?: string;
  files: { base: boolean; ours: boolean; theirs: boolean; resolved: boolean };
}

export interface CorpusOptions {
  limit?: number;
  /** Only merges committed on or after this date. */
  since?: Date;
}

/**
 * Read a conflict corpus (`index.jsonl` plus `cases/<id>/{base,ours,theirs,resolved}`,
 * see the corpus README): a missing file is a missing version.
 */
export async function readCorpus(dir: string, options: CorpusOptions = {}): Promise<EvalCase[]> {
  const indexPath = join(dir, 'index.jsonl');
  if (!existsSync(indexPath)) {
    throw new UsageError('corpus_missing', {
      what: `No conflict corpus at ${dir}`,
      why: `${indexPath} does not exist`,
      fix: 'Pass --corpus DIR pointing at a directory holding index.jsonl and cases/ (for example ../shared/corpus)',
    });
  }
  const lines = (await readFile(indexPath, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  const cases: EvalCase[] = [];
  for (const [n, line] of lines.entries()) {
    let meta: CorpusMeta;
    try {
      meta = JSON.parse(line) as CorpusMeta;
    } catch (error) {
      throw new UsageError('corpus_invalid', {
        what: `Line ${n + 1} of ${indexPath} is not JSON`,
        fix: 'Restore the corpus index (one JSON object per line)',
        cause: error,
      });
    }
    if (options.since && meta.merge_date && new Date(meta.merge_date) < options.since) continue;
    const caseDir = join(dir, 'cases', meta.id);
    const read = async (name: 'base' | 'ours' | 'theirs' | 'resolved'): Promise<string | null> =>
      meta.files[name] ? readFile(join(caseDir, name), 'utf8') : null;
    cases.push({
      id: meta.id,
      path: meta.path,
      base: await read('base'),
      ours: await read('ours'),
      theirs: await read('theirs'),
      resolved: await read('resolved'),
      ...(meta.merge_commit ? { merge: meta.merge_commit } : {}),
      ...(meta.merge_date ? { time: Math.floor(new Date(meta.merge_date).getTime() / 1000) } : {}),
      ...(meta.repo ? { repo: meta.repo } : {}),
    });
    if (options.limit !== undefined && cases.length >= options.limit) break;
  }
  return cases;
}
