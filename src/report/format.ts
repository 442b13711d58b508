/** Small formatting helpers shared by the text, HTML and Markdown renderers. */

/** `120ms`, `4.2s`, `2m 03s`, `1h 02m`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, '0')}m` : `${m}m ${String(sec).padStart(2, '0')}s`;
}

/** `$0.0123` (cents once it reaches $100). */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd >= 100 ? 2 : 4)}`;
}

/** `12,345` (grouped by hand: the first toLocaleString of a process loads ICU's locale data, which slows start-up). */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+$)/g, ',');
}

export { shortOid } from '../util/short-oid.js';

/** `2026-01-02T03:04:05.678Z` → `2026-01-02 03:04:05 UTC`. */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
