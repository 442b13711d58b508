import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Git } from '../../git/index.js';

/** The facts of a built demo repository (tips and sizes), for the demo's output and tests. */
export interface DemoRepo {
  dir: string;
  fork: string;
  upstream: string;
  forkCommits: number;
  upstreamCommits: number;
  checks: { build: string; test: string };
}

const cartBase = [
  '// A tiny shopping cart.',
  'export function total(items) {',
  '\tlet sum = 0;',
  '\tfor (const item of items) sum += item.price * item.qty;',
  '\treturn sum;',
  '}',
  '',
  'export function count(items) {',
  '\treturn items.reduce((n, item) => n + item.qty, 0);',
  '}',
  '',
];

const build = [
  '// Build check: every module must load.',
  "for (const m of ['./lib/cart.mjs', './lib/format.mjs']) await import(m);",
  "console.log('build ok');",
  '',
].join('\n');

const test = [
  "import assert from 'node:assert/strict';",
  "import { total, count } from './lib/cart.mjs';",
  "import { money } from './lib/format.mjs';",
  'const items = [{ price: 0.1, qty: 3 }, { price: 2, qty: 1 }];',
  'assert.equal(count(items), 4);',
  "assert.equal(money(2.5), '2.50');",
  "console.log('tests ok');",
  '',
].join('\n');

/** Commit `files` (null deletes) with the next fixed date; `author` names an upstream author. */
type CommitFn = (message: string, files: Record<string, string | null>, author?: string) => Promise<void>;

/** The fork's commits on main: a rounding fix, isEmpty() for its checkout page, discounts, docs, money formatting. */
async function forkCommits(commit: CommitFn): Promise<void> {
  const forkCart = [...cartBase];
  forkCart[4] = '\treturn Math.round(sum * 100) / 100;';
  await commit('Round totals to cents (float sums like 0.1*3 were off)', { 'lib/cart.mjs': forkCart.join('\n') });
  const isEmptyTab = ['export function isEmpty(items) {', '\treturn items.length === 0;', '}', ''];
  const withEmpty = [...forkCart, ...isEmptyTab];
  await commit('Add isEmpty() for the checkout page', { 'lib/cart.mjs': withEmpty.join('\n') });
  await commit('Add discount() for fork customers', {
    'lib/cart.mjs': [
      ...withEmpty,
      'export function discount(sum, percent) {',
      '\treturn Math.round(sum * (100 - percent)) / 100;',
      '}',
      '',
    ].join('\n'),
  });
  await commit('Document discounts', {
    'docs/guide.md':
      '# Cart guide\n\nCall `total(items)` to get the price of a cart.\nCall `discount(sum, percent)` for fork customers.\n',
  });
  await commit('Format money with a thousands separator option', {
    'lib/format.mjs':
      "export function money(value, { separator = '' } = {}) {\n\tconst [whole, cents] = value.toFixed(2).split('.');\n\treturn `${whole.replace(/\\B(?=(\\d{3})+(?!\\d))/g, separator)}.${cents}`;\n}\n",
  });
}

/** Upstream's commits: the same fix and the same helper written with other indentation, a rename, more. */
async function upstreamCommits(commit: CommitFn): Promise<void> {
  const upCart = [...cartBase];
  upCart[4] = '  return Math.round(sum * 100) / 100;';
  await commit(
    'Fix floating-point totals (reported downstream)',
    { 'lib/cart.mjs': upCart.join('\n') },
    'Upstream Dev',
  );
  await commit(
    'Rename the guide to usage.md',
    { 'docs/guide.md': null, 'docs/usage.md': '# Cart guide\n\nCall `total(items)` to get the price of a cart.\n' },
    'Upstream Dev',
  );
  await commit(
    'Add isEmpty()',
    {
      'lib/cart.mjs': [...upCart, 'export function isEmpty(items) {', '  return items.length === 0;', '}', ''].join(
        '\n',
      ),
    },
    'Upstream Dev',
  );
  await commit(
    'Add a changelog',
    { 'CHANGELOG.md': '# Changes\n\n- isEmpty()\n- totals are rounded to cents\n' },
    'Upstream Dev',
  );
  await commit(
    'Add percent()',
    {
      'lib/format.mjs':
        'export function money(value) {\n\treturn value.toFixed(2);\n}\n\nexport function percent(value) {\n\treturn `${Math.round(value * 100)}%`;\n}\n',
    },
    'Upstream Dev',
  );
}

/**
 * Build, in `dir`, a small fork/upstream pair of a JavaScript library whose merge
 * conflicts the deterministic ladder resolves on its own (so the demo runs
 * offline), with `node build.mjs` and `node test.mjs` as checks that pass on both
 * tips. Upstream reformats code the fork also fixed, renames a document the fork
 * edits, and adds features; the fork adds features and fixes. Commit dates are
 * fixed, so the same repository (same commit ids) is built every time.
 */
export async function buildDemoRepo(dir: string): Promise<DemoRepo> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  let tick = 0;
  const git = new Git({
    cwd: dir,
    env: {
      GIT_AUTHOR_NAME: 'Demo Maintainer',
      GIT_AUTHOR_EMAIL: 'fork@example.com',
      GIT_COMMITTER_NAME: 'Demo Maintainer',
      GIT_COMMITTER_EMAIL: 'fork@example.com',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
    },
  });
  const commit = async (message: string, files: Record<string, string | null>, author?: string): Promise<void> => {
    for (const [path, text] of Object.entries(files)) {
      const full = join(dir, path);
      if (text === null) rmSync(full, { force: true });
      else {
        mkdirSync(dirname(full), { recursive: true });
        writeFileSync(full, text);
      }
    }
    tick++;
    const date = `${1_767_225_600 + tick * 3600} +0000`;
    await git.run(['add', '-A']);
    await git.run(['commit', '-q', '-m', message], {
      env: {
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
        ...(author ? { GIT_AUTHOR_NAME: author, GIT_AUTHOR_EMAIL: 'upstream@example.com' } : {}),
      },
    });
  };
  try {
    await git.run(['init', '-q', '-b', 'main']);
    // A local identity: the merge runs `git merge` and `git commit` in this repository and its worktrees, and a
    // fresh machine (a new container, an empty HOME) has no global one.
    const settings = [
      ['user.name', 'Demo Maintainer'],
      ['user.email', 'fork@example.com'],
      ['commit.gpgsign', 'false'],
      ['gc.auto', '0'],
      ['maintenance.auto', 'false'],
    ];
    for (const [k, v] of settings) await git.run(['config', k as string, v as string]);
    await commit('Initial import of the cart library', {
      'lib/cart.mjs': cartBase.join('\n'),
      'lib/format.mjs': 'export function money(value) {\n\treturn value.toFixed(2);\n}\n',
      'docs/guide.md': '# Cart guide\n\nCall `total(items)` to get the price of a cart.\n',
      'build.mjs': build,
      'test.mjs': test,
    });
    await git.run(['branch', 'upstream']);

    await forkCommits(commit);
    await git.run(['checkout', '-q', 'upstream']);
    await upstreamCommits(commit);
    await git.run(['checkout', '-q', 'main']);
    return {
      dir,
      fork: await git.text(['rev-parse', 'main']),
      upstream: await git.text(['rev-parse', 'upstream']),
      forkCommits: 5,
      upstreamCommits: 5,
      checks: { build: 'node build.mjs', test: 'node test.mjs' },
    };
  } finally {
    git.close();
  }
}
