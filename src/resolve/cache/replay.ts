import type { HunkSides, ResolutionRule, RuleContext } from '../rules/index.js';
import type { CacheEntry } from './resolution-cache.js';
import { unknownRung } from '../../store/rung.js';

/** Line endings unified and trailing blanks dropped, as the cache compares answers. */
const same = (a: string, b: string): boolean =>
  a.replace(/\r\n/g, '\n').replace(/[ \t]+$/gm, '') === b.replace(/\r\n/g, '\n').replace(/[ \t]+$/gm, '');

/**
 * Whether a cached answer may be replayed into this hunk. A person's or the
 * model's answer is replayed wherever the same three sides meet again (what
 * a person decided once is not asked twice). A rule's answer is replayed only
 * where that rule, enabled and run here, gives it again: a rule decides from
 * the file around the hunk too (its path, the rest of the file, the whole
 * sides), so an answer right in one file is not carried into another where
 * the rule would abstain. The syntax rung's answers are never replayed: it
 * decides from the whole file and runs again itself when it is on.
 */
export function replayable(
  hit: Pick<CacheEntry, 'rung' | 'by' | 'resolution'>,
  sides: HunkSides,
  rules: readonly ResolutionRule[],
  context: RuleContext,
): boolean {
  switch (hit.rung) {
    case 'rule': {
      const rule = rules.find((r) => r.name === hit.by);
      if (rule === undefined) return false;
      const again = rule.resolve(sides, context);
      return again !== null && same(again, hit.resolution);
    }
    case 'syntax':
      return false;
    case 'cache':
    case 'policy':
    case 'generated':
    case 'learnt':
    case 'model':
    case 'person':
      return true;
    default:
      return unknownRung(hit.rung);
  }
}
