import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunStore } from '../../src/store/index.js';
import type { RunEvent } from '../../src/store/run-events.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { reopenRun } from '../../src/workflow/setup.js';
import { handoffLines } from '../../src/workflow/handoff/text.js';
import { chainRepo } from '../fixtures/workflow/chain-repo.js';
import { chainContext, startChainRun } from '../fixtures/workflow/chain-run.js';
import {
  buildReportModel,
  loadRunSnapshot,
  renderMarkdownReport,
  renderReportBody,
  renderStatusText,
} from '../../src/report/index.js';

/** Settle a conflicted file as the person would: each hunk's fork side kept, the markers removed. */
function keepFork(path: string): void {
  const text = readFileSync(path, 'utf8');
  writeFileSync(
    path,
    text.replace(/<{7} [^\n]*\n([\s\S]*?)(?:\|{7}[^\n]*\n[\s\S]*?)?={7}\n[\s\S]*?>{7} [^\n]*\n/g, '$1'),
  );
}

function journal(dir: string): RunEvent[] {
  return readFileSync(join(dir, '.git', 'splintercat', 'up', 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as RunEvent);
}

describe('estimates a person can plan by, against what happened', () => {
  it('journals the estimates at the first hand-off, shows their range, and the report sets them against the run', async () => {
    // Three conflicts on the grid's diagonal, each one the person's (no model), one after the other.
    const repo = chainRepo(
      3,
      (k) => `fork${k}`,
      (k) => `upstream${k}`,
    );
    const { ctx } = await chainContext(repo, null, { merge: { strategy: 'per_conflict', parallel: 1 } });
    const store = await RunStore.forRepo(repo.git);
    const started = startChainRun(store, repo);
    let outcome = await driveRun(started.run, started.state, ctx).finally(() => started.run.close());
    const handoffs: string[] = [];
    while (outcome.kind === 'needs_person') {
      const handoff = outcome.state.handoff!;
      handoffs.push(handoffLines(handoff).join('\n'));
      for (const f of handoff.files) keepFork(f);
      const { run, state } = reopenRun(store, 'up');
      outcome = await driveRun(run, { ...state, status: 'running', statusReason: null }, ctx).finally(() =>
        run.close(),
      );
    }
    expect(outcome.kind === 'failed' ? outcome.reason : outcome.kind).toBe('done');
    expect(handoffs).toHaveLength(3);
    // The grid says what it explored, row by row; the hand-off gives the total with its range.
    const events = journal(repo.dir);
    const grids = events.filter((e) => e.type === 'grid_updated');
    expect(grids.some((e) => e.type === 'grid_updated' && (e.grid.filled?.length ?? 0) === 3)).toBe(true);
    // Once the last conflict is merged the frontier is the far corner: every cell is explored, though an
    // outlined rectangle's inside is never merged.
    const last = grids.at(-1);
    expect(last?.type === 'grid_updated' ? last.grid.filled : null).toEqual([3, 3, 3]);
    expect(handoffs[0]).toMatch(
      /conflict\(s\) are expected after these \(~?\d+ in all, (range \d+-\d+|at least \d+), estimated from the grid explored so far\)/,
    );
    expect(handoffs.join('\n')).not.toMatch(/About 0 more/);
    // The end's cleanup is journalled with what it took, as time left counts it: nothing is held after.
    const removals = events.filter((e) => e.type === 'worktrees_removed');
    const cleanup = removals.at(-1);
    expect(cleanup).toMatchObject({ left: 0, durationMs: expect.any(Number) });
    expect(cleanup?.type === 'worktrees_removed' ? cleanup.count : 0).toBeGreaterThanOrEqual(2);
    expect(events.findIndex((e) => e.type === 'finalized')).toBeLessThan(events.indexOf(cleanup!));
    // One estimate at the first hand-off (the next would be at the eleventh).
    const estimates = events.filter((e) => e.type === 'estimate');
    expect(estimates).toHaveLength(1);
    expect(estimates[0]).toMatchObject({ type: 'estimate', handoff: 1, conflicts: { basis: 'grid', known: 1 } });
    const model = buildReportModel((await loadRunSnapshot(repo.git, store, 'up'))!, { now: new Date() });
    expect(model.estimates).toEqual([
      expect.objectContaining({ handoff: 1, actualConflicts: 3, actualLeftMs: expect.any(Number) }),
    ]);
    const md = renderMarkdownReport(model);
    expect(md).toContain('### Estimates against what happened');
    expect(md).toMatch(/\| \\#1 \| [^|]+ \| 0 \| [^|]+ \| 3 \(\d\.\d\dx\) \| [^|]+ \| \d[^|]+ \|/);
    expect(renderReportBody(model)).toMatch(/<h3>Estimates against what happened<\/h3>.*<td>#1<\/td>/s);
    expect(renderStatusText(model)).toMatch(
      /estimates against what happened:\n {4}Hand-off: #1; .*Conflicts in all: 3 \(/,
    );
  });
});
