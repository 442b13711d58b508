import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckRunner } from '../../src/checks/check-runner.js';
import { probeBwrap } from '../../src/checks/sandbox.js';
import type { SandboxMode } from '../../src/config/schema.js';
import { tempDir } from '../helpers/git-repo.js';

/** A runner whose check writes into $SPLINTERCAT_BUILD_DIR and records where that was. */
function runner(sandbox: SandboxMode): { r: CheckRunner; dir: string; build: string } {
  const dir = tempDir();
  const build = join(dir, 'build', 'up');
  const r = new CheckRunner({
    workdir: dir,
    outputDir: join(dir, 'logs'),
    commands: { build: 'echo "$SPLINTERCAT_BUILD_DIR" > where && echo object > "$SPLINTERCAT_BUILD_DIR/a.o"' },
    timeoutSec: 30,
    killGraceSec: 1,
    sandbox,
    buildDir: build,
  });
  return { r, dir, build };
}

describe('the out-of-tree build directory', () => {
  const modes: SandboxMode[] = probeBwrap().ok ? ['off', 'bwrap'] : ['off'];
  it.each(modes)('gives each worktree its own, created and writable (sandbox %s)', async (sandbox) => {
    const { r, dir, build } = runner(sandbox);
    const trees = ['check', 'resolve-1-2'].map((name) => {
      const cwd = join(dir, name);
      mkdirSync(cwd);
      return cwd;
    });
    for (const cwd of trees) expect((await r.run('build', { cwd })).success).toBe(true);
    for (const cwd of trees) {
      const own = join(build, cwd.slice(dir.length + 1));
      expect(readFileSync(join(cwd, 'where'), 'utf8').trim()).toBe(own);
      expect(existsSync(join(own, 'a.o'))).toBe(true);
    }
  });
});
