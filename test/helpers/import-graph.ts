import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/**
 * The layers of design.md §2, highest first. A module may import from its own folder and from
 * any folder of the same or a lower layer, never from a higher one.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['cli'],
  ['report'],
  ['workflow'],
  ['agents'],
  ['resolve'],
  ['imerge', 'store'],
  ['git', 'checks', 'config'],
  ['log', 'errors', 'util'],
];

/** Source file (relative to the root, `/`-separated) → the source files it imports. */
export type ImportGraph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

const posix = (path: string): string => path.split(sep).join('/');

/** The relative imports (static, type-only, re-exports and `import()`) of every production file under `root`. */
export function importGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of sourceFiles(root)) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((i) => i.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => posix(relative(root, resolve(dirname(file), spec))).replace(/\.js$/, '.ts'));
    graph.set(posix(relative(root, file)), targets);
  }
  return graph;
}

const folderOf = (file: string): string => file.split('/')[0] ?? file;

function rankOf(folder: string): number | undefined {
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  return index < 0 ? undefined : index;
}

/** Every import that runs from a lower layer up to a higher one, or touches a folder outside the layers. */
export function layerViolations(graph: ImportGraph): string[] {
  const violations: string[] = [];
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const fromRank = rankOf(from);
    if (fromRank === undefined) violations.push(`${file}: folder '${from}' is not in a layer`);
    for (const target of targets) {
      const to = folderOf(target);
      const toRank = rankOf(to);
      if (toRank === undefined) violations.push(`${file} -> ${target}: folder '${to}' is not in a layer`);
      else if (fromRank !== undefined && toRank < fromRank)
        violations.push(`${file} -> ${target}: ${from} may not import ${to}`);
    }
  }
  return violations;
}

/** Strongly connected components with more than one member (Tarjan), each sorted. */
function loops(graph: Map<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** Import loops between files, and between folders (two folders of one layer importing each other). */
export function importCycles(graph: ImportGraph): string[][] {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = folderOf(file);
    const set = folders.get(from) ?? new Set<string>();
    for (const t of targets) if (folderOf(t) !== from) set.add(folderOf(t));
    folders.set(from, set);
  }
  const folderGraph = new Map([...folders].map(([k, v]) => [`${k}/`, [...v].map((f) => `${f}/`)]));
  return [...loops(graph), ...loops(folderGraph)];
}
