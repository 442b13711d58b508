import type { Node } from 'web-tree-sitter';
import { parseText } from './grammar.js';
import { profileForPath } from './languages.js';

/** Whether texts of one file compile to the same bytes, or why that cannot be shown. */
export type SameCode = { same: true } | { same: false; why: string };

/**
 * The file as its compiler sees it: every node but the language's comments, leaves with their text and line.
 * The line is part of it because `__LINE__` (in `assert` and test macros) and line tables change
 * when a token moves to another line; a token's column is not (indentation is whitespace).
 */
function codeOf(root: Node, comments: ReadonlySet<string>): string {
  const out: string[] = [];
  const visit = (node: Node): void => {
    if (comments.has(node.type)) return;
    if (node.childCount === 0) {
      out.push(`${node.type}\u0001${node.text.trim()}\u0001${node.startPosition.row}`);
      return;
    }
    out.push(`(${node.type}`);
    for (const child of node.children) if (child) visit(child);
    out.push(')');
  };
  visit(root);
  return out.join('\n');
}

/**
 * Do these texts of `path` differ only in whitespace within lines and in comments, so that they
 * compile to the same bytes? Proven from tree-sitter parses (same nodes, same tokens on the same
 * lines, comments left out), for the languages whose profile says their compiler sees tokens only
 * (`tokensOnly` in `language-profiles.ts`); a language where whitespace can be syntax, a text that does not
 * parse, or any other difference answers no, with the reason.
 */
export async function sameCompiledCode(path: string, texts: readonly string[]): Promise<SameCode> {
  const { grammar = null, tokensOnly } = profileForPath(path) ?? {};
  if (grammar === null || !tokensOnly)
    return { same: false, why: `${path}: no grammar where whitespace and comments are never code` };
  const comments = new Set(tokensOnly.comments);
  let first: string | null = null;
  for (const text of texts) {
    const tree = await parseText(grammar, text);
    if (!tree) return { same: false, why: `${path}: the parser gave up` };
    try {
      if (tree.rootNode.hasError) return { same: false, why: `${path}: a version does not parse` };
      const code = codeOf(tree.rootNode, comments);
      if (first === null) first = code;
      else if (code !== first)
        return { same: false, why: `${path}: the code differs, not only whitespace or comments` };
    } finally {
      tree.delete();
    }
  }
  return { same: true };
}
