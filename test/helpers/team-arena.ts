import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { team } from '../fixtures/workflow/team.js';
import type { TestRepo } from './git-repo.js';

/**
 * A team on one shared merge, for the attacks of a teammate with push access: a fork with two
 * independent conflicts on one frontier (cells 1-2 and 2-1, in vals.txt), pushed to a bare remote,
 * each person's clone with the same splintercat.yaml (run `up`, a `build` check, conflicts to a
 * person), and a directory outside every repository where nothing may be read, written or removed.
 */
export interface TeamArena {
  root: string;
  bare: string;
  /** Outside every repository and worktree. */
  outside: string;
  clone(person: string): TestRepo;
}

/** A fresh arena; `extra` lines go into every clone's splintercat.yaml. */
export function teamArena(extra: string[] = []): TeamArena {
  const made = team(extra);
  const outside = join(made.root, 'outside');
  mkdirSync(outside);
  return { ...made, outside };
}

/**
 * The attacker's move, with git alone: take a machine snapshot of run `name` from the remote,
 * change its state.json with `forge` (and its journal with `journal`), and push it back as a
 * machine of their own, newer than every other (so `join` starts from it).
 */
export function pushForgedSnapshot(
  attacker: TestRepo,
  name: string,
  forge: (state: Record<string, unknown>) => void,
  journal: (text: string) => string = (text) => text,
): string {
  attacker.sh('fetch', '-q', 'origin', `+refs/splintercat/${name}/machines/*:refs/seen/machines/*`);
  const machine = attacker.sh('for-each-ref', '--count=1', '--format=%(refname)', 'refs/seen/machines/').trim();
  const state = JSON.parse(attacker.sh('show', `${machine}:state.json`)) as Record<string, unknown>;
  forge(state);
  // Newer than every snapshot the run published, and not ahead of the joining clone's clock.
  state.updatedAt = new Date().toISOString();
  const events = journal(attacker.sh('show', `${machine}:events.jsonl`));
  const blob = (text: string): string =>
    execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: attacker.dir, input: text, encoding: 'utf8' }).trim();
  const tree = execFileSync('git', ['mktree'], {
    cwd: attacker.dir,
    input: `100644 blob ${blob(`${JSON.stringify(state)}\n`)}\tstate.json\n100644 blob ${blob(events)}\tevents.jsonl\n`,
    encoding: 'utf8',
  }).trim();
  const commit = attacker.sh('commit-tree', tree, '-m', 'a machine').trim();
  const ref = `refs/splintercat/${name}/machines/mallory`;
  attacker.sh('push', '-q', 'origin', `${commit}:${ref}`);
  return ref;
}
