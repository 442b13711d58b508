import { byId, clamp } from './dom.js';
import type { CellPos, GridModel } from './grid-model.js';

/** A point on the page, as pointer events give it. */
export interface ClientPoint {
  clientX: number;
  clientY: number;
}

/** The SVG rendering of small grids: one rect per cell, drawn by the server. */
export class SvgView {
  readonly svg: SVGSVGElement;
  private readonly cursorEl: HTMLElement | null;
  private readonly S: number;
  z = 1;
  ox = 0;
  oy = 0;

  constructor(
    private readonly m: GridModel,
    private readonly view: HTMLElement,
  ) {
    this.svg = view.querySelector('svg') as SVGSVGElement;
    this.cursorEl = byId('grid-cursor');
    this.S = Number(this.svg.getAttribute('data-cell-size')) || 16;
  }

  fit(): number {
    const w = this.view.clientWidth || 600;
    return clamp(w / (this.m.len1 * this.S), 0.25, 3);
  }

  setZoom(z: number): void {
    this.z = clamp(z, 0.1, 8);
    this.svg.style.width = this.m.len1 * this.S * this.z + 'px';
    this.svg.style.height = this.m.len2 * this.S * this.z + 'px';
  }

  zoomBy(f: number): void {
    this.setZoom(this.z * f);
  }

  cellAt(ev: ClientPoint): CellPos | null {
    const r = this.svg.getBoundingClientRect();
    const i = Math.floor((ev.clientX - r.left) / (this.S * this.z));
    const j = Math.floor((ev.clientY - r.top) / (this.S * this.z));
    return i >= 0 && j >= 0 && i < this.m.len1 && j < this.m.len2 ? [i, j] : null;
  }

  cellBox(i: number, j: number): { x: number; y: number; s: number } {
    const r = this.svg.getBoundingClientRect();
    const s = this.S * this.z;
    return { x: r.left + i * s, y: r.top + j * s, s };
  }

  showCursor(c: CellPos | null): void {
    if (!this.cursorEl) return;
    if (!c) {
      this.cursorEl.setAttribute('visibility', 'hidden');
      return;
    }
    this.cursorEl.setAttribute('x', String(c[0] * this.S));
    this.cursorEl.setAttribute('y', String(c[1] * this.S));
    this.cursorEl.setAttribute('visibility', 'visible');
    const s = this.S * this.z;
    const v = this.view;
    const x = c[0] * s;
    const y = c[1] * s;
    if (x < v.scrollLeft) v.scrollLeft = x;
    else if (x + s > v.scrollLeft + v.clientWidth) v.scrollLeft = x + s - v.clientWidth;
    if (y < v.scrollTop) v.scrollTop = y;
    else if (y + s > v.scrollTop + v.clientHeight) v.scrollTop = y + s - v.clientHeight;
  }

  draw(): void {}
}
