import { basename, extname } from 'node:path';
import { splitLinesKeep } from '../parse/lines.js';

/**
 * File types whose syntax ignores indentation (braces, tags or keywords carry
 * the structure). Anything else may give indentation meaning (Python, YAML,
 * Makefiles, Markdown code blocks and lists, reStructuredText, ...), so a rule
 * treats a change of indentation there as a change of content.
 */
const FREE_FORM = new Set([
  '.c',
  '.h',
  '.cc',
  '.cpp',
  '.cxx',
  '.hh',
  '.hpp',
  '.hxx',
  '.m',
  '.mm',
  '.ts',
  '.tsx',
  '.mts',
  '.cts',
  '.js',
  '.jsx',
  '.mjs',
  '.cjs',
  '.json',
  '.java',
  '.kt',
  '.kts',
  '.scala',
  '.groovy',
  '.cs',
  '.go',
  '.rs',
  '.swift',
  '.dart',
  '.php',
  '.rb',
  '.pl',
  '.pm',
  '.lua',
  '.sql',
  '.css',
  '.scss',
  '.less',
  '.html',
  '.htm',
  '.xml',
  '.svg',
  '.vue',
  '.svelte',
]);

/** True when re-indenting lines of this path cannot change what the file means. */
export function indentationIsLayout(path: string): boolean {
  return FREE_FORM.has(extname(basename(path)).toLowerCase());
}

/** The leading whitespace of each non-blank line. */
export function indentationOf(text: string): string[] {
  return splitLinesKeep(text)
    .filter((l) => l.trim() !== '')
    .map((l) => /^[ \t]*/.exec(l)?.[0] ?? '');
}
