import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { configSchema } from '../../src/config/schema.js';
import { allRules } from '../../src/resolve/rules/index.js';

// The user's documentation is a short README and one page per concern in docs/. Each check below is a
// function of the texts, run on the real files and on a drifted copy, so it is seen to fail on drift.

const ROOT = join(import.meta.dirname, '../..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');
const MAX_README_LINES = 200;

const read = (path: string): string => readFileSync(path, 'utf8');
const docPages = (): string[] =>
  readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(DOCS, name));
const linkedFiles = (): string[] => [README, join(ROOT, 'CONTRIBUTING.md'), ...docPages()];

/** The text without fenced code blocks: a shell line or YAML there is no link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
}

/** The targets of the inline links `[text](target)` of a Markdown text, outside code blocks. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\[[^\]\n]*\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '');
}

/** The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to dashes. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of prose(markdown).matchAll(/^#{1,6} +(.+?) *$/gm)) {
    const text = (m[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** `file: link` for each relative link of `files` whose file, or heading anchor in a Markdown file, does not exist. */
function brokenLinks(files: Readonly<Record<string, string>>): string[] {
  const broken: string[] = [];
  for (const [file, text] of Object.entries(files)) {
    for (const target of linkTargets(text)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const to = path === '' ? file : resolve(dirname(file), path);
      const toText = files[to] ?? (existsSync(to) ? read(to) : null);
      const where = `${relative(ROOT, file)}: ${target}`;
      if (toText === null) broken.push(where);
      else if (anchor !== undefined && to.endsWith('.md') && !headingAnchors(toText).has(anchor)) broken.push(where);
    }
  }
  return broken;
}

/** The docs pages (paths) that the README links to nowhere. */
function unlinkedPages(readme: string, pages: readonly string[]): string[] {
  const linked = new Set(linkTargets(readme).map((t) => resolve(ROOT, t.split('#')[0] ?? '')));
  return pages.filter((page) => !linked.has(page)).map((page) => relative(ROOT, page));
}

interface SchemaNode {
  def: { type: string; innerType?: SchemaNode; out?: SchemaNode };
  shape?: Record<string, SchemaNode>;
}

/** Every configuration key the schema defines, as a dotted path to a value (an object's keys, not the object). */
function schemaKeys(node: SchemaNode, prefix = ''): string[] {
  let inner = node;
  // Defaults, prefaults and the preprocessing of a shorthand (`learnt: apply`) wrap the shape.
  for (;;) {
    const next = inner.def.type === 'pipe' ? inner.def.out : inner.def.innerType;
    if (!['default', 'prefault', 'optional', 'pipe'].includes(inner.def.type) || !next) break;
    inner = next;
  }
  if (inner.def.type !== 'object' || !inner.shape) return [prefix];
  return Object.entries(inner.shape).flatMap(([key, value]) => schemaKeys(value, prefix ? `${prefix}.${key}` : key));
}

/** The keys the configuration reference documents: the first cell of its tables' rows. */
function documentedKeys(page: string): string[] {
  return [...page.matchAll(/^\| `([a-z_.]+)` +\|/gm)].map((m) => m[1] ?? '');
}

/** What the configuration page misses of the schema's keys, and what it names that the schema lacks. */
function configDrift(page: string, keys: readonly string[]): { missing: string[]; unknown: string[] } {
  const rows = documentedKeys(page);
  const sections = new Set(keys.map((k) => k.split('.')[0]));
  const prefixes = new Set(keys.flatMap((k) => k.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))));
  // A key named anywhere in the page's text (`check.timeout`), not only in a table, must exist too.
  const named = [...prose(page).matchAll(/`([a-z_]+(?:\.[a-z_]+)+)`/g)]
    .map((m) => m[1] ?? '')
    .filter((name) => sections.has(name.split('.')[0]));
  return {
    missing: keys.filter((k) => !rows.includes(k)),
    unknown: [...new Set([...rows, ...named])].filter((name) => !prefixes.has(name)),
  };
}

