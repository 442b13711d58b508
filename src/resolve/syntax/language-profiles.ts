/** Languages with a tree-sitter grammar (file names of `tree-sitter-wasms`: `out/tree-sitter-ID.wasm`). */
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

/** The data format of a file, for key-level merges and validation. */
export type DataFormat = 'json' | 'jsonc' | 'yaml' | 'toml';

/**
 * How the entity merge finds entities in a grammar's tree where the general rules of `entities.ts` do not
 * (a declaration's `name` or `declarator` field, a class body in a `body` field or a braced block).
 */
export interface EntityKinds {
  /**
   * The file's top level: `statements`, a program's, in order; `mapping`, a document of keys and tables
   * whose order carries no meaning (TOML); `object`, one value that is a mapping, its members and every
   * nested object's separated by commas (JSON).
   */
  file: 'statements' | 'mapping' | 'object';
  /**
   * A class body that holds its members with no braces around them: these block kinds (Python's `block`),
   * or `any` for whatever the class's `body` field holds (Ruby's `class ... end`).
   */
  openBodies?: readonly string[] | 'any';
  /**
   * For a grammar with no `name` field (Kotlin): the declaration kinds known by name, the kinds of the child
   * that names one, and for a naming child that wraps the name, the kind of the name inside it.
   */
  nameChild?: {
    declarations: readonly string[];
    names: readonly string[];
    inside: Readonly<Record<string, string>>;
  };
}

/** One language: how its files are found, parsed, merged, validated, compared and reported. */
export interface LanguageProfile {
  /** The language's name in `eval`'s reports; several profiles may share one (TSX is TypeScript there). */
  name: string;
  /** File extensions, lower case, without the dot. */
  extensions: readonly string[];
  /** Whole file names (`Rakefile`), matched in any case and before any extension. */
  fileNames?: readonly string[];
  /** Paths matched before any extension (a family of names, a folder's files). */
  paths?: RegExp;
  /** The tree-sitter grammar of the syntax rung, the re-parse check and the no-build skip; null when none. */
  grammar: GrammarId | null;
  /** How the entity merge reads the grammar's tree; the general rules when absent. */
  entities?: EntityKinds;
  /** The data format its files are validated and merged key by key as. */
  data?: DataFormat;
  /**
   * Files of this language that the tools reading them allow comments and trailing commas in: read as
   * JSONC, since refusing them as strict JSON refuses correct files.
   */
  withComments?: { fileNames: readonly string[]; paths: RegExp };
  /**
   * What counts as code for the no-build skip (a resolution no check can tell apart is not built): present
   * for a language whose compiler sees tokens only, where whitespace within lines and these comment kinds
   * change no compiled byte. Absent where whitespace can be syntax (Python's indentation, a line break
   * ending a JavaScript or Go statement) or for data: every character counts there.
   */
  tokensOnly?: { comments: readonly string[] };
  /**
   * Indentation is layout only in this language's files: braces, tags or keywords carry the structure,
   * so re-indenting lines cannot change what the file means (a rule may take a re-indented side). Absent
   * where indentation may mean something (Python, YAML, Makefiles, Markdown's code blocks and lists).
   */
  layoutIndentation?: true;
}

/**
 * Every language splintercat knows, one entry each: adding a language is adding its entry here (and a case in
 * `syntax-merge.test.ts` when it has a grammar). Extensions and file names are each in one entry only.
 */
