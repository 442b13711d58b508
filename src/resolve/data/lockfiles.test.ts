import { describe, expect, it } from 'vitest';
import { isLockfile, regenerateCommandFor } from './lockfiles.js';

describe('lockfiles', () => {
  it('knows the package managers’ lockfiles by name', () => {
    for (const p of [
      'package-lock.json',
      'web/yarn.lock',
      'pnpm-lock.yaml',
      'Cargo.lock',
      'Gemfile.lock',
      'go.sum',
      'poetry.lock',
    ])
      expect(isLockfile(p), p).toBe(true);
    expect(isLockfile('package.json')).toBe(false);
  });
  it('matches resolve.regenerate globs: a name alone in any folder, a path glob as written', () => {
    const regenerate = {
      'package-lock.json': 'npm install --package-lock-only',
      'crates/**/Cargo.lock': 'cargo generate-lockfile',
    };
    expect(regenerateCommandFor('app/package-lock.json', regenerate)?.command).toBe('npm install --package-lock-only');
    expect(regenerateCommandFor('crates/a/b/Cargo.lock', regenerate)?.glob).toBe('crates/**/Cargo.lock');
    expect(regenerateCommandFor('Cargo.lock', regenerate)).toBeNull();
    expect(regenerateCommandFor('yarn.lock', {})).toBeNull();
  });
});
