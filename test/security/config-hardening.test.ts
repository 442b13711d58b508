import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors/index.js';
import { tempDir } from '../helpers/git-repo.js';

function dirWith(yaml: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'splintercat.yaml'), yaml);
  return dir;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(ConfigError.isInstance(error) && error instanceof ConfigError).toBe(true);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration hardening', () => {
  it('a YAML alias bomb ("billion laughs") is a clear ConfigError, not an internal error', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [prev, name] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'd'],
      ['d', 'e'],
      ['e', 'f'],
    ] as const) {
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    }
    const dir = dirWith(`${levels.join('\n')}\n`);
    const error = configError(() => loadConfig({ cwd: dir, env: {} }));
    expect(error.code).toBe('config_invalid');
    expect(error.kind).toBe('usage');
    expect(error.what).toContain('Excessive alias count');
    expect(error.why).toMatch(/aliases/);
    expect(error.fix.join('\n')).toMatch(/Write the values out/);
  });

  it('an unknown template variable in a path is an error naming the key and line, and nothing is created', () => {
    const dir = dirWith('check:\n  timeout: 5\nlog:\n  dir: "{nope.nope}/x"\n');
    const error = configError(() => loadConfig({ cwd: dir, env: {} }));
    expect(error.issues).toEqual([
      { path: 'log.dir', message: expect.stringContaining('unknown template variable {nope.nope}'), line: 4 },
    ]);
    expect(readdirSync(dir)).toEqual(['splintercat.yaml']);
    expect(existsSync(join(dir, '{nope.nope}'))).toBe(false);
  });

  it('known templates and shell braces in commands are left alone', () => {
    const dir = dirWith(
      'check:\n  commands:\n    each: "for f in *; do { echo {x} $f; }; done"\n  setup: "echo {y}"\nlog:\n  dir: "{target.workdir}/l"\n',
    );
    const { config } = loadConfig({ cwd: dir, env: {} });
    expect(config.log.dir).toBe(join(dir, 'l'));
    expect(config.check.commands.each).toContain('{x}');
  });

  it.each([['__proto__.polluted=1'], ['constructor.prototype.polluted=1'], ['check.__proto__.polluted=1']])(
    '--set %s is refused and Object.prototype stays clean',
    (assignment) => {
      const error = configError(() => loadConfig({ cwd: tempDir(), env: {}, sets: [assignment] }));
      expect(error.issues[0]?.message).toMatch(/refused/);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype).not.toHaveProperty('polluted');
    },
  );

  it('an environment override through __proto__ is refused too', () => {
    const error = configError(() =>
      loadConfig({
        cwd: tempDir(),
        env: { SPLINTERCAT_CHECK____PROTO____POLLUTED: '1', SPLINTERCAT_CONSTRUCTOR__PROTOTYPE__POLLUTED: '1' },
      }),
    );
    expect(error.issues.map((i) => i.message)).toEqual([expect.stringMatching(/refused/)]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('check.writable: ~ expanded, relative paths against the workdir', () => {
    const dir = dirWith('check:\n  writable: ["~/.npm", cache, /opt/x]\n');
    const { config } = loadConfig({ cwd: dir, env: { HOME: '/home/u' } });
    expect(config.check.writable).toEqual(['/home/u/.npm', join(dir, 'cache'), '/opt/x']);
    expect(config.check.sandbox).toBe('auto');
    expect(config.check.setup_when).toContain('package-lock.json');
  });
});
