import { d } from './dom.js';
import type { CellInfo } from './grid-model.js';

/** The grid's tooltip: text only through textContent, kept inside the window. */
export class Tip {
  constructor(private readonly el: HTMLElement | null) {}

  show(info: CellInfo, x: number, y: number): void {
    const el = this.el;
    if (!el) return;
    while (el.firstChild) el.removeChild(el.firstChild);
    const b = d.createElement('b');
    b.textContent = info.title;
    el.appendChild(b);
    for (const line of info.lines) {
      const div = d.createElement('div');
      div.textContent = line;
      el.appendChild(div);
    }
    el.hidden = false;
    const w = el.offsetWidth;
    const h = el.offsetHeight;
    const left = x + 14 + w > innerWidth ? Math.max(4, x - 14 - w) : x + 14;
    const top = y + 14 + h > innerHeight ? Math.max(4, y - 14 - h) : y + 14;
    el.style.left = left + 'px';
    el.style.top = top + 'px';
  }

  hide(): void {
    if (this.el) this.el.hidden = true;
  }
}
