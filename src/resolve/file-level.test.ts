import { describe, expect, it } from 'vitest';
import { decideFileConflict } from './file-level.js';
import { allRules } from './rules/index.js';

const f = (text: string, mode = '100644') => ({ mode, text });

describe('decideFileConflict', () => {
  it('deletes only when both sides deleted, or the surviving side is unchanged', () => {
    expect(decideFileConflict({ path: 'p', base: f('x') }).resolution?.action).toBe('delete');
    expect(decideFileConflict({ path: 'p', base: f('x'), ours: f('x') }).resolution).toMatchObject({
      action: 'delete',
      by: 'unchanged-side-deleted',
    });
  });
  it('hands modify/delete on with both options', () => {
    const d = decideFileConflict({ path: 'p', base: f('x'), theirs: f('y') });
    expect(d.kind).toBe('modify/delete');
    expect(d.resolution).toBeNull();
    expect(d.options.map((o) => o.action)).toEqual(['keep-theirs', 'delete']);
    expect(d.description).toMatch(/ours deleted p while theirs changed it/);
  });
  it('classifies add/add, binary, symlink, submodule and mode conflicts', () => {
    expect(decideFileConflict({ path: 'p', ours: f('a'), theirs: f('b') }).kind).toBe('add/add');
    expect(decideFileConflict({ path: 'p', ours: f('a'), theirs: f('b') }).resolution).toBeNull();
    expect(decideFileConflict({ path: 'p', ours: f('a'), theirs: f('a') }).resolution?.by).toBe(
      'same-file-on-both-sides',
    );
    expect(decideFileConflict({ path: 'p', base: f('\u0000a'), ours: f('\u0000b'), theirs: f('\u0000c') }).kind).toBe(
      'binary',
    );
    expect(
      decideFileConflict({ path: 'p', base: f('\u0000a'), ours: f('\u0000a'), theirs: f('\u0000c') }).resolution
        ?.action,
    ).toBe('keep-theirs');
    expect(
      decideFileConflict({ path: 'p', base: f('t', '120000'), ours: f('u', '120000'), theirs: f('v', '120000') }).kind,
    ).toBe('symlink');
    const sub = decideFileConflict({
      path: 'p',
      base: { mode: '160000', oid: 'a' },
      ours: { mode: '160000', oid: 'b' },
      theirs: { mode: '160000', oid: 'c' },
    });
    expect(sub.kind).toBe('submodule');
    expect(sub.resolution).toBeNull();
    const mode = decideFileConflict({ path: 'p', base: f('x'), ours: f('y', '100755'), theirs: f('y', '100644') });
    expect(mode.kind).toBe('mode');
    expect(mode.resolution?.action).toBe('keep-ours');
  });
  it('leaves a content conflict to the hunk ladder', () => {
    const d = decideFileConflict({ path: 'p', base: f('x'), ours: f('y'), theirs: f('z') });
    expect(d).toMatchObject({ kind: 'content', resolution: null });
    expect(d.options[0]?.action).toBe('merge-content');
  });
  it('names its decisions for what it saw, never after a hunk rule', () => {
    const decided = [
      decideFileConflict({ path: 'p', base: f('x') }),
      decideFileConflict({ path: 'p', ours: f('a'), theirs: f('a') }),
      decideFileConflict({ path: 'p', base: f('x'), ours: f('x') }),
      decideFileConflict({ path: 'p', base: f('\u0000a'), ours: f('\u0000a'), theirs: f('\u0000c') }),
      decideFileConflict({ path: 'p', base: f('x'), ours: f('x', '100755'), theirs: f('x', '100644') }),
    ].map((d) => d.resolution?.by);
    expect(decided).toEqual([
      'deleted-on-both-sides',
      'same-file-on-both-sides',
      'unchanged-side-deleted',
      'file-changed-on-one-side',
      'file-changed-on-one-side',
    ]);
    const ruleNames = new Set(allRules.map((r) => r.name));
    expect(decided.filter((name) => name !== undefined && ruleNames.has(name))).toEqual([]);
  });
});
