import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/git-repo.js';
import { importCycles, importGraph, layerViolations } from '../helpers/import-graph.js';

const SRC = join(import.meta.dirname, '../../src');

describe('the layer order of design.md §2', () => {
  it('holds in src/: no import runs up the layers and there is no import loop', () => {
    const graph = importGraph(SRC);
    expect(graph.size).toBeGreaterThan(100);
    expect(layerViolations(graph)).toEqual([]);
    expect(importCycles(graph)).toEqual([]);
  });

  it('catches an import up the layers, a file loop and a folder loop planted in a copy of src/', () => {
    const copy = join(tempDir(), 'src');
    cpSync(SRC, copy, { recursive: true });
    const plant = (file: string, line: string): void => {
      const path = join(copy, file);
      writeFileSync(path, `${line}\n${readFileSync(path, 'utf8')}`);
    };
    // store below workflow: the arrow issue 10 removed.
    plant('store/journal.ts', "import type { NodeName } from '../workflow/nodes/common.js';");
    // two files of one folder importing each other.
    mkdirSync(join(copy, 'util/loop'));
    writeFileSync(join(copy, 'util/loop/a.ts'), "export { b } from './b.js';\nexport const a = 1;\n");
    writeFileSync(join(copy, 'util/loop/b.ts'), "export { a } from './a.js';\nexport const b = 2;\n");
    // two folders of one layer importing each other.
    plant('git/git-error.ts', "import '../checks/format.js';");
    plant('checks/format.ts', "import '../git/git-error.js';");

    const graph = importGraph(copy);
    expect(layerViolations(graph)).toEqual([
      'store/journal.ts -> workflow/nodes/common.ts: store may not import workflow',
    ]);
    const cycles = importCycles(graph);
    expect(cycles).toContainEqual(['util/loop/a.ts', 'util/loop/b.ts']);
    expect(cycles).toContainEqual(['checks/', 'git/']);
    // store -> workflow also closes a loop of folders, since workflow imports store.
    expect(cycles.some((c) => c.includes('store/') && c.includes('workflow/'))).toBe(true);
  });

  it('rejects a folder that is in no layer', () => {
    const copy = join(tempDir(), 'src');
    mkdirSync(join(copy, 'extras'), { recursive: true });
    writeFileSync(join(copy, 'extras/x.ts'), 'export const x = 1;\n');
    expect(layerViolations(importGraph(copy))).toEqual(["extras/x.ts: folder 'extras' is not in a layer"]);
  });
});
