import type { Rung } from '../store/rung.js';

/** One letter per rung, for a cell resolved at it: the terminal grid and the HTML canvas draw the same key. */
export const RUNG_LETTERS: Readonly<Record<Rung, string>> = {
  cache: 'C',
  policy: 'P',
  generated: 'G',
  rule: 'R',
  syntax: 'S',
  learnt: 'L',
  model: 'M',
  person: 'H',
};
