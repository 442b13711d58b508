import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { driveScale, type ScaleDrive } from '../../bench/scale/drive.js';
import { conflictAt, generateScaleFixture, SCALE_SMALL, type ScaleFixture } from '../../bench/scale/fixture.js';
import { handoffLines } from '../../src/workflow/handoff/index.js';
import type { RunEvent } from '../../src/store/run-events.js';
import { tempDir } from '../helpers/git-repo.js';

/**
 * The scale drive, small: a C project with a real make build, three waves of conflicts of every
 * kind, the scripted model and the simulated person (bench/scale/). What it asserts is behaviour:
 * the batch hand-off, test selection, the skip of a resolution that changes no compiled byte, the
 * final full validation, bisection finding the person's breaking resolution. (The figures are
 * `npm run bench`'s, at full size.)
 */
let fixture: ScaleFixture;
let drive: ScaleDrive;

const decisions = (kind: string): Extract<RunEvent, { type: 'decision' }>[] =>
  drive.events.filter((e): e is Extract<RunEvent, { type: 'decision' }> => e.type === 'decision' && e.kind === kind);
const cellOf = (kind: string, wave: number): string => {
  const c = fixture.conflicts.find((x) => x.kind === kind && x.wave === wave);
  if (!c) throw new Error(`no ${kind} conflict in wave ${wave}`);
  return `${c.fork}-${c.upstream}`;
};

describe('a large fork, small: the scale drive', () => {
  beforeAll(async () => {
    const dir = join(tempDir('splintercat-scale-'), 'repo');
    mkdirSync(dir);
    fixture = generateScaleFixture(dir, SCALE_SMALL);
    // per_conflict: each resolution the model makes alone is checked alone (so one changing no compiled byte is skipped).
    drive = await driveScale(fixture, ['merge.strategy=per_conflict']);
  }, 600_000);

  it('finishes with one merge commit whose tree builds and passes every test', () => {
    expect(drive.outcome).toBe('done');
    const build = join(fixture.dir, '..', 'final-build');
    const out = execFileSync('make', ['-s', `BUILD=${build}`, 'test'], { cwd: fixture.dir, encoding: 'utf8' });
    expect(out).toMatch(/test result: ok/);
    expect(out).not.toMatch(/FAILED/);
  });

  it('hands the conflicts a person must settle over together, says more are coming, and nobody waits for one they could see', () => {
    const givenUp = fixture.conflicts.filter((c) => c.model === 'give-up').map((c) => `${c.fork}-${c.upstream}`);
    const first = drive.handoffs[0];
    expect(first?.conflicts.sort()).toEqual(givenUp.sort());
    // The wave's fourth conflict went down the ladder in the same pass and waits in the batch.
    const modelOne = fixture.conflicts.find((c) => c.wave === 1 && c.model === 'correct');
    expect(
      drive.state.conflicts.find((c) => c.id === `${modelOne?.fork}-${modelOne?.upstream}`)?.files[0]?.hunks[0]?.rung,
    ).toBe('model');
    const handed = drive.events.find((e) => e.type === 'person_needed');
    expect(handed && handed.type === 'person_needed' ? handed.conflicts?.length : 0).toBe(givenUp.length);
    expect(drive.waitedForVisibleMs).toBe(0);
    const text = handoffLines({
      reason: '',
      files: [],
      commands: [],
      where: null,
      conflicts: (handed as Extract<RunEvent, { type: 'person_needed' }>).conflicts ?? [],
      expected: { more: 4, total: 12 },
    }).join('\n');
    expect(text).toMatch(/independent: settle them in any order.*one `splintercat continue` then checks them together/);
    expect(text).toMatch(/About 4 more conflict\(s\) are expected after these \(12 in all/);
  });

  it('checks one batch for the hand-off, bisects it when it fails, and hands back only the breaking resolution', () => {
    const wrong = fixture.conflicts.find((c) => c.person === 'wrong');
    const culprit = `${wrong?.fork}-${wrong?.upstream}`;
    expect(drive.wrongOnPurpose).toEqual([wrong?.n]);
    const bisect = decisions('recovery').find((d) => d.decision === 'bisect');
    expect(bisect?.by).toBe('runner');
    // Of the batch, only the culprit is blamed (the model's own wrong answers are blamed later, one by one).
    const batch = drive.handoffs[0]?.conflicts ?? [];
    const blamed = drive.events
      .filter((e) => e.type === 'conflict_blamed')
      .map((e) => (e as { conflict: string }).conflict);
    expect(blamed.filter((id) => batch.includes(id))).toEqual([culprit]);
    const amend = drive.handoffs.filter((h) => h.amend);
    expect(amend.map((h) => h.conflicts)).toEqual([[culprit]]);
    // Four resolutions: at most two probes find the one.
    const from = drive.events.indexOf(bisect as RunEvent);
    const to = drive.events.findIndex((e) => e.type === 'conflict_blamed');
    const probes = drive.events.slice(from, to).filter((e) => e.type === 'check_finished' && e.check.target === 'cell');
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.length).toBeLessThanOrEqual(2);
  });

  it('runs only the checks a resolution selects, and the full ones on the final cell', () => {
    const net = cellOf('function', 0);
    const onNet = drive.state.checks.filter(
      (c) => c.target === 'cell' && c.cell && `${c.cell.i1}-${c.cell.i2}` === net,
    );
    expect(onNet.map((c) => c.name)).toEqual(['build', 'test-net']);
    expect(decisions('check').some((d) => /not run: test-core, test-fs/.test(d.reasoning))).toBe(true);
    const size = `${SCALE_SMALL.forkCommits}-${SCALE_SMALL.upstreamCommits}`;
    const final = drive.state.checks.filter((c) => c.cell && `${c.cell.i1}-${c.cell.i2}` === size);
    expect(final.filter((c) => c.success).map((c) => c.name)).toEqual(expect.arrayContaining(['build', 'test']));
    expect(drive.state.data.checks?.finalValidated).toBe(true);
  });

  it('runs no check for a resolution that changes no compiled byte, and records why', () => {
    const comment = fixture.conflicts.find((c) => c.kind === 'comment' && c.model === 'correct');
    const id = `${comment?.fork}-${comment?.upstream}`;
    expect(conflictAt(fixture, id)?.kind).toBe('comment');
    const state = drive.state.conflicts.find((c) => c.id === id);
    expect(state?.checkSkipped).toMatch(
      /changes no compiled byte \(whitespace or comments only, proven by the syntax rung\)/,
    );
    expect(drive.state.checks.some((c) => c.cell && `${c.cell.i1}-${c.cell.i2}` === id)).toBe(false);
    expect(decisions('check').some((d) => d.decision === 'skip' && d.conflicts?.includes(id))).toBe(true);
  });
});
