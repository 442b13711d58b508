/** Languages with a tree-sitter grammar (file names of `tree-sitter-wasms`). */
export type GrammarId =
  | 'javascript'
  | 'typescript'
  | 'tsx'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c'
  | 'cpp'
  | 'ruby'
  | 'php'
  | 'c_sharp'
  | 'kotlin'
  | 'json'
  | 'toml';

const byExtension: Readonly<Record<string, GrammarId>> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hh: 'cpp',
  hpp: 'cpp',
  hxx: 'cpp',
  rb: 'ruby',
  rake: 'ruby',
  gemspec: 'ruby',
  php: 'php',
  cs: 'c_sharp',
  kt: 'kotlin',
  kts: 'kotlin',
  json: 'json',
  toml: 'toml',
};

const byName: Readonly<Record<string, GrammarId>> = { rakefile: 'ruby', gemfile: 'ruby' };

const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1).toLowerCase();

/** The grammar for a path, from its name; null when there is none. */
export function grammarForPath(path: string): GrammarId | null {
  const name = baseName(path);
  const named = byName[name];
  if (named) return named;
  const dot = name.lastIndexOf('.');
  if (dot < 0) return null;
  return byExtension[name.slice(dot + 1)] ?? null;
}

/**
 * JSON with comments and trailing commas: tsconfig and friends are read by
 * tools that allow both, and refusing them as strict JSON refuses correct files.
 */
function isJsoncPath(path: string): boolean {
  const name = baseName(path);
  if (name.endsWith('.jsonc') || name.endsWith('.json5')) return true;
  if (/^(?:tsconfig|jsconfig)(?:[.-].*)?\.json$/.test(name)) return true;
  if (/^\.(?:eslintrc|babelrc|swcrc|jshintrc|jscsrc)(?:\.json)?$/.test(name)) return true;
  if (
    [
      'devcontainer.json',
      '.devcontainer.json',
      'tslint.json',
      'api-extractor.json',
      'typedoc.json',
      'deno.json',
      'turbo.json',
      'language-configuration.json',
      '.oxlintrc.json',
    ].includes(name)
  )
    return true;
  // VS Code's own settings, tasks, launch and extension lists.
  return /(?:^|\/)\.vscode\/[^/]+\.json$/i.test(path);
}

/** The data format of a path, for key-level merges and validation. */
export type DataFormat = 'json' | 'jsonc' | 'yaml' | 'toml';

export function dataFormatForPath(path: string): DataFormat | null {
  const name = baseName(path);
  if (isJsoncPath(path)) return 'jsonc';
  if (name.endsWith('.json') || name === '.prettierrc' || name === '.npmrc.json') return 'json';
  if (name.endsWith('.yaml') || name.endsWith('.yml')) return 'yaml';
  if (name.endsWith('.toml') || name === 'cargo.lock' || name === 'poetry.lock') return 'toml';
  return null;
}
