import type { Node } from 'web-tree-sitter';
import { entityKindsOf, type GrammarId } from './languages.js';

/**
 * A file as the entity merge sees it: containers (the file, a class body, a
 * JSON object, a TOML table) holding entities (declarations, members, test
 * cases, imports, keys), each with an identity key. Offsets are into the
 * source text (UTF-16, as JavaScript strings index).
 */
export interface Container {
  /** Where the members start and end (after an opening brace, before the closing one). */
  start: number;
  end: number;
  entities: Entity[];
  /**
   * Whether the order of members carries no meaning (class members, test
   * cases, mapping keys): both sides' additions at one point are then kept,
   * ours first. Additions at one point of an ordered container are left to
   * the next rung.
   */
  unordered: boolean;
  /** The separator written between members (`,` in JSON objects); null when none. */
  separator: string | null;
}

export interface Entity {
  /** Kind plus name (plus signature where names repeat). */
  key: string;
  /** The entity's own text (without leading blank lines and comments). */
  start: number;
  end: number;
  /** Its members, for an entity both sides changed (a class, a describe block, a nested object). */
  body: Container | null;
}

const isComment = (n: Node): boolean => /comment/.test(n.type);

/** The file's top-level container from a tree-sitter tree; null when an entity has no identity to merge by. */
export function fileContainer(root: Node, grammar: GrammarId): Container | null {
  const { file } = entityKindsOf(grammar);
  if (file === 'object') {
    const value = root.namedChildren.find((c) => c !== null && !isComment(c));
    if (!value || value.type !== 'object') return null;
    return bodyContainer(value, grammar, true);
  }
  // A mapping's keys carry no order; a program's top level is ordered.
  return membersOf(root, root.namedChildren, root.startIndex, root.endIndex, grammar, file === 'mapping', null);
}

function membersOf(
  parent: Node,
  children: ReadonlyArray<Node | null>,
  start: number,
  end: number,
  grammar: GrammarId,
  unordered: boolean,
  separator: string | null,
): Container | null {
  const entities: Array<Entity & { node: Node }> = [];
  const members = children.filter((c): c is Node => c !== null && !isComment(c));
  for (const [i, node] of members.entries()) {
    // Tokens after a member up to the next one (`;` after a C struct, a field's `;`) belong to it.
    let last = node;
    if (separator === null) {
      for (let s = node.nextSibling; s && s !== members[i + 1] && !s.isNamed && s.endIndex <= end; s = s.nextSibling)
        last = s;
    }
    const key = entityKey(node, grammar);
    if (key === null) return null;
    entities.push({ key, start: node.startIndex, end: last.endIndex, body: entityBody(node, grammar), node });
  }
  void parent;
  // Where a name repeats (overloads), the parameter list tells the entities apart.
  const count = new Map<string, number>();
  for (const e of entities) count.set(e.key, (count.get(e.key) ?? 0) + 1);
  const keyed = entities.map(({ node, ...e }) =>
    (count.get(e.key) ?? 0) > 1 ? { ...e, key: `${e.key}(${squash(signatureOf(node) ?? '')})` } : e,
  );
  return { start, end, entities: keyed, unordered, separator };
}

/** The parameter list of a function-like declaration, for telling overloads apart. */
function signatureOf(node: Node): string | null {
  const params = node.childForFieldName('parameters');
  if (params) return params.text;
  for (const field of ['declarator', 'declaration', 'definition']) {
    const inner = node.childForFieldName(field);
    if (inner) return signatureOf(inner);
  }
  return null;
}

/** The container inside a node that opens with a brace (or the node itself for TOML tables). */
function bodyContainer(node: Node, grammar: GrammarId, unordered: boolean): Container | null {
  const kids = node.children.filter((c): c is Node => c !== null);
  const open = kids[0];
  const close = kids[kids.length - 1];
  const braced =
    open && close && !open.isNamed && !close.isNamed && /^[{[]$/.test(open.type) && /^[}\]]$/.test(close.type);
  const start = braced ? open.endIndex : node.startIndex;
  const end = braced ? close.startIndex : node.endIndex;
  const separator =
    entityKindsOf(grammar).file === 'object' || node.type === 'object' || node.type === 'enum_body' ? ',' : null;
  return membersOf(node, node.namedChildren, start, end, grammar, unordered, separator);
}

