import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConflictText, printConflictedFile, printOutsideHunk, printWithResolutions } from './markers.js';

function gitMergeFile(ours: string, base: string, theirs: string, extra: string[] = []): string {
  const dir = mkdtempSync(join(tmpdir(), 'sc-mf-'));
  try {
    writeFileSync(join(dir, 'o'), ours);
    writeFileSync(join(dir, 'b'), base);
    writeFileSync(join(dir, 't'), theirs);
    try {
      return execFileSync(
        'git',
        ['merge-file', '-p', ...extra, '-L', 'HEAD', '-L', 'merged common ancestors', '-L', 'feature', 'o', 'b', 't'],
        { cwd: dir, encoding: 'utf8' },
      );
    } catch (error) {
      return (error as { stdout: string }).stdout;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A small deterministic PRNG so generated cases are reproducible. */
function rng(start: number): () => number {
  let s = start >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const base = 'one\ntwo\nthree\nfour\nfive\n';
const ours = 'one\nTWO ours\nthree\nfour\nfive\n';
const theirs = 'one\nTWO theirs\nthree\nfour\nfive\n';

describe('parseConflictText', () => {
  it('reads merge-style markers with labels', () => {
    const text = gitMergeFile(ours, base, theirs);
    const file = parseConflictText(text, { path: 'a.txt' });
    expect(file.hunks).toHaveLength(1);
    const h = file.hunks[0]!;
    expect(h).toMatchObject({
      index: 1,
      startLine: 2,
      endLine: 6,
      base: null,
      ours: 'TWO ours\n',
      theirs: 'TWO theirs\n',
    });
    expect(h.labels).toEqual({ ours: 'HEAD', theirs: 'feature' });
    expect(printConflictedFile(file)).toBe(text);
  });

  it('reads diff3 markers with the base section and its label', () => {
    const text = gitMergeFile(ours, base, theirs, ['--diff3']);
    const h = parseConflictText(text).hunks[0]!;
    expect(h.base).toBe('two\n');
    expect(h.labels.base).toBe('merged common ancestors');
  });

  it('reads zdiff3 output', () => {
    const text = gitMergeFile('a\nX\nY\nz\n', 'a\nz\n', 'a\nX\nW\nz\n', ['--zdiff3']);
    const file = parseConflictText(text);
    expect(file.hunks).toHaveLength(1);
    expect(file.hunks[0]!.ours).toBe('Y\n');
    expect(file.hunks[0]!.theirs).toBe('W\n');
    expect(printConflictedFile(file)).toBe(text);
  });

  it('detects a custom conflict-marker-size and ignores 7-character lookalikes in content', () => {
    const content = 'x\n<<<<<<< not a marker\n=======\n>>>>>>> nope\n';
    const text = gitMergeFile(`${content}ours\n`, `${content}base\n`, `${content}theirs\n`, [
      '--diff3',
      '--marker-size=10',
    ]);
    const file = parseConflictText(text);
    expect(file.markerSize).toBe(10);
    expect(file.hunks).toHaveLength(1);
    expect(file.hunks[0]).toMatchObject({ ours: 'ours\n', base: 'base\n', theirs: 'theirs\n' });
    expect(printConflictedFile(file)).toBe(text);
  });

  it('keeps CRLF line endings inside the sides', () => {
    const crlf = (s: string): string => s.replace(/\n/g, '\r\n');
    const text = gitMergeFile(crlf(ours), crlf(base), crlf(theirs), ['--diff3']);
    const file = parseConflictText(text);
    expect(file.eol).toBe('\r\n');
    expect(file.hunks[0]!.ours).toBe('TWO ours\r\n');
    expect(printConflictedFile(file)).toBe(text);
  });

  it('leaves unterminated and malformed hunks as text', () => {
    for (const text of [
      'a\n<<<<<<< x\nb\n',
      'a\n<<<<<<< x\nb\n=======\nc\n',
      '<<<<<<< a\n<<<<<<< b\nx\n=======\ny\n>>>>>>> c\n',
    ]) {
      const file = parseConflictText(text);
      expect(printConflictedFile(file)).toBe(text);
    }
    expect(parseConflictText('a\n<<<<<<< x\nb\n').hunks).toHaveLength(0);
    // the inner, well-formed hunk is still found
    expect(parseConflictText('<<<<<<< a\n<<<<<<< b\nx\n=======\ny\n>>>>>>> c\n').hunks).toHaveLength(1);
  });

  it('round-trips many generated files, and real git merge-file output of generated edits', () => {
    const pieces = [
      'a\n',
      'b\r\n',
      '<<<<<<<\n',
      '<<<<<<< L\n',
      '=======\n',
      '||||||| B\n',
      '>>>>>>> R\n',
      '>>>>>>>\n',
      '',
      'no-eol',
      '\n',
      '<<<<<<<<<< x\n',
      '==========\n',
    ];
    const next = rng(42);
    for (let n = 0; n < 500; n++) {
      let text = '';
      const len = Math.floor(next() * 20);
      for (let i = 0; i < len; i++) text += pieces[Math.floor(next() * pieces.length)];
      expect(printConflictedFile(parseConflictText(text))).toBe(text);
    }
    const words = ['alpha', 'beta', 'gamma', 'delta', 'eps'];
    for (let n = 0; n < 40; n++) {
      const baseLines = Array.from({ length: 8 }, (_, i) => `${words[i % 5]} ${i}`);
      const edit = (): string =>
        baseLines.map((l) => (next() < 0.3 ? `${l} ${words[Math.floor(next() * 5)]}` : l)).join('\n') + '\n';
      const style = (['--diff3', '--zdiff3', '--merge'] as const)[n % 3]!;
      const text = gitMergeFile(edit(), baseLines.join('\n') + '\n', edit(), style === '--merge' ? [] : [style]);
      const file = parseConflictText(text);
      expect(printConflictedFile(file)).toBe(text);
      // resolving every hunk as ours leaves no markers
      const resolved = printWithResolutions(file, new Map(file.hunks.map((h) => [h.index, h.ours])));
      expect(resolved).not.toMatch(/^<<<<<<<|^>>>>>>>/m);
    }
  });

  it('prints the file without one hunk (what a rule sees as the rest of the file)', () => {
    const first = '<<<<<<< a\nA\n=======\nB\n>>>>>>> b\n';
    const second = '<<<<<<< a\nC\n=======\nD\n>>>>>>> b\n';
    const file = parseConflictText(`top\n${first}mid\n${second}end\n`);
    expect(printOutsideHunk(file, 1)).toBe(`top\nmid\n${second}end\n`);
    expect(printOutsideHunk(file, 2)).toBe(`top\n${first}mid\nend\n`);
  });
});
