import { createRequire } from 'node:module';
import type * as SmolToml from 'smol-toml';
import { hasMarkers } from '../parse/markers.js';
import type { GeneratedFile } from './generated-files.js';
import { dataProblems } from './validate-data.js';

// smol-toml loads the first time a TOML lockfile is checked, so the CLI starts without it.
const require = createRequire(import.meta.url);

const name = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** Keys seen more than once with different values: `key` pinned twice (`a`, `b`). */
function repeated(pairs: ReadonlyArray<readonly [string, string]>, what: string, max: number): string[] {
  const seen = new Map<string, Set<string>>();
  for (const [key, value] of pairs) seen.set(key, (seen.get(key) ?? new Set()).add(value));
  return [...seen]
    .filter(([, values]) => values.size > 1)
    .slice(0, max)
    .map(([key, values]) => `${key} ${what} more than once (${[...values].join(', ')})`);
}

/** pip-compile output: one `name==version` per package (names compared as PEP 503 normalises them). */
function duplicatePins(text: string, max: number): string[] {
  const pins = [...text.matchAll(/^([A-Za-z0-9][A-Za-z0-9_.-]*)(?:\[[^\]]*\])?\s*==\s*([^\s;\\#]+)/gm)].map(
    (m) => [(m[1] as string).toLowerCase().replace(/[-_.]+/g, '-'), m[2] as string] as const,
  );
  return repeated(pins, 'pinned', max);
}

/** go.sum: one hash per module version (and per its go.mod). */
function duplicateSums(text: string, max: number): string[] {
  const sums = [...text.matchAll(/^(\S+) (\S+) (\S+)$/gm)].map((m) => [`${m[1]} ${m[2]}`, m[3] as string] as const);
  return repeated(sums, 'has a checksum', max);
}

/** Cargo.lock, poetry.lock, uv.lock: TOML that parses, one `[[package]]` per name and version. */
function tomlLockProblems(text: string, max: number): string[] {
  const parse = dataProblems('toml', text, max);
  if (parse.length > 0) return parse;
  const { parse: parseToml } = require('smol-toml') as typeof SmolToml;
  const doc = parseToml(text) as { package?: Array<{ name?: unknown; version?: unknown; source?: unknown }> };
  const entries = (doc.package ?? []).map(
    (p) => [`${String(p.name)} ${String(p.version)}`, JSON.stringify(p)] as const,
  );
  const counts = new Map<string, number>();
  for (const [key] of entries) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts]
    .filter(([, n]) => n > 1)
    .slice(0, max)
    .map(([key, n]) => `package ${key} listed ${n} times`);
}

/** yarn.lock (v1): each entry header (`pkg@^1.0.0:`) once. */
function duplicateYarnEntries(text: string, max: number): string[] {
  const headers = [...text.matchAll(/^("?[^\s#][^\n]*):$/gm)].map((m) => m[1] as string);
  const specs = headers.flatMap((h) => h.split(/,\s*/).map((s) => [s.replace(/"/g, ''), h] as const));
  const seen = new Map<string, number>();
  for (const [spec] of specs) seen.set(spec, (seen.get(spec) ?? 0) + 1);
  return [...seen]
    .filter(([, n]) => n > 1)
    .slice(0, max)
    .map(([spec, n]) => `entry ${spec} listed ${n} times`);
}

/** Gemfile.lock: each gem of a `specs:` section at one version. */
function duplicateGems(text: string, max: number): string[] {
  const gems = [...text.matchAll(/^ {4}([^\s(]+) \(([^)]+)\)$/gm)].map(
    (m) => [m[1] as string, m[2] as string] as const,
  );
  return repeated(gems, 'locked', max);
}

/**
 * What makes a generated file's text invalid as its tool would read it:
 * conflict markers left, a lockfile that does not parse or repeats a key, a
 * package pinned or locked twice. Empty when nothing is wrong (or nothing is
 * known about the format).
 */
export function generatedProblems(path: string, text: string, file: GeneratedFile, max = 5): string[] {
  if (hasMarkers(text)) return ['conflict markers are left in it'];
  switch (name(path)) {
    case 'package-lock.json':
    case 'npm-shrinkwrap.json':
    case 'composer.lock':
    case 'Pipfile.lock':
      return dataProblems('json', text, max);
    case 'pnpm-lock.yaml':
      return dataProblems('yaml', text, max);
    case 'Cargo.lock':
    case 'poetry.lock':
    case 'uv.lock':
      return tomlLockProblems(text, max);
    case 'go.sum':
      return duplicateSums(text, max);
    case 'yarn.lock':
      return text.includes('__metadata:') ? dataProblems('yaml', text, max) : duplicateYarnEntries(text, max);
    case 'Gemfile.lock':
      return duplicateGems(text, max);
  }
  return file.tool === 'pip-compile' ? duplicatePins(text, max) : [];
}
