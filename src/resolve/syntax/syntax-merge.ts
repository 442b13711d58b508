import type { Node, Tree } from 'web-tree-sitter';
import { splitLinesKeep } from '../parse/lines.js';
import { strictDiff3 } from '../rules/diff3-regions.js';
import type { ConflictedFile } from '../types.js';
import { yamlContainer, yamlParsesCleanly } from '../data/yaml-entities.js';
import { fileContainer, withSignatures, type Container } from './entities.js';
import { parseText } from './grammar.js';
import { dataFormatForPath, grammarForPath, type GrammarId } from './languages.js';
import { mergeContainer, mergeSimple, type Piece, type TextMerge } from './merge-entities.js';

/** `resolve.syntax`: entity-level merges of code, key-level merges of data files. */
export interface SyntaxSwitches {
  code: boolean;
  data: boolean;
}

export interface ThreeVersions {
  base: string;
  ours: string;
  theirs: string;
}

/**
 * The line merge for an entity both sides changed: git's three-way rule on
 * the entity's lines (`strictDiff3`), null when the two sides' edits touch.
 * The rules are not tried on the whole entity: they already ran on git's
 * hunks inside it, and measured on whole entities (`splintercat eval`) they
 * took one side's larger change over lines the person kept.
 */
export const lineMerge: TextMerge = (base, ours, theirs) =>
  strictDiff3(splitLinesKeep(ours), splitLinesKeep(base), splitLinesKeep(theirs))?.join('') ?? null;

/**
 * Entity-level three-way merge of a whole file with its tree-sitter grammar.
 * Null (abstain) when the path has no grammar, a version has a syntax error
 * between entities (its entities cannot be told apart), entities cannot be
 * matched with certainty, or the merged file (each left conflict read as
 * ours, or as theirs) has a syntax error neither side has. An error inside an
 * entity (a C macro the grammar cannot read, say) is the grammar's, not the
 * merge's: that entity is merged as text and the error must come out of the
 * merge as it went in.
 */
export async function syntaxMerge(
  path: string,
  versions: ThreeVersions,
  mergeText: TextMerge,
  switches: SyntaxSwitches = { code: true, data: true },
): Promise<Piece[] | null> {
  const format = dataFormatForPath(path);
  if (!(format !== null ? switches.data : switches.code)) return null;
  if (format === 'yaml') return yamlMerge(versions, mergeText);
  const grammar = grammarForPath(path);
  if (grammar === null) return null;
  const trees: Tree[] = [];
  try {
    const containers: Container[] = [];
    for (const text of [versions.base, versions.ours, versions.theirs]) {
      const tree = await parseText(grammar, text);
      if (!tree) return null;
      trees.push(tree);
      const c = fileContainer(tree.rootNode, grammar);
      const unique = c && withSignatures(c, text);
      if (!unique) return null;
      containers.push(unique);
    }
    const [b, o, t] = containers as [Container, Container, Container];
    const pieces = mergeContainer(
      { text: versions.base, container: b },
      { text: versions.ours, container: o },
      { text: versions.theirs, container: t },
      mergeText,
      { sortedMaps: /(^|\/)package\.json$/.test(path) },
    );
    if (pieces === null) return null;
    // Text before and after the top container (a JSON file's braces, its final newline): one side's change is taken.
    const lead = mergeSimple(
      versions.base.slice(0, b.start),
      versions.ours.slice(0, o.start),
      versions.theirs.slice(0, t.start),
    );
    const trail = mergeSimple(versions.base.slice(b.end), versions.ours.slice(o.end), versions.theirs.slice(t.end));
    if (lead === null || trail === null) return null;
    const whole = [lead, ...pieces, trail];
    const sideErrors = trees.slice(1).map((tree) => errorSignatures(tree.rootNode));
    if (!(await reparses(grammar, whole, sideErrors))) return null;
    return whole;
  } finally {
    for (const tree of trees) tree.delete();
  }
}

/** The key-level merge of a YAML file (the `yaml` package: no tree-sitter grammar for YAML loads here). */
function yamlMerge(versions: ThreeVersions, mergeText: TextMerge): Piece[] | null {
  const [b, o, t] = [versions.base, versions.ours, versions.theirs].map(yamlContainer);
  if (!b || !o || !t) return null;
  const pieces = mergeContainer(
    { text: versions.base, container: b },
    { text: versions.ours, container: o },
    { text: versions.theirs, container: t },
    mergeText,
  );
  if (pieces === null) return null;
  const read = (side: 'ours' | 'theirs'): string => pieces.map((p) => (typeof p === 'string' ? p : p[side])).join('');
  return yamlParsesCleanly(read('ours')) || yamlParsesCleanly(read('theirs')) ? pieces : null;
}

/**
 * Whether the merged file parses with each left conflict read as ours, or
 * else read as theirs (a side may have deleted the entity), with no syntax
 * error but those the sides already have (none, where they parse cleanly).
 */
