import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { untrustedToolEnv } from './untrusted-tool-env.js';

describe('untrustedToolEnv', () => {
  it("overrides the tree's package-manager configuration, in any case of its name, and keeps the rest", () => {
    const dir = mkdtempSync(join(tmpdir(), 'splintercat-tool-env-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const env = untrustedToolEnv(
      { LANG: 'C', NPM_CONFIG_GIT: './evil', npm_config_ignore_scripts: 'false', PATH: '/usr/bin' },
      '/work/tree',
      dir,
    );
    expect(env).toMatchObject({ LANG: 'C', npm_config_git: 'git', npm_config_ignore_scripts: 'true' });
    expect(env).toMatchObject({ YARN_ENABLE_SCRIPTS: 'false', YARN_IGNORE_PATH: '1' });
    expect(env.NPM_CONFIG_GIT).toBeUndefined();
    expect(readFileSync(env.npm_config_userconfig as string, 'utf8')).toBe('');
    // The machine's global npmrc (its cafile, its proxy) is npm's own to read: no tree writes it.
    expect(env.npm_config_globalconfig).toBeUndefined();
  });

  it('drops PATH entries that resolve into the tree: relative, empty, or inside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'splintercat-tool-env-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = ['/usr/bin', '', '.', 'node_modules/.bin', '/work/tree/node_modules/.bin', '/work/tree', '/bin'];
    expect(untrustedToolEnv({ PATH: path.join(':') }, '/work/tree', dir).PATH).toBe('/usr/bin:/bin');
  });
});
