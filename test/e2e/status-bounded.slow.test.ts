import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { conflictPairs, generateGrid } from '../../bench/_grid.js';
import { runCli } from '../fixtures/resolve/cli.js';
import { tempDir } from '../helpers/git-repo.js';

/**
 * `status` at the size of a real fork sync (72 fork commits, 1,015 upstream ones): a summary and
 * the grid's rows around the frontier, not a thousand lines; the whole grid on request; `--json`
 * as before (the whole diagram).
 */
let dir: string;

/** The grid rows a status text draws, by row number (a labelled row sets it, the rows after follow on). */
function drawnRows(text: string): Map<number, string> {
  const rows = new Map<number, string>();
  let next: number | null = null;
  for (const line of text.split('\n')) {
    const labelled = /^\s*(\d+) - (\S+)/.exec(line);
    if (labelled) next = Number(labelled[1]);
    else if (!/^ {7}\*/.test(line)) {
      next = null;
      continue;
    }
    if (next === null) continue;
    rows.set(next, line.slice(7).split(' ')[0] as string);
    next++;
  }
  return rows;
}
const blockers: string[] = [];

describe('status on a 72 x 1015 grid', () => {
  beforeAll(async () => {
    dir = join(tempDir('splintercat-status-'), 'repo');
    mkdirSync(dir);
    generateGrid(dir, 72, 1015, conflictPairs(72, 1015, 6), 200);
    writeFileSync(
      join(dir, 'splintercat.yaml'),
      ['target:', '  branch: main', 'imerge:', '  name: up', 'merge:', '  resolver: manual', ''].join('\n'),
    );
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'splintercat.yaml\n');
    const merged = await runCli(['merge', 'feature'], dir);
    expect(merged.code, merged.stderr).toBe(3);
    blockers.push(
      ...[...(merged.stdout + merged.stderr).matchAll(/^Conflict (\d+)-(\d+),/gm)].map((m) => `${m[1]}-${m[2]}`),
    );
    expect(blockers.length).toBeGreaterThan(0);
  }, 300_000);

  it('prints under 80 lines: the summary, the rows of each blocker, and how to see the rest', async () => {
    const status = await runCli(['status'], dir);
    expect(status.code, status.stderr).toBe(0);
    const lines = status.stdout.split('\n');
    expect(lines.length).toBeLessThan(80);
    expect(status.stdout).toMatch(/grid: 72 x 1015 commits/);
    expect(status.stdout).toMatch(/^ {3}0 - \*+ - main$/m);
    const drawn = drawnRows(status.stdout);
    for (const id of blockers) {
      const [i1, i2] = id.split('-').map(Number) as [number, number];
      expect(drawn.get(i2)?.[i1], `row ${i2} of blocker ${id}`).toBe('#');
    }
    expect(status.stdout).toMatch(/~ rows \d+-\d+ \(\d+\) not shown/);
    expect(status.stdout).toMatch(/of the grid's 1016 rows are not shown: splintercat status --grid draws them all/);
  }, 60_000);

  it('--grid draws every row; --json keeps the whole diagram', async () => {
    const full = await runCli(['status', '--grid'], dir);
    expect(full.code, full.stderr).toBe(0);
    const rows = full.stdout.split('\n').filter((l) => /^( {4}|\s*\d+) - |^ {7}\*/.test(l));
    expect(rows).toHaveLength(1016);
    expect(full.stdout).not.toMatch(/not shown/);
    const json = await runCli(['status', '--json'], dir);
    const data = JSON.parse(json.stdout) as { grid: { diagram: string; size: { i1: number; i2: number } } };
    expect(data.grid.size).toEqual({ i1: 72, i2: 1015 });
    expect(data.grid.diagram.split('\n').filter((l) => /^( {4}|\s*\d+) - |^ {7}\*/.test(l))).toHaveLength(1016);
  }, 60_000);
});