export const languageProfiles: readonly LanguageProfile[] = [
  { name: 'JavaScript', extensions: ['js', 'mjs', 'cjs', 'jsx'], grammar: 'javascript', layoutIndentation: true },
  { name: 'TypeScript', extensions: ['ts', 'mts', 'cts'], grammar: 'typescript', layoutIndentation: true },
  { name: 'TypeScript', extensions: ['tsx'], grammar: 'tsx', layoutIndentation: true },
  {
    name: 'Python',
    extensions: ['py', 'pyi'],
    grammar: 'python',
    entities: { file: 'statements', openBodies: ['block'] },
  },
  { name: 'Go', extensions: ['go'], grammar: 'go', layoutIndentation: true },
  // Comments count as code: the grammar's `line_comment` and `block_comment` include doc comments, which
  // are attributes a macro can read.
  { name: 'Rust', extensions: ['rs'], grammar: 'rust', tokensOnly: { comments: [] }, layoutIndentation: true },
  // Comments (`line_comment`, `block_comment`) count as code: the no-build skip has not been shown on them.
  { name: 'Java', extensions: ['java'], grammar: 'java', tokensOnly: { comments: [] }, layoutIndentation: true },
  { name: 'C', extensions: ['c', 'h'], grammar: 'c', tokensOnly: { comments: ['comment'] }, layoutIndentation: true },
  {
    name: 'C++',
    extensions: ['cc', 'cpp', 'cxx', 'hh', 'hpp', 'hxx'],
    grammar: 'cpp',
    tokensOnly: { comments: ['comment'] },
    layoutIndentation: true,
  },
  {
    name: 'Ruby',
    extensions: ['rb', 'rake', 'gemspec'],
    fileNames: ['rakefile', 'gemfile'],
    grammar: 'ruby',
    entities: { file: 'statements', openBodies: 'any' },
    layoutIndentation: true,
  },
  { name: 'PHP', extensions: ['php'], grammar: 'php', layoutIndentation: true },
  {
    name: 'C#',
    extensions: ['cs'],
    grammar: 'c_sharp',
    tokensOnly: { comments: ['comment'] },
    layoutIndentation: true,
  },
  {
    name: 'Kotlin',
    extensions: ['kt', 'kts'],
    grammar: 'kotlin',
    layoutIndentation: true,
    // Any other node (a statement of a script) is known by its text.
    entities: {
      file: 'statements',
      nameChild: {
        declarations: [
          'class_declaration',
          'object_declaration',
          'function_declaration',
          'property_declaration',
          'type_alias',
          'enum_entry',
        ],
        names: ['simple_identifier', 'type_identifier', 'variable_declaration'],
        inside: { variable_declaration: 'simple_identifier' },
      },
    },
  },
  {
    name: 'JSON',
    extensions: ['json'],
    grammar: 'json',
    layoutIndentation: true,
    entities: { file: 'object' },
    data: 'json',
    withComments: {
      fileNames: [
        'devcontainer.json',
        '.devcontainer.json',
        'tslint.json',
        'api-extractor.json',
        'typedoc.json',
        'deno.json',
        'turbo.json',
        'language-configuration.json',
        '.oxlintrc.json',
      ],
      // tsconfig and friends; VS Code's own settings, tasks, launch and extension lists.
      paths:
        /(?:(?:^|\/)(?:tsconfig|jsconfig)(?:[.-][^/]*)?\.json|(?:^|\/)\.(?:eslintrc|babelrc|swcrc|jshintrc|jscsrc)\.json|(?:^|\/)\.vscode\/[^/]+\.json)$/i,
    },
  },
  // No grammar: the JSON grammar reads no JSON5, and a `.eslintrc` may be written as YAML.
  {
    name: 'JSON',
    extensions: ['jsonc', 'json5'],
    fileNames: ['.eslintrc', '.babelrc', '.swcrc', '.jshintrc', '.jscsrc'],
    grammar: null,
    data: 'jsonc',
  },
  // No grammar: a `.prettierrc` may be written as YAML.
  { name: 'JSON', extensions: [], fileNames: ['.prettierrc'], grammar: null, data: 'json' },
  { name: 'YAML', extensions: ['yaml', 'yml'], grammar: null, data: 'yaml' },
  { name: 'TOML', extensions: ['toml'], grammar: 'toml', entities: { file: 'mapping' }, data: 'toml' },
  // Lockfiles in TOML: validated as TOML, and left to the file-level rungs (regenerated, not merged by entity).
  { name: 'TOML', extensions: [], fileNames: ['cargo.lock', 'poetry.lock'], grammar: null, data: 'toml' },
  { name: 'Markdown', extensions: ['md'], grammar: null },
  { name: 'reStructuredText', extensions: ['rst'], grammar: null },
  {
    name: 'Text',
    extensions: ['txt'],
    paths: /(?:^|\/)(?:CHANGES|Changelog|README|NEWS|AUTHORS|TODO)[^./]*$/i,
    grammar: null,
  },
  { name: 'Makefile', extensions: [], fileNames: ['makefile', 'gnumakefile'], grammar: null },
  // Known only for their indentation (no grammar, no data format): `eval` counts them under Other.
  {
    name: 'Other',
    extensions: [
      ...['m', 'mm', 'scala', 'groovy', 'swift', 'dart', 'pl', 'pm', 'lua', 'sql'],
      ...['css', 'scss', 'less', 'html', 'htm', 'xml', 'svg', 'vue', 'svelte'],
    ],
    grammar: null,
    layoutIndentation: true,
  },
];
