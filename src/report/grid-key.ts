/**
 * The key under the terminal's grid diagram, for the characters it shows. git-imerge's own key says
 * "`*` = merge done manually", although the whole edge is `*` (the branches' own commits, which git-imerge
 * stores as manual refs), and "? = no merge recorded" for cells the engine never merges by design: bisection
 * and autofill merge only what the result needs.
 */
export function diagramKey(cols: readonly (readonly string[])[]): string {
  const inside = new Set<string>();
  for (let i = 1; i < cols.length; i++) for (const ch of (cols[i] ?? []).slice(1)) inside.add(ch);
  const lines = [
    'Key:',
    "  * on row 0 and column 0 = the branches' own commits (the edges of the grid; the merge base at 0,0)",
    '  |,-,+ = rectangles forming current merge frontier',
    '  . = merge done automatically',
    ...(inside.has('*') ? ['  * (inside the grid) = merge done manually'] : []),
    '  C/P/G/R/S/L/M/H = conflict resolved by cache / policy / regenerate / rule / syntax merge / learnt / model / person',
    '  # = conflict that is currently blocking progress',
    '  X = the last check on this cell failed and was blamed on its resolution',
    '  @ = merge was blocked but has been resolved',
    ...(inside.has('?')
      ? ['  ? = not merged, by design: the engine merges only the cells the result needs (or has not reached it yet)']
      : []),
  ];
  return `${lines.join('\n')}\n`;
}
