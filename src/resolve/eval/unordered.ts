import type { Node } from 'web-tree-sitter';
import { normalizeWhitespace } from '../normalize.js';
import { fileContainer, type Container } from '../syntax/entities.js';
import { parseText } from '../syntax/grammar.js';
import { grammarForPath } from '../syntax/languages.js';

/**
 * The text with the members of every unordered container (class members,
 * test cases, mapping keys) sorted, whitespace normalised: two resolutions
 * with the same canonical form differ only in the order of unordered
 * siblings. Null when the path has no grammar or the text does not parse.
 */
export async function canonicalUnordered(path: string, text: string): Promise<string | null> {
  const grammar = grammarForPath(path);
  if (grammar === null) return null;
  const tree = await parseText(grammar, text);
  if (!tree) return null;
  try {
    const root: Node = tree.rootNode;
    if (root.hasError) return null;
    const container = fileContainer(root, grammar);
    return container ? canonical(text, container, 0, text.length) : null;
  } finally {
    tree.delete();
  }
}

function canonical(text: string, c: Container, from: number, to: number): string {
  let at = c.start;
  const parts = c.entities.map((e) => {
    // Comments before a member go with it; a separator before it does not.
    const lead = normalizeWhitespace(text.slice(at, e.start)).replace(/^,\s*/, '');
    at = e.end;
    const own = e.body
      ? `${normalizeWhitespace(text.slice(e.start, e.body.start))}{${canonical(text, e.body, e.body.start, e.body.end)}}${normalizeWhitespace(text.slice(e.body.end, e.end))}`
      : normalizeWhitespace(text.slice(e.start, e.end));
    return `${lead}\u0002${own.replace(/,$/, '')}`;
  });
  if (c.unordered) parts.sort();
  const tail = normalizeWhitespace(text.slice(at, c.end)).replace(/^,\s*/, '');
  return `${normalizeWhitespace(text.slice(from, c.start))}[${parts.join('\u0001')}]${tail}${normalizeWhitespace(text.slice(c.end, to))}`;
}