async function reparses(
  grammar: GrammarId,
  pieces: readonly Piece[],
  sides: ReadonlyArray<ReadonlyMap<string, number>>,
): Promise<boolean> {
  for (const side of ['ours', 'theirs'] as const) {
    const text = pieces.map((p) => (typeof p === 'string' ? p : p[side])).join('');
    const tree = await parseText(grammar, text);
    if (!tree) continue;
    const clean = onlyKnownErrors(errorSignatures(tree.rootNode), sides);
    tree.delete();
    if (clean) return true;
    if (pieces.every((p) => typeof p === 'string')) return false;
  }
  return false;
}

/** Marks a left conflict in the merged text (never in source text: it is a NUL-delimited token). */
const SENTINEL = '\u0000splintercat-conflict\u0000';

/**
 * Map an entity-level merge back onto git's hunks: git's clean text must
 * appear in the merged file in order (otherwise the two merges disagree and
 * nothing is taken), and the text between two clean stretches is the
 * resolution of the hunk between them. A hunk whose stretch holds a left
 * conflict stays open. Where some conflict is left, a hunk is taken only when
 * its stretch is the same in every way of placing the clean text (the
 * leftmost and the rightmost placement agree), so no resolution is cut at a
 * wrong place.
 */
export function hunkTextsFromMerge(file: ConflictedFile, pieces: readonly Piece[]): Map<number, string> {
  if (pieces.some((p) => typeof p === 'string' && p.includes('\u0000'))) return new Map();
  const merged = pieces.map((p) => (typeof p === 'string' ? p : SENTINEL)).join('');
  const segs = file.segments;
  const texts = segs.flatMap((s, i) => (s.kind === 'text' ? [{ i, text: s.text }] : []));
  const first = segs[0]?.kind === 'text';
  const last = segs[segs.length - 1]?.kind === 'text';
  // Leftmost placement of each clean stretch.
  const left: number[] = [];
  let pos = 0;
  for (const [j, t] of texts.entries()) {
    let at: number;
    if (j === 0 && first) at = merged.startsWith(t.text) ? 0 : -1;
    else if (j === texts.length - 1 && last)
      at = merged.endsWith(t.text) && merged.length - t.text.length >= pos ? merged.length - t.text.length : -1;
    else at = merged.indexOf(t.text, pos);
    if (at < 0) return new Map();
    left.push(at);
    pos = at + t.text.length;
  }
  // Rightmost placement, from the end.
  const right: number[] = new Array<number>(texts.length).fill(0);
  let end = merged.length;
  for (let j = texts.length - 1; j >= 0; j--) {
    const t = texts[j] as { text: string };
    const at =
      j === texts.length - 1 && last
        ? end - t.text.length
        : j === 0 && first
          ? 0
          : merged.lastIndexOf(t.text, end - t.text.length);
    right[j] = at;
    end = at;
  }
  const partial = merged.includes(SENTINEL);
  const out = new Map<number, string>();
  for (const [k, seg] of segs.entries()) {
    if (seg.kind !== 'conflict') continue;
    // The clean stretches before and after the hunk (by index into `texts`), if any.
    const before = texts.findLastIndex((t) => t.i < k);
    const after = texts.findIndex((t) => t.i > k);
    const from = before < 0 ? 0 : (left[before] as number) + (texts[before] as { text: string }).text.length;
    const to = after < 0 ? merged.length : (left[after] as number);
    if (partial) {
      const fromR = before < 0 ? 0 : (right[before] as number) + (texts[before] as { text: string }).text.length;
      const toR = after < 0 ? merged.length : (right[after] as number);
      if (from !== fromR || to !== toR) continue;
    }
    const text = merged.slice(from, to);
    if (!text.includes(SENTINEL)) out.set(seg.hunk.index, text);
  }
  return out;
}

/**
 * A tree's syntax errors as a multiset: each error or missing node by its
 * kind and its text (whitespace squashed), so the same unreadable macro in
 * two versions is the same error wherever it moved.
 */
function errorSignatures(root: Node): Map<string, number> {
  const out = new Map<string, number>();
  const visit = (node: Node): void => {
    if (node.isError || node.isMissing) {
      const key = `${node.isMissing ? `missing ${node.type}` : 'error'}:${node.text.replace(/\s+/g, ' ').trim()}`;
      out.set(key, (out.get(key) ?? 0) + 1);
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return out;
}

/** Whether every error of `merged` is one a side has, no more often than that side has it. */
function onlyKnownErrors(
  merged: ReadonlyMap<string, number>,
  sides: ReadonlyArray<ReadonlyMap<string, number>>,
): boolean {
  for (const [key, n] of merged) {
    if (n > Math.max(0, ...sides.map((s) => s.get(key) ?? 0))) return false;
  }
  return true;
}
