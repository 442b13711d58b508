import type { Git } from '../git/index.js';
import { decidedOnceLines, runLater, runLaterLine } from './decided-once-record.js';
import { personChoicesOf } from '../store/flow-choices.js';
import type { ConflictFileState, RunState } from '../store/run-state.js';
import { unknownRung, type Rung } from '../store/rung.js';
import { printableLine, printableName } from '../util/safe-print.js';
import { dropsMessageLines, dropsNote } from './drops/drops-record.js';
import { checksOnMergeLine, mergeVerdict } from './merge-verdict.js';

/** Where the full record of a merge is kept: a git note on the merge commit, which `git push`/`fetch` can carry. */
const NOTES_REF = 'refs/notes/splintercat';

/** Who settled a hunk, in words: a rule by name, the syntax merge, the policy by glob, the model by id, a person, the cache. */
function byWhom(rung: Rung | null, by: string | null): string {
  switch (rung) {
    case 'rule':
      return `rule ${by ?? '?'}`;
    case 'syntax':
      return 'the syntax merge';
    case 'policy':
    case 'generated':
      return `the policy (${by ?? '?'})`;
    case 'learnt':
      return `the fork's past merges (${by ?? '?'})`;
    case 'model':
      return `model ${by ?? '?'}`;
    case 'person':
      return 'a person';
    case 'cache':
      return `the cache (${by ?? '?'})`;
    case null:
      return 'nobody yet';
    default:
      return unknownRung(rung);
  }
}

/** One line per conflicted path: its hunks by who settled them (over every cell it conflicted at), or its file-level decision. */
function conflictLines(state: RunState): string[] {
  interface PathRecord {
    kinds: Set<string>;
    cells: string[];
    who: Map<string, number>;
    notes: Set<string>;
  }
  const byPath = new Map<string, PathRecord>();
  for (const c of state.conflicts) {
    for (const f of c.files) {
      const entry: PathRecord = byPath.get(f.path) ?? {
        kinds: new Set<string>(),
        cells: [],
        who: new Map<string, number>(),
        notes: new Set<string>(),
      };
      entry.kinds.add(f.kind);
      entry.cells.push(c.id);
      // A file the person took whole (or deleted) is one choice, whatever its hunks were.
      if (f.whole) {
        entry.notes.add(wholeFileText(f.whole));
        byPath.set(f.path, entry);
        continue;
      }
      for (const h of f.hunks) {
        const who = h.rung === 'person' && h.choice ? `a person (${h.choice})` : byWhom(h.rung, h.by);
        entry.who.set(who, (entry.who.get(who) ?? 0) + 1);
      }
      if (f.hunks.length === 0) entry.notes.add(fileDecision(f));
      byPath.set(f.path, entry);
    }
  }
  return [...byPath].map(([path, e]) => {
    const hunks = [...e.who].map(([who, n]) => `${n} hunk${n === 1 ? '' : 's'} by ${who}`);
    const what = [...hunks, ...e.notes].join(', ');
    const kinds = [...e.kinds].filter((k) => k !== 'content');
    return `    ${printableName(path)}${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}: ${what} [${e.cells.length === 1 ? 'cell' : 'cells'} ${e.cells.join(', ')}]`;
  });
}

function wholeFileText(whole: NonNullable<ConflictFileState['whole']>): string {
  return whole === 'deleted' ? 'deleted by a person (git rm)' : `whole file: ${whole}, by a person`;
}

/** `Settled by hand: Ann Lee <ann@example.com>`: who the person was, for every file or hunk a person settled. */
function peopleLine(state: RunState): string | null {
  const people = new Set<string>();
  for (const f of state.conflicts.flatMap((c) => c.files)) {
    if (f.person) people.add(f.person);
    for (const h of f.hunks) if (h.person) people.add(h.person);
  }
  return people.size > 0 ? `Settled by hand: ${[...people].join(', ')}.` : null;
}

/** How a file without hunks was settled, in words (its note first, when it has one). */
function fileDecision(f: ConflictFileState): string {
  const how = f.note ? `${f.note}, ` : '';
  return `${how}${f.decidedBy ? FILE_DECIDED[f.decidedBy] : 'file-level decision'}`;
}

/** A file-level decision by rung; a regenerated lockfile was recorded as the policy's, and keeps its words. */
const FILE_DECIDED: Record<Rung, string> = {
  cache: "a person's earlier choice, taken again",
  policy: 'by the policy',
  generated: 'by the policy',
  rule: 'decided by a rule',
  syntax: 'decided by a rule',
  learnt: "by the fork's past merges",
  model: 'by the model',
  person: 'settled by a person',
};

