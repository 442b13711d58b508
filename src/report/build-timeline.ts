import type { RunEvent } from '../store/run-events.js';
import type { TimelineEntry } from './model.js';

/**
 * The run's decisions in journal order: strategy and recovery choices with the planner's (or
 * the fallback policy's) reasoning, failure summaries, blamed resolutions, hand-offs to a
 * human, outcomes and the final commit.
 */
export function buildTimeline(events: readonly RunEvent[]): TimelineEntry[] {
  const out: TimelineEntry[] = [];
  for (const e of events) {
    const at = { seq: e.seq, at: e.ts };
    switch (e.type) {
      case 'decision': {
        const kind = e.kind === 'strategy' || e.kind === 'recovery' ? e.kind : 'decision';
        const batch = e.batchSize ? ` (batches of ${e.batchSize})` : '';
        out.push({ ...at, kind, by: e.by, title: `${e.kind}: ${e.decision}${batch}`, reasoning: e.reasoning, conflicts: e.conflicts ?? [] });
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
        out.push({ ...at, kind: 'blame', by: 'runner', title: `resolution of ${e.conflict} blamed`, reasoning: e.reason, conflicts: [e.conflict] });
        break;
      case 'human_needed':
        out.push({ ...at, kind: 'human', by: 'runner', title: 'a human is needed', reasoning: e.reason, conflicts: [] });
        break;
      case 'run_outcome':
        out.push({ ...at, kind: 'outcome', by: 'runner', title: `run ${e.outcome.replace('_', ' ')}${e.node !== 'end' ? ` at ${e.node}` : ''}`, reasoning: e.reason ?? '', conflicts: [] });
        break;
      case 'finalized':
        out.push({ ...at, kind: 'finalized', by: 'runner', title: `merge commit ${e.commit.slice(0, 12)}`, reasoning: '', conflicts: [] });
        break;
      default:
        break;
    }
  }
  return out;
}
