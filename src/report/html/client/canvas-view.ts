import type { Rung } from '../../model.js';
import { RUNG_LETTERS } from '../../rung-letters.js';
import { clamp, cssColor, d, type Rgb } from './dom.js';
import type { CellPos, GridModel } from './grid-model.js';
import type { ClientPoint } from './svg-view.js';

/** The canvas rendering of large grids: one pixel per cell in an offscreen image, drawn scaled into a viewport. */
export class CanvasView {
  readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  scale = 1;
  ox = 0;
  oy = 0;
  private cursor: CellPos | null = null;
  private readonly image: HTMLCanvasElement;
  private cw = 0;
  private ch = 0;
  private dpr = 1;

  constructor(
    private readonly m: GridModel,
    private readonly view: HTMLElement,
  ) {
    this.canvas = view.querySelector('canvas') as HTMLCanvasElement;
    this.ctx = this.canvas.getContext('2d') as CanvasRenderingContext2D;
    this.image = this.bake();
    this.resize();
  }

  private bake(): HTMLCanvasElement {
    const m = this.m;
    const { len1, len2 } = m;
    const colors: Rgb[] = [
      cssColor('--c-unknown', [236, 239, 241]),
      cssColor('--c-manual', [144, 164, 174]),
      cssColor('--c-auto', [200, 230, 201]),
      cssColor('--c-blocked', [229, 57, 53]),
      cssColor('--c-unblocked', [255, 241, 118]),
    ];
    const frontier = cssColor('--c-frontier', [129, 199, 132]);
    const edgeC = cssColor('--c-edge', [176, 190, 197]);
    const rungC: Record<Rung, Rgb> = {
      cache: cssColor('--c-cache', [100, 181, 246]),
      policy: cssColor('--c-policy', [121, 134, 203]),
      generated: cssColor('--c-generated', [149, 117, 205]),
      rule: cssColor('--c-rule', [77, 182, 172]),
      syntax: cssColor('--c-syntax', [77, 208, 225]),
      learnt: cssColor('--c-learnt', [161, 136, 127]),
      model: cssColor('--c-model', [186, 104, 200]),
      person: cssColor('--c-person', [255, 183, 77]),
    };
    const failed = cssColor('--c-failed', [211, 47, 47]);
    const off = d.createElement('canvas');
    off.width = len1;
    off.height = len2;
    const octx = off.getContext('2d') as CanvasRenderingContext2D;
    const img = octx.createImageData(len1, len2);
    const px = new Uint32Array(img.data.buffer);
    const pack = (c: Rgb): number => (255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0];
    const table: number[] = [];
    for (let k = 0; k < 20; k++)
      table.push(pack(k >= 5 && (k % 5 === 0 || k % 5 === 2) ? frontier : (colors[k % 5] as Rgb)));
    const codes = m.codes;
    const n = len1 * len2;
    for (let p = 0; p < n; p++) px[p] = table[codes[p] as number] as number;
    const edge = pack(edgeC);
    for (let i = 0; i < len1; i++) px[i] = edge;
    for (let j = 0; j < len2; j++) px[j * len1] = edge;
    for (const mk of m.data.marks) {
      const c = mk.failedCheck && !mk.superseded ? failed : mk.status === 'resolved' && mk.rung ? rungC[mk.rung] : null;
      if (c) px[mk.i2 * len1 + mk.i1] = pack(c);
    }
    octx.putImageData(img, 0, 0);
    return off;
  }

  fit(): number {
    const w = this.view.clientWidth || 600;
    return Math.min(w / this.m.len1, Math.max(160, innerHeight * 0.7) / this.m.len2);
  }

  resize(): void {
    const w = this.view.clientWidth || 600;
    const fit = this.fit();
    const h = Math.round(clamp(this.m.len2 * fit, 120, Math.max(160, innerHeight * 0.7)));
    const dpr = window.devicePixelRatio || 1;
    this.cw = w;
    this.ch = h;
    this.canvas.style.height = h + 'px';
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.dpr = dpr;
  }

  setZoom(s: number, ax?: number, ay?: number): void {
    const old = this.scale;
    const minS = Math.min(this.fit(), 1);
    this.scale = clamp(s, minS, 48);
    let x = ax;
    let y = ay;
    if (x === undefined || y === undefined) {
      x = this.cw / 2;
      y = this.ch / 2;
    }
    // Keep the cell under (x, y) in place.
    this.ox += x / old - x / this.scale;
    this.oy += y / old - y / this.scale;
    this.clampView();
    this.draw();
  }

  zoomBy(f: number, ax?: number, ay?: number): void {
    this.setZoom(this.scale * f, ax, ay);
  }

  clampView(): void {
    const vw = this.cw / this.scale;
    const vh = this.ch / this.scale;
    this.ox = vw >= this.m.len1 ? (this.m.len1 - vw) / 2 : clamp(this.ox, 0, this.m.len1 - vw);
    this.oy = vh >= this.m.len2 ? 0 : clamp(this.oy, 0, this.m.len2 - vh);
  }

  panBy(dx: number, dy: number): void {
    this.ox -= dx / this.scale;
    this.oy -= dy / this.scale;
    this.clampView();
    this.draw();
  }

