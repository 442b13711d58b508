import { generatedFile } from '../resolve/data/generated-files.js';
import { regenerateCommandFor } from '../resolve/data/lockfiles.js';
import { personChoicesOf } from '../store/flow-choices.js';
import type { RunState } from '../store/run-state.js';
import { printableName } from '../util/safe-print.js';

/** A command to run later on the merged tree, once, with the files decided once it rewrites. */
export interface RunLater {
  command: string;
  paths: string[];
}

/**
 * The files decided once for this merge (a person took one side's whole file and every later
 * conflict on it took the same side), one line each, for the merge's record.
 */
export function decidedOnceLines(state: Pick<RunState, 'data'>): string[] {
  const { wholeFiles } = personChoicesOf(state);
  return Object.entries(wholeFiles).map(
    ([path, d]) =>
      `${printableName(path)}: ${d.side === 'fork' ? "the fork side's" : "upstream's"} side at every conflict, decided once at ${d.conflict} by the person`,
  );
}

/**
 * What to run later on the merged tree for the generated files decided once: one entry per
 * command, however many files and cells it covers. The fork's `resolve.regenerate` command first,
 * else the tool's usual command; a generated file with neither is named with no command.
 */
export function runLater(state: Pick<RunState, 'data'>, regenerate: Readonly<Record<string, string>> = {}): RunLater[] {
  const byCommand = new Map<string, string[]>();
  for (const path of Object.keys(personChoicesOf(state).wholeFiles)) {
    const generated = generatedFile(path, []);
    if (generated === null) continue;
    const command = regenerateCommandFor(path, regenerate)?.command ?? generated.command ?? `regenerate ${path}`;
    byCommand.set(command, [...(byCommand.get(command) ?? []), path]);
  }
  return [...byCommand].map(([command, paths]) => ({ command, paths }));
}

/** One line per command to run later, for the log at the end of the run and the merge's message. */
export function runLaterLine(later: RunLater): string {
  return `run later on the merged tree, then commit: \`${later.command}\` (rewrites ${later.paths.map(printableName).join(', ')}, one side's whole file was taken at its conflicts)`;
}
