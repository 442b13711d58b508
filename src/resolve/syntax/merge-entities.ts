import type { Container, Entity } from './entities.js';

/** A piece of merged output: text, or a conflict the entity merge leaves to the next rung. */
export type Piece = string | EntityConflict;

interface EntityConflict {
  base: string;
  ours: string;
  theirs: string;
  /** Why it is left: both changed, modify/delete, both added at one point of an ordered container. */
  reason: string;
}

/** One version: its text and its container (offsets into that text). */
export interface Version {
  text: string;
  container: Container;
}

/** The line rungs, for an entity both sides changed: merged text, or null when they are not sure either. */
export type TextMerge = (base: string, ours: string, theirs: string) => string | null;

interface Item {
  entity: Entity;
  /** Leading blank lines and comments plus the entity (the separator before it removed). */
  text: string;
  /** Where `text` starts in the version's text. */
  start: number;
}

function itemsOf(v: Version): { items: Item[]; tail: string } {
  const { container: c, text } = v;
  const items: Item[] = [];
  let at = c.start;
  for (const e of c.entities) {
    let lead = text.slice(at, e.start);
    if (c.separator !== null) {
      const m = new RegExp(`^\\s*${c.separator.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).exec(lead);
      if (m && at !== c.start) lead = m[0].slice(0, -c.separator.length) + lead.slice(m[0].length);
    }
    items.push({ entity: e, text: lead + text.slice(e.start, e.end), start: at });
    at = e.end;
  }
  return { items, tail: text.slice(at, c.end) };
}

/** Whether keys are in ascending order (code units, as `npm` and most sorters write dependency maps). */
const sorted = (keys: readonly string[]): boolean => keys.every((k, i) => i === 0 || (keys[i - 1] as string) < k);

/** Whether the keys both versions keep appear in the same order in each. */
function keepsOrder(base: readonly string[], side: readonly string[]): boolean {
  const index = new Map(base.map((k, i) => [k, i]));
  let last = -1;
  for (const k of side) {
    const i = index.get(k);
    if (i === undefined) continue;
    if (i < last) return false;
    last = i;
  }
  return true;
}

/**
 * Three-way merge of a container entity by entity. Entities are matched by
 * key; one side's change of an entity the other left alone is taken; an
 * entity both changed goes to `mergeText` (the line rungs) and, failing that,
 * becomes a conflict piece; a deletion of an entity the other side changed is
 * a conflict. Each side's additions go after their nearest preceding base
 * entity; both sides adding at one point is a conflict (where the additions
 * go among each other is a person's choice), except in an unordered container
 * whose keys all three versions keep sorted, which stays sorted. Null
 * (abstain) when a side reordered the base entities or keys repeat.
 */
export interface MergeOptions {
  /**
   * Mappings whose base keys are sorted are written sorted, each addition at
   * its place in that order (package.json: npm writes dependency maps sorted).
   */
  sortedMaps?: boolean;
}

/** npm's order for dependency names. */
const npmOrder = (a: string, b: string): number => a.localeCompare(b, 'en');

/**
 * The order additions of both sides at one point are written in: npm's, sorted into place
 * (`into`), for a package.json map whose base is sorted; code units where all three
 * versions keep the keys sorted; null where no order is known (a person chooses).
 */
function additionOrder(
  options: MergeOptions,
  unordered: boolean,
  [bk = [], ok = [], tk = []]: ReadonlyArray<readonly string[]>,
): { into: boolean; compare: (a: string, b: string) => number } | null {
  if (!unordered) return null;
  if (options.sortedMaps && bk.length >= 2 && bk.every((k, i) => i === 0 || npmOrder(bk[i - 1] as string, k) < 0))
    return { into: true, compare: npmOrder };
  return sorted(bk) && sorted(ok) && sorted(tk) ? { into: false, compare: (a, b) => (a < b ? -1 : 1) } : null;
}

/**
 * A side's additions next to an entity the other side changed (where git
 * conflicted, so where the merge decides the order) re-anchored after the
 * last base key that sorts before them; its other additions stay where the
 * side put them, as git merged them.
 */
function sortedAdditions(
  baseKeys: readonly string[],
  adds: ReadonlyMap<string, Item[]>,
  touched: (anchor: string) => boolean,
): Map<string, Item[]> {
  const out = new Map<string, Item[]>();
  const put = (anchor: string, item: Item): void => void out.set(anchor, [...(out.get(anchor) ?? []), item]);
  for (const [anchor, items] of adds) {
    if (!touched(anchor)) for (const item of items) put(anchor, item);
  }
  const moved = [...adds].filter(([anchor]) => touched(anchor)).flatMap(([, items]) => items);
  for (const item of moved.sort((x, y) => npmOrder(x.entity.key, y.entity.key))) {
    const below = baseKeys.filter((k) => npmOrder(k, item.entity.key) < 0);
    put(below[below.length - 1] ?? '^', item);
  }
  return out;
}

/**
 * Additions that sit where an entity was deleted, and touch another change of that entity, are not
 * independent edits; nor are comments a side changed at the end and the other side's additions there.
 */
function clashesOf(
  b: { items: Item[]; tail: string },
  o: { tail: string },
  t: { tail: string },
  [oMap, tMap]: [Map<string, Item>, Map<string, Item>],
  [oAdds, tAdds]: [Map<string, Item[]>, Map<string, Item[]>],
): Map<string, string> {
  const clash = new Map<string, string>();
  const keptBefore = (i: number, side: Map<string, Item>): string => {
    for (let j = i - 1; j >= 0; j--) {
      const k = (b.items[j] as Item).entity.key;
      if (side.has(k)) return k;
    }
    return '^';
  };
  for (const [i, item] of b.items.entries()) {
    const k = item.entity.key;
    for (const [side, other, adds] of [
      [oMap, tMap, oAdds],
      [tMap, oMap, tAdds],
    ] as const) {
      if (side.has(k)) continue;
      const kept = other.get(k);
      const at = keptBefore(i, side);
      // A side replaced the entity (deleted it, wrote something in its place) while the other changed or deleted it.
      if ((!kept || kept.text !== item.text) && (adds.get(at)?.length ?? 0) > 0)
        clash.set(at, `one side replaced ${k}, the other changed or deleted it`);
    }
  }

  // Comments a side wrote or removed after the last entity are an edit at the end, as are the other side's additions there.
  for (const [tail, otherMap, otherAdds] of [
    [o.tail, tMap, tAdds],
    [t.tail, oMap, oAdds],
  ] as const) {
    const at = keptBefore(b.items.length, otherMap);
    if (tail !== b.tail && (otherAdds.get(at)?.length ?? 0) > 0)
      clash.set(at, 'one side changed the comments at the end, the other added entities there');
  }

  return clash;
}

/** The entities a side added (not in the base), by the base entity they follow ('^' for the start). */
function additionsOf(
  items: Item[],
  bMap: Map<string, Item>,
  other: Map<string, Item>,
  skipShared: boolean,
): Map<string, Item[]> {
  const out = new Map<string, Item[]>();
  let anchor = '^';
  for (const item of items) {
    const k = item.entity.key;
    if (bMap.has(k)) {
      anchor = k;
      continue;
    }
    if (skipShared && other.has(k)) continue;
    const list = out.get(anchor) ?? [];
    list.push(item);
    out.set(anchor, list);
  }
  return out;
}

/** An entity ours added: as it is, merged with theirs when both added it differently, or a conflict. */
function mergeAdded(item: Item, tMap: Map<string, Item>, mergeText: TextMerge): Piece[] {
  const twin = tMap.get(item.entity.key);
  if (!twin || twin.text === item.text) return [item.text];
  const merged = mergeText('', item.text, twin.text);
  return [
    merged ?? {
      base: '',
      ours: item.text,
      theirs: twin.text,
      reason: `both sides added ${item.entity.key} differently`,
    },
  ];
}

export function mergeContainer(
  base: Version,
  ours: Version,
  theirs: Version,
  mergeText: TextMerge,
  options: MergeOptions = {},
): Piece[] | null {
  const b = itemsOf(base);
  const o = itemsOf(ours);
  const t = itemsOf(theirs);
  const keys = (x: { items: Item[] }): string[] => x.items.map((i) => i.entity.key);
  const [bk, ok, tk] = [keys(b), keys(o), keys(t)];
  for (const k of [bk, ok, tk]) if (new Set(k).size !== k.length) return null;
  if (!keepsOrder(bk, ok) || !keepsOrder(bk, tk)) return null;
  const bMap = new Map(b.items.map((i) => [i.entity.key, i]));
  const oMap = new Map(o.items.map((i) => [i.entity.key, i]));
  const tMap = new Map(t.items.map((i) => [i.entity.key, i]));
  const unordered = base.container.unordered;
  const order = additionOrder(options, unordered, [bk, ok, tk]);

  const additions = (side: { items: Item[] }, other: Map<string, Item>, skipShared: boolean): Map<string, Item[]> =>
    additionsOf(side.items, bMap, other, skipShared);
  const changedBy = (other: Map<string, Item>) => (k: string) => k !== '^' && other.get(k)?.text !== bMap.get(k)?.text;
  const placed = (adds: Map<string, Item[]>, other: Map<string, Item>): Map<string, Item[]> =>
    order?.into ? sortedAdditions(bk, adds, changedBy(other)) : adds;
  // Whether edits touch is judged where each side put its additions; the order only decides where they are written.
  const oWhere = additions(o, tMap, false);
  if (editsTouch(b.items, [oMap, oWhere], [tMap, additions(t, oMap, false)], unordered)) return null;
  const oAdds = placed(oWhere, tMap);
  const tAdds = placed(additions(t, oMap, true), oMap);

  const clash = clashesOf(b, o, t, [oMap, tMap], [oAdds, tAdds]);

  const out: Piece[] = [];
  const emit = (piece: Piece | Piece[]): void => {
    const list = Array.isArray(piece) ? piece : [piece];
    if (list.length === 0) return;
    if (base.container.separator !== null && out.length > 0) out.push(base.container.separator);
    out.push(...list);
  };
  const emitAdds = (anchor: string): void => {
    const oa = oAdds.get(anchor) ?? [];
    const ta = tAdds.get(anchor) ?? [];
    const reason =
      clash.get(anchor) ??
      (oa.length > 0 && ta.length > 0 && order === null ? 'both sides added entities at the same point' : null);
    if (reason !== null) {
      emit({ base: '', ours: oa.map((i) => i.text).join(''), theirs: ta.map((i) => i.text).join(''), reason });
      return;
    }
    const both = [...oa.map((item) => ({ item, ours: true })), ...ta.map((item) => ({ item, ours: false }))];
    if (order !== null) both.sort((x, y) => order.compare(x.item.entity.key, y.item.entity.key));
    for (const { item, ours } of both) emit(ours ? mergeAdded(item, tMap, mergeText) : [item.text]);
  };

  emitAdds('^');
  for (const item of b.items) {
    const k = item.entity.key;
    const oi = oMap.get(k);
    const ti = tMap.get(k);
    if (oi && ti) emit(mergeEntity(item, oi, ti, base, ours, theirs, mergeText, options));
    else if (oi && oi.text !== item.text)
      emit({ base: item.text, ours: oi.text, theirs: '', reason: `theirs deleted ${k}, ours changed it` });
    else if (ti && ti.text !== item.text)
      emit({ base: item.text, ours: '', theirs: ti.text, reason: `ours deleted ${k}, theirs changed it` });
    emitAdds(k);
  }
  const tail = mergeSimple(b.tail, o.tail, t.tail) ?? mergeText(b.tail, o.tail, t.tail);
  out.push(
    tail ?? { base: b.tail, ours: o.tail, theirs: t.tail, reason: 'both sides changed the end of the container' },
  );
  return out;
}

type SideEdits = readonly [ReadonlyMap<string, Item>, ReadonlyMap<string, readonly Item[]>];

/**
 * Whether a side's edit sits right against one of the other side's that
 * the entity merge cannot prove independent. Git conflicts there because the
 * lines touch, and people resolving such a conflict often keep what one side
 * deleted or drop what the other added next to it:
 * - in an ordered container (a program's top level, a C header), a side
 *   deleted an entity and the other changed or deleted a neighbour, or added
 *   something just before or after it (an `#include` one side removed while
 *   the other added one beside it, a docstring rewritten next to a changed
 *   constant);
 * - in any container, a side added an entity between two the other side both
 *   rewrote (every prototype made static, every dependency bumped): the new
 *   entity may need the same rewrite.
 * In a mapping (JSON keys, class members) a deletion is independent of its
 * neighbours, except an entity the other side added right after it: where
 * that goes, with its anchor gone, is a guess.
 */
function editsTouch(base: readonly Item[], ours: SideEdits, theirs: SideEdits, unordered: boolean): boolean {
  const keys = base.map((i) => i.entity.key);
  const state = ([map]: SideEdits, i: number): 'same' | 'changed' | 'deleted' => {
    const kept = map.get(keys[i] as string);
    if (!kept) return 'deleted';
    return kept.text === (base[i] as Item).text ? 'same' : 'changed';
  };
  // Additions sit in the gap after their anchor: gap 0 is before the first entity, gap i + 1 after entity i.
  const addsAt = ([, adds]: SideEdits, gap: number): boolean =>
    (adds.get(gap === 0 ? '^' : (keys[gap - 1] as string))?.length ?? 0) > 0;
  for (const [side, other] of [
    [ours, theirs],
    [theirs, ours],
  ] as const) {
    for (let i = 0; i < keys.length; i++) {
      if (state(side, i) !== 'deleted' || state(other, i) === 'deleted') continue;
      // In a mapping the order is free, but not the place of what the other side added right after the deleted entity.
      if (unordered) {
        if (addsAt(other, i + 1)) return true;
        continue;
      }
      const neighbourTouched = [i - 1, i + 1].some(
        (j) => j >= 0 && j < keys.length && state(other, j) !== 'same' && state(side, j) !== state(other, j),
      );
      if (neighbourTouched || addsAt(other, i) || addsAt(other, i + 1)) return true;
    }
    // A sweeping change: the other side rewrote both neighbours of the point where this side added an entity (every prototype made static, say); the new entity may need the same rewrite.
    for (let gap = 1; gap < keys.length; gap++) {
      if (addsAt(side, gap) && [gap - 1, gap].every((j) => state(other, j) === 'changed' && state(side, j) === 'same'))
        return true;
    }
  }
  return false;
}

/** The trivial three-way cases: a side equal to the base, or both sides equal. */
export function mergeSimple(base: string, ours: string, theirs: string): string | null {
  if (ours === theirs || theirs === base) return ours;
  if (ours === base) return theirs;
  return null;
}

function mergeEntity(
  b: Item,
  o: Item,
  t: Item,
  bv: Version,
  ov: Version,
  tv: Version,
  mergeText: TextMerge,
  options: MergeOptions,
): Piece[] {
  const simple = mergeSimple(b.text, o.text, t.text);
  if (simple !== null) return [simple];
  const [bb, ob, tb] = [b.entity.body, o.entity.body, t.entity.body];
  if (bb && ob && tb) {
    // A class (or test group, or object) both changed: merge its header and end as text, its members entity by entity.
    const part = (i: Item, v: Version, body: Container): [string, string] => [
      v.text.slice(i.start, body.start),
      v.text.slice(body.end, i.entity.end),
    ];
    const [bHead, bFoot] = part(b, bv, bb);
    const [oHead, oFoot] = part(o, ov, ob);
    const [tHead, tFoot] = part(t, tv, tb);
    const members = mergeContainer(
      { text: bv.text, container: bb },
      { text: ov.text, container: ob },
      { text: tv.text, container: tb },
      mergeText,
      options,
    );
    // The item text may have lost a separator before the entity: rebuild the head from the item text.
    const headOf = (i: Item, head: string): string =>
      i.text.slice(0, i.text.length - (i.entity.end - i.entity.start)) + head.slice(i.entity.start - i.start);
    const head = mergeSimple(headOf(b, bHead), headOf(o, oHead), headOf(t, tHead));
    const foot = mergeSimple(bFoot, oFoot, tFoot);
    if (members !== null && head !== null && foot !== null) return [head, ...members, foot];
  }
  const merged = mergeText(b.text, o.text, t.text);
  return [merged ?? { base: b.text, ours: o.text, theirs: t.text, reason: `both sides changed ${b.entity.key}` }];
}
