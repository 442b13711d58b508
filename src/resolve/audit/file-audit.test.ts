import { describe, expect, it } from 'vitest';
import { auditCell, auditFile, sideLost } from './file-audit.js';

const router = (...middle: string[]): string =>
  ['function route(req) {', '  const path = req.url;', ...middle, '  return dispatch(path);', '}', ''].join('\n');

describe('auditFile', () => {
  it('reports the three lines the fork added that `take theirs` dropped, and nothing for upstream', () => {
    const base = router();
    const ours = router('  if (path.startsWith("/fork")) {', '    audit(req);', '  }');
    const theirs = router('  log.debug(path);');
    const audit = auditFile({ path: 'lib/router.js', base, ours, theirs, resolved: theirs });
    expect(audit.ours).toMatchObject({ changed: true, hunks: 1, dropped: 3, restored: 0, rewritten: 0, moved: 0 });
    expect(audit.ours.losses[0]?.dropped).toEqual([
      { line: 3, text: '  if (path.startsWith("/fork")) {' },
      { line: 4, text: '    audit(req);' },
      { line: 5, text: '  }' },
    ]);
    expect(sideLost(audit.theirs)).toBe(false);
  });

  it('reports nothing when the resolution keeps both sides, whatever the indentation', () => {
    const base = router();
    const ours = router('  fork();');
    const theirs = router('  upstream();');
    const resolved = router('      fork();', '  upstream();');
    const audit = auditFile({ path: 'a.js', base, ours, theirs, resolved });
    expect(sideLost(audit.ours)).toBe(false);
    expect(sideLost(audit.theirs)).toBe(false);
  });

  it('counts a function the fork moved as kept, and says where', () => {
    const helper = ['function helper(x) {', '  return x * 2;', '}'];
    const base = ['const a = 1;', '', 'function main() {', '  return a;', '}', ''].join('\n');
    const ours = ['const a = 1;', '', ...helper, '', 'function main() {', '  return a;', '}', ''].join('\n');
    const theirs = ['const a = 2;', '', 'function main() {', '  return a;', '}', ''].join('\n');
    // The resolution keeps the fork's helper, but below main: it moved, nothing is lost.
    const resolved = ['const a = 2;', '', 'function main() {', '  return a;', '}', '', ...helper, ''].join('\n');
    const audit = auditFile({ path: 'm.js', base, ours, theirs, resolved });
    expect(sideLost(audit.ours)).toBe(false);
    expect(sideLost(audit.theirs)).toBe(false);
    expect(audit.ours.moved).toBe(3);
    expect(audit.ours.losses[0]?.moved[0]).toEqual({
      line: 3,
      text: 'function helper(x) {',
      to: { path: 'm.js', line: 7 },
    });
  });

  it('counts lines moved to another file of the cell as kept there', () => {
    const helper = ['export function helper(x) {', '  return x * 2;', '}'];
    const base = ['import { a } from "./a";', ''].join('\n');
    const ours = ['import { a } from "./a";', '', ...helper, ''].join('\n');
    const theirs = ['import { a, b } from "./a";', ''].join('\n');
    const audit = auditCell([
      { path: 'main.js', base, ours, theirs, resolved: theirs },
      {
        path: 'helper.js',
        base: 'export {};\n',
        ours: 'export {};\n',
        theirs: 'export {};\n',
        resolved: `export {};\n${helper.join('\n')}\n`,
      },
    ]);
    expect(sideLost(audit[0]!.ours)).toBe(false);
    expect(audit[0]!.ours.losses[0]?.moved.map((m) => m.to)).toEqual([
      { path: 'helper.js', line: 2 },
      { path: 'helper.js', line: 3 },
      { path: 'helper.js', line: 4 },
    ]);
  });

  it('reports the whole deletion when the resolution keeps a file the fork deleted', () => {
    const base = ['a', 'b', 'c', ''].join('\n');
    const theirs = ['a', 'b', 'c', 'd', ''].join('\n');
    const audit = auditFile({ path: 'old.js', base, ours: null, theirs, resolved: theirs });
    expect(audit.ours).toMatchObject({ deletedFile: true, restored: 3, dropped: 0 });
    expect(audit.ours.losses[0]?.restored.map((l) => l.text)).toEqual(['a', 'b', 'c']);
    expect(sideLost(audit.theirs)).toBe(false);
  });

  it('reports every line upstream added when the resolution deletes the file', () => {
    const base = ['a', 'b', ''].join('\n');
    const theirs = ['a', 'fix()', 'b', ''].join('\n');
    const audit = auditFile({ path: 'x.js', base, ours: null, theirs, resolved: null });
    expect(audit.theirs).toMatchObject({ resolvedDeleted: true, dropped: 1 });
    expect(audit.theirs.losses[0]?.dropped).toEqual([{ line: 2, text: 'fix()' }]);
    expect(sideLost(audit.ours)).toBe(false);
  });

  it('reports a removed line that is back, and a line rewritten with the tokens it lost', () => {
    const base = ['const limit = 10;', 'legacy();', 'run(limit);', ''].join('\n');
    const theirs = ['const limit = 10;', 'run(limit, { retries: 3 });', ''].join('\n');
    const ours = base;
    const resolved = ['const limit = 10;', 'legacy();', 'run(limit, { retries: 5 });', ''].join('\n');
    const audit = auditFile({ path: 'r.js', base, ours, theirs, resolved });
    expect(audit.theirs.restored).toBe(1);
    expect(audit.theirs.losses[0]?.restored).toEqual([{ line: 2, text: 'legacy();' }]);
    expect(audit.theirs.rewritten).toBe(1);
    expect(audit.theirs.losses[0]?.rewritten[0]).toMatchObject({ lost: ['3'], into: 'run(limit, { retries: 5 });' });
  });

  it('counts a line where both sides edits merged as kept', () => {
    const base = 'call(a, b);\n';
    const ours = 'call(a2, b);\n';
    const theirs = 'call(a, b2);\n';
    const audit = auditFile({ path: 'c.js', base, ours, theirs, resolved: 'call(a2, b2);\n' });
    expect(sideLost(audit.ours)).toBe(false);
    expect(sideLost(audit.theirs)).toBe(false);
  });

  it('says a file over the size cap was not audited rather than running', () => {
    const big = 'x\n'.repeat(1_100_000);
    const audit = auditFile({ path: 'big.txt', base: big, ours: `${big}y\n`, theirs: big, resolved: big });
    expect(audit.skipped).toBe('too-large');
    expect(audit.ours.dropped).toBe(0);
  });
});
