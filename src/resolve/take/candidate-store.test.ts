import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadCandidates, recordCandidates } from './candidate-store.js';

function gitDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'splintercat-candidates-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('the candidate store', () => {
  it('gives the candidates back only for the same merge of the path (its index stages)', async () => {
    const dir = gitDir();
    await recordCandidates(dir, 'a.txt', 'b1:o1:t1', [
      { text: 'one\n', modelId: 'm' },
      { text: 'two\n', modelId: 'm' },
    ]);
    expect((await loadCandidates(dir, 'a.txt', 'b1:o1:t1')).map((c) => c.text)).toEqual(['one\n', 'two\n']);
    expect(await loadCandidates(dir, 'a.txt', 'b1:o2:t1')).toEqual([]);
    expect(await loadCandidates(dir, 'b.txt', 'b1:o1:t1')).toEqual([]);
  });

  it('keeps at most five candidates and none over a mebibyte', async () => {
    const dir = gitDir();
    const many = Array.from({ length: 7 }, (_, i) => ({ text: `${i}\n`, modelId: 'm' }));
    await recordCandidates(dir, 'a.txt', 's', [{ text: 'x'.repeat(2 * 1024 * 1024), modelId: 'm' }, ...many]);
    expect((await loadCandidates(dir, 'a.txt', 's')).map((c) => c.text)).toEqual(['0\n', '1\n', '2\n', '3\n', '4\n']);
  });
});
