/** Small DOM helpers of the report page's script. */

export const d = document;

export function byId<T extends HTMLElement = HTMLElement>(id: string): T | null {
  return d.getElementById(id) as T | null;
}

export function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}

/** The page names commits as every report does. */
export { shortOid as short } from '../../../util/short-oid.js';

export type Rgb = [number, number, number];

/** A `#rrggbb` CSS custom property of the page as RGB, or `fallback`. */
export function cssColor(name: string, fallback: Rgb): Rgb {
  const v = getComputedStyle(d.documentElement).getPropertyValue(name).trim();
  const m = /^#([0-9a-f]{6})$/i.exec(v);
  if (!m) return fallback;
  const n = parseInt(m[1] as string, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** Open and focus the conflict's section (a `<details>`). */
export function openConflict(id: string): void {
  const sec = byId('conflict-' + id.replace(/[^A-Za-z0-9_-]/g, '_'));
  if (!sec) return;
  if (sec instanceof HTMLDetailsElement) sec.open = true;
  sec.scrollIntoView({ block: 'start' });
  const sum = sec.querySelector('summary');
  if (sum) sum.focus();
}
