import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as TreeSitter from 'web-tree-sitter';
import type { Language, Node, Parser, Tree } from 'web-tree-sitter';
import type { GrammarId } from './languages.js';

const require = createRequire(import.meta.url);

let runtime: Promise<typeof TreeSitter> | null = null;
const languages = new Map<GrammarId, Promise<Language>>();
const parsers = new Map<GrammarId, Parser>();

/**
 * The tree-sitter runtime and a grammar, loaded on first use only: the CLI
 * starts without them, and a run that merges no C file never loads C.
 */
async function loadLanguage(id: GrammarId): Promise<Language> {
  runtime ??= import('web-tree-sitter').then(async (ts) => {
    await ts.Parser.init();
    return ts;
  });
  const ts = await runtime;
  let language = languages.get(id);
  if (!language) {
    const dir = join(dirname(require.resolve('tree-sitter-wasms/package.json')), 'out');
    language = ts.Language.load(join(dir, `tree-sitter-${id}.wasm`));
    languages.set(id, language);
  }
  return language;
}

/** A parser for the grammar (one per grammar, reused: parsing is synchronous). */
export async function parserFor(id: GrammarId): Promise<Parser> {
  const language = await loadLanguage(id);
  let parser = parsers.get(id);
  if (!parser) {
    const ts = await (runtime as Promise<typeof TreeSitter>);
    parser = new ts.Parser();
    parser.setLanguage(language);
    parsers.set(id, parser);
  }
  return parser;
}

/**
 * Parse a text; the caller must `delete()` the tree (it lives in WASM memory).
 * Null when the parser gives up.
 */
export async function parseText(id: GrammarId, text: string): Promise<Tree | null> {
  return (await parserFor(id)).parse(text);
}

/** Where a tree has a syntax error: 1-based line and column, and the text there. */
export interface SyntaxProblem {
  line: number;
  column: number;
  /** The erroneous text (cut short), or what is missing. */
  near: string;
  missing: boolean;
}

/** The first `max` error or missing nodes of a tree, in document order. */
export function syntaxProblems(root: Node, max = 3): SyntaxProblem[] {
  const out: SyntaxProblem[] = [];
  if (!root.hasError) return out;
  const visit = (node: Node): void => {
    if (out.length >= max) return;
    if (node.isError || node.isMissing) {
      out.push({
        line: node.startPosition.row + 1,
        column: node.startPosition.column + 1,
        near: node.isMissing ? node.type : (node.text.split('\n')[0]?.slice(0, 40) ?? ''),
        missing: node.isMissing,
      });
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return out;
}
