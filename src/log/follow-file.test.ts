import { appendFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/git-repo.js';
import { followFile, lastLines } from './follow-file.js';

describe('lastLines', () => {
  it('reads the end of a file of many chunks, a file shorter than asked, none, and a torn last line', () => {
    const path = join(tempDir(), 'big.log');
    const all = Array.from({ length: 30_000 }, (_, k) => `line ${k} ${'x'.repeat(k % 17)}`);
    writeFileSync(path, `${all.join('\n')}\n`);
    const tail = lastLines(path, 5000);
    expect(tail.lines).toEqual(all.slice(-5000));
    expect(tail.end).toBe(Buffer.byteLength(`${all.join('\n')}\n`));
    expect(lastLines(path, 0).lines).toEqual([]);
    writeFileSync(path, 'one\ntwo');
    expect(lastLines(path, 50).lines).toEqual(['one', 'two']);
    writeFileSync(path, '');
    expect(lastLines(path, 3)).toEqual({ lines: [], end: 0 });
  });
});

describe('followFile', () => {
  it('gives complete lines as they are appended, and starts over on a rotated or truncated file', async () => {
    const path = join(tempDir(), 'run.log');
    writeFileSync(path, 'old\n');
    const stop = new AbortController();
    const got: string[] = [];
    let wanted: { count: number; done: () => void } | null = null;
    const until = (count: number): Promise<void> =>
      new Promise((done) => {
        wanted = { count, done };
        if (got.length >= count) done();
      });
    const following = followFile(
      path,
      (lines) => {
        got.push(...lines);
        if (wanted && got.length >= wanted.count) wanted.done();
      },
      { from: lastLines(path, 1).end, intervalMs: 5, signal: stop.signal },
    );
    appendFileSync(path, 'first\nsec');
    await until(1);
    appendFileSync(path, 'ond\n');
    await until(2);
    renameSync(path, `${path}.1`);
    writeFileSync(path, 'after rotation\n');
    await until(3);
    writeFileSync(path, 'x\n'); // truncated in place: shorter than what was read
    await until(4);
    stop.abort();
    await following;
    expect(got).toEqual(['first', 'second', 'after rotation', 'x']);
  });
});
