import type { RunEvent } from '../store/run-events.js';
import type { TimelineEntry } from './model.js';
import { shortOid } from '../util/short-oid.js';

/**
 * The run's decisions in journal order: strategy and recovery choices with the planner's (or
 * the fallback policy's) reasoning, failure summaries, blamed resolutions, hand-offs to a
 * human, outcomes and the final commit.
 */
export function buildTimeline(events: readonly RunEvent[]): TimelineEntry[] {
  const out: Array<Omit<TimelineEntry, 'times'>> = [];
  for (const e of events) {
    const at = { seq: e.seq, at: e.ts };
    switch (e.type) {
      case 'decision': {
        const kind = e.kind === 'strategy' || e.kind === 'recovery' ? e.kind : 'decision';
        const batch = e.batchSize ? ` (batches of ${e.batchSize})` : '';
        out.push({
          ...at,
          kind,
          by: e.by,
          title: `${e.kind}: ${e.decision}${batch}`,
          reasoning: e.reasoning,
          conflicts: e.conflicts ?? [],
        });
        break;
      }
      case 'failure_summarized':
        out.push({
          ...at,
          kind: 'failure',
          by: e.by,
          title: `${e.check} failed: ${e.summary.error_type}${e.summary.location ? ` at ${e.summary.location}` : ''}`,
          reasoning: e.summary.root_cause,
          conflicts: [],
        });
        break;
      case 'conflict_blamed':
        out.push({
          ...at,
          kind: 'blame',
          by: 'runner',
          title: `resolution of ${e.conflict} blamed`,
          reasoning: e.reason,
          conflicts: [e.conflict],
        });
        break;
      case 'human_needed': {
        const conflicts = [
          ...new Set(
            e.files.map((f) => /\/resolve-(\d+-\d+)\//.exec(f)?.[1]).filter((c): c is string => c !== undefined),
          ),
        ];
        const names = e.files.map((f) => f.replace(/^.*\/resolve-\d+-\d+\//, ''));
        out.push({
          ...at,
          kind: 'human',
          by: 'runner',
          title: `a human is needed${names.length > 0 ? `: ${names.join(', ')}` : ''}`,
          reasoning: e.reason,
          conflicts,
        });
        break;
      }
      case 'failure_accepted': {
        const tests = e.accepted.outcome.failing;
        out.push({
          ...at,
          kind: 'decision',
          by: 'user',
          title: `check ${e.accepted.check} accepted as failing at ${e.accepted.conflicts.join(', ')}`,
          reasoning: `expected at that step of the merge (continue --accept-failure): ${tests === null ? 'its whole outcome' : `${tests.length} test(s)`}, never blamed on a resolution since`,
          conflicts: e.accepted.conflicts,
        });
        break;
      }
      case 'run_outcome':
        out.push({
          ...at,
          kind: 'outcome',
          by: 'runner',
          title: `run ${e.outcome.replace('_', ' ')}${e.node !== 'end' ? ` at ${e.node}` : ''}`,
          reasoning: e.reason ?? '',
          conflicts: [],
        });
        break;
      case 'finalized':
        out.push({
          ...at,
          kind: 'finalized',
          by: 'runner',
          title: `merge commit ${shortOid(e.commit)}`,
          reasoning: '',
          conflicts: [],
        });
        break;
      default:
        break;
    }
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
