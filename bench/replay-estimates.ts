/**
 * `npx tsx bench/replay-estimates.ts JOURNAL`: the time left a run's journal (a kept
 * `bench:sync` run's `repo/.git/splintercat/sync/events.jsonl`, BENCH_SYNC_KEEP=1) would have
 * printed at each hand-off, by layers and by the cost per conflict alone, against the real time to
 * the journal's end; the last half's errors as `bench:sync` prints them. The journal is folded event
 * by event with the run's own functions, so an estimate can be changed and measured again without
 * another drive. Each line also gives the hand-offs and conflicts left, estimated and real, so a miss
 * can be laid at the counts or at the costs. The final checks are left out of both (0), as they are of the real time's last part.
 */
import { readFileSync } from 'node:fs';
import {
  addTiming,
  emptyTimings,
  expectedConflicts,
  timeLeft,
  timingsFrom,
  type GridSample,
} from '../src/workflow/estimate.js';
import { layersLeft, workLeft } from '../src/workflow/layers-left.js';
import type { RunEvent } from '../src/store/run-events.js';

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: npx tsx bench/replay-estimates.ts JOURNAL (events.jsonl of a kept run)\n');
  process.exit(2);
}
const events = readFileSync(file, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as RunEvent);
const end = Date.parse(events.at(-1)?.ts ?? '');
let tally = emptyTimings();
let grid: Extract<RunEvent, { type: 'grid_updated' }>['grid'] | null = null;
const met = new Map<string, number>();
const resolved = new Set<string>();
const at: Array<{
  ms: number;
  layered: number | null;
  perConflict: number | null;
  layers: number | null;
  handoffsLeft: number | null;
  remaining: number;
  resolved: number;
}> = [];
for (const e of events) {
  tally = addTiming(tally, e);
  if (e.type === 'grid_updated') grid = e.grid;
  if (e.type === 'conflict_found') met.set(e.conflict, e.cell.i1);
  if (e.type === 'conflict_resolved') resolved.add(e.conflict);
  if (e.type !== 'person_needed' || grid === null) continue;
  const ms = Date.parse(e.ts);
  const rows = new Map(met);
  for (const b of grid.blockers) rows.set(`${b.i1}-${b.i2}`, b.i1);
  const sample: GridSample = {
    size: grid.size,
    filled: grid.filled ?? null,
    blockedRows: grid.blockers.map((b) => b.i1),
    conflictRows: [...rows.values()],
    tips: null,
  };
  const range = expectedConflicts(sample);
  const layers = layersLeft(sample, range);
  const t = timingsFrom(tally, resolved.size, met.size, new Date(ms));
  const remaining = Math.max(0, range.expected - resolved.size);
  const left = timeLeft(remaining, t, 0, workLeft(sample, range));
  at.push({
    ms,
    layers,
    layered: left?.ms ?? null,
    perConflict: timeLeft(remaining, t, 0)?.ms ?? null,
    handoffsLeft: left?.handoffsLeft ?? null,
    remaining,
    resolved: resolved.size,
  });
}
const first = at[0]?.ms ?? end;
const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;
const errors = { layered: [] as number[], perConflict: [] as number[] };
at.forEach((h, k) => {
  const real = end - h.ms;
  const err = (v: number | null): number | null => (v === null || real <= 0 ? null : (v - real) / real);
  const [layered, perConflict] = [err(h.layered), err(h.perConflict)];
  if (h.ms - first >= (end - first) / 2) {
    if (layered !== null) errors.layered.push(layered);
    if (perConflict !== null) errors.perConflict.push(perConflict);
  }
  process.stdout.write(
    `hand-off ${k + 1}: real ${(real / 1000).toFixed(0)} s; by layers (${h.layers ?? 'n/a'}) ${layered === null ? 'n/a' : pct(layered)}; per conflict ${perConflict === null ? 'n/a' : pct(perConflict)}; hand-offs left ~${h.handoffsLeft ?? 'n/a'} (real ${at.length - k - 1}); conflicts left ~${h.remaining} (real ${resolved.size - h.resolved})\n`,
  );
});
for (const [name, xs] of Object.entries(errors)) {
  const worst = xs.length > 0 ? Math.max(...xs.map(Math.abs)) : null;
  const within = xs.filter((x) => Math.abs(x) <= 0.25).length;
  process.stdout.write(
    `${name}, last half: ${xs.map(pct).join(' ')}; worst ${worst === null ? 'n/a' : pct(worst)}; ${within} of ${xs.length} within 25%\n`,
  );
}
