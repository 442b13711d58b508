import { isMap, isScalar, parseAllDocuments, type Node as YamlNode, type YAMLMap } from 'yaml';
import type { Container, Entity } from '../syntax/entities.js';

/**
 * A YAML document as the entity merge sees it: each block mapping is an
 * unordered container whose entities are its keys; nested block mappings are
 * their bodies. Null when the text is not one clean document whose top is a
 * block mapping (flow mappings, sequences and anchors are merged as values).
 */
export function yamlContainer(text: string): Container | null {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs) || docs.length !== 1) return null;
  const doc = docs[0];
  if (!doc || doc.errors.length > 0 || doc.warnings.length > 0) return null;
  const top = doc.contents;
  if (!isMap(top) || top.flow) return null;
  const members = mapMembers(top);
  return members === null ? null : { start: 0, end: text.length, entities: members, unordered: true, separator: null };
}

function mapMembers(map: YAMLMap): Entity[] | null {
  const out: Entity[] = [];
  for (const pair of map.items) {
    const key = pair.key as YamlNode | null;
    if (!isScalar(key) || !key.range) return null;
    const value = pair.value as YamlNode | null;
    let end = value?.range ? value.range[1] : key.range[1];
    let body: Container | null = null;
    if (isMap(value) && !value.flow && value.range) {
      const inner = mapMembers(value);
      if (inner === null) return null;
      // Comments after a nested mapping's last key, indented as its keys, belong to that mapping.
      end = value.range[2];
      body = { start: value.range[0], end, entities: inner, unordered: true, separator: null };
    }
    out.push({ key: `key:${String(key.value)}`, start: key.range[0], end, body });
  }
  return out;
}

/** Whether the text is one YAML document without errors. */
export function yamlParsesCleanly(text: string): boolean {
  const docs = parseAllDocuments(text);
  return Array.isArray(docs) && docs.length === 1 && (docs[0]?.errors.length ?? 1) === 0;
}
