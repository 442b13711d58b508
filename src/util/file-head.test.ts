import { execFileSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileHead, readFileCapped } from './file-head.js';

describe('reading a file a merge wrote', () => {
  it('reads a regular file only: never through a link, never a FIFO that would block', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'file-head-'));
    writeFileSync(join(dir, 'Gemfile.lock'), 'GEM\n  remote: https://rubygems.org/\n');
    symlinkSync(join(dir, 'Gemfile.lock'), join(dir, 'link.lock'));
    execFileSync('mkfifo', [join(dir, 'fifo.lock')]);
    expect(await fileHead(join(dir, 'Gemfile.lock'), 3)).toBe('GEM');
    expect(await fileHead(join(dir, 'link.lock'))).toBeNull();
    expect(await fileHead(join(dir, 'fifo.lock'))).toBeNull();
    expect(await fileHead(join(dir, 'missing.lock'))).toBeNull();
    expect(await fileHead(dir)).toBeNull();
    expect(await readFileCapped(join(dir, 'Gemfile.lock'), 1_000)).toMatch(/^GEM\n/);
    expect(await readFileCapped(join(dir, 'Gemfile.lock'), 10)).toBeNull();
    expect(await readFileCapped(join(dir, 'link.lock'), 1_000)).toBeNull();
    expect(await readFileCapped(join(dir, 'fifo.lock'), 1_000)).toBeNull();
  });
});
