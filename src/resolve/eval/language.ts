const byExtension: Readonly<Record<string, string>> = {
  py: 'Python',
  c: 'C',
  h: 'C',
  cc: 'C++',
  cpp: 'C++',
  hpp: 'C++',
  ts: 'TypeScript',
  tsx: 'TypeScript',
  mts: 'TypeScript',
  js: 'JavaScript',
  jsx: 'JavaScript',
  mjs: 'JavaScript',
  cjs: 'JavaScript',
  go: 'Go',
  rs: 'Rust',
  java: 'Java',
  rb: 'Ruby',
  php: 'PHP',
  cs: 'C#',
  kt: 'Kotlin',
  kts: 'Kotlin',
  json: 'JSON',
  yaml: 'YAML',
  yml: 'YAML',
  toml: 'TOML',
  md: 'Markdown',
  rst: 'reStructuredText',
  txt: 'Text',
};

/** A language name for reports, from the file name only. */
export function languageOfPath(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot < 0)
    return /^(?:CHANGES|Changelog|README|NEWS|AUTHORS|TODO)/i.test(name)
      ? 'Text'
      : /^(?:Makefile|GNUmakefile)$/.test(name)
        ? 'Makefile'
        : 'Other';
  return byExtension[name.slice(dot + 1).toLowerCase()] ?? 'Other';
}
