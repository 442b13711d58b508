import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';

const SRC = join(import.meta.dirname, '../../src');

/** The longest function body `src/` may hold, in lines: longer ones are split along their seams. */
const MAX_FUNCTION_LINES = 80;

/** Words that point a reader at the project's history or at documents outside the repository. */
const HISTORY_WORDS = /issue [0-9]+|seed|design\.md/;

function sourceFiles(dir: string, withTests: boolean): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path, withTests));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      if (withTests || !/\.test\.ts$/.test(entry.name)) files.push(path);
    }
  }
  return files.sort();
}

/** `file:line: text` for each line that names an issue, a seed or design.md, as `grep -rnE` prints it. */
function historyReferences(root: string): string[] {
  return sourceFiles(root, true).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (HISTORY_WORDS.test(line) ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`] : [])),
  );
}

function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText(source);
  }
  return '(anonymous)';
}

/** `file:line name N lines` for each function, method or arrow function whose body spans more than `max` lines. */
function longFunctions(root: string, max: number): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(root, false)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const body = node.body as ts.Node;
        const first = source.getLineAndCharacterOfPosition(body.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(body.getEnd()).line;
        const lines = last - first + 1;
        if (lines > max) {
          found.push(`${relative(root, file)}:${first + 1} ${functionName(node, source)} ${lines} lines`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('the source of src/', () => {
  it('names no issue number, seed document or design.md section', () => {
    expect(historyReferences(SRC)).toEqual([]);
  });

  it(`has no function body over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(longFunctions(SRC, MAX_FUNCTION_LINES)).toEqual([]);
  });

  it('reports a planted long function and history reference, and passes a function of exactly the limit', () => {
    const dir = tempDir();
    const body = (n: number): string => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    writeFileSync(join(dir, 'ok.ts'), `export function fits(): void {\n${body(MAX_FUNCTION_LINES)}\n}\n`);
    writeFileSync(
      join(dir, 'long.ts'),
      `// see issue 7\nexport const tooLong = (): void => {\n${body(MAX_FUNCTION_LINES + 1)}\n};\n`,
    );
    writeFileSync(join(dir, 'long.test.ts'), `function inTest(): void {\n${body(MAX_FUNCTION_LINES + 1)}\n}\n`);
    expect(longFunctions(dir, MAX_FUNCTION_LINES)).toEqual([`long.ts:2 tooLong ${MAX_FUNCTION_LINES + 1} lines`]);
    expect(historyReferences(dir)).toEqual(['long.ts:1: // see issue 7']);
  });
});
