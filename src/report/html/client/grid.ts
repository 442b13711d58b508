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

/** Wire the grid: hover tooltip, zoom, pan (canvas) and keyboard cursor, for either rendering. */
export function initGrid(): void {
  const dataEl = byId('grid-data');
  const view = byId('grid-view');
  if (!dataEl || !view) return;
  const model = new GridModel(JSON.parse(dataEl.textContent || 'null') as GridView);
  const r = view.querySelector('canvas') ? new CanvasView(model, view) : new SvgView(model, view);
  const tip = new Tip(byId('grid-tip'));
  const announce = byId('grid-announce');
  let cursor: CellPos | null =
    keep.cursor && keep.cursor[0] < model.len1 && keep.cursor[1] < model.len2 ? keep.cursor : null;
  if (r instanceof CanvasView) {
    r.scale = keep.zoom !== null ? keep.zoom : r.fit();
    r.ox = keep.ox;
    r.oy = keep.oy;
    r.clampView();
  } else r.setZoom(keep.zoom !== null ? keep.zoom : r.fit());
  const remember = (): void => {
    keep.zoom = r instanceof CanvasView ? r.scale : r.z;
    keep.ox = r.ox || 0;
    keep.oy = r.oy || 0;
    keep.cursor = cursor;
  };
  const showAt = (c: CellPos, x: number, y: number): void => {
    const info = model.describe(c[0], c[1]);
    tip.show(info, x, y);
    if (announce) announce.textContent = info.title + '. ' + info.lines.join('. ');
  };
  const moveCursor = (c: CellPos): void => {
    cursor = c;
    r.showCursor(c);
    const b = r.cellBox(c[0], c[1]);
    showAt(c, b.x + b.s, b.y + b.s);
    remember();
  };
  const openAt = (c: CellPos): boolean => {
    const mk = model.mark(c[0], c[1]);
    if (!mk || !mk.conflict) return false;
    openConflict(mk.conflict);
    return true;
  };
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
        remember();
        return;
      }
    }
    const c = r.cellAt(ev);
    if (c) showAt(c, ev.clientX, ev.clientY);
    else tip.hide();
  });
  view.addEventListener('pointerup', (ev) => {
    const moved = drag !== null && drag.moved;
    drag = null;
    if (moved) return;
    const c = r.cellAt(ev);
    if (!c) return;
    cursor = c;
    r.showCursor(c);
    remember();
    openAt(c);
  });
  view.addEventListener('pointerleave', () => {
    if (!drag) tip.hide();
  });
  view.addEventListener(
    'wheel',
    (ev) => {
      if (!ev.ctrlKey && !ev.metaKey) return;
      ev.preventDefault();
      const f = ev.deltaY < 0 ? 1.25 : 0.8;
      if (r instanceof CanvasView) {
        const b = r.canvas.getBoundingClientRect();
        r.zoomBy(f, ev.clientX - b.left, ev.clientY - b.top);
      } else r.zoomBy(f);
      remember();
    },
    { passive: false },
  );
  view.addEventListener('keydown', (ev) => {
    const c = cursor || [1, 1];
    const step = ev.shiftKey ? 10 : 1;
    let next: CellPos;
    switch (ev.key) {
      case 'ArrowLeft':
        next = [c[0] - step, c[1]];
        break;
      case 'ArrowRight':
        next = [c[0] + step, c[1]];
        break;
      case 'ArrowUp':
        next = [c[0], c[1] - step];
        break;
      case 'ArrowDown':
        next = [c[0], c[1] + step];
        break;
      case 'Home':
        next = [0, 0];
        break;
      case 'End':
        next = [model.len1 - 1, model.len2 - 1];
        break;
      case '+':
      case '=':
        r.zoomBy(1.5);
        remember();
        ev.preventDefault();
        return;
      case '-':
      case '_':
        r.zoomBy(1 / 1.5);
        remember();
        ev.preventDefault();
        return;
      case '0':
        r.setZoom(r.fit());
        remember();
        ev.preventDefault();
        return;
      case 'Escape':
        tip.hide();
        return;
      case 'Enter':
      case ' ':
        if (cursor && openAt(cursor)) ev.preventDefault();
        return;
      default:
        return;
    }
    ev.preventDefault();
    moveCursor([clamp(next[0], 0, model.len1 - 1), clamp(next[1], 0, model.len2 - 1)]);
  });
  view.addEventListener('focus', () => {
    if (cursor) moveCursor(cursor);
  });
  view.addEventListener('blur', () => tip.hide());
  const tools = byId('grid-tools');
  if (tools) {
    tools.addEventListener('click', (ev) => {
      const t = ev.target;
      const act = t instanceof Element ? t.getAttribute('data-zoom') : null;
      if (!act) return;
      if (act === 'in') r.zoomBy(1.5);
      else if (act === 'out') r.zoomBy(1 / 1.5);
      else r.setZoom(r.fit());
      remember();
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
  if (cursor) r.showCursor(cursor);
  else r.draw();
}
