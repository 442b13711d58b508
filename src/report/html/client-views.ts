/**
 * The grid part of the page's script (see client-script.ts, which wraps it): decoding the
 * run-length cells, describing a cell for the tooltip, the tooltip itself, and the two
 * renderings: SvgView over the server-drawn SVG (small grids) and CanvasView, which bakes one
 * pixel per cell into an offscreen image and draws it scaled into a viewport (large grids).
 * Untrusted text only reaches the DOM through textContent.
 */
export const clientViews = String.raw`
  var d = document;
  var MEANING = ['no merge recorded', 'merged by hand', 'merged automatically', 'conflict blocking progress', 'was blocked, since resolved'];
  var RUNG_LETTER = { cache: 'C', rule: 'R', model: 'M', human: 'H' };

  function byId(id) { return d.getElementById(id); }
  function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }
  function short(oid) { return oid ? oid.slice(0, 12) : ''; }

  function decode(runs, total) {
    var out = new Uint8Array(total);
    var re = /(\d+)([a-z])/g, m, at = 0;
    while ((m = re.exec(runs)) !== null) {
      var n = Number(m[1]), k = m[2].charCodeAt(0) - 97;
      out.fill(k, at, Math.min(total, at + n));
      at += n;
    }
    return out;
  }

  function Model(data) {
    this.d = data;
    this.len1 = data.len1;
    this.len2 = data.len2;
    this.codes = decode(data.cells, data.len1 * data.len2);
    this.marks = {};
    for (var i = 0; i < data.marks.length; i++) {
      var mk = data.marks[i];
      this.marks[mk.i1 + '-' + mk.i2] = mk;
    }
  }
  Model.prototype.mark = function (i1, i2) { return this.marks[i1 + '-' + i2] || null; };
  Model.prototype.describe = function (i1, i2) {
    var g = this.d, code = this.codes[i2 * this.len1 + i1], merge = code % 5, edge = Math.floor(code / 5);
    var title = i1 === 0 && i2 === 0 ? 'Merge base' : i2 === 0 ? 'Fork commit ' + i1 : i1 === 0 ? 'Upstream commit ' + i2 : 'Cell ' + i1 + '-' + i2;
    var lines = [];
    var c1 = g.axis1[i1], c2 = g.axis2[i2];
    if (i1 > 0 || i2 === 0) lines.push(g.tip1 + ' #' + i1 + ': ' + (c1 ? short(c1.oid) + ' ' + c1.subject : '(commit not known)'));
    if (i2 > 0 || i1 === 0) lines.push(g.tip2 + ' #' + i2 + ': ' + (c2 ? short(c2.oid) + ' ' + c2.subject : '(commit not known)'));
    var mk = this.mark(i1, i2), outcome;
    if (i1 === 0 || i2 === 0) outcome = i1 === 0 && i2 === 0 ? 'the common ancestor' : 'an original commit (grid edge)';
    else if (mk && mk.conflict) {
      if (mk.status === 'resolved') outcome = 'Conflict resolved by ' + (mk.rung || 'a rung') + (mk.by.length ? ' (' + mk.by.join(', ') + ')' : '');
      else if (mk.status === 'needs_human') outcome = 'Conflict: needs a human';
      else outcome = 'Conflict: ' + mk.status;
    } else outcome = MEANING[merge] + (edge ? '; on the merge frontier' : '');
    lines.push('Outcome: ' + outcome);
    if (mk && mk.failedCheck) lines.push((mk.superseded ? 'Check failed earlier: ' + mk.failedCheck + '; resolved again or passed since' : 'Last check failed: ' + mk.failedCheck));
    if (mk && mk.conflict) lines.push('Enter or click: show conflict ' + mk.conflict);
    return { title: title, lines: lines };
  };

  function cssColor(name, fallback) {
    var v = getComputedStyle(d.documentElement).getPropertyValue(name).trim();
    var m = /^#([0-9a-f]{6})$/i.exec(v);
    if (!m) return fallback;
    var n = parseInt(m[1], 16);
    return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
  }

  function Tip(el) { this.el = el; }
  Tip.prototype.show = function (info, x, y) {
    var el = this.el;
    if (!el) return;
    while (el.firstChild) el.removeChild(el.firstChild);
    var b = d.createElement('b');
    b.textContent = info.title;
    el.appendChild(b);
    for (var i = 0; i < info.lines.length; i++) {
      var div = d.createElement('div');
      div.textContent = info.lines[i];
      el.appendChild(div);
    }
    el.hidden = false;
    var w = el.offsetWidth, h = el.offsetHeight;
    var left = x + 14 + w > innerWidth ? Math.max(4, x - 14 - w) : x + 14;
    var top = y + 14 + h > innerHeight ? Math.max(4, y - 14 - h) : y + 14;
    el.style.left = left + 'px';
    el.style.top = top + 'px';
  };
  Tip.prototype.hide = function () { if (this.el) this.el.hidden = true; };

  function openConflict(id) {
    var sec = byId('conflict-' + id.replace(/[^A-Za-z0-9_-]/g, '_'));
    if (!sec) return;
    if (sec.tagName === 'DETAILS') sec.open = true;
    sec.scrollIntoView({ block: 'start' });
    var sum = sec.querySelector('summary');
    if (sum) sum.focus();
  }

  /* The SVG rendering: one rect per cell, drawn by the server. */
  function SvgView(model, view) {
    this.m = model;
    this.view = view;
    this.svg = view.querySelector('svg');
    this.cursorEl = byId('grid-cursor');
    this.S = Number(this.svg.getAttribute('data-cell-size')) || 16;
    this.z = 1;
  }
  SvgView.prototype.fit = function () {
    var w = this.view.clientWidth || 600;
    return clamp(w / (this.m.len1 * this.S), 0.25, 3);
  };
  SvgView.prototype.setZoom = function (z) {
    this.z = clamp(z, 0.1, 8);
    this.svg.style.width = (this.m.len1 * this.S * this.z) + 'px';
    this.svg.style.height = (this.m.len2 * this.S * this.z) + 'px';
  };
  SvgView.prototype.zoomBy = function (f) { this.setZoom(this.z * f); };
  SvgView.prototype.cellAt = function (ev) {
    var r = this.svg.getBoundingClientRect();
    var i1 = Math.floor((ev.clientX - r.left) / (this.S * this.z)), i2 = Math.floor((ev.clientY - r.top) / (this.S * this.z));
    return i1 >= 0 && i2 >= 0 && i1 < this.m.len1 && i2 < this.m.len2 ? [i1, i2] : null;
  };
  SvgView.prototype.cellBox = function (i1, i2) {
    var r = this.svg.getBoundingClientRect(), s = this.S * this.z;
    return { x: r.left + i1 * s, y: r.top + i2 * s, s: s };
  };
  SvgView.prototype.showCursor = function (c) {
    if (!this.cursorEl) return;
    if (!c) { this.cursorEl.setAttribute('visibility', 'hidden'); return; }
    this.cursorEl.setAttribute('x', String(c[0] * this.S));
    this.cursorEl.setAttribute('y', String(c[1] * this.S));
    this.cursorEl.setAttribute('visibility', 'visible');
    var s = this.S * this.z, v = this.view;
    var x = c[0] * s, y = c[1] * s;
    if (x < v.scrollLeft) v.scrollLeft = x; else if (x + s > v.scrollLeft + v.clientWidth) v.scrollLeft = x + s - v.clientWidth;
    if (y < v.scrollTop) v.scrollTop = y; else if (y + s > v.scrollTop + v.clientHeight) v.scrollTop = y + s - v.clientHeight;
  };
  SvgView.prototype.draw = function () {};
  SvgView.prototype.panBy = function () { return false; };

  /* The canvas rendering: one pixel per cell in an offscreen image, drawn scaled into a viewport. */
  function CanvasView(model, view) {
    this.m = model;
    this.view = view;
    this.canvas = view.querySelector('canvas');
    this.ctx = this.canvas.getContext('2d');
    this.scale = 1;
    this.ox = 0;
    this.oy = 0;
    this.cursor = null;
    this.image = this.bake();
    this.resize();
  }
  CanvasView.prototype.bake = function () {
    var m = this.m, len1 = m.len1, len2 = m.len2;
    var colors = [cssColor('--c-unknown', [236, 239, 241]), cssColor('--c-manual', [144, 164, 174]), cssColor('--c-auto', [200, 230, 201]), cssColor('--c-blocked', [229, 57, 53]), cssColor('--c-unblocked', [255, 241, 118])];
    var frontier = cssColor('--c-frontier', [129, 199, 132]), edgeC = cssColor('--c-edge', [176, 190, 197]);
    var rungC = { cache: cssColor('--c-cache', [100, 181, 246]), rule: cssColor('--c-rule', [77, 182, 172]), model: cssColor('--c-model', [186, 104, 200]), human: cssColor('--c-human', [255, 183, 77]) };
    var failed = cssColor('--c-failed', [211, 47, 47]);
    var off = d.createElement('canvas');
    off.width = len1;
    off.height = len2;
    var octx = off.getContext('2d');
    var img = octx.createImageData(len1, len2);
    var px = new Uint32Array(img.data.buffer);
    var pack = function (c) { return (255 << 24) | (c[2] << 16) | (c[1] << 8) | c[0]; };
    var table = [];
    for (var k = 0; k < 20; k++) table.push(pack(k >= 5 && (k % 5 === 0 || k % 5 === 2) ? frontier : colors[k % 5]));
    var codes = m.codes, n = len1 * len2;
    for (var p = 0; p < n; p++) px[p] = table[codes[p]];
    var edge = pack(edgeC);
    for (var i1 = 0; i1 < len1; i1++) px[i1] = edge;
    for (var i2 = 0; i2 < len2; i2++) px[i2 * len1] = edge;
    var marks = m.d.marks;
    for (var j = 0; j < marks.length; j++) {
      var mk = marks[j];
      var c = mk.failedCheck && !mk.superseded ? failed : mk.status === 'resolved' && mk.rung ? rungC[mk.rung] : null;
      if (c) px[mk.i2 * len1 + mk.i1] = pack(c);
    }
    octx.putImageData(img, 0, 0);
    return off;
  };
  CanvasView.prototype.fit = function () {
    var w = this.view.clientWidth || 600;
    return Math.min(w / this.m.len1, Math.max(160, innerHeight * 0.7) / this.m.len2);
  };
  CanvasView.prototype.resize = function () {
    var w = this.view.clientWidth || 600;
    var fit = this.fit();
    var h = Math.round(clamp(this.m.len2 * fit, 120, Math.max(160, innerHeight * 0.7)));
    var dpr = window.devicePixelRatio || 1;
    this.cw = w;
    this.ch = h;
    this.canvas.style.height = h + 'px';
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.dpr = dpr;
  };
  CanvasView.prototype.setZoom = function (s, ax, ay) {
    var old = this.scale;
    var minS = Math.min(this.fit(), 1);
    this.scale = clamp(s, minS, 48);
    if (ax === undefined) { ax = this.cw / 2; ay = this.ch / 2; }
    // Keep the cell under (ax, ay) in place.
    this.ox += ax / old - ax / this.scale;
    this.oy += ay / old - ay / this.scale;
    this.clampView();
    this.draw();
  };
  CanvasView.prototype.zoomBy = function (f, ax, ay) { this.setZoom(this.scale * f, ax, ay); };
  CanvasView.prototype.clampView = function () {
    var vw = this.cw / this.scale, vh = this.ch / this.scale;
    this.ox = vw >= this.m.len1 ? (this.m.len1 - vw) / 2 : clamp(this.ox, 0, this.m.len1 - vw);
    this.oy = vh >= this.m.len2 ? 0 : clamp(this.oy, 0, this.m.len2 - vh);
  };
  CanvasView.prototype.panBy = function (dx, dy) {
    this.ox -= dx / this.scale;
    this.oy -= dy / this.scale;
    this.clampView();
    this.draw();
    return true;
  };
  CanvasView.prototype.cellAt = function (ev) {
    var r = this.canvas.getBoundingClientRect();
    var i1 = Math.floor(this.ox + (ev.clientX - r.left) / this.scale), i2 = Math.floor(this.oy + (ev.clientY - r.top) / this.scale);
    return i1 >= 0 && i2 >= 0 && i1 < this.m.len1 && i2 < this.m.len2 ? [i1, i2] : null;
  };
  CanvasView.prototype.cellBox = function (i1, i2) {
    var r = this.canvas.getBoundingClientRect();
    return { x: r.left + (i1 - this.ox) * this.scale, y: r.top + (i2 - this.oy) * this.scale, s: this.scale };
  };
  CanvasView.prototype.showCursor = function (c) {
    this.cursor = c;
    if (c) {
      var vw = this.cw / this.scale, vh = this.ch / this.scale;
      if (c[0] < this.ox) this.ox = c[0]; else if (c[0] + 1 > this.ox + vw) this.ox = c[0] + 1 - vw;
      if (c[1] < this.oy) this.oy = c[1]; else if (c[1] + 1 > this.oy + vh) this.oy = c[1] + 1 - vh;
      this.clampView();
    }
    this.draw();
  };
  CanvasView.prototype.draw = function () {
    var ctx = this.ctx, s = this.scale, m = this.m;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.clearRect(0, 0, this.cw, this.ch);
    ctx.imageSmoothingEnabled = s < 1;
    var sw = this.cw / s, sh = this.ch / s;
    var sx = Math.max(0, this.ox), sy = Math.max(0, this.oy);
    var ex = Math.min(m.len1, this.ox + sw), ey = Math.min(m.len2, this.oy + sh);
    if (ex > sx && ey > sy) ctx.drawImage(this.image, sx, sy, ex - sx, ey - sy, (sx - this.ox) * s, (sy - this.oy) * s, (ex - sx) * s, (ey - sy) * s);
    var marks = m.d.marks, fg = getComputedStyle(d.body).color;
    // Marks stay visible at any zoom: at least 3 px.
    for (var j = 0; j < marks.length; j++) {
      var mk = marks[j];
      if (mk.i1 + 1 < this.ox || mk.i1 > this.ox + sw || mk.i2 + 1 < this.oy || mk.i2 > this.oy + sh) continue;
      var x = (mk.i1 - this.ox) * s, y = (mk.i2 - this.oy) * s, w = Math.max(3, s);
      if (mk.failedCheck && !mk.superseded) { ctx.strokeStyle = '#d32f2f'; ctx.lineWidth = s >= 6 ? 2 : 1; ctx.strokeRect(x + 0.5, y + 0.5, w - 1, w - 1); }
      if (s >= 12) {
        var letter = mk.failedCheck && !mk.superseded ? 'X' : mk.status === 'resolved' && mk.rung ? RUNG_LETTER[mk.rung] : mk.conflict ? '#' : '';
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
      ctx.strokeRect((this.cursor[0] - this.ox) * s - 1, (this.cursor[1] - this.oy) * s - 1, Math.max(3, s) + 2, Math.max(3, s) + 2);
    }
  };
  CanvasView.prototype.drawFrontier = function (sw, sh, fg) {
    var ctx = this.ctx, s = this.scale, m = this.m;
    var a1 = Math.max(0, Math.floor(this.ox)), b1 = Math.min(m.len1, Math.ceil(this.ox + sw));
    var a2 = Math.max(0, Math.floor(this.oy)), b2 = Math.min(m.len2, Math.ceil(this.oy + sh));
    ctx.beginPath();
    for (var i2 = a2; i2 < b2; i2++) {
      for (var i1 = a1; i1 < b1; i1++) {
        var code = m.codes[i2 * m.len1 + i1], edge = Math.floor(code / 5), merge = code % 5;
        if (!edge || merge === 1 || merge === 3 || merge === 4) continue;
        var x = (i1 - this.ox) * s, y = (i2 - this.oy) * s;
        if (edge & 1) { ctx.moveTo(x + s, y); ctx.lineTo(x + s, y + s); }
        if (edge & 2) { ctx.moveTo(x, y + s); ctx.lineTo(x + s, y + s); }
      }
    }
    ctx.strokeStyle = fg;
    ctx.lineWidth = 2;
    ctx.stroke();
  };

`;
