import { describe, expect, it } from 'vitest';
import { RunStore } from '../../src/store/index.js';
import { driveRun } from '../../src/workflow/merge-run.js';
import { reopenRun } from '../../src/workflow/setup.js';
import type { RunHandle } from '../../src/store/run-persistence.js';
import { chainRepo, crossRepo, valueResolver, valuesFile } from '../fixtures/workflow/chain-repo.js';
import { chainContext, scriptedGateway, startChainRun } from '../fixtures/workflow/chain-run.js';

/**
 * The process "dies" (the node throws, as a SIGKILL stops it: nothing after that point is
 * saved) around the first `conflict_resolved` append: just before it, or just after it.
 */
function dieAtFirstRecord(run: RunHandle, when: 'before' | 'after'): void {
  const append = run.journal.append.bind(run.journal);
  let died = false;
  run.journal.append = (event) => {
    const fatal = !died && event.type === 'conflict_resolved';
    if (fatal && when === 'before') {
      died = true;
      throw new Error('killed before the resolution was journalled');
    }
    const written = append(event);
    if (fatal) {
      died = true;
      throw new Error('killed after the resolution was journalled, before the state was saved');
    }
    return written;
  };
}

/**
 * Merge a 2-conflict chain one conflict at a time (or, `batch`, 3 independent conflicts resolved
 * and recorded together) with the value resolver; the first run dies at the first record, `continue` finishes.
 */
async function mergeKilledAtRecord(when: 'before' | 'after', batch = false) {
  const repo = batch
    ? crossRepo(
        3,
        (k) => `fork${k}`,
        (k) => `up${k}`,
      )
    : chainRepo(
        2,
        (k) => `fork${k}`,
        (k) => `up${k}`,
      );
  const resolver = valueResolver((k) => `merged${k}`);
  const merge = batch ? { strategy: 'optimistic', parallel: 2 } : { strategy: 'per_conflict' };
  const { ctx } = await chainContext(repo, scriptedGateway({ resolver: resolver.model }, { maxRetries: 0 }), { merge });
  const store = await RunStore.forRepo(repo.git);
  const created = startChainRun(store, repo);
  dieAtFirstRecord(created.run, when);
  try {
    expect((await driveRun(created.run, created.state, ctx)).kind).toBe('failed');
  } finally {
    created.run.close();
  }
  const recordedAtKill = repo
    .sh('for-each-ref', '--format=%(refname:lstrip=4)', 'refs/imerge/up/manual/')
    .split('\n')
    .filter((c) => /^[1-9]\d*-[1-9]\d*$/.test(c));
  const reopened = reopenRun(store, 'up');
  try {
    const outcome = await driveRun(reopened.run, reopened.state, ctx);
    const resolved = reopened.run.journal.read().entries.flatMap((e) => (e.type === 'conflict_resolved' ? [e] : []));
    // The conversations the resolver model opened (a first turn is the system prompt and the conflict).
    const conversations = resolver.model.doGenerateCalls.filter((c) => c.prompt.length === 2).length;
    return {
      repo,
      outcome,
      records: resolved.map((e) => e.conflict),
      commits: resolved.map((e) => e.commit),
      conversations,
      recordedAtKill,
    };
  } finally {
    reopened.run.close();
  }
}

describe('a resolution recorded in the grid when the process dies is neither lost nor asked again', () => {
  it('died before journalling it: continue re-resolves that conflict from the cache (no model call), recorded once', async () => {
    const { repo, outcome, records, conversations } = await mergeKilledAtRecord('before');
    expect(outcome.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2']).trimEnd());
    expect(records).toEqual(['1-1', '2-2']);
    expect(outcome.state.conflicts.map((c) => [c.id, c.status, c.files[0]?.hunks[0]?.rung])).toEqual([
      ['1-1', 'resolved', 'cache'],
      ['2-2', 'resolved', 'model'],
    ]);
    expect(conversations).toBe(2);
    // Both resolutions went through a check (a lost record would have skipped it).
    expect(outcome.state.data.checks?.validated).toEqual(expect.arrayContaining(['1-1', '2-2']));
  });

  it('died after journalling it, before the state was saved: continue adopts the journalled resolution', async () => {
    const { repo, outcome, records, commits, conversations } = await mergeKilledAtRecord('after');
    expect(outcome.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2']).trimEnd());
    expect(records).toEqual(['1-1', '2-2']);
    const first = outcome.state.conflicts.find((c) => c.id === '1-1');
    expect(first).toMatchObject({ status: 'resolved', attempts: 1, resolvedInAttempt: 1 });
    expect(first?.resolutionCommit).toBe(commits[0]);
    expect(first?.files[0]?.hunks[0]).toMatchObject({ rung: 'model', by: 'value-resolver' });
    // The cache key survives the adoption, so a later blame can still invalidate the entry.
    expect(first?.files[0]?.hunks[0]?.cacheKey).toMatch(/^[0-9a-f]{64}$/);
    expect(conversations).toBe(2);
    // Both resolutions went through a check (a lost record would have skipped it).
    expect(outcome.state.data.checks?.validated).toEqual(expect.arrayContaining(['1-1', '2-2']));
  });

  it('a batch recorded in the grid together, killed before any of it was journalled: continue re-resolves all of it from the cache', async () => {
    const { repo, outcome, records, conversations, recordedAtKill } = await mergeKilledAtRecord('before', true);
    // One ref transaction put the whole batch in the grid before the first event.
    expect(recordedAtKill).toEqual(['1-3', '2-2', '3-1']);
    expect(outcome.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2', 'merged3']).trimEnd());
    expect(records).toEqual(['1-3', '2-2', '3-1']);
    expect(outcome.state.conflicts.map((c) => [c.id, c.status, c.files[0]?.hunks[0]?.rung])).toEqual([
      ['1-3', 'resolved', 'cache'],
      ['2-2', 'resolved', 'cache'],
      ['3-1', 'resolved', 'cache'],
    ]);
    expect(conversations).toBe(3);
  });

  it('a batch killed after its first resolution was journalled: continue adopts that one and re-resolves the rest from the cache', async () => {
    const { repo, outcome, records, conversations } = await mergeKilledAtRecord('after', true);
    expect(outcome.kind).toBe('done');
    expect(repo.sh('show', 'main:vals.txt')).toBe(valuesFile(['merged1', 'merged2', 'merged3']).trimEnd());
    expect(records).toEqual(['1-3', '2-2', '3-1']);
    expect(outcome.state.conflicts.map((c) => [c.id, c.status, c.files[0]?.hunks[0]?.rung])).toEqual([
      ['1-3', 'resolved', 'model'],
      ['2-2', 'resolved', 'cache'],
      ['3-1', 'resolved', 'cache'],
    ]);
    expect(conversations).toBe(3);
  });
});
