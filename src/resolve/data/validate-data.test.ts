import { describe, expect, it } from 'vitest';
import { dataProblems } from './validate-data.js';

describe('dataProblems', () => {
  it('refuses a JSON object with a repeated key, naming the key and its line (four "version" keys were once accepted)', () => {
    const text = '{\n  "name": "x",\n  "version": "1.0.0",\n  "version": "1.0.1"\n}\n';
    expect(dataProblems('json', text)).toEqual(['not valid JSON: line 4, column 3: duplicate key "version"']);
    expect(dataProblems('json', '{"a": {"b": 1}, "c": {"b": 2}}')).toEqual([]);
    expect(dataProblems('json', '{"a": [{"b": 1}, {"b": 2}]}')).toEqual([]);
    expect(dataProblems('json', '{"a": {"b": 1, "b": 2}}')[0]).toMatch(/duplicate key "b" in a/);
  });
  it('reads tsconfig-style files as JSONC: comments and trailing commas are fine there, not in strict JSON', () => {
    const text = '{\n  // strict mode\n  "compilerOptions": { "strict": true, },\n}\n';
    expect(dataProblems('jsonc', text)).toEqual([]);
    expect(dataProblems('json', text).length).toBeGreaterThan(0);
    expect(dataProblems('jsonc', '{"a": 1 "b": 2}')[0]).toMatch(/^not valid JSONC: line 1, column 9: CommaExpected/);
  });
  it('reports YAML and TOML errors with their line, repeated keys included', () => {
    expect(dataProblems('yaml', 'a: 1\nb: [1, 2]\n')).toEqual([]);
    expect(dataProblems('yaml', 'a: 1\na: 2\n')[0]).toMatch(
      /^not valid YAML: line 2, column 1: Map keys must be unique/,
    );
    expect(dataProblems('toml', '[package]\nname = "x"\n')).toEqual([]);
    expect(dataProblems('toml', 'a = 1\na = 2\n')[0]).toMatch(/^not valid TOML: line 2, column/);
  });
});
