import { clientViews } from './client-views.js';

/**
 * The page's script (inline, no dependencies, ES2017): the grid's hover tooltip, zoom, pan and
 * keyboard cursor for both renderings (an SVG of cells for small grids, a canvas drawn from the
 * run-length data for large ones), and, in the live view, the journal stream that refreshes
 * the page. Untrusted text only ever reaches the DOM through textContent. Sets
 * `data-rendered` on <html> once the grid is drawn (tests and the benchmark wait for it).
 *
 * Kept as a plain string: it runs in the browser, not in Node (no template literals inside).
 */
export const clientScript = `
(function () {
  'use strict';
${clientViews}
${String.raw`
  // Kept across live refreshes: the zoom, the viewport and the keyboard cursor.
  var keep = { zoom: null, cursor: null, ox: 0, oy: 0 };
  var renders = 0;

  function initGrid() {
    var dataEl = byId('grid-data'), view = byId('grid-view');
    if (!dataEl || !view) return;
    var model = new Model(JSON.parse(dataEl.textContent || 'null'));
    var r = view.querySelector('canvas') ? new CanvasView(model, view) : new SvgView(model, view);
    var tip = new Tip(byId('grid-tip'));
    var announce = byId('grid-announce');
    var cursor = keep.cursor && keep.cursor[0] < model.len1 && keep.cursor[1] < model.len2 ? keep.cursor : null;
    if (r instanceof CanvasView) {
      r.scale = keep.zoom !== null ? keep.zoom : r.fit();
      r.ox = keep.ox;
      r.oy = keep.oy;
      r.clampView();
    } else r.setZoom(keep.zoom !== null ? keep.zoom : r.fit());
    var remember = function () { keep.zoom = r instanceof CanvasView ? r.scale : r.z; keep.ox = r.ox || 0; keep.oy = r.oy || 0; keep.cursor = cursor; };
    var showAt = function (c, x, y) {
      var info = model.describe(c[0], c[1]);
      tip.show(info, x, y);
      if (announce) announce.textContent = info.title + '. ' + info.lines.join('. ');
    };
    var moveCursor = function (c) {
      cursor = c;
      r.showCursor(c);
      var b = r.cellBox(c[0], c[1]);
      showAt(c, b.x + b.s, b.y + b.s);
      remember();
    };
    var drag = null;
    view.addEventListener('pointerdown', function (ev) {
      if (r instanceof CanvasView) { drag = { x: ev.clientX, y: ev.clientY, moved: false }; view.setPointerCapture(ev.pointerId); }
    });
    view.addEventListener('pointermove', function (ev) {
      if (drag) {
        var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
        if (drag.moved) { r.panBy(dx, dy); drag.x = ev.clientX; drag.y = ev.clientY; tip.hide(); remember(); return; }
      }
      var c = r.cellAt(ev);
      if (c) showAt(c, ev.clientX, ev.clientY); else tip.hide();
    });
    view.addEventListener('pointerup', function (ev) {
      var moved = drag && drag.moved;
      drag = null;
      if (moved) return;
      var c = r.cellAt(ev);
      if (!c) return;
      cursor = c;
      r.showCursor(c);
      remember();
      var mk = model.mark(c[0], c[1]);
      if (mk && mk.conflict) openConflict(mk.conflict);
    });
    view.addEventListener('pointerleave', function () { if (!drag) tip.hide(); });
    view.addEventListener('wheel', function (ev) {
      if (!ev.ctrlKey && !ev.metaKey) return;
      ev.preventDefault();
      var f = ev.deltaY < 0 ? 1.25 : 0.8;
      if (r instanceof CanvasView) { var b = r.canvas.getBoundingClientRect(); r.zoomBy(f, ev.clientX - b.left, ev.clientY - b.top); } else r.zoomBy(f);
      remember();
    }, { passive: false });
    view.addEventListener('keydown', function (ev) {
      var c = cursor || [1, 1];
      var step = ev.shiftKey ? 10 : 1;
      var next = null;
      switch (ev.key) {
        case 'ArrowLeft': next = [c[0] - step, c[1]]; break;
        case 'ArrowRight': next = [c[0] + step, c[1]]; break;
        case 'ArrowUp': next = [c[0], c[1] - step]; break;
        case 'ArrowDown': next = [c[0], c[1] + step]; break;
        case 'Home': next = [0, 0]; break;
        case 'End': next = [model.len1 - 1, model.len2 - 1]; break;
        case '+': case '=': r.zoomBy(1.5); remember(); ev.preventDefault(); return;
        case '-': case '_': r.zoomBy(1 / 1.5); remember(); ev.preventDefault(); return;
        case '0': r.setZoom(r.fit()); remember(); ev.preventDefault(); return;
        case 'Escape': tip.hide(); return;
        case 'Enter': case ' ':
          if (cursor) { var mk = model.mark(cursor[0], cursor[1]); if (mk && mk.conflict) { ev.preventDefault(); openConflict(mk.conflict); } }
          return;
        default: return;
      }
      ev.preventDefault();
      moveCursor([clamp(next[0], 0, model.len1 - 1), clamp(next[1], 0, model.len2 - 1)]);
    });
    view.addEventListener('focus', function () { if (cursor) moveCursor(cursor); });
    view.addEventListener('blur', function () { tip.hide(); });
    var tools = byId('grid-tools');
    if (tools) tools.addEventListener('click', function (ev) {
      var t = ev.target;
      var act = t && t.getAttribute ? t.getAttribute('data-zoom') : null;
      if (!act) return;
      if (act === 'in') r.zoomBy(1.5); else if (act === 'out') r.zoomBy(1 / 1.5); else r.setZoom(r.fit());
      remember();
    });
    if (r instanceof CanvasView) {
      var width = view.clientWidth;
      window.addEventListener('resize', function () { if (view.isConnected && view.clientWidth !== width) { width = view.clientWidth; r.resize(); r.clampView(); r.draw(); } });
    }
    if (cursor) r.showCursor(cursor); else r.draw();
  }

  function rendered() {
    renders += 1;
    window.__reportRenderedAt = performance.now();
    d.documentElement.setAttribute('data-rendered', String(renders));
  }

  function initLive() {
    var body = d.body, events = body.getAttribute('data-events'), viewUrl = body.getAttribute('data-view');
    if (!events || !viewUrl || !window.EventSource) return;
    var root = byId('report-root');
    var said = null;
    // The status line is part of the refreshed content: say it again after each refresh.
    var say = function (text) {
      if (text !== null) said = text;
      var el = byId('live-status');
      if (el && said !== null) el.textContent = said;
    };
    var busy = false, again = false, seen = 0;
    var lastSeq = function () { var el = byId('report-meta'); return el ? Number(el.getAttribute('data-last-seq')) : 0; };
    var refresh = function () {
      if (busy) { again = true; return; }
      busy = true;
      fetch(viewUrl + '?after=' + seen, { cache: 'no-store' }).then(function (res) { return res.ok ? res.text() : Promise.reject(new Error(String(res.status))); }).then(function (html) {
        var open = [];
        root.querySelectorAll('details[id][open]').forEach(function (el) { open.push(el.id); });
        var closed = [];
        root.querySelectorAll('details[id]:not([open])').forEach(function (el) { closed.push(el.id); });
        var y = window.scrollY;
        root.innerHTML = html;
        open.forEach(function (id) { var el = byId(id); if (el) el.open = true; });
        closed.forEach(function (id) { var el = byId(id); if (el) el.open = false; });
        window.scrollTo(0, y);
        say(null);
        initGrid();
        rendered();
      }).catch(function () {
        say('Live: could not refresh; retrying on the next event');
      }).then(function () {
        busy = false;
        if (again) { again = false; refresh(); }
      });
    };
    var es = new EventSource(events);
    es.onmessage = function (msg) {
      var e;
      try { e = JSON.parse(msg.data); } catch (err) { return; }
      say('Live: event #' + e.seq + ' (' + e.type + ') at ' + String(e.ts).slice(11, 19) + ' UTC');
      seen = Math.max(seen, e.seq);
      if (e.seq > lastSeq()) refresh();
    };
    es.onopen = function () { if (said === null) say('Live: connected, waiting for events'); };
    es.onerror = function () { say('Live: connection lost, reconnecting'); };
  }

  initGrid();
  rendered();
  initLive();
`}
})();
`;
