import { createRequire } from 'node:module';
import type ts from 'typescript';
import { parseAllDocuments } from 'yaml';
import { hasMarkers } from '../../resolve/parse/markers.js';

const require = createRequire(import.meta.url);
let compiler: typeof ts | null = null;

/** The TypeScript compiler takes ~0.6 s to load: load it for the first TS/JS file, not at every CLI start. */
function typescript(): typeof ts {
  compiler ??= require('typescript') as typeof ts;
  return compiler;
}

/** Whether a resolved file may be accepted. */
export type ValidationResult = { ok: true } | { ok: false; problems: string[] };

const tsLike = /\.(?:[cm]?[jt]sx?)$/i;

/**
 * Checks on a resolved file before it is accepted: no conflict markers left,
 * and JSON, YAML, TypeScript and JavaScript still parse (syntax only).
 */
export function validateResolvedText(file: string, text: string, markerSize = 7): ValidationResult {
  const problems: string[] = [];
  const lower = file.toLowerCase();
  // A lone separator line is a leftover marker in code; in prose it can be a heading underline.
  const prose = /\.(?:md|markdown|rst|txt|adoc)$/.test(lower);
  if (hasMarkers(text, markerSize, { separator: !prose })) {
    problems.push('conflict markers are still present');
  }
  if (lower.endsWith('.json')) {
    try {
      JSON.parse(text);
    } catch (e) {
      problems.push(`not valid JSON: ${(e as Error).message}`);
    }
  } else if (lower.endsWith('.yaml') || lower.endsWith('.yml')) {
    for (const doc of parseAllDocuments(text)) {
      for (const err of doc.errors) problems.push(`not valid YAML: ${err.message.split('\n')[0]}`);
    }
  } else if (tsLike.test(lower)) {
    const ts = typescript();
    const out = ts.transpileModule(text, { fileName: file, reportDiagnostics: true, compilerOptions: { noEmit: true, allowJs: true } });
    for (const d of (out.diagnostics ?? []).slice(0, 5)) {
      const where = d.file && d.start !== undefined ? `line ${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
      problems.push(`syntax error: ${where}${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
  }
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}