const classBodies = new Set([
  'class_body',
  'declaration_list',
  'field_declaration_list',
  'interface_body',
  'body_statement',
  'enum_class_body',
]);
const classKinds =
  /^(?:class|abstract_class|interface|struct|enum|impl|trait|mod|module|namespace|object|record)(?:_declaration|_definition|_specifier|_item)?$/;

/** The members of an entity both sides may change independently: a class, a test group, a nested JSON object. */
function entityBody(node: Node, grammar: GrammarId): Container | null {
  const kinds = entityKindsOf(grammar);
  if (kinds.file === 'object') {
    const value = node.childForFieldName('value');
    return value?.type === 'object' ? bodyContainer(value, grammar, true) : null;
  }
  if (kinds.file === 'mapping') {
    if (node.type !== 'table') return null;
    const header = node.children.find((c) => c !== null && !c.isNamed && c.type === ']');
    if (!header) return null;
    return membersOf(node, node.namedChildren.slice(1), header.endIndex, node.endIndex, grammar, true, null);
  }
  if (node.type === 'export_statement' || node.type === 'decorated_definition') {
    const inner = node.childForFieldName('declaration') ?? node.childForFieldName('definition');
    return inner ? entityBody(inner, grammar) : null;
  }
  if (classKinds.test(node.type)) {
    const body =
      node.childForFieldName('body') ?? node.namedChildren.find((c) => c !== null && classBodies.has(c.type)) ?? null;
    if (!body) return null;
    const open = kinds.openBodies;
    if (open === 'any' || open?.includes(body.type))
      return membersOf(body, body.namedChildren, body.startIndex, body.endIndex, grammar, true, null);
    return classBodies.has(body.type) ? bodyContainer(body, grammar, true) : null;
  }
  const test = testCall(node);
  if (test) {
    const fn = test.call.childForFieldName('arguments')?.namedChildren.at(-1);
    const body = fn?.childForFieldName('body');
    if (body?.type === 'statement_block') return bodyContainer(body, grammar, true);
  }
  return null;
}

const testFunctions = /^(?:describe|context|suite|it|test|specify)(?:\.(?:only|skip|each|concurrent))?$/;

/** A `describe('name', ...)` / `it('name', ...)` statement: its function and title. */
function testCall(node: Node): { call: Node; fn: string; title: string } | null {
  if (node.type !== 'expression_statement') return null;
  const call = node.namedChildren[0];
  if (!call || call.type !== 'call_expression') return null;
  const fn = call.childForFieldName('function')?.text ?? '';
  if (!testFunctions.test(fn)) return null;
  const first = call.childForFieldName('arguments')?.namedChildren[0];
  if (!first || !/string/.test(first.type)) return null;
  return { call, fn, title: first.text };
}

/**
 * The name a declaration declares: its `name` field, or the identifier inside its declarator (C, C++).
 * A grammar with neither (Kotlin) names its declarations by a child (`fun f`, `class C`, an enum entry),
 * and a wrapping child by a name inside it (`val v`): its profile's `nameChild`.
 */
function nameOf(node: Node, grammar: GrammarId): string | null {
  const byChild = entityKindsOf(grammar).nameChild;
  if (byChild) {
    if (!byChild.declarations.includes(node.type)) return null;
    const named = node.namedChildren.find((c) => c !== null && byChild.names.includes(c.type));
    const inside = named ? byChild.inside[named.type] : undefined;
    if (named && inside) return named.namedChildren.find((c) => c?.type === inside)?.text ?? null;
    return named?.text ?? null;
  }
  const name = node.childForFieldName('name');
  if (name) return name.text;
  const declarator = node.childForFieldName('declarator');
  if (declarator) return declaratorName(declarator);
  const inner = node.childForFieldName('declaration') ?? node.childForFieldName('definition');
  if (inner) return nameOf(inner, grammar);
  const variable = node.namedChildren.find((c) => c?.type === 'variable_declarator');
  if (variable) return nameOf(variable, grammar);
  return null;
}

