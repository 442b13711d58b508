/**
 * What one publication of a shared run carries, as this clone holds it: the records the remote
 * lacks, each resolved conflict's tree as a ref of its own, and this machine's snapshot. RunShare
 * decides when to publish and what to claim; these only read and write this clone's refs and files.
 */

import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Git } from '../../git/index.js';
import type { RunStore } from '../../store/run-store.js';
import type { RunState } from '../../store/run-state.js';
import type { MirroredRefs } from '../../store/sync/ref-mirror.js';
import { recordId, recordPath, type NewRecord } from '../../store/sync/record.js';
import { treeEntries } from '../../store/sync/record-tree.js';
import { runRecords } from '../../store/sync/run-records.js';
import type { RunSync } from '../../store/sync/run-sync.js';
import { treesPrefix } from './published-resolutions.js';

/** Who publishes: a resolution record names its person and machine, a check record its command's digest. */
interface Publisher {
  person: { name: string; email: string };
  machine: string;
  /** The run's check commands (check.commands). */
  commands: Record<string, string>;
}

/** The run's records not held here yet (only those are written: a run's records are many, a step adds few). */
export async function freshRecords(
  git: Git,
  sync: RunSync,
  run: string,
  state: RunState,
  by: Publisher,
): Promise<NewRecord[]> {
  const cells = (await git.forEachRef(`refs/imerge/${run}/manual/`)).map((r) => ({
    cell: r.ref.slice(r.ref.lastIndexOf('/') + 1),
    commit: r.oid,
  }));
  const who = `${by.person.name} <${by.person.email}>`;
  const known = await treeEntries(git, await git.revParse(sync.refs.records));
  const fresh = runRecords(state, cells)
    .filter((r) => !known.has(recordPath({ kind: r.kind, id: recordId(r.kind, r.key) })))
    .map((r) => (r.kind === 'resolution' ? { ...r, body: { ...r.body, person: who, machine: by.machine } } : r));
  // A check's tree and command let the other clones show it as this clone's claim (check-claims.ts).
  for (const r of fresh) if (r.kind === 'check') r.body = { ...r.body, ...(await checkFacts(git, by.commands, r.key)) };
  return fresh;
}

async function checkFacts(
  git: Git,
  commands: Record<string, string>,
  key: NewRecord['key'],
): Promise<{ tree: string | null; command: string | null }> {
  const tree = typeof key.commit === 'string' ? await git.revParse(`${key.commit}^{tree}`) : null;
  const command = typeof key.check === 'string' ? commands[key.check] : undefined;
  return { tree, command: command === undefined ? null : commandDigest(command) };
}

/** A digest of a check's command: two machines' results are one fact only for the same command. */
export function commandDigest(command: string): string {
  return createHash('sha256').update(command).digest('hex').slice(0, 16);
}

/** This machine's snapshot: the run's state and journal as stored (the state given when none is). */
export function snapshotFiles(store: RunStore, run: string, state: RunState): Record<string, string> {
  const paths = store.paths(run);
  return {
    'state.json': existsSync(paths.state) ? readFileSync(paths.state, 'utf8') : `${JSON.stringify(state)}\n`,
    'events.jsonl': existsSync(paths.journal) ? readFileSync(paths.journal, 'utf8') : '',
  };
}

/**
 * Each resolved conflict's tree as a ref of its own (`refs/splintercat/NAME/trees/CONFLICT`), so
 * the objects of a resolution reach other clones even once the engine's refs are gone (a finished
 * merge); `settled` when every one is on the remote as last agreed (nothing to push).
 */
export async function recordTrees(
  git: Git,
  sync: RunSync,
  run: string,
  state: RunState,
): Promise<{ refs: MirroredRefs; settled: boolean }> {
  const prefix = treesPrefix(run);
  const agreed = `${sync.refs.agreed}trees/${run}/`;
  const current = new Map((await git.forEachRef(prefix)).map((r) => [r.ref, r.oid]));
  const updates = state.conflicts
    .filter((c) => c.status === 'resolved' && c.resolutionTree !== null)
    .filter((c) => current.get(`${prefix}${c.id}`) !== c.resolutionTree)
    .map((c) => ({ ref: `${prefix}${c.id}`, newOid: c.resolutionTree as string }));
  if (updates.length > 0) await git.updateRefs(updates);
  const known = new Map((await git.forEachRef(agreed)).map((r) => [r.ref.slice(agreed.length), r.oid]));
  const settled =
    updates.length === 0 && [...current].every(([ref, oid]) => known.get(ref.slice(prefix.length)) === oid);
  return { refs: { prefix, agreed }, settled };
}