/**
 * The message of the final merge commit: the subject, then, as fork maintainers write by hand, a
 * "Conflicts:" section saying per path how it was resolved and by whom, the checks and the
 * failures accepted, and where the full record is.
 */
export function mergeMessage(state: RunState): string {
  const hunks = state.conflicts.flatMap((c) => c.files.flatMap((f) => f.hunks));
  const lines = [
    `Merge ${state.upstream.ref} into ${state.fork.branch}`,
    '',
    `Merged with splintercat (run ${state.name}): ${state.grid ? `${state.grid.size.i1} x ${state.grid.size.i2} grid, ` : ''}${state.conflicts.length} conflict(s), ${hunks.length} hunk(s).`,
  ];
  if (state.conflicts.length > 0) lines.push('', 'Conflicts:', ...conflictLines(state));
  const once = [...decidedOnceLines(state), ...runLater(state).map(runLaterLine)];
  if (once.length > 0) lines.push('', 'Decided once for this merge:', ...once.map((l) => `    ${l}`));
  const people = peopleLine(state);
  if (people) lines.push('', people);
  // The checks' verdict on the final tree, whether it was checked as the last cell or as the final merge.
  lines.push('', checksOnMergeLine(state));
  for (const a of state.acceptedFailures)
    lines.push(
      `Accepted failure: ${a.check} at ${a.conflicts.join(', ')} (${a.outcome.failing?.length ?? 'unnamed'} test(s)).`,
    );
  lines.push(...dropsMessageLines(state));
  lines.push('', `Full record: git notes --ref=${NOTES_REF.replace('refs/notes/', '')} show HEAD`);
  // Paths, rule and model names, notes and refs came from upstream, a teammate or the model: each line
  // stays one line, so no value can add a line of its own (a trailer such as `Reviewed-by:`, a check's verdict).
  return `${lines.map(printableLine).join('\n')}\n`;
}

/** The full record of the merge as JSON: every conflict, file and hunk with who settled it, the checks, the cost. */
export function mergeNote(state: RunState): string {
  const record = {
    splintercat: 1,
    run: state.name,
    // The note keeps the keys tools already read: `source` is upstream, `target` the fork.
    source: state.upstream,
    target: state.fork,
    grid: state.grid?.size ?? null,
    conflicts: state.conflicts.map((c) => ({
      id: c.id,
      attempts: c.attempts,
      files: c.files.map((f) => ({
        path: f.path,
        kind: f.kind,
        ...(f.decidedBy ? { decidedBy: f.decidedBy } : {}),
        ...(f.note ? { note: f.note } : {}),
        ...(f.whole ? { whole: f.whole } : {}),
        ...(f.person ? { person: f.person } : {}),
        hunks: f.hunks.map((h) => ({
          index: h.index,
          rung: h.rung,
          by: h.by,
          ...(h.choice ? { choice: h.choice } : {}),
          ...(h.person ? { person: h.person } : {}),
        })),
      })),
    })),
    ...verdictRecord(state),
    checks: state.checks.map((c) => ({
      name: c.name,
      target: c.target,
      cell: c.cell ? `${c.cell.i1}-${c.cell.i2}` : null,
      success: c.success,
      ...(c.judgement ? { verdict: c.judgement.verdict } : {}),
    })),
    acceptedFailures: state.acceptedFailures.map((a) => ({ check: a.check, conflicts: a.conflicts, at: a.at })),
    usage: state.usage,
    drops: dropsNote(state),
    decidedOnce: personChoicesOf(state).wholeFiles,
    runLater: runLater(state),
    startedAt: state.startedAt,
  };
  return `${JSON.stringify(record, null, 2)}\n`;
}

/**
 * The note's account of the checks on the merged tree: `verdict` (validated, against_baselines or not_validated)
 * and each check's reading there. Added beside `checks`, whose per-run `verdict` (the baseline comparison) older
 * readers know, so a note of either age reads.
 */
function verdictRecord(state: RunState): { verdict: string; checksOnMerge: ReturnType<typeof mergeVerdict>['checks'] } {
  const { verdict, checks } = mergeVerdict(state);
  return { verdict, checksOnMerge: checks };
}

/** Attach the record to the merge commit (replacing an earlier one: safe to repeat after a kill). */
export async function writeMergeNote(git: Git, commit: string, note: string): Promise<void> {
  await git.run(['notes', `--ref=${NOTES_REF}`, 'add', '-f', '-F', '-', commit], { input: note });
}
