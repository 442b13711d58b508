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

describe('higher-version on the pins people bump', () => {
  const sha = (c: string): string => c.repeat(40);
  it('keeps the higher of two PEP 440 versions (issue reproduction: packaging 23.1 -> 24.0 / 24.1)', () => {
    const at = (v: string): string => `a==1.0\npackaging==${v}\nz==1.0\n`;
    expect(resolve('packaging==23.1\n', 'packaging==24.0\n', 'packaging==24.1\n', 'req.txt')).toBeNull();
    expect(resolve('packaging==23.1\n', 'packaging==24.0\n', 'packaging==24.1\n', 'requirements.txt')).toBe(
      'packaging==24.1\n',
    );
    expect(resolve(at('23.1'), at('24.1'), at('24.0'), 'requirements/dev.in')).toBe(at('24.1'));
    expect(resolve('b==1.9\n', 'b==1.10\n', 'b==1.9.1\n', 'requirements.txt')).toBe('b==1.10\n');
    expect(
      resolve(
        'b[x]==1.0 ; python_version < "3.12"\n',
        'b[x]==1.2 ; python_version < "3.12"\n',
        'b[x]==1.1 ; python_version < "3.12"\n',
        'constraints.txt',
      ),
    ).toBe('b[x]==1.2 ; python_version < "3.12"\n');
  });
  it('reads pyproject.toml lists, Cargo tables and go.mod require lines', () => {
    expect(resolve('  "click>=8.0",\n', '  "click>=8.1.3",\n', '  "click>=8.1",\n', 'pyproject.toml')).toBe(
      '  "click>=8.1.3",\n',
    );
    const cargo = (v: string): string => `serde = { version = "${v}", features = ["derive"] }\n`;
    expect(resolve(cargo('1.0'), cargo('1.0.190'), cargo('1.0.180'), 'Cargo.toml')).toBe(cargo('1.0.190'));
    const go = (v: string): string => `\tgolang.org/x/sys ${v} // indirect\n`;
    expect(resolve(go('v0.10.0'), go('v0.12.0'), go('v0.11.0'), 'go.mod')).toBe(go('v0.12.0'));
    expect(
      resolve(
        'require golang.org/x/sys v0.1.0\n',
        'require golang.org/x/sys v0.3.0\n',
        'require golang.org/x/sys v0.2.0\n',
        'go.mod',
      ),
    ).toBe('require golang.org/x/sys v0.3.0\n');
  });
  it("reads a pre-commit hook's rev, plain or frozen to a commit", () => {
    const path = '.pre-commit-config.yaml';
    expect(resolve('    rev: v0.4.7\n', '    rev: v0.6.2\n', '    rev: v0.5.0\n', path)).toBe('    rev: v0.6.2\n');
    const frozen = (c: string, v: string): string => `    rev: ${sha(c)}  # frozen: ${v}\n`;
    expect(resolve(frozen('a', 'v4.4.0'), frozen('b', 'v4.5.0'), frozen('c', 'v4.6.0'), path)).toBe(
      frozen('c', 'v4.6.0'),
    );
  });
  it('reads a GitHub Actions step pinned to a tag, or to a commit with its tag in a comment', () => {
    const path = '.github/workflows/ci.yml';
    expect(
      resolve(
        '      - uses: actions/checkout@v3\n',
        '      - uses: actions/checkout@v4\n',
        '      - uses: actions/checkout@v3.6.0\n',
        path,
      ),
    ).toBe('      - uses: actions/checkout@v4\n');
    const step = (c: string, v: string): string => `      - uses: owner/action@${sha(c)} # ${v}\n`;
    expect(resolve(step('a', 'v4.3.0'), step('b', 'v4.3.4'), step('c', 'v4.3.6'), path)).toBe(step('c', 'v4.3.6'));
    expect(resolve(step('a', 'v4.3.0'), step('c', 'v4.3.6'), step('b', 'v4.3.4'), path)).toBe(step('c', 'v4.3.6'));
  });
  it("reads a Dockerfile's FROM image:tag, keeping the variant alike", () => {
    expect(resolve('FROM python:3.10-slim\n', 'FROM python:3.12-slim\n', 'FROM python:3.11-slim\n', 'Dockerfile')).toBe(
      'FROM python:3.12-slim\n',
    );
    expect(
      resolve('FROM node:18 AS build\n', 'FROM node:20 AS build\n', 'FROM node:22 AS build\n', 'docker/app.dockerfile'),
    ).toBe('FROM node:22 AS build\n');
  });
});

