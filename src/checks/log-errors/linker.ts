import type { LogErrorMatcher } from './matcher.js';

/**
 * Linker errors, rank 1: the code compiled but does not link.
 */
export const linkerErrors: LogErrorMatcher[] = [
  // ld, lld, gold and the macOS linker: an undefined reference or symbol
  (lines, i) => {
    const l = lines[i] as string;
    const m =
      /undefined reference to [`'](.+?)'/.exec(l) ??
      /(?:undefined symbol|Undefined symbols for architecture \S+):?\s*(.*)$/.exec(l) ??
      /ld(?:\.lld|\.gold)?:\s+error:\s+(.+)$/.exec(l);
    if (!m) return null;
    const loc = /^(.+?\.o(?:bj)?):/.exec(l) ?? /^(.+?):\(/.exec(l);
    return {
      type: 'link_error',
      location: loc ? (loc[1] as string) : null,
      cause: `undefined reference or link failure: ${m[1] || l.trim()}`,
      rank: 1,
    };
  },
];
