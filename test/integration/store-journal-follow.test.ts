import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { Journal } from '../../src/store/journal.js';
import { parseRunEvent, type RunEvent } from '../../src/store/run-events.js';

const repoRoot = resolve(import.meta.dirname, '../..');

describe('journal follow across processes', () => {
  it('streams every event a running child appends, in order, until its outcome', async () => {
    const root = tempDir();
    const journal = new Journal<RunEvent>(join(root, 'demo', 'events.jsonl'), { parse: parseRunEvent });
    const controller = new AbortController();
    const seen: RunEvent[] = [];
    const following = (async () => {
      for await (const e of journal.follow({ pollMs: 25, signal: controller.signal })) {
        seen.push(e);
        if (e.type === 'run_outcome') controller.abort();
      }
    })();
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', join(repoRoot, 'test/fixtures/store/machine-child.ts'), root, join(root, 'calls.log'), '20'],
      {
        cwd: repoRoot,
        stdio: 'ignore',
      },
    );
    const exit = new Promise<number | null>((done) => proc.on('close', done));
    await following;
    expect(await exit).toBe(0);
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
    expect(seen.filter((e) => e.type === 'effect')).toHaveLength(20);
    expect(seen.at(-1)).toMatchObject({ type: 'run_outcome', outcome: 'done' });
    expect(seen).toEqual(journal.read().entries);
  });
});