/**
 * Adversarial cases: versions, hashes, numbers and names that contain each
 * other, pins that move apart, files where a number is not a version.
 */
describe('higher-version abstains where the order is not certain', () => {
  const sha = (c: string): string => c.repeat(40);
  it('on an action whose commit and comment do not move together', () => {
    const path = '.github/workflows/ci.yml';
    const step = (c: string, v: string): string => `      - uses: owner/action@${sha(c)} # ${v}\n`;
    // ours moved the commit but not its comment; theirs moved the comment but not the commit
    expect(resolve(step('a', 'v4.3.0'), step('b', 'v4.3.0'), step('c', 'v4.3.6'), path)).toBeNull();
    expect(resolve(step('a', 'v4.3.0'), step('a', 'v4.3.4'), step('c', 'v4.3.6'), path)).toBeNull();
    // two commits that claim the same tag
    expect(resolve(step('a', 'v4.3.0'), step('b', 'v4.3.6'), step('c', 'v4.3.6'), path)).toBeNull();
    // a commit without a tag is no version
    const bare = (c: string): string => `      - uses: owner/action@${sha(c)}\n`;
    expect(resolve(bare('a'), bare('b'), bare('c'), path)).toBeNull();
    expect(
      resolve(`    rev: ${sha('a')}\n`, `    rev: ${sha('b')}\n`, `    rev: ${sha('c')}\n`, '.pre-commit-config.yaml'),
    ).toBeNull();
  });
  it('on different actions, images, modules or variants', () => {
    expect(resolve('  - uses: a/x@v1\n', '  - uses: a/x@v2\n', '  - uses: a/xy@v3\n', 'ci.yml')).toBeNull();
    expect(
      resolve('FROM python:3.10-slim\n', 'FROM python:3.11-slim\n', 'FROM python:3.12-alpine\n', 'Dockerfile'),
    ).toBeNull();
    expect(resolve('FROM py:3.10\n', 'FROM python:3.11\n', 'FROM py:3.12\n', 'Dockerfile')).toBeNull();
    expect(
      resolve('FROM python@sha256:aa\n', 'FROM python@sha256:bb\n', 'FROM python@sha256:cc\n', 'Dockerfile'),
    ).toBeNull();
  });
  it('on Go pseudo-versions (commits, not releases) and on a version a person chooses', () => {
    const go = (v: string): string => `\texample.com/m ${v}\n`;
    expect(
      resolve(
        go('v0.0.0-20210101000000-aaaaaaaaaaaa'),
        go('v0.0.0-20220101000000-bbbbbbbbbbbb'),
        go('v0.0.0-20230101000000-cccccccccccc'),
        'go.mod',
      ),
    ).toBeNull();
    expect(resolve('go 1.20\n', 'go 1.21\n', 'go 1.22\n', 'go.mod')).toBeNull();
    expect(
      resolve('rust-version = "1.70"\n', 'rust-version = "1.72"\n', 'rust-version = "1.74"\n', 'Cargo.toml'),
    ).toBeNull();
  });
  it('on numbers that are not versions: comparisons in code, ports in settings', () => {
    expect(resolve('    if n >= 10\n', '    if n >= 12\n', '    if n >= 15\n', 'app.py')).toBeNull();
    expect(resolve('count>=10\n', 'count>=12\n', 'count>=15\n', 'notes.txt')).toBeNull();
    expect(resolve('port = "8080"\n', 'port = "8081"\n', 'port = "8082"\n', 'config.toml')).toBeNull();
    expect(resolve('  "port": "1.0.0"\n', '  "port": "1.0.1"\n', '  "port": "1.0.2"\n', 'settings.json')).toBeNull();
  });
  it('on versions that contain each other as text but were lowered, or ordered alike', () => {
    expect(resolve('a==24.1\n', 'a==24.0\n', 'a==24.10\n', 'requirements.txt')).toBeNull();
    expect(resolve('a==1.2\n', 'a==1.2.0\n', 'a==1.2.0.0\n', 'requirements.txt')).toBeNull();
    expect(resolve('    rev: v1.2\n', '    rev: v1.2.0\n', '    rev: 1.3.0\n', '.pre-commit-config.yaml')).toBeNull();
  });
});