function declaratorName(node: Node): string | null {
  if (/identifier$/.test(node.type) || node.type === 'operator_name' || node.type === 'destructor_name')
    return node.text;
  const inner = node.childForFieldName('declarator') ?? node.childForFieldName('name');
  if (inner) return declaratorName(inner);
  return null;
}

/** Whitespace-insensitive text, for entities with no name (their content is their identity). */
const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * An entity's identity: kind plus name for declarations; the module for
 * imports; kind and title for test cases; the key for mapping entries; the
 * content itself for anything unnamed (a changed unnamed statement is then a
 * deletion plus an addition, which the merge treats as a conflict when both
 * sides touch it). Null when the node is an error.
 */
function entityKey(node: Node, grammar: GrammarId): string | null {
  if (node.isError || node.isMissing) return null;
  const t = node.type;
  const { file } = entityKindsOf(grammar);
  if (file === 'object' || (file === 'mapping' && t === 'pair')) {
    const key = node.childForFieldName('key') ?? node.namedChildren[0];
    return `pair:${key?.text.replace(/^"(.*)"$/, '$1') ?? ''}`;
  }
  if (file === 'mapping' && (t === 'table' || t === 'table_array_element'))
    return `${t}:${node.namedChildren[0]?.text ?? ''}`;
  if (t === 'import_statement' || t === 'import_declaration') {
    const source = node.childForFieldName('source');
    return source ? `import:${source.text}` : `import:${squash(node.text)}`;
  }
  if (t === 'import_from_statement') return `from:${node.childForFieldName('module_name')?.text ?? squash(node.text)}`;
  if (t === 'preproc_include') return `include:${node.childForFieldName('path')?.text ?? squash(node.text)}`;
  if (t === 'preproc_ifdef' || t === 'preproc_if')
    return `${t}:${squash(node.childForFieldName('name')?.text ?? node.childForFieldName('condition')?.text ?? '')}`;
  const test = testCall(node);
  if (test) return `test:${test.fn}:${test.title}`;
  if (t === 'expression_statement') {
    const inner = node.namedChildren[0];
    if (inner && (inner.type === 'assignment' || inner.type === 'assignment_expression')) {
      const left = inner.childForFieldName('left');
      if (left) return `assign:${squash(left.text)}`;
    }
    return `${t}#${squash(node.text)}`;
  }
  if (t === 'decorated_definition') {
    const inner = node.childForFieldName('definition');
    return inner ? entityKey(inner, grammar) : null;
  }
  if (t === 'export_statement') {
    const inner = node.childForFieldName('declaration');
    if (inner) return `export:${entityKey(inner, grammar) ?? ''}`;
    return `export#${squash(node.text)}`;
  }
  const name = nameOf(node, grammar);
  return name !== null ? `${t}:${name}` : `${t}#${squash(node.text)}`;
}

/**
 * Keys made unique where a name repeats (overloads, a C prototype and its
 * definition are already told apart by kind): the signature is added. Null
 * when keys still repeat: the entities cannot be matched with certainty.
 */
export function withSignatures(container: Container, text: string): Container | null {
  const seen = new Map<string, number>();
  for (const e of container.entities) seen.set(e.key, (seen.get(e.key) ?? 0) + 1);
  if ([...seen.values()].every((n) => n === 1)) return container;
  const entities = container.entities.map((e) => {
    if ((seen.get(e.key) ?? 0) === 1) return e;
    const head = text.slice(e.start, e.end).split(/[{:]\s*\n|\{/)[0] ?? '';
    return { ...e, key: `${e.key}(${squash(head)})` };
  });
  return new Set(entities.map((e) => e.key)).size === entities.length ? { ...container, entities } : null;
}