/** The page without its `## HEADING` section (up to the next `## `). */
function withoutSection(page: string, heading: string): string {
  const [before = '', rest = ''] = page.split(new RegExp(`^## ${heading} *$`, 'm'));
  const next = rest.search(/^## /m);
  return before + (next < 0 ? '' : rest.slice(next));
}

/** The rule names of the rules table (the first cells of the table under "## The rules"), in order. */
function documentedRules(page: string): string[] {
  const section = page.split(/^## The rules *$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([a-z0-9-]+)` +\|/gm)].map((m) => m[1] ?? '');
}

/** `CODE name` for each exit code that the exit-codes page has no table row for, with its name. */
function missingExitCodes(page: string, codes: Readonly<Record<string, number>>): string[] {
  return Object.entries(codes)
    .map(([name, code]) => `${code} ${name.replace(/(?<=[a-z])([A-Z])/g, ' $1').toLowerCase()}`)
    .filter((row) => {
      const [code, ...name] = row.split(' ');
      return !new RegExp(`^\\| \`${code}\` +\\| ${name.join(' ')} +\\|`, 'm').test(page);
    });
}

describe('the documentation', () => {
  it('links every docs page from the README, and every relative link and anchor resolves', () => {
    const files = Object.fromEntries(linkedFiles().map((f) => [f, read(f)]));
    expect(unlinkedPages(read(README), docPages())).toEqual([]);
    expect(brokenLinks(files)).toEqual([]);

    // Drift: a page the README does not name, a link to a moved page, an anchor whose heading changed.
    const extra = join(DOCS, 'new-topic.md');
    expect(unlinkedPages(read(README), [...docPages(), extra])).toEqual(['docs/new-topic.md']);
    const drifted = { ...files, [README]: `${read(README)}\n[gone](docs/gone.md) [moved](docs/memory.md#no-such)\n` };
    expect(brokenLinks(drifted)).toEqual(['README.md: docs/gone.md', 'README.md: docs/memory.md#no-such']);
  });

  it('documents exactly the configuration keys the schema defines', () => {
    const keys = schemaKeys(configSchema as unknown as SchemaNode);
    expect(keys).toContain('check.runner.remote');
    expect(keys).toContain('resolve.learnt.mode');
    // The table of keys that changed names old spellings on purpose; config/old-keys.ts refuses them.
    const page = withoutSection(read(join(DOCS, 'configuration.md')), 'Keys that changed');
    expect(configDrift(page, keys)).toEqual({ missing: [], unknown: [] });

    // Drift: a key added to the schema, a key renamed or removed from it.
    expect(configDrift(page, [...keys, 'check.new_key'])).toEqual({ missing: ['check.new_key'], unknown: [] });
    const removed = keys.filter((k) => k !== 'llm.max_turns');
    expect(configDrift(page, removed).unknown).toEqual(['llm.max_turns']);
  });

  it('lists exactly the rules of the ladder, in its order', () => {
    const names = allRules.map((rule) => rule.name);
    const page = read(join(DOCS, 'resolution-ladder.md'));
    expect(documentedRules(page)).toEqual(names);

    // Drift: a rule added to the list, or two rules swapped, no longer match.
    expect(documentedRules(page)).not.toEqual([...names, 'new-rule']);
    expect(documentedRules(page)).not.toEqual([names[1], names[0], ...names.slice(2)]);
  });

  it('lists every exit code with its name', () => {
    const page = read(join(DOCS, 'exit-codes.md'));
    expect(missingExitCodes(page, ExitCode)).toEqual([]);

    // Drift: a new code, or a code renamed.
    expect(missingExitCodes(page, { ...ExitCode, Interrupted: 4 })).toEqual(['4 interrupted']);
    expect(missingExitCodes(page, { Done: 0, Failed: 1, Usage: 2, NeedsHuman: 3 })).toEqual(['3 needs human']);
  });

  it('keeps the README short', () => {
    const lines = read(README).split('\n').length;
    expect(lines).toBeLessThanOrEqual(MAX_README_LINES);
  });
});
