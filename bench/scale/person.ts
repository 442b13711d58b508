/**
 * The scale drive's person: given a hand-off, writes each conflict's files in its worktree, as
 * the fixture says a careful person resolves them; where the fixture plans a wrong first try, the
 * fork side of the conflict's main file instead (the batch check fails, bisection finds it, and the
 * conflict comes back with the failure: then the right file).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Handoff } from '../../src/store/run-state.js';
import { conflictAt, type ScaleFixture } from './fixture.js';

/** Settle every conflict of the hand-off in its worktree; returns the conflicts settled wrong on purpose. */
export function settle(fixture: ScaleFixture, human: Handoff, tried: Set<number>): number[] {
  const wrong: number[] = [];
  for (const handed of human.conflicts) {
    const conflict = conflictAt(fixture, handed.conflict);
    if (!conflict) throw new Error(`the scale fixture planned no conflict at ${handed.conflict}`);
    const first = !tried.has(conflict.n);
    tried.add(conflict.n);
    for (const f of handed.files) {
      const planned = conflict.files[f.path];
      if (!planned) throw new Error(`conflict ${handed.conflict}: the fixture has no file ${f.path}`);
      const breaks = conflict.person === 'wrong' && first && handed.failure === null && f.path === conflict.primary;
      if (breaks) wrong.push(conflict.n);
      writeFileSync(join(handed.worktree, f.path), breaks ? planned.fork : planned.correct);
    }
  }
  return wrong;
}
