import { describe, expect, it } from 'vitest';
import { higherVersion } from './higher-version.js';

const resolve = (base: string, ours: string, theirs: string, path = 'package.json'): string | null =>
  higherVersion.resolve({ base, ours, theirs }, { path, eol: '\n' });

describe('higher-version', () => {
  it('keeps the higher of two upgrades of one dependency (body-parser history: qs 6.9.3 -> 6.9.4 / 6.9.6)', () => {
    expect(resolve('    "qs": "6.9.3",\n', '    "qs": "6.9.4",\n', '    "qs": "6.9.6",\n')).toBe(
      '    "qs": "6.9.6",\n',
    );
    expect(resolve('    "qs": "6.9.3",\n', '    "qs": "6.9.6",\n', '    "qs": "6.9.4",\n')).toBe(
      '    "qs": "6.9.6",\n',
    );
  });
  it('orders a prerelease of the next major above the last minor (serve-static: send 1.0.0-beta.1 against 0.18.0)', () => {
    expect(resolve('    "send": "0.17.2"\n', '    "send": "1.0.0-beta.1"\n', '    "send": "0.18.0"\n')).toBe(
      '    "send": "1.0.0-beta.1"\n',
    );
  });
  it('merges a hunk of several dependency lines line by line, a line one side left taking the other', () => {
    const base = '    "mocha": "11.7.2",\n    "oracledb": "6.9.0",\n';
    const ours = '    "mocha": "11.7.3",\n    "oracledb": "6.9.0",\n';
    const theirs = '    "mocha": "11.7.5",\n    "oracledb": "6.10.0",\n';
    expect(resolve(base, ours, theirs)).toBe(theirs);
  });
  it('reads requirements and TOML lines', () => {
    expect(resolve('kombu==2.1.0\n', 'kombu==2.1.3\n', 'kombu==2.2.0\n', 'requirements.txt')).toBe('kombu==2.2.0\n');
    expect(resolve('serde = "1.0.100"\n', 'serde = "1.0.190"\n', 'serde = "1.0.180"\n', 'Cargo.toml')).toBe(
      'serde = "1.0.190"\n',
    );
  });
  it("leaves a package's own version to a person (typeorm corpus: the person wrote a third one)", () => {
    expect(resolve('  "version": "0.1.5",\n', '  "version": "0.2.0-alpha.7",\n', '  "version": "0.1.6",\n')).toBeNull();
    expect(resolve('version = "0.1.5"\n', 'version = "0.2.0"\n', 'version = "0.1.6"\n', 'Cargo.toml')).toBeNull();
  });
  it('abstains where a side lowered the version (a pin), on ranges, on different prefixes and on different names', () => {
    expect(resolve('    "a": "2.0.0"\n', '    "a": "1.9.0"\n', '    "a": "2.1.0"\n')).toBeNull();
    expect(resolve('    "a": "^5.0.0"\n', '    "a": "^5.0.0 || ^6.0.0"\n', '    "a": "^5.1.0"\n')).toBeNull();
    expect(resolve('    "a": "1.0.0"\n', '    "a": "^1.1.0"\n', '    "a": "~1.2.0"\n')).toBeNull();
    expect(resolve('    "a": "1.0.0"\n', '    "b": "1.1.0"\n', '    "a": "1.2.0"\n')).toBeNull();
    expect(resolve('    "a": "1.0.0",\n', '    "a": "1.1.0",\n    "b": "1.0.0",\n', '    "a": "1.2.0",\n')).toBeNull();
  });
  it('abstains when the two lines differ in more than the version (a trailing comma)', () => {
    expect(resolve('    "a": "1.0.0",\n', '    "a": "1.1.0"\n', '    "a": "1.1.0",\n')).toBeNull();
  });
});
