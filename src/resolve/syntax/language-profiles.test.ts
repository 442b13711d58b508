import { describe, expect, it } from 'vitest';
import { languageOfPath } from '../eval/language.js';
import { parserFor } from './grammar.js';
import { languageProfiles, type LanguageProfile } from './language-profiles.js';
import { dataFormatForPath, grammarForPath } from './languages.js';

/** Every node kind a profile names, which its grammar must have. */
function kindsNamed(profile: LanguageProfile): string[] {
  const { entities, tokensOnly } = profile;
  const open = entities?.openBodies;
  const byChild = entities?.nameChild;
  return [
    ...(tokensOnly?.comments ?? []),
    ...(Array.isArray(open) ? open : []),
    ...(byChild ? [...byChild.declarations, ...byChild.names, ...Object.values(byChild.inside)] : []),
  ];
}

describe('the language table', () => {
  it('gives the syntax rung and eval one language for the extensions where they had drifted apart', () => {
    const drifted: Array<[string, string]> = [
      ['src/a.cxx', 'C++'],
      ['src/a.hh', 'C++'],
      ['src/a.hxx', 'C++'],
      ['stubs/a.pyi', 'Python'],
      ['src/a.cts', 'TypeScript'],
      ['lib/tasks/a.rake', 'Ruby'],
      ['a.gemspec', 'Ruby'],
      ['Rakefile', 'Ruby'],
      ['Gemfile', 'Ruby'],
    ];
    for (const [path, language] of drifted) {
      expect(grammarForPath(path), path).not.toBeNull();
      expect(languageOfPath(path), path).toBe(language);
    }
    // Every file the syntax rung parses is reported under a language, never as "Other".
    for (const profile of languageProfiles.filter((p) => p.grammar !== null))
      for (const ext of profile.extensions) {
        expect(grammarForPath(`x/a.${ext}`)).toBe(profile.grammar);
        expect(languageOfPath(`x/a.${ext}`)).toBe(profile.name);
      }
  });

  it('keeps what each kind of path was parsed and validated as', () => {
    const cases: Array<[string, string | null, string | null, string]> = [
      ['a.json', 'json', 'json', 'JSON'],
      ['packages/x/tsconfig.build.json', 'json', 'jsonc', 'JSON'],
      ['.eslintrc.json', 'json', 'jsonc', 'JSON'],
      ['.vscode/settings.json', 'json', 'jsonc', 'JSON'],
      ['turbo.json', 'json', 'jsonc', 'JSON'],
      ['.eslintrc', null, 'jsonc', 'JSON'],
      ['a.json5', null, 'jsonc', 'JSON'],
      ['.prettierrc', null, 'json', 'JSON'],
      ['a.yml', null, 'yaml', 'YAML'],
      ['pyproject.toml', 'toml', 'toml', 'TOML'],
      ['Cargo.lock', null, 'toml', 'TOML'],
      ['README', null, null, 'Text'],
      ['docs/Changelog-old', null, null, 'Text'],
      ['README.md', null, null, 'Markdown'],
      ['Makefile', null, null, 'Makefile'],
      ['Makefile.am', null, null, 'Other'],
      ['src/A.TS', 'typescript', null, 'TypeScript'],
    ];
    for (const [path, grammar, format, language] of cases)
      expect([grammarForPath(path), dataFormatForPath(path), languageOfPath(path)], path).toEqual([
        grammar,
        format,
        language,
      ]);
  });

  it('names each extension, file name and grammar in one profile only', () => {
    const once = (values: string[]): string[] => values.filter((v, i) => values.indexOf(v) !== i);
    expect(once(languageProfiles.flatMap((p) => p.extensions))).toEqual([]);
    expect(once(languageProfiles.flatMap((p) => p.fileNames ?? []))).toEqual([]);
    expect(once(languageProfiles.flatMap((p) => (p.grammar === null ? [] : [p.grammar])))).toEqual([]);
    for (const p of languageProfiles)
      for (const name of [...p.extensions, ...(p.fileNames ?? [])]) expect(name).toBe(name.toLowerCase());
  });

  it('loads every grammar a profile names, which has every node kind the profile names', async () => {
    for (const profile of languageProfiles) {
      if (profile.grammar === null) {
        expect(kindsNamed(profile), profile.name).toEqual([]);
        continue;
      }
      const parser = await parserFor(profile.grammar);
      const tree = parser.parse('');
      expect(tree, profile.grammar).not.toBeNull();
      tree?.delete();
      const language = parser.language;
      for (const kind of kindsNamed(profile))
        expect(language?.idForNodeType(kind, true), `${profile.grammar}: ${kind}`).not.toBeNull();
    }
  });
});
