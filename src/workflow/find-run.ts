import { UsageError } from '../errors/index.js';
import type { RunStore } from '../store/index.js';

/** The run to act on without --name: the only run, else `imerge.name` if it exists. */
export function findRun(store: RunStore, defaultName: string, required: boolean): string | null {
  const runs = store.list().map((r) => r.name);
  if (runs.length === 1) return runs[0] as string;
  if (store.exists(defaultName)) return defaultName;
  if (!required) return null;
  throw new UsageError('run_name_needed', {
    what:
      runs.length === 0
        ? 'There is no splintercat merge in this repository'
        : 'Several merges exist; say which with --name',
    fix: runs.length === 0 ? 'Start one: splintercat merge SOURCE' : `Existing: ${runs.join(', ')}`,
  });
}
