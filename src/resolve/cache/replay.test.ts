import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveFileText } from '../ladder.js';
import { containedChange } from '../rules/contained-change.js';
import { selectRules } from '../rules/index.js';
import { replayable } from './replay.js';
import { ResolutionCache } from './resolution-cache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const hunk = (ours: string, base: string, theirs: string): string =>
  `<<<<<<< HEAD\n${ours}||||||| base\n${base}=======\n${theirs}>>>>>>> other\n`;

// The larger side's extra lines: in the second file the rest of the file already has them (moved code).
const base = 'x = None\n';
const theirs = '_tasks = None\n';
const block = 'def setup(app):\n    global _tasks\n    _tasks = app.tasks\n';
const ours = `_tasks = None\n\n${block}`;
const ctx = { path: 'f.py', eol: '\n' as const };

describe('replayable', () => {
  it("replays a rule's answer only where the rule gives it again", () => {
    const hit = { rung: 'rule' as const, by: 'contained-change', resolution: ours };
    const sides = { base, ours, theirs };
    expect(replayable(hit, sides, [containedChange], { ...ctx, outside: 'import os\n' })).toBe(true);
    expect(replayable(hit, sides, [containedChange], { ...ctx, outside: `import os\n\n${block}` })).toBe(false);
    expect(replayable(hit, sides, [], ctx)).toBe(false);
    expect(replayable({ ...hit, by: 'syntax-merge' }, sides, [containedChange], ctx)).toBe(false);
  });
  it("replays a person's or the model's answer wherever the same sides meet", () => {
    for (const rung of ['person', 'model'] as const)
      expect(replayable({ rung, by: rung, resolution: 'z\n' }, { base, ours, theirs }, [], ctx)).toBe(true);
  });
});

describe('the ladder with a cache', () => {
  it("does not carry a rule's answer from one file into another where the rule abstains", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sc-replay-'));
    dirs.push(dir);
    const cache = new ResolutionCache(dir);
    const rules = selectRules();
    const first = await resolveFileText(`import os\n${hunk(ours, base, theirs)}`, { path: 'a.py', cache, rules });
    expect(first.resolutions[0]).toMatchObject({ rung: 'rule', by: 'contained-change' });
    const again = await resolveFileText(`import os\n${hunk(ours, base, theirs)}`, { path: 'a.py', cache, rules });
    expect(again.resolutions[0]).toMatchObject({ rung: 'cache', by: 'rule:contained-change' });
    const moved = await resolveFileText(`import os\n\n${block}${hunk(ours, base, theirs)}`, {
      path: 'b.py',
      cache,
      rules,
    });
    expect(moved.resolutions).toEqual([]);
    expect(moved.remaining).toHaveLength(1);
  });
});
