import { byId, d } from './dom.js';
import { initGrid } from './grid.js';

declare global {
  interface Window {
    /** When the page last finished drawing (the benchmark reads it). */
    __reportRenderedAt?: number;
  }
}

let renders = 0;

/** Mark the page drawn: `data-rendered` on <html> counts renders (tests and the benchmark wait for it). */
export function rendered(): void {
  renders += 1;
  window.__reportRenderedAt = performance.now();
  d.documentElement.setAttribute('data-rendered', String(renders));
}

/** The live view: follow the journal stream and re-read the page's content after each new event. */
export function initLive(): void {
  const body = d.body;
  const events = body.getAttribute('data-events');
  const viewUrl = body.getAttribute('data-view');
  const root = byId('report-root');
  if (!events || !viewUrl || !window.EventSource || !root) return;
  let said: string | null = null;
  // The status line is part of the refreshed content: say it again after each refresh.
  const say = (text: string | null): void => {
    if (text !== null) said = text;
    const el = byId('live-status');
    if (el && said !== null) el.textContent = said;
  };
  let busy = false;
  let again = false;
  let seen = 0;
  const lastSeq = (): number => {
    const el = byId('report-meta');
    return el ? Number(el.getAttribute('data-last-seq')) : 0;
  };
  const refresh = (): void => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    fetch(viewUrl + '?after=' + seen, { cache: 'no-store' })
      .then((res) => (res.ok ? res.text() : Promise.reject(new Error(String(res.status)))))
      .then((html) => {
        const open: string[] = [];
        root.querySelectorAll<HTMLDetailsElement>('details[id][open]').forEach((el) => open.push(el.id));
        const closed: string[] = [];
        root.querySelectorAll<HTMLDetailsElement>('details[id]:not([open])').forEach((el) => closed.push(el.id));
        const y = window.scrollY;
        root.innerHTML = html;
        for (const id of open) {
          const el = byId(id);
          if (el instanceof HTMLDetailsElement) el.open = true;
        }
        for (const id of closed) {
          const el = byId(id);
          if (el instanceof HTMLDetailsElement) el.open = false;
        }
        window.scrollTo(0, y);
        say(null);
        initGrid();
        rendered();
      })
      .catch(() => {
        say('Live: could not refresh; retrying on the next event');
      })
      .then(() => {
        busy = false;
        if (again) {
          again = false;
          refresh();
        }
      });
  };
  const es = new EventSource(events);
  es.onmessage = (msg: MessageEvent<string>) => {
    let e: { seq: number; type: string; ts: string };
    try {
      e = JSON.parse(msg.data) as { seq: number; type: string; ts: string };
    } catch {
      return;
    }
    say('Live: event #' + e.seq + ' (' + e.type + ') at ' + String(e.ts).slice(11, 19) + ' UTC');
    seen = Math.max(seen, e.seq);
    if (e.seq > lastSeq()) refresh();
  };
  es.onopen = () => {
    if (said === null) say('Live: connected, waiting for events');
  };
  es.onerror = () => {
    say('Live: connection lost, reconnecting');
  };
}