  cellAt(ev: ClientPoint): CellPos | null {
    const r = this.canvas.getBoundingClientRect();
    const i = Math.floor(this.ox + (ev.clientX - r.left) / this.scale);
    const j = Math.floor(this.oy + (ev.clientY - r.top) / this.scale);
    return i >= 0 && j >= 0 && i < this.m.len1 && j < this.m.len2 ? [i, j] : null;
  }

  cellBox(i: number, j: number): { x: number; y: number; s: number } {
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + (i - this.ox) * this.scale, y: r.top + (j - this.oy) * this.scale, s: this.scale };
  }

  showCursor(c: CellPos | null): void {
    this.cursor = c;
    if (c) {
      const vw = this.cw / this.scale;
      const vh = this.ch / this.scale;
      if (c[0] < this.ox) this.ox = c[0];
      else if (c[0] + 1 > this.ox + vw) this.ox = c[0] + 1 - vw;
      if (c[1] < this.oy) this.oy = c[1];
      else if (c[1] + 1 > this.oy + vh) this.oy = c[1] + 1 - vh;
      this.clampView();
    }
    this.draw();
  }

  draw(): void {
    const ctx = this.ctx;
    const s = this.scale;
    const m = this.m;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.clearRect(0, 0, this.cw, this.ch);
    ctx.imageSmoothingEnabled = s < 1;
    const sw = this.cw / s;
    const sh = this.ch / s;
    const sx = Math.max(0, this.ox);
    const sy = Math.max(0, this.oy);
    const ex = Math.min(m.len1, this.ox + sw);
    const ey = Math.min(m.len2, this.oy + sh);
    if (ex > sx && ey > sy)
      ctx.drawImage(
        this.image,
        sx,
        sy,
        ex - sx,
        ey - sy,
        (sx - this.ox) * s,
        (sy - this.oy) * s,
        (ex - sx) * s,
        (ey - sy) * s,
      );
    const fg = getComputedStyle(d.body).color;
    // Marks stay visible at any zoom: at least 3 px.
    for (const mk of m.data.marks) {
      if (mk.i1 + 1 < this.ox || mk.i1 > this.ox + sw || mk.i2 + 1 < this.oy || mk.i2 > this.oy + sh) continue;
      const x = (mk.i1 - this.ox) * s;
      const y = (mk.i2 - this.oy) * s;
      const w = Math.max(3, s);
      if (mk.failedCheck && !mk.superseded) {
        ctx.strokeStyle = '#d32f2f';
        ctx.lineWidth = s >= 6 ? 2 : 1;
        ctx.strokeRect(x + 0.5, y + 0.5, w - 1, w - 1);
      }
      if (s >= 12) {
        const letter =
          mk.failedCheck && !mk.superseded
            ? 'X'
            : mk.status === 'resolved' && mk.rung
              ? RUNG_LETTERS[mk.rung]
              : mk.conflict
                ? '#'
                : '';
        if (letter) {
          ctx.fillStyle = '#000';
          ctx.font = 'bold ' + Math.round(s * 0.6) + 'px monospace';
          ctx.textAlign = 'center';
          ctx.textBaseline = 'middle';
          ctx.fillText(letter, x + s / 2, y + s / 2);
        }
      } else if (s < 3) {
        ctx.fillStyle = mk.failedCheck && !mk.superseded ? '#d32f2f' : fg;
        ctx.fillRect(x, y, w, w);
      }
    }
    if (s >= 6) this.drawFrontier(sw, sh, fg);
    if (this.cursor) {
      ctx.strokeStyle = getComputedStyle(d.documentElement).getPropertyValue('--accent') || '#0b5cad';
      ctx.lineWidth = 3;
      ctx.strokeRect(
        (this.cursor[0] - this.ox) * s - 1,
        (this.cursor[1] - this.oy) * s - 1,
        Math.max(3, s) + 2,
        Math.max(3, s) + 2,
      );
    }
  }

  private drawFrontier(sw: number, sh: number, fg: string): void {
    const ctx = this.ctx;
    const s = this.scale;
    const m = this.m;
    const a1 = Math.max(0, Math.floor(this.ox));
    const b1 = Math.min(m.len1, Math.ceil(this.ox + sw));
    const a2 = Math.max(0, Math.floor(this.oy));
    const b2 = Math.min(m.len2, Math.ceil(this.oy + sh));
    ctx.beginPath();
    for (let j = a2; j < b2; j++) {
      for (let i = a1; i < b1; i++) {
        const code = m.codes[j * m.len1 + i] as number;
        const edge = Math.floor(code / 5);
        const merge = code % 5;
        if (!edge || merge === 1 || merge === 3 || merge === 4) continue;
        const x = (i - this.ox) * s;
        const y = (j - this.oy) * s;
        if (edge & 1) {
          ctx.moveTo(x + s, y);
          ctx.lineTo(x + s, y + s);
        }
        if (edge & 2) {
          ctx.moveTo(x, y + s);
          ctx.lineTo(x + s, y + s);
        }
      }
    }
    ctx.strokeStyle = fg;
    ctx.lineWidth = 2;
    ctx.stroke();
  }
}
