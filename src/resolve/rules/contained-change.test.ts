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
  it('abstains when the smaller change is only a scattered subsequence of the larger (a fast-glob downgrade)', () => {
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

/**
 * Adversarial cases: atoms (numbers, versions, hashes, identifiers) that
 * contain each other as text. A containment found inside one is not a
 * containment; each case is tried with either side as ours.
 */
describe('contained-change on atoms that contain each other', () => {
  const neither = (base: string, a: string, b: string): void => {
    expect(resolve(base, a, b)).toBeNull();
    expect(resolve(base, b, a)).toBeNull();
  };
  it('never takes a version whose edit only looks like a superset (issue reproduction: 23.1 -> 24.0 / 24.1)', () => {
    neither('a==1.0\npackaging==23.1\n', 'a==1.0\npackaging==24.0\n', 'a==1.0\npackaging==24.1\n');
    neither('packaging==23.1\n', 'packaging==24.0\n', 'packaging==24.1\n');
    neither('  "qs": "6.11.0",\n', '  "qs": "6.13.0",\n', '  "qs": "6.13.1",\n');
    neither('version: 1.1\n', 'version: 1.2\n', 'version: 1.2.3\n');
    neither('FROM python:3.10-slim\n', 'FROM python:3.11-slim\n', 'FROM python:3.11-alpine\n');
    neither('  rev: v0.4.7\n', '  rev: v0.6.2\n', '  rev: v0.6.2-rc1\n');
  });
  it("never takes a number that holds the other side's number as its prefix", () => {
    neither('timeout = 10\n', 'timeout = 100\n', 'timeout = 1000\n');
    neither('x = 1\n', 'x = 12\n', 'x = 123\n');
    neither('ratio = 0.5\n', 'ratio = 0.55\n', 'ratio = 0.555\n');
  });
  it("never takes a hash that extends the other side's hash", () => {
    neither('rev: abc1234\n', 'rev: def5678\n', 'rev: def5678abc\n');
    neither(
      '- uses: actions/checkout@a5ac7e51b41094c92402da3b24376905380afc29 # v4.1.6\n',
      '- uses: actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11 # v4.1.1\n',
      '- uses: actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11ff # v4.1.1\n',
    );
  });
  it("never takes an identifier that extends the other side's identifier", () => {
    neither('foo()\n', 'foo_bar()\n', 'foo_bar_baz()\n');
    neither('getValue(x)\n', 'getValues(x)\n', 'getValuesFor(x)\n');
    neither('import a.b\n', 'import a.b2\n', 'import a.b23\n');
  });
  it('still takes a containment where every version both sides wrote agrees (body-parser history shape)', () => {
    const base = '    "qs": "6.11.0",\n    "raw-body": "2.5.2",\n';
    const theirs = '    "qs": "6.13.0",\n    "raw-body": "2.5.2",\n';
    const ours = '    "qs": "6.13.0",\n    "raw-body": "^3.0.0",\n';
    expect(resolve(base, ours, theirs)).toBe(ours);
    expect(resolve(base, theirs, ours)).toBe(ours);
  });
});

describe('contained-change on independent rewrites', () => {
  it('abstains where the larger side moves a line the smaller side deleted (werkzeug history: a versionadded note)', () => {
    const base = '    #: .. versionadded:: 0.6\n    #:    a dict of default converters to be used.\n';
    const theirs = '    #: A dict of default converters to be used.\n';
    const ours = '    #: A dict of default converters to be used.\n    #:\n    #: .. versionadded:: 0.6\n';
    expect(resolve(base, ours, theirs)).toBeNull();
    expect(resolve(base, theirs, ours)).toBeNull();
    // Without the moved line it is a plain containment.
    const further = '    #: A dict of default converters to be used.\n    #: Keys are names.\n';
    expect(resolve(base, further, theirs)).toBe(further);
  });
  it('abstains where both sides rewrote the whole file (werkzeug history: a regenerated Sphinx Makefile)', () => {
    const old = Array.from({ length: 12 }, (_, i) => `PAPEROPT_${i} = -D latex_paper_size=${i}\n`).join('');
    const fresh = 'SPHINXBUILD   = sphinx-build\nBUILDDIR      = _build\n\nhelp:\n\t@$(SPHINXBUILD) -M help\n';
    const base = 'PAPER         =\n';
    const theirs = 'SOURCEDIR     = .\n';
    const ours = 'SPHINXPROJ    = Werkzeug\nSOURCEDIR     = .\n';
    const files = { base: `${old}${base}`, ours: `${fresh}${ours}`, theirs: `${fresh}${theirs}` };
    expect(containedChange.resolve({ base, ours, theirs }, { ...ctx, files })).toBeNull();
    // The same hunk in a file both sides mostly kept is an edit going further.
    const kept = { base: `${old}${base}`, ours: `${old}${ours}`, theirs: `${old}${theirs}` };
    expect(containedChange.resolve({ base, ours, theirs }, { ...ctx, files: kept })).toBe(ours);
  });
});
