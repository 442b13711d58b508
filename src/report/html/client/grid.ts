import type { GridView } from '../../model.js';
import { CanvasView } from './canvas-view.js';
import { byId, clamp, openConflict } from './dom.js';
import { GridModel, type CellPos } from './grid-model.js';
import { SvgView } from './svg-view.js';
import { Tip } from './tip.js';

/** Kept across live refreshes: the zoom, the viewport and the keyboard cursor. */
const keep: { zoom: number | null; cursor: CellPos | null; ox: number; oy: number } = {
  zoom: null,
  cursor: null,
  ox: 0,
  oy: 0,
};

/** The wired grid: its model, its rendering, and what the handlers share. */
interface Grid {
  model: GridModel;
  r: CanvasView | SvgView;
  view: HTMLElement;
  tip: Tip;
  cursor: CellPos | null;
  /** Keep the zoom, viewport and cursor for the next live refresh. */
  remember(): void;
  showAt(c: CellPos, x: number, y: number): void;
  moveCursor(c: CellPos): void;
  /** Open the conflict of cell `c`; false when it has none. */
  openAt(c: CellPos): boolean;
}

function makeGrid(model: GridModel, view: HTMLElement): Grid {
  const r = view.querySelector('canvas') ? new CanvasView(model, view) : new SvgView(model, view);
  const tip = new Tip(byId('grid-tip'));
  const announce = byId('grid-announce');
  const g: Grid = {
    model,
    r,
    view,
    tip,
    cursor: keep.cursor && keep.cursor[0] < model.len1 && keep.cursor[1] < model.len2 ? keep.cursor : null,
    remember: () => {
      keep.zoom = r instanceof CanvasView ? r.scale : r.z;
      keep.ox = r.ox || 0;
      keep.oy = r.oy || 0;
      keep.cursor = g.cursor;
    },
    showAt: (c, x, y) => {
      const info = model.describe(c[0], c[1]);
      tip.show(info, x, y);
      if (announce) announce.textContent = info.title + '. ' + info.lines.join('. ');
    },
    moveCursor: (c) => {
      g.cursor = c;
      r.showCursor(c);
      const b = r.cellBox(c[0], c[1]);
      g.showAt(c, b.x + b.s, b.y + b.s);
      g.remember();
    },
    openAt: (c) => {
      const mk = model.mark(c[0], c[1]);
      if (!mk || !mk.conflict) return false;
      openConflict(mk.conflict);
      return true;
    },
  };
  if (r instanceof CanvasView) {
    r.scale = keep.zoom !== null ? keep.zoom : r.fit();
    r.ox = keep.ox;
    r.oy = keep.oy;
    r.clampView();
  } else r.setZoom(keep.zoom !== null ? keep.zoom : r.fit());
  return g;
}

/** Hover shows a cell, a click opens its conflict, a drag pans the canvas. */
function wirePointer(g: Grid): void {
  const { r, view, tip } = g;
  let drag: { x: number; y: number; moved: boolean } | null = null;
  view.addEventListener('pointerdown', (ev) => {
    if (r instanceof CanvasView) {
      drag = { x: ev.clientX, y: ev.clientY, moved: false };
      view.setPointerCapture(ev.pointerId);
    }
  });
  view.addEventListener('pointermove', (ev) => {
    if (drag && r instanceof CanvasView) {
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        r.panBy(dx, dy);
        drag.x = ev.clientX;
        drag.y = ev.clientY;
        tip.hide();
        g.remember();
        return;
      }
    }
    const c = r.cellAt(ev);
    if (c) g.showAt(c, ev.clientX, ev.clientY);
    else tip.hide();
  });
  view.addEventListener('pointerup', (ev) => {
    const moved = drag !== null && drag.moved;
    drag = null;
    if (moved) return;
    const c = r.cellAt(ev);
    if (!c) return;
    g.cursor = c;
    r.showCursor(c);
    g.remember();
    g.openAt(c);
  });
  view.addEventListener('pointerleave', () => {
    if (!drag) tip.hide();
  });
}

