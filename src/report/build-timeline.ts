import type { RunEvent } from '../store/run-events.js';
import type { TimelineEntry } from './model.js';
import { shortOid } from '../util/short-oid.js';

type Entry = Omit<TimelineEntry, 'times' | 'seq' | 'at'>;

function handoffEntry(e: Extract<RunEvent, { type: 'person_needed' }>): Entry {
  const conflicts = [
    ...new Set(e.files.map((f) => /\/resolve-(\d+-\d+)\//.exec(f)?.[1]).filter((c): c is string => c !== undefined)),
  ];
  const names = e.files.map((f) => f.replace(/^.*\/resolve-\d+-\d+\//, ''));
  const title = `the person is needed${names.length > 0 ? `: ${names.join(', ')}` : ''}`;
  return { kind: 'handoff', by: 'runner', title, reasoning: e.reason, conflicts };
}

function acceptedEntry(e: Extract<RunEvent, { type: 'failure_accepted' }>): Entry {
  const tests = e.accepted.outcome.failing;
  return {
    kind: 'decision',
    by: 'person',
    title: `check ${e.accepted.check} accepted as failing at ${e.accepted.conflicts.join(', ')}`,
    reasoning: `expected at that step of the merge (continue --accept-failure): ${tests === null ? 'its whole outcome' : `${tests.length} test(s)`}, never blamed on a resolution since`,
    conflicts: e.accepted.conflicts,
  };
}

/** The timeline entry of one journal event, or null for an event that is not a decision. */
function entryOf(e: RunEvent): Entry | null {
  switch (e.type) {
    case 'decision': {
      const kind = e.kind === 'strategy' || e.kind === 'recovery' ? e.kind : 'decision';
      const batch = e.batchSize ? ` (batches of ${e.batchSize})` : '';
      const title = `${e.kind}: ${e.decision}${batch}`;
      return { kind, by: e.by, title, reasoning: e.reasoning, conflicts: e.conflicts ?? [] };
    }
    case 'failure_summarized': {
      const where = e.summary.location ? ` at ${e.summary.location}` : '';
      const title = `${e.check} failed: ${e.summary.error_type}${where}`;
      return { kind: 'failure', by: e.by, title, reasoning: e.summary.root_cause, conflicts: [] };
    }
    case 'conflict_blamed': {
      const title = `resolution of ${e.conflict} blamed`;
      return { kind: 'blame', by: 'runner', title, reasoning: e.reason, conflicts: [e.conflict] };
    }
    case 'person_needed':
      return handoffEntry(e);
    case 'failure_accepted':
      return acceptedEntry(e);
    case 'run_outcome': {
      const title = `run ${e.outcome.replace('_', ' ')}${e.node !== 'end' ? ` at ${e.node}` : ''}`;
      return { kind: 'outcome', by: 'runner', title, reasoning: e.reason ?? '', conflicts: [] };
    }
    case 'finalized':
      return {
        kind: 'finalized',
        by: 'runner',
        title: `merge commit ${shortOid(e.commit)}`,
        reasoning: '',
        conflicts: [],
      };
    default:
      return null;
  }
}

/**
 * The run's decisions in journal order: strategy and recovery choices with the planner's (or
 * the fallback policy's) reasoning, failure summaries, blamed resolutions, hand-offs to a
 * hand-offs, outcomes and the final commit.
 */
export function buildTimeline(events: readonly RunEvent[]): TimelineEntry[] {
  const out: Array<Omit<TimelineEntry, 'times'>> = [];
  for (const e of events) {
    const entry = entryOf(e);
    if (entry !== null) out.push({ seq: e.seq, at: e.ts, ...entry });
  }
  return fold(out);
}

/**
 * Identical decisions in a row (the same kind, author, title and reasoning: the fallback
 * planner choosing per_conflict at every resume, say) become one entry that says how many
 * times it was taken, with the conflicts of all of them.
 */
function fold(entries: Array<Omit<TimelineEntry, 'times'>>): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const e of entries) {
    const prev = out.at(-1);
    if (prev && prev.kind === e.kind && prev.by === e.by && prev.title === e.title && prev.reasoning === e.reasoning) {
      prev.times += 1;
      prev.conflicts = [...new Set([...prev.conflicts, ...e.conflicts])];
      continue;
    }
    out.push({ ...e, times: 1 });
  }
  return out;
}
