import { createRequire } from 'node:module';
import type * as JsoncParser from 'jsonc-parser';
import type * as SmolToml from 'smol-toml';
import { parseAllDocuments } from 'yaml';
import type { DataFormat } from '../syntax/languages.js';

// The JSON and TOML parsers load the first time a file of theirs is checked, so the CLI starts without them.
const require = createRequire(import.meta.url);

/**
 * Problems with a data file's text, each with its line: JSON that does not
 * parse or repeats a key in one object, JSONC likewise (comments and trailing
 * commas allowed), YAML and TOML errors (both refuse repeated keys).
 */
export function dataProblems(format: DataFormat, text: string, max = 5): string[] {
  switch (format) {
    case 'json':
    case 'jsonc':
      return jsonProblems(text, format === 'jsonc', max);
    case 'yaml':
      return yamlProblems(text, max);
    case 'toml':
      return tomlProblems(text);
  }
}

function jsonProblems(text: string, comments: boolean, max: number): string[] {
  const problems: string[] = [];
  const what = comments ? 'JSONC' : 'JSON';
  // One set of keys per open object; arrays push null.
  const open: Array<Set<string> | null> = [];
  const { printParseErrorCode, visit } = require('jsonc-parser') as typeof JsoncParser;
  visit(
    text,
    {
      onObjectBegin: () => {
        open.push(new Set());
      },
      onObjectEnd: () => {
        open.pop();
      },
      onArrayBegin: () => {
        open.push(null);
      },
      onArrayEnd: () => {
        open.pop();
      },
      onObjectProperty: (property, _offset, _length, line, column, path) => {
        const keys = open[open.length - 1];
        if (!keys) return;
        if (keys.has(property) && problems.length < max) {
          const where = path().map(String).join('.');
          problems.push(
            `not valid ${what}: line ${line + 1}, column ${column + 1}: duplicate key "${property}"${where ? ` in ${where}` : ''}`,
          );
        }
        keys.add(property);
      },
      onError: (error, _offset, _length, line, column) => {
        if (problems.length < max)
          problems.push(`not valid ${what}: line ${line + 1}, column ${column + 1}: ${printParseErrorCode(error)}`);
      },
    },
    { disallowComments: !comments, allowTrailingComma: comments, allowEmptyContent: false },
  );
  return problems;
}

function yamlProblems(text: string, max: number): string[] {
  const problems: string[] = [];
  for (const doc of parseAllDocuments(text)) {
    for (const err of doc.errors) {
      const at = err.linePos?.[0];
      problems.push(
        `not valid YAML: ${at ? `line ${at.line}, column ${at.col}: ` : ''}${err.message.split('\n')[0] ?? ''}`,
      );
    }
  }
  return problems.slice(0, max);
}

function tomlProblems(text: string): string[] {
  const { TomlError, parse: parseToml } = require('smol-toml') as typeof SmolToml;
  try {
    parseToml(text);
    return [];
  } catch (error) {
    if (error instanceof TomlError)
      return [`not valid TOML: line ${error.line}, column ${error.column}: ${error.message.split('\n')[0] ?? ''}`];
    return [`not valid TOML: ${error instanceof Error ? error.message : String(error)}`];
  }
}
