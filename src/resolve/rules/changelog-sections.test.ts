import { describe, expect, it } from 'vitest';
import { changelogSections, releaseHeadings } from './changelog-sections.js';

/**
 * Resolve a conflict where, above the file's `rest`, ours inserted `ours` and
 * theirs inserted `theirs` (the base has neither): the files the rule checks
 * are each side's whole file.
 */
function resolve(ours: string, theirs: string, rest: string, path = 'CHANGELOG.md', head = ''): string | null {
  return changelogSections.resolve(
    { base: '', ours, theirs },
    {
      path,
      eol: '\n',
      files: { base: head + rest, ours: head + ours + rest, theirs: head + theirs + rest },
    },
  );
}

const md = (version: string, note: string): string => `## ${version}\n\n* ${note}\n\n`;
const history = (version: string, date: string, note: string): string =>
  `${version} / ${date}\n${'='.repeat(version.length + date.length + 3)}\n\n  * ${note}\n\n`;

describe('changelog-sections', () => {
  it('keeps both sides’ new releases, newest first (Markdown headings, ours newer)', () => {
    const ours = md('0.2.0 (next)', 'refactored persistence');
    const theirs = md('0.1.13', 'added simple-json');
    expect(resolve(ours, theirs, md('0.1.12', 'older'), 'CHANGELOG.md', '# Changelog\n\n')).toBe(ours + theirs);
  });
  it('puts theirs first where theirs is newer, in version order, not text order (1.10.0 above 1.9.1)', () => {
    const ours = md('1.9.1', 'a fix');
    const theirs = md('1.10.0', 'a feature');
    expect(resolve(ours, theirs, md('1.9.0', 'older'))).toBe(theirs + ours);
  });
  it('reads underlined headings with dates, and adds the blank line a side did not bring', () => {
    const ours = '2.1.0 / 2024-05-01\n==================\n\n  * new\n';
    const theirs = history('2.0.3', '2024-04-01', 'fix');
    expect(resolve(ours, theirs, history('2.0.2', '2024-01-01', 'old'), 'HISTORY.md')).toBe(`${ours}\n${theirs}`);
  });
  it('reads reStructuredText sections with link targets and "Version" headings', () => {
    const ours = '.. _version-3.1.0:\n\n3.1.0\n=====\n:state: DEVEL\n\n- new\n\n';
    const theirs = '.. _version-3.0.6:\n\n3.0.6\n=====\n\n- fix\n\n';
    const rest = '.. _version-3.0.5:\n\n3.0.5\n=====\n\n- old\n';
    expect(resolve(ours, theirs, rest, 'docs/Changelog')).toBe(ours + theirs);
    const v = (n: string): string => `Version ${n}\n-------------\n\nUnreleased\n\n- x\n\n`;
    expect(resolve(v('2.1.0'), v('2.0.2'), v('2.0.1'), 'CHANGES.rst')).toBe(v('2.1.0') + v('2.0.2'));
  });
  it('abstains wherever the file is not in release order throughout, even far below the merge', () => {
    // Read only around the merge, the rule would also decide where people folded or dropped a
    // maintenance line's sections by hand: the whole file's order is the condition, not a detail.
    const [ours, theirs] = [md('2.0.0', 'a'), md('1.5.1', 'b')];
    const older = ['1.5.0', '1.4.0', '1.3.0', '0.9.5'].map((v) => md(v, 'old')).join('');
    expect(resolve(ours, theirs, older)).toBe(ours + theirs);
    const slip = ['1.5.0', '1.4.0', '1.3.0', '0.9.6', '0.9.7', '0.9.5'].map((v) => md(v, 'old')).join('');
    expect(resolve(ours, theirs, slip)).toBeNull();
    expect(resolve(ours, theirs, older + md('1.5.1', 'listed before'))).toBeNull();
  });
  it('abstains where the calendar contradicts the version order (a new major’s beta above a later patch)', () => {
    const ours = history('2.0.0-beta.1', '2021-12-17', 'beta');
    const theirs = history('1.19.2', '2022-02-15', 'deps');
    expect(resolve(ours, theirs, history('1.19.1', '2021-12-10', 'old'), 'HISTORY.md')).toBeNull();
  });
  it('abstains where the releases interleave, repeat, or cannot be ordered', () => {
    const rest = md('1.0.0', 'old');
    expect(resolve(md('1.3.0', 'a') + md('1.1.0', 'b'), md('1.2.0', 'c'), rest)).toBeNull();
    expect(resolve(md('1.1.0', 'a'), md('1.1.0', 'b'), rest)).toBeNull();
    expect(resolve(md('1.1', 'a'), md('1.1.0', 'b'), rest)).toBeNull();
    expect(resolve(md('v1.2.0', 'a'), md('1.1.0', 'b'), rest)).toBeNull();
  });
  it('abstains unless each side adds only whole release sections at the top of a newest-first file', () => {
    const rest = md('1.0.0', 'old');
    expect(resolve('* a bullet\n', md('1.1.0', 'b'), rest)).toBeNull();
    expect(resolve(md('Unreleased', 'a'), md('1.1.0', 'b'), rest)).toBeNull();
    // An oldest-first file: the new releases belong below the old ones.
    const first = md('0.8.0', 'first');
    expect(resolve(md('1.2.0', 'a'), md('1.1.0', 'b'), md('0.9.0', 'older'), 'CHANGELOG.md', first)).toBeNull();
    expect(resolve(md('1.2.0', 'a'), md('1.1.0', 'b'), '', 'CHANGELOG.md', first)).toBeNull();
  });
  it('abstains outside release notes, with a base, and without the whole files', () => {
    const [ours, theirs] = [md('1.2.0', 'a'), md('1.1.0', 'b')];
    expect(resolve(ours, theirs, md('1.0.0', 'old'), 'docs/guide.md')).toBeNull();
    expect(changelogSections.resolve({ base: 'x\n', ours, theirs }, { path: 'CHANGELOG.md', eol: '\n' })).toBeNull();
    expect(changelogSections.resolve({ base: '', ours, theirs }, { path: 'CHANGELOG.md', eol: '\n' })).toBeNull();
  });
  it('finds headings only where they are release headings', () => {
    const text = '# 1.2.0\n1.1.0 is mentioned here\n1.0.0 / 2020-01-01\n===\n- 0.9.0\n---\n## 1.2.0b\n';
    expect(releaseHeadings(text).map((h) => [h.version, h.date])).toEqual([
      ['1.2.0', null],
      ['1.0.0', '2020-01-01'],
    ]);
  });
});
