import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema, defaultWorktreesDir, loadConfig } from '../../src/config/index.js';
import { DEFAULT_CONFIG_YAML } from '../../src/config/default-file.js';
import { ConfigError } from '../../src/errors/index.js';
import { tempDir } from '../helpers/git-repo.js';

function dirWith(yaml: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'splintercat.yaml'), yaml);
  return dir;
}

function problems(fn: () => unknown): { file: string | undefined; issues: ConfigError['issues'] } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return { file: (error as ConfigError).file, issues: (error as ConfigError).issues };
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('defaults when there is no file; the init file loads back to exactly the defaults', () => {
    const dir = tempDir();
    const none = loadConfig({ cwd: dir, env: {} });
    expect(none.file).toBeUndefined();
    const defaults = configSchema.parse({});
    // Worktrees default to a sibling of the repository: no dot-directory in their paths.
    expect(none.config.merge).toEqual({ ...defaults.merge, worktrees: defaultWorktreesDir(dir) });
    expect(defaultWorktreesDir('/home/me/fork')).toBe('/home/me/fork-splintercat');
    expect(loadConfig({ cwd: dir, env: {}, sets: ['merge.worktrees=../wt'] }).config.merge.worktrees).toBe(
      join(dir, '..', 'wt'),
    );
    writeFileSync(join(dir, 'splintercat.yaml'), DEFAULT_CONFIG_YAML);
    const written = loadConfig({ cwd: dir, env: {} });
    expect(written.file).toBe(join(dir, 'splintercat.yaml'));
    expect(written.config).toEqual(none.config);
  });

  it('precedence: defaults < YAML < SPLINTERCAT_ environment < --set', () => {
    const dir = dirWith(
      'llm:\n  resolver_model: from-yaml\n  planner_model: from-yaml\n  summarizer_model: from-yaml\n',
    );
    const env = { SPLINTERCAT_LLM__PLANNER_MODEL: 'from-env', SPLINTERCAT_LLM__SUMMARIZER_MODEL: 'from-env' };
    const { config } = loadConfig({ cwd: dir, env, sets: ['llm.summarizer_model=from-set'] });
    expect(config.llm.provider).toBe('openrouter'); // default
    expect(config.llm.resolver_model).toBe('from-yaml');
    expect(config.llm.planner_model).toBe('from-env');
    expect(config.llm.summarizer_model).toBe('from-set');
  });

  it('types environment and --set values as YAML scalars', () => {
    const { config } = loadConfig({
      cwd: tempDir(),
      env: { SPLINTERCAT_CHECK__TIMEOUT: '90', SPLINTERCAT_IMERGE__FIRST_PARENT: 'false' },
      sets: ['merge.parallel=2', 'merge.available_strategies=[batch, per_conflict]', 'check.commands.build=make -j2'],
    });
    expect(config.check.timeout).toBe(90);
    expect(config.imerge.first_parent).toBe(false);
    expect(config.merge.parallel).toBe(2);
    expect(config.merge.available_strategies).toEqual(['batch', 'per_conflict']);
    expect(config.check.commands).toEqual({ build: 'make -j2' });
  });

  it('templating: {target.workdir} and ${VAR}, with unset variables listed; relative workdir resolved against the file', () => {
    const dir = dirWith(
      'target:\n  workdir: repo\ncheck:\n  commands:\n    build: make -C {target.workdir} TOKEN=${BUILD_TOKEN}\nllm:\n  api_key: ${MISSING_KEY}\n',
    );
    const { config, missingEnv } = loadConfig({
      cwd: '/',
      env: { BUILD_TOKEN: 'abc' },
      configPath: join(dir, 'splintercat.yaml'),
    });
    expect(config.target.workdir).toBe(join(dir, 'repo'));
    expect(config.check.commands.build).toBe(`make -C ${join(dir, 'repo')} TOKEN=abc`);
    expect(config.log.dir).toBe(join(dir, 'repo', '.splintercat', 'logs'));
    expect(config.llm.api_key).toBe('');
    expect(missingEnv).toEqual(['MISSING_KEY']);
  });

  it('--config FILE that does not exist', () => {
    const { issues } = problems(() => loadConfig({ cwd: tempDir(), configPath: 'nope.yaml', env: {} }));
    expect(issues[0]?.message).toMatch(/file not found/);
  });

  it('invalid file 1: YAML syntax error, with the line', () => {
    const { file, issues } = problems(() =>
      loadConfig({ cwd: dirWith('check:\n  timeout: 10\n  commands: [unclosed\n'), env: {} }),
    );
    expect(file).toMatch(/splintercat\.yaml$/);
    expect(issues[0]?.message).toMatch(/^YAML syntax/);
    expect(issues[0]?.line).toBeGreaterThanOrEqual(3);
  });

  it('invalid file 2: wrong types, every problem with its dot-path and line', () => {
    const { issues } = problems(() =>
      loadConfig({ cwd: dirWith('check:\n  timeout: soon\nmerge:\n  strategy: yolo\n  parallel: -1\n'), env: {} }),
    );
    expect(issues.map((i) => [i.path, i.line])).toEqual([
      ['check.timeout', 2],
      ['merge.strategy', 4],
      ['merge.parallel', 5],
    ]);
  });

  it('invalid file 3: unknown keys are named, not ignored', () => {
    const { issues } = problems(() =>
      loadConfig({ cwd: dirWith('llm:\n  resolver_modle: x\nchecks:\n  build: make\n'), env: {} }),
    );
    expect(issues.map((i) => i.path).sort()).toEqual(['checks', 'llm.resolver_modle']);
    expect(issues.find((i) => i.path === 'llm.resolver_modle')?.line).toBe(2);
    expect(issues[0]?.message).toMatch(/unknown key/);
  });

  it('a bad value from --set or the environment names it, not a line of the file', () => {
    const dir = dirWith('check:\n  timeout: 60\n');
    const env = { SPLINTERCAT_MERGE__MAX_RETRIES: '3' };
    const { issues } = problems(() => loadConfig({ cwd: dir, env, sets: ['check.timeout=abc', 'check.nope=1'] }));
    expect(Object.fromEntries(issues.map((i) => [i.path, [i.from, i.line]]))).toEqual({
      'check.timeout': ['--set check.timeout=abc', undefined],
      'check.nope': ['--set check.nope=1', undefined],
      'merge.max_retries': ['SPLINTERCAT_MERGE__MAX_RETRIES', undefined],
    });
    const error = (() => {
      try {
        loadConfig({ cwd: tempDir(), env: {}, sets: ['check.nope=1'] });
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error.message).toBe('Invalid configuration from --set or the environment');
  });

  it('resolve.paths: an unknown decision is an error at its line; resolve.learnt takes a plain mode', () => {
    const { issues } = problems(() =>
      loadConfig({
        cwd: dirWith('resolve:\n  paths:\n    "locales/*.json": theirs\n    "src/**": theirz\n'),
        env: {},
      }),
    );
    expect(issues.map((i) => [i.path, i.line])).toEqual([['resolve.paths.src/**', 4]]);
    expect(issues[0]?.message).toMatch(
      /unknown decision: use ours, theirs, union .*person, or \{regenerate: COMMAND\}/,
    );
    const { config } = loadConfig({
      cwd: dirWith(
        'resolve:\n  learnt: apply\n  paths:\n    "*.lock": {regenerate: "make lock {x}"}\n    "NEWS": {union: theirs-first}\n',
      ),
      env: {},
    });
    expect(config.resolve.learnt).toEqual({ mode: 'apply', threshold: 1, min_merges: 3, merges: 200, seconds: 30 });
    expect(config.resolve.paths).toEqual({
      '*.lock': { regenerate: 'make lock {x}' },
      NEWS: { union: 'theirs-first' },
    });
    expect(loadConfig({ cwd: tempDir(), env: {}, sets: ['resolve.learnt=off'] }).config.resolve.learnt.mode).toBe(
      'off',
    );
  });
});
