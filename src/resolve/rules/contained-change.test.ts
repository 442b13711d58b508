import { describe, expect, it } from 'vitest';
import { containedChange, contentTokens } from './contained-change.js';

const ctx = { path: 'f.py', eol: '\n' as const };
const resolve = (base: string | null, ours: string, theirs: string, outside?: string): string | null =>
  containedChange.resolve({ base, ours, theirs }, outside === undefined ? ctx : { ...ctx, outside });

describe('contentTokens', () => {
  it('keeps line starts with their indentation and drops spacing inside lines', () => {
    expect(contentTokens('  f(a,  b)\nx\n')).toEqual(['\n  ', 'f', '(', 'a', ',', 'b', ')', '\n', 'x']);
  });
});

describe('contained-change', () => {
  it('abstains where the larger side only adds semicolons or commas: the same change in another style (serve-static history)', () => {
    const base = '  return i > 1\n    ? str.substr(i)\n    : str\n';
    const ours = "function collapse (str) {\n  return str.replace(/^\\/+/, '/') || '/'\n";
    const theirs = "function collapse(str) {\n  return str.replace(/^\\/+/, '/') || '/';\n";
    expect(resolve(base, ours, theirs)).toBeNull();
    expect(resolve(base, theirs, ours)).toBeNull();
  });
  it('still takes a larger change written in other marks (a path one directory deeper, typeorm corpus shape)', () => {
    const base = 'import {A} from "../../src/a"\n';
    const theirs = 'import {A} from "../../src/a"\nimport {expect} from "chai"\n';
    const ours = 'import {A} from "../../../src/a"\nimport {expect} from "chai"\n';
    expect(resolve(base, ours, theirs)).toBe(ours);
  });
  it('takes the side that made the shared change and one more (corpus shape: same insert, one side also renamed)', () => {
    const base = '    if isinstance(host, basestring):\n';
    const theirs = "    kwargs = {'max_pool_size': size}\n    if isinstance(host, basestring):\n";
    const ours = "    kwargs = {'max_pool_size': size}\n    if isinstance(host, string_t):\n";
    expect(resolve(base, ours, theirs)).toBe(ours);
  });
  it('takes the side that went further (hand-written: both added a parameter, theirs two)', () => {
    const base = 'def connect(host, port):\n';
    const ours = 'def connect(host, port, timeout=None):\n';
    const theirs = 'def connect(host, port, timeout=None, retries=0):\n';
    expect(resolve(base, ours, theirs)).toBe(theirs);
    expect(resolve(base, theirs, ours)).toBe(theirs);
  });
  it('ignores spacing inside a line but not indentation', () => {
    expect(resolve('call(a)\n', 'call(a,  b)  # b too\n', 'call(a, b)\n')).toBe('call(a,  b)  # b too\n');
    // theirs re-indented the body (meaningful in Python): ours does not contain that
    expect(resolve('if a:\n    f()\n', 'if a:\n    f()\n    g()\n', 'if a:\n  f()\n')).toBeNull();
  });
  it('abstains when the changes differ or the region has no base', () => {
    expect(resolve('x = 1\n', 'x = 2\n', 'x = 3\n')).toBeNull();
    expect(resolve(null, 'a\n', 'a\nb\n')).toBeNull();
  });
  it('abstains on modify/delete: a deletion is not contained in a rewrite', () => {
    expect(resolve('CELERYCTL=${CELERYCTL:="celeryctl"}\n', '', 'CELERYCTL=${CELERYCTL:=$CELERY_BIN}\n')).toBeNull();
  });
  it('abstains when the larger side drops a line the smaller side kept (corpus shape: an include)', () => {
    const base = '\n#include "compat.h"\n';
    const ours = '#if defined(HAVE_LIBPROC_H)\n# include <libproc.h>\n#endif\n';
    const theirs = '#if defined(HAVE_LIBPROC_H)\n# include <libproc.h>\n#endif\n\n#include "compat.h"\n';
    expect(resolve(base, ours, theirs)).toBeNull();
  });
  it('abstains when the extra lines repeat a block found elsewhere in the file (moved code)', () => {
    const base = 'x = None\n';
    const theirs = '_tasks = None\n';
    const ours = '_tasks = None\n\ndef setup(app):\n    global _tasks\n    _tasks = app.tasks\n';
    expect(resolve(base, ours, theirs, 'import os\n')).toBe(ours);
    expect(
      resolve(base, ours, theirs, 'import os\n\ndef setup(app):\n    global _tasks\n    _tasks = app.tasks\n'),
    ).toBeNull();
  });
  it('abstains when the smaller change is only a scattered subsequence of the larger (issue 13: fast-glob downgrade)', () => {
    const base = '  "dependencies": {\n    "execa": "^9.0.0"\n';
    const ours = '  "dependencies": {\n    "execa": "^9.0.0",\n    "fast-glob": "^3.3.2",\n    "picomatch": "^4.0.3"\n';
    const theirs = '  "dependencies": {\n    "execa": "^9.0.0",\n    "fast-glob": "^3.3.3"\n';
    expect(resolve(base, ours, theirs)).toBeNull();
    expect(resolve(base, theirs, ours)).toBeNull();
  });
  it('accepts a further insertion the diff placed inside the shared run when it slides to the run edge (corpus shape: a doc comment line)', () => {
    const ours = '     * @param subject\n     * @param relation\n';
    const theirs = '     *\n     * @param subject\n     * @param relation\n';
    expect(resolve('', ours, theirs)).toBe(theirs);
  });
});
