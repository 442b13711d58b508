import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';
import { configChanges, configFromStored, storeConfig } from './stored-config.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dirWith(yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'splintercat-stored-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'splintercat.yaml'), yaml);
  return dir;
}

describe('stored configuration', () => {
  it('keeps the API key as the ${VAR} written in the file, resolved again from the environment of each command', () => {
    const dir = dirWith('llm:\n  api_key: ${MY_KEY}\n  resolver_model: m\ncheck:\n  commands:\n    test: npm test\n');
    const loaded = loadConfig({ cwd: dir, env: { MY_KEY: 'sk-secret-1' }, sets: ['check.timeout=30'] });
    expect(loaded.config.llm.api_key).toBe('sk-secret-1');
    const stored = storeConfig(loaded, null, ['check.timeout=30']);
    expect(JSON.stringify(stored)).not.toContain('sk-secret-1');
    expect(stored).toMatchObject({ file: join(dir, 'splintercat.yaml'), sets: ['check.timeout=30'] });
    expect(stored.fileHash).toMatch(/^[0-9a-f]{64}$/);
    const later = configFromStored(JSON.parse(JSON.stringify(stored)), { env: { MY_KEY: 'sk-secret-2' } }).config;
    expect(later.llm.api_key).toBe('sk-secret-2');
    expect(later.check.timeout).toBe(30);
    expect(later.check.commands).toEqual({ test: 'npm test' });
    expect(later.log.dir).toBe(join(dir, '.splintercat', 'logs'));
  });

  it('never stores a key written literally or given by --set or the environment', () => {
    const literal = loadConfig({ cwd: dirWith('llm:\n  api_key: sk-literal\n'), env: {} });
    expect(storeConfig(literal, null, []).values).toMatchObject({ llm: { api_key: '' } });
    const set = loadConfig({
      cwd: dirWith(''),
      env: { SPLINTERCAT_LLM__API_KEY: 'sk-env' },
      sets: ['llm.api_key=sk-set'],
    });
    const stored = storeConfig(set, null, ['llm.api_key=sk-set', 'merge.parallel=2']);
    expect(JSON.stringify(stored)).not.toMatch(/sk-(env|set)/);
    expect(stored.sets).toEqual(['merge.parallel=2']);
    // The key of this command (file, environment, --set) serves when the run stores none.
    expect(configFromStored(stored, { env: {}, currentApiKey: 'sk-now' }).config.llm.api_key).toBe('sk-now');
  });

  it("stores a secret variable that a template put into any value as that ${VAR} again, expanded from each command's environment", () => {
    const dir = dirWith(
      'check:\n  commands:\n    publish: \'curl -H "Authorization: ${DEPLOY_TOKEN}" https://example.com\'\n',
    );
    const env = { DEPLOY_TOKEN: 'tok-0123456789' };
    const loaded = loadConfig({ cwd: dir, env });
    expect(loaded.config.check.commands.publish).toContain('tok-0123456789');
    const stored = storeConfig(loaded, null, [], env);
    expect(JSON.stringify(stored)).not.toContain('tok-0123456789');
    expect(configFromStored(stored, { env: { DEPLOY_TOKEN: 'tok-later-98765' } }).config.check.commands.publish).toBe(
      'curl -H "Authorization: tok-later-98765" https://example.com',
    );
  });

  it('applies a later --set on top of the stored values and adds it to the stored ones', () => {
    const dir = dirWith('check:\n  commands:\n    build: make\n');
    const first = storeConfig(loadConfig({ cwd: dir, env: {}, sets: ['merge.parallel=2'] }), null, [
      'merge.parallel=2',
    ]);
    const next = configFromStored(first, { env: {}, sets: ['check.timeout=9'] });
    expect(next.config.merge.parallel).toBe(2);
    expect(next.config.check.timeout).toBe(9);
    expect(storeConfig(next, first, ['check.timeout=9'])).toMatchObject({
      file: first.file,
      fileHash: first.fileHash,
      sets: ['merge.parallel=2', 'check.timeout=9'],
    });
  });

  it('names the keys that differ, by command name inside check.commands, never the API key', () => {
    const a = loadConfig({
      cwd: dirWith('check:\n  commands:\n    build: make\n    test: make test\n'),
      env: {},
    }).config;
    const b = structuredClone(a);
    b.check.commands.test = 'make check';
    b.check.timeout = 5;
    b.llm.api_key = 'other';
    expect(configChanges(a, b)).toEqual(['check.commands.test', 'check.timeout']);
    expect(configChanges(a, a)).toEqual([]);
  });
});

describe("the person's earlier configuration values", () => {
  it('reads merge.resolver manual and the resolve.paths decision human as person, silently', () => {
    const loaded = loadConfig({
      cwd: dirWith('merge:\n  resolver: manual\nresolve:\n  paths:\n    "src/**": human\n'),
      env: {},
    });
    expect(loaded.warnings).toEqual([]);
    expect(loaded.config.merge.resolver).toBe('person');
    expect(loaded.config.resolve.paths).toEqual({ 'src/**': 'person' });
    const today = loadConfig({
      cwd: dirWith('merge:\n  resolver: person\nresolve:\n  paths:\n    "src/**": person\n'),
      env: {},
    });
    expect(today.config.merge.resolver).toBe('person');
    expect(today.config.resolve.paths).toEqual({ 'src/**': 'person' });
  });
});
