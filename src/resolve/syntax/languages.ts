import {
  languageProfiles,
  type DataFormat,
  type EntityKinds,
  type GrammarId,
  type LanguageProfile,
} from './language-profiles.js';

export type { DataFormat, GrammarId } from './language-profiles.js';

const byExtension = new Map(languageProfiles.flatMap((p) => p.extensions.map((e) => [e, p] as const)));
const byFileName = new Map(languageProfiles.flatMap((p) => (p.fileNames ?? []).map((n) => [n, p] as const)));
const byGrammar = new Map(languageProfiles.flatMap((p) => (p.grammar === null ? [] : [[p.grammar, p] as const])));

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1).toLowerCase();

/**
 * The profile of the language a path is in, from its name: a whole file name or a path pattern first,
 * then its extension; null when no profile names it.
 */
export function profileForPath(path: string): LanguageProfile | null {
  const name = baseName(path);
  const named = byFileName.get(name) ?? languageProfiles.find((p) => p.paths?.test(path));
  if (named) return named;
  const dot = name.lastIndexOf('.');
  if (dot < 0) return null;
  return byExtension.get(name.slice(dot + 1)) ?? null;
}

/** The grammar for a path, from its name; null when there is none. */
export function grammarForPath(path: string): GrammarId | null {
  return profileForPath(path)?.grammar ?? null;
}

/** The data format of a path, for key-level merges and validation; null for code and text. */
export function dataFormatForPath(path: string): DataFormat | null {
  const profile = profileForPath(path);
  const commented = profile?.withComments;
  if (commented && (commented.fileNames.includes(baseName(path)) || commented.paths.test(path))) return 'jsonc';
  return profile?.data ?? null;
}

const statements: EntityKinds = { file: 'statements' };

/** How the entity merge reads a grammar's tree (the general rules where its language says nothing). */
export function entityKindsOf(grammar: GrammarId): EntityKinds {
  return byGrammar.get(grammar)?.entities ?? statements;
}
