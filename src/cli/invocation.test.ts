import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/helpers/git-repo.js';
import { cliInvocation } from './invocation.js';

/** A clone of splintercat with its built CLI: the package root and the script. */
function clone(): { root: string; pkg: string; main: string } {
  const root = tempDir();
  const pkg = join(root, 'clone');
  mkdirSync(join(pkg, 'dist', 'cli'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), '{"name":"splintercat"}');
  const main = join(pkg, 'dist', 'cli', 'main.js');
  writeFileSync(main, '#!/usr/bin/env node\n');
  chmodSync(main, 0o755);
  return { root, pkg, main };
}

describe('how to run this CLI again, as printed', () => {
  it('`splintercat` where that name on PATH is this script (npm install --global links it)', () => {
    const { root, pkg, main } = clone();
    const bin = join(root, 'bin');
    mkdirSync(bin);
    symlinkSync(main, join(bin, 'splintercat'));
    expect(cliInvocation({ argv: ['node', main], execArgv: [], path: `${bin}:/usr/bin` })).toEqual({
      command: 'splintercat',
      onPath: true,
      packageRoot: pkg,
    });
  });

  it('node and the script by absolute paths, loader flags kept, where it is not (npx in a clone)', () => {
    const { pkg, main } = clone();
    const inv = cliInvocation({ argv: ['node', main], execArgv: ['--import', '/x y/tsx.mjs'], path: '/usr/bin:/bin' });
    expect(inv).toMatchObject({ onPath: false, packageRoot: pkg });
    expect(inv.command).toMatch(new RegExp(`^\\S+ --import '/x y/tsx\\.mjs' ${main.replace(/[.]/g, '\\.')}$`));
  });

  it("not `splintercat` where only npx's node_modules/.bin puts it on PATH (a later shell has no such entry)", () => {
    const { pkg, main } = clone();
    const bin = join(pkg, 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    symlinkSync(main, join(bin, 'splintercat'));
    const inv = cliInvocation({ argv: ['node', main], execArgv: [], path: `${bin}:/usr/bin:/bin` });
    expect(inv).toMatchObject({ onPath: false, packageRoot: pkg });
    expect(inv.command).toMatch(new RegExp(`${main.replace(/[.]/g, '\\.')}$`));
  });
});
