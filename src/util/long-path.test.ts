import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { withReachablePath } from './long-path.js';
import { removeTree } from './remove-tree.js';

describe('withReachablePath', () => {
  it.runIf(process.platform === 'linux')(
    'reads, writes and stats a file 6,000 bytes deep, which plain fs cannot',
    async () => {
      const root = mkdtempSync(join(tmpdir(), 'splintercat-long-'));
      onTestFinished(() => removeTree(root));
      const dir = Array.from({ length: 30 }, () => 'd'.repeat(199)).join('/');
      // Made relative to each directory, as git does.
      execFileSync(
        '/bin/bash',
        ['-c', `for i in $(seq 30); do mkdir ${'d'.repeat(199)} && cd ${'d'.repeat(199)}; done; printf hi > f`],
        {
          cwd: root,
        },
      );
      const full = join(root, dir, 'f');
      expect(Buffer.byteLength(full)).toBeGreaterThan(6000);
      expect(() => readFileSync(full)).toThrow(/ENAMETOOLONG/);
      expect(withReachablePath(full, (p) => readFileSync(p, 'utf8'))).toBe('hi');
      expect(withReachablePath(full, (p) => lstatSync(p).size)).toBe(2);
      withReachablePath(`${full}2`, (p) => writeFileSync(p, 'written'));
      expect(
        await withReachablePath(`${full}2`, (p) => import('node:fs/promises').then((fs) => fs.readFile(p, 'utf8'))),
      ).toBe('written');
      expect(withReachablePath(`${full}-none`, existsSync)).toBe(false);
    },
  );

  it('a short path is given as it is', () => {
    expect(withReachablePath('/etc/hostname', (p) => p)).toBe('/etc/hostname');
  });
});
