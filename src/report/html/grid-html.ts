import { decodeLetter, decodeRuns, MERGE_BLOCKED } from '../grid-codes.js';
import type { CellMark, GridView } from '../model.js';
import { markChar } from '../status-text.js';
import { esc, jsonForScript } from './escape.js';
import { cellId } from '../../imerge/cell.js';

/** Grids up to this many cells are drawn as SVG (one rect per cell); larger ones on a canvas. */
const SVG_MAX_CELLS = 5000;
const S = 16;

function legend(): string {
  const item = (cls: string, label: string, letter = ''): string =>
    `<li><span class="sw" style="background:var(${cls})">${letter}</span>${label}</li>`;
  return `<ul class="legend" aria-label="Legend">${[
    item('--c-edge', 'original commit (edge)'),
    item('--c-auto', 'merged automatically'),
    item('--c-frontier', 'merge frontier (lines)'),
    item('--c-cache', 'resolved from the cache', 'C'),
    item('--c-policy', 'resolved by the fork policy', 'P'),
    item('--c-rule', 'resolved by a rule', 'R'),
    item('--c-model', 'resolved by the model', 'M'),
    item('--c-human', 'resolved by a human', 'H'),
    item('--c-blocked', 'conflict blocking progress', '#'),
    `<li><span class="sw" style="border:2px solid var(--c-failed)">X</span>last check on the cell failed, blamed on its resolution</li>`,
    item('--c-unknown', 'not merged, by design: the result does not need it (or not reached yet)'),
  ].join('')}</ul>`;
}

function svgGrid(grid: GridView): string {
  const letters = decodeRuns(grid.cells);
  const marks = new Map<string, CellMark>(grid.marks.map((m) => [cellId(m), m]));
  const rects: string[] = [];
  const texts: string[] = [];
  let frontier = '';
  for (let i2 = 0; i2 < grid.len2; i2++) {
    for (let i1 = 0; i1 < grid.len1; i1++) {
      const { merge, right, bottom } = decodeLetter(letters[i2 * grid.len1 + i1] ?? 'a');
      const mark = marks.get(cellId({ i1, i2 }));
      const x = i1 * S;
      const y = i2 * S;
      let cls = i1 === 0 || i2 === 0 ? 'kedge' : `k${merge}`;
      if (mark?.status === 'resolved' && mark.rung) cls = `m-${mark.rung}`;
      if (mark?.failedCheck && !mark.superseded) cls += ' failed';
      rects.push(
        `<rect x="${x}" y="${y}" width="${S}" height="${S}" class="${cls}" data-cell="${cellId({ i1, i2 })}"/>`,
      );
      const letter = (mark ? markChar(mark) : null) ?? (merge === MERGE_BLOCKED ? '#' : null);
      if (letter) texts.push(`<text x="${x + S / 2}" y="${y + S / 2}">${letter}</text>`);
      if ((right || bottom) && merge !== 1 && merge !== 3 && merge !== 4) {
        if (right) frontier += `M${x + S} ${y}v${S}`;
        if (bottom) frontier += `M${x} ${y + S}h${S}`;
      }
    }
  }
  const w = grid.len1 * S;
  const h = grid.len2 * S;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" data-cell-size="${S}" role="img" ` +
    `aria-label="Merge grid: ${grid.len1 - 1} fork commits by ${grid.len2 - 1} upstream commits">` +
    rects.join('') +
    (frontier ? `<path class="frontier" d="${frontier}"/>` : '') +
    texts.join('') +
    `<rect id="grid-cursor" x="0" y="0" width="${S}" height="${S}" visibility="hidden"/></svg>`
  );
}

/**
 * The grid figure: legend, zoom buttons, the drawing (SVG for small grids; for large ones a
 * canvas the page script draws from the compact data), a tooltip and a live region for the
 * keyboard cursor. The data travels as JSON in a non-executable script element.
 */
export function renderGridFigure(grid: GridView): string {
  const large = grid.len1 * grid.len2 > SVG_MAX_CELLS;
  const source =
    grid.source === 'refs'
      ? ''
      : grid.source === 'history'
        ? ' Rebuilt from the merge commits left in the repository.'
        : ' Only the size, blockers and conflicts are known (the merge commits are gone).';
  const drawing = large ? `<canvas aria-hidden="true"></canvas>` : svgGrid(grid);
  const help = `Columns: the fork's commits 0–${grid.len1 - 1} (${grid.tip1}); rows: upstream's commits 0–${grid.len2 - 1} (${grid.tip2}). Hover or focus the grid and use the arrow keys to see a cell's two commits and outcome; + and − zoom, 0 fits, Enter opens a conflict.`;
  return `<figure class="grid-figure" style="margin:0">
<figcaption class="muted">${esc(help)}${esc(source)}</figcaption>
${legend()}
<div class="grid-tools" id="grid-tools" role="toolbar" aria-label="Grid zoom"><button type="button" data-zoom="in" aria-label="Zoom in">+</button><button type="button" data-zoom="out" aria-label="Zoom out">−</button><button type="button" data-zoom="fit">Fit</button><span class="muted">${grid.len1 - 1} × ${grid.len2 - 1} commits${large ? ' · drawn on a canvas' : ''}</span></div>
<div class="grid-view" id="grid-view" tabindex="0" role="application" aria-roledescription="merge grid" aria-label="Merge grid, ${grid.len1 - 1} by ${grid.len2 - 1}. Arrow keys move between cells." aria-describedby="grid-announce" data-mode="${large ? 'canvas' : 'svg'}">${drawing}</div>
<p id="grid-announce" class="muted" aria-live="polite" style="min-height:1.5em;margin:4px 0 0"></p>
<script type="application/json" id="grid-data">${jsonForScript(grid)}</script>
</figure>`;
}
