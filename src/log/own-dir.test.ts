import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, closeSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureOwnDir, openAppendNoFollow } from './own-dir.js';

function dirs(): { root: string; outside: string } {
  const base = mkdtempSync(join(tmpdir(), 'splintercat-own-dir-'));
  const root = join(base, 'repo');
  const outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  return { root, outside };
}

describe('ensureOwnDir', () => {
  it('creates the missing components under the root', () => {
    const { root } = dirs();
    expect(ensureOwnDir(join(root, '.splintercat', 'logs'), root)).toBe(join(root, '.splintercat', 'logs'));
    expect(ensureOwnDir(join(root, '.splintercat', 'logs'), root)).toBe(join(root, '.splintercat', 'logs'));
  });

  it('refuses a link on the way under the root, at any depth, naming it', () => {
    const { root, outside } = dirs();
    symlinkSync(outside, join(root, '.splintercat'));
    expect(() => ensureOwnDir(join(root, '.splintercat', 'logs'), root)).toThrow(/\.splintercat is a link/);
    const other = dirs();
    mkdirSync(join(other.root, '.splintercat'));
    symlinkSync(other.outside, join(other.root, '.splintercat', 'logs'));
    expect(() => ensureOwnDir(join(other.root, '.splintercat', 'logs'), other.root)).toThrow(/logs is a link/);
  });

  it('refuses a file where a directory goes', () => {
    const { root } = dirs();
    writeFileSync(join(root, '.splintercat'), '');
    expect(() => ensureOwnDir(join(root, '.splintercat', 'logs'), root)).toThrow(/not a directory/);
  });

  it('takes a directory outside the root as it is (the person chose it), links included', () => {
    const { root, outside } = dirs();
    const link = join(outside, 'via');
    symlinkSync(outside, link);
    expect(ensureOwnDir(join(link, 'logs'), root)).toBe(join(link, 'logs'));
  });
});

describe('openAppendNoFollow', () => {
  it('appends to a file, and refuses a link at the last component', () => {
    const { root, outside } = dirs();
    const fd = openAppendNoFollow(join(root, 'a.log'));
    writeSync(fd, 'x\n');
    closeSync(fd);
    expect(readFileSync(join(root, 'a.log'), 'utf8')).toBe('x\n');
    writeFileSync(join(outside, 'target'), 'kept\n');
    symlinkSync(join(outside, 'target'), join(root, 'b.log'));
    expect(() => openAppendNoFollow(join(root, 'b.log'))).toThrow(/b\.log is a link/);
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('kept\n');
  });
});
