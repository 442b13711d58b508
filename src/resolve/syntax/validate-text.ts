import type { Git } from '../../git/index.js';
import { dataProblems } from '../data/validate-data.js';
import { hasMarkers } from '../parse/markers.js';
import { readBlob } from '../parse/read-blob.js';
import { fitsParser } from '../size-limits.js';
import { parseText, syntaxProblems } from './grammar.js';
import { dataFormatForPath, grammarForPath } from './languages.js';

/** Whether a resolved file may be accepted. */
export type ValidationResult = { ok: true } | { ok: false; problems: string[] };

export interface ValidateOptions {
  /** `conflict-marker-size` of the path. */
  markerSize?: number;
  /**
   * The versions the resolution was made from (ours, theirs, base where
   * known). A syntax error counts only when every one of them parses cleanly:
   * a grammar that cannot read the inputs (a macro-heavy C file, syntax newer
   * than the grammar) proves nothing about the resolution. Absent: the
   * resolution must parse cleanly.
   */
  inputs?: ReadonlyArray<string | null>;
}

/**
 * Checks on a resolved file before it is accepted: no conflict markers left;
 * JSON (strict, no repeated keys), JSONC (tsconfig and friends), YAML and TOML
 * parse; code in a language with a tree-sitter grammar (`GrammarId` of
 * languages.ts) parses with no error node. Each problem says where it is, for the model to fix.
 */
export async function validateResolvedText(
  file: string,
  text: string,
  options: ValidateOptions = {},
): Promise<ValidationResult> {
  const markerSize = options.markerSize ?? 7;
  const problems: string[] = [];
  const lower = file.toLowerCase();
  // A lone separator line is a leftover marker, unless the versions it was made from have as many
  // (a heading underline in prose, say). Without them: a leftover in code, an underline in prose.
  const prose = /\.(?:md|markdown|rst|txt|adoc)$/.test(lower);
  const separators = (t: string): number => (t.match(new RegExp(`^={${markerSize}}\\r?$`, 'gm')) ?? []).length;
  const inputs = (options.inputs ?? []).filter((i): i is string => i !== null);
  const straySeparator =
    inputs.length > 0 ? separators(text) > Math.max(...inputs.map(separators)) : !prose && separators(text) > 0;
  if (hasMarkers(text, markerSize) || straySeparator) {
    problems.push('conflict markers are still present');
    // The markers are the problem to fix; the parse errors they cause would only repeat it.
    return { ok: false, problems };
  }
  problems.push(...(await parseProblems(file, text, options.inputs)));
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}

/**
 * The syntax check alone (no marker check): problems the text has as data
 * (JSON, JSONC, YAML, TOML) or as code in a language with a grammar, that
 * the inputs did not already have.
 */
export async function parseProblems(
  file: string,
  text: string,
  inputs: ReadonlyArray<string | null> | undefined,
): Promise<string[]> {
  // Too large to parse in bounded memory (a generated file, a bundle): nothing to say of it.
  if (!fitsParser(text)) return [];
  const format = dataFormatForPath(file);
  if (format === null) return codeProblems(file, text, inputs);
  const found = dataProblems(format, text);
  // As for code: a problem the inputs already had is not the resolution's.
  if (found.length > 0 && (inputs ?? []).some((input) => input !== null && dataProblems(format, input, 1).length > 0))
    return [];
  return found;
}

async function codeProblems(
  file: string,
  text: string,
  inputs: ReadonlyArray<string | null> | undefined,
): Promise<string[]> {
  const grammar = grammarForPath(file);
  if (grammar === null) return [];
  const tree = await parseText(grammar, text);
  if (!tree) return [];
  let found;
  try {
    found = syntaxProblems(tree.rootNode);
  } finally {
    tree.delete();
  }
  if (found.length === 0) return [];
  for (const input of inputs ?? []) {
    if (input === null) continue;
    const t = await parseText(grammar, input);
    const clean = t !== null && !t.rootNode.hasError;
    t?.delete();
    if (!clean) return [];
  }
  return found.map(
    (p) =>
      `syntax error (${grammar} grammar): line ${p.line}, column ${p.column}: ${p.missing ? `missing ${p.near}` : `unexpected \`${p.near}\``}`,
  );
}

/**
 * The conflicted path's base, ours and theirs from the index (stages 1-3), as
 * `inputs` for validation; undefined when neither side is there to read.
 */
export async function stageTexts(git: Git, path: string): Promise<Array<string | null> | undefined> {
  const texts = await Promise.all(['1', '2', '3'].map((stage) => readBlob(git, `:${stage}:${path}`)));
  return texts[1] === null && texts[2] === null ? undefined : texts;
}