/** Ctrl/Cmd + wheel zooms, around the pointer on the canvas. */
function wireWheel(g: Grid): void {
  const { r } = g;
  g.view.addEventListener(
    'wheel',
    (ev) => {
      if (!ev.ctrlKey && !ev.metaKey) return;
      ev.preventDefault();
      const f = ev.deltaY < 0 ? 1.25 : 0.8;
      if (r instanceof CanvasView) {
        const b = r.canvas.getBoundingClientRect();
        r.zoomBy(f, ev.clientX - b.left, ev.clientY - b.top);
      } else r.zoomBy(f);
      g.remember();
    },
    { passive: false },
  );
}

/** The cell an arrow, Home or End key moves the cursor to from `c`; null for another key. */
function cursorTarget(key: string, c: CellPos, step: number, model: GridModel): CellPos | null {
  switch (key) {
    case 'ArrowLeft':
      return [c[0] - step, c[1]];
    case 'ArrowRight':
      return [c[0] + step, c[1]];
    case 'ArrowUp':
      return [c[0], c[1] - step];
    case 'ArrowDown':
      return [c[0], c[1] + step];
    case 'Home':
      return [0, 0];
    case 'End':
      return [model.len1 - 1, model.len2 - 1];
    default:
      return null;
  }
}

/** The zoom a key asks for: a factor, 'fit', or null for another key. */
function keyZoom(key: string): number | 'fit' | null {
  if (key === '+' || key === '=') return 1.5;
  if (key === '-' || key === '_') return 1 / 1.5;
  return key === '0' ? 'fit' : null;
}

/** Arrows, Home and End move the cursor; + - 0 zoom; Enter or Space opens; Escape hides the tooltip. */
function wireKeys(g: Grid): void {
  const { r, model, view, tip } = g;
  view.addEventListener('keydown', (ev) => {
    const next = cursorTarget(ev.key, g.cursor || [1, 1], ev.shiftKey ? 10 : 1, model);
    if (next) {
      ev.preventDefault();
      g.moveCursor([clamp(next[0], 0, model.len1 - 1), clamp(next[1], 0, model.len2 - 1)]);
      return;
    }
    const zoom = keyZoom(ev.key);
    if (zoom !== null) {
      if (zoom === 'fit') r.setZoom(r.fit());
      else r.zoomBy(zoom);
      g.remember();
      ev.preventDefault();
    } else if (ev.key === 'Escape') tip.hide();
    else if ((ev.key === 'Enter' || ev.key === ' ') && g.cursor && g.openAt(g.cursor)) ev.preventDefault();
  });
  view.addEventListener('focus', () => {
    if (g.cursor) g.moveCursor(g.cursor);
  });
  view.addEventListener('blur', () => tip.hide());
}

/** The zoom buttons, and the canvas following the page's width. */
function wireToolsAndResize(g: Grid): void {
  const { r, view } = g;
  const tools = byId('grid-tools');
  if (tools) {
    tools.addEventListener('click', (ev) => {
      const t = ev.target;
      const act = t instanceof Element ? t.getAttribute('data-zoom') : null;
      if (!act) return;
      if (act === 'in') r.zoomBy(1.5);
      else if (act === 'out') r.zoomBy(1 / 1.5);
      else r.setZoom(r.fit());
      g.remember();
    });
  }
  if (r instanceof CanvasView) {
    let width = view.clientWidth;
    window.addEventListener('resize', () => {
      if (view.isConnected && view.clientWidth !== width) {
        width = view.clientWidth;
        r.resize();
        r.clampView();
        r.draw();
      }
    });
  }
}

/** Wire the grid: hover tooltip, zoom, pan (canvas) and keyboard cursor, for either rendering. */
export function initGrid(): void {
  const dataEl = byId('grid-data');
  const view = byId('grid-view');
  if (!dataEl || !view) return;
  const g = makeGrid(new GridModel(JSON.parse(dataEl.textContent || 'null') as GridView), view);
  wirePointer(g);
  wireWheel(g);
  wireKeys(g);
  wireToolsAndResize(g);
  if (g.cursor) g.r.showCursor(g.cursor);
  else g.r.draw();
}
