// retrace view: the page. Plain JavaScript and a canvas; every number comes from the
// server's api/ queries (served under the same secret path as this file).
"use strict";
(function () {
  const STATE_COLORS = ["#d62728", "#ffbf00", "#2ca02c"]; // idle, overhead, busy (ParaGraph's traffic lights)
  const STATE_NAMES = ["idle", "overhead", "busy"];
  const GUTTER = 90, RULER = 26, DENSITY = 10;
  const cv = document.getElementById("plot");
  const ctx = cv.getContext("2d");
  let meta = null, view = null, answer = null, answers = [], stats = null, history = [], by = "state";
  let drawn = { plot: null, rows: [], messages: [] }, selected = null, hit = null, pending = 0, lastSearch = null;
  // Filters: functions (dense region numbers) and message tags hidden from the timeline.
  const hiddenRegions = new Set(), hiddenTags = new Set();
  // The critical path of the view, asked of the server on demand (button or key c).
  const CP_COLOR = "#c000c0";
  let cpOn = false, critpath = null, cpSeq = 0, cpTimer = null;
  // Processor and communicator filters: the processors listed (null: all) and a communicator (-1: all);
  // the timeline shows the processors both keep, the panels count them, message lines and message
  // statistics keep that communicator's messages.
  let procList = null, commSel = -1;
  // "0-3,7" -> a sorted list of processors (null when empty); throws on anything else.
  function parseProcs(text) {
    text = (text || "").replace(/\s+/g, "");
    if (!text) return null;
    const out = new Set();
    for (const part of text.split(",")) {
      const m = /^(\d+)(?:-(\d+))?$/.exec(part);
      if (!m) throw new Error("not a processor or a range: " + part);
      const a = Number(m[1]), b = m[2] === undefined ? a : Number(m[2]);
      if (b < a) throw new Error("a range backwards: " + part);
      for (let p = a; p <= Math.min(b, meta.procs.length - 1); p++) out.add(p);
    }
    return [...out].sort((x, y) => x - y);
  }
  // A sorted list of processors as ranges: [0,1,2,5] -> "0-2,5".
  function rangesText(list) {
    const out = [];
    for (let i = 0; i < list.length;) {
      let j = i;
      while (j + 1 < list.length && list[j + 1] === list[j] + 1) j++;
      out.push(j > i ? list[i] + "-" + list[j] : String(list[i]));
      i = j + 1;
    }
    return out.join(",");
  }
  function commOf(id) { return list(meta.comms).find(c => c.id === id) || null; }
  function filtered() { return procList !== null || commSel >= 0; }
  function isShown(p) {
    if (procList !== null && !procList.includes(p)) return false;
    const c = commSel >= 0 ? commOf(commSel) : null;
    return !c || c.members.includes(p);
  }
  // The runs of processors shown within the view's range: [[a, b), ...].
  function shownRuns(v) {
    if (!filtered()) return [[v.p0, v.p1]];
    const runs = [];
    for (let p = v.p0; p < v.p1; p++) {
      if (!isShown(p)) continue;
      if (runs.length && runs[runs.length - 1][1] === p) runs[runs.length - 1][1] = p + 1;
      else runs.push([p, p + 1]);
    }
    return runs;
  }
  // The arguments of a query for the filters: procs= the processors shown, comm= the communicator.
  function filterArgs(v) {
    const o = {};
    if (filtered()) o.procs = shownRuns(v).map(([a, b]) => b - a > 1 ? a + "-" + (b - 1) : String(a)).join(",");
    if (commSel >= 0) o.comm = commSel;
    return o;
  }

  function $(id) { return document.getElementById(id); }
  // In a comparison (compare.html) the page is one of two frames: ?trace=1 asks the second trace,
  // ?embed shows the timeline alone and tells the comparison page where the view moved.
  const QS = new URLSearchParams(location.search), TRACE = Number(QS.get("trace") || 0), EMBED = QS.has("embed");
  if (EMBED) document.body.classList.add("embed");
  let following = false;
  function api(path, args) {
    if (TRACE) args = Object.assign({}, args, { trace: TRACE });
    const q = Object.entries(args || {}).map(([k, v]) => k + "=" + encodeURIComponent(v)).join("&");
    return fetch("api/" + path + (q ? "?" + q : "")).then(r => {
      if (r.ok && (r.headers.get("Content-Type") || "").startsWith("application/octet-stream"))
        return r.arrayBuffer().then(parseRaster);
      return r.json().then(j => {
        if (!r.ok) throw new Error(j.error || r.statusText);
        return j;
      });
    });
  }
  function secs(t) { return (t - meta.tmin) / meta.unit; }
  function fmtTime(s) {
    const a = Math.abs(s);
    if (a === 0) return "0 s";
    if (a >= 1) return s.toFixed(a >= 100 ? 1 : 3) + " s";
    if (a >= 1e-3) return (s * 1e3).toFixed(3) + " ms";
    if (a >= 1e-6) return (s * 1e6).toFixed(3) + " µs";
    return (s * 1e9).toFixed(0) + " ns";
  }
  // A stable colour per function name; a region of the idle class (a state named idle) stays pale.
  function regionColor(i) {
    if (i < 0 || !meta.regions[i]) return "#cccccc";
    if (meta.regions[i].class === "idle") return "#f0f0f0";
    let h = 2166136261;
    const s = meta.regions[i].name;
    for (let k = 0; k < s.length; k++) { h ^= s.charCodeAt(k); h = Math.imul(h, 16777619) >>> 0; }
    return "hsl(" + (h % 360) + "," + (55 + (h >> 9) % 30) + "%," + (45 + (h >> 15) % 20) + "%)";
  }
  function hexRgb(c) { return [parseInt(c.slice(1, 3), 16), parseInt(c.slice(3, 5), 16), parseInt(c.slice(5, 7), 16)]; }
  const STATE_RGB = STATE_COLORS.map(hexRgb);
  const regionRgbCache = new Map();
  function regionRgb(i) {
    if (!regionRgbCache.has(i)) {
      const c = document.createElement("canvas").getContext("2d");
      c.fillStyle = regionColor(i);
      c.fillRect(0, 0, 1, 1);
      const d = c.getImageData(0, 0, 1, 1).data;
      regionRgbCache.set(i, [d[0], d[1], d[2]]);
    }
    return regionRgbCache.get(i);
  }

  // ---- the view and the URL ----
  function clampView(v) {
    const span = Math.max(meta.tmax - meta.tmin, 1);
    let w = Math.max(Math.round(v.t1 - v.t0), 2);
    let t0 = Math.round(v.t0);
    if (!following) { // a window set by the other trace of a comparison is kept as it is
      w = Math.min(w, span * 4);
      t0 = Math.max(meta.tmin - span, Math.min(t0, meta.tmax + span - w));
    }
    const n = meta.procs.length;
    let p0 = Math.max(0, Math.min(Math.floor(v.p0), n - 1));
    let p1 = Math.max(p0 + 1, Math.min(Math.ceil(v.p1), n));
    return { t0: t0, t1: t0 + w, p0: p0, p1: p1 };
  }
  function writeHash() {
    let h = "t0=" + view.t0 + "&t1=" + view.t1 + "&p0=" + view.p0 + "&p1=" + view.p1 + "&by=" + by;
    if (hiddenRegions.size) h += "&hidef=" + [...hiddenRegions].sort((a, b) => a - b).join(",");
    if (hiddenTags.size) h += "&hidet=" + [...hiddenTags].sort((a, b) => a - b).join(",");
    if (cpOn) h += "&cp=1";
    if (procList !== null) h += "&procs=" + rangesText(procList);
    if (commSel >= 0) h += "&comm=" + commSel;
    window.history.replaceState(null, "", "#" + h);
  }
  function readHash() {
    const o = {};
    location.hash.replace(/^#/, "").split("&").forEach(kv => { const [k, v] = kv.split("="); if (k) o[k] = v; });
    if (o.by === "region" || o.by === "state") by = o.by;
    cpOn = o.cp === "1";
    try { procList = parseProcs(o.procs); } catch (e) { procList = null; }
    commSel = o.comm !== undefined && /^\d+$/.test(o.comm) && commOf(Number(o.comm)) ? Number(o.comm) : -1;
    hiddenRegions.clear(); hiddenTags.clear();
    (o.hidef || "").split(",").forEach(x => { if (x !== "" && isFinite(Number(x))) hiddenRegions.add(Number(x)); });
    (o.hidet || "").split(",").forEach(x => { if (x !== "" && isFinite(Number(x))) hiddenTags.add(Number(x)); });
    if (["t0", "t1", "p0", "p1"].every(k => o[k] !== undefined && isFinite(Number(o[k]))))
      return { t0: Number(o.t0), t1: Number(o.t1), p0: Number(o.p0), p1: Number(o.p1) };
    return null;
  }
  function setView(v, remember) {
    v = clampView(v);
    if (view && remember) history.push(view);
    view = v;
    writeHash();
    refresh();
    if (EMBED && !following && window.parent !== window && window.parent.rtCompare)
      window.parent.rtCompare.moved(TRACE, view);
  }
  // The view set by the comparison page (the other trace moved): not told back.
  function follow(v) {
    following = true;
    try { setView(v, true); } finally { following = false; }
  }

  // ---- geometry ----
  function plotRect() {
    const w = cv.clientWidth, h = cv.clientHeight;
    return { x: GUTTER, y: RULER, w: Math.max(w - GUTTER - 8, 10), h: Math.max(h - RULER - DENSITY - 6, 10) };
  }
  function xOf(t) { const r = drawn.plot; return r.x + (t - view.t0) / (view.t1 - view.t0) * r.w; }
  function tOf(x) { const r = drawn.plot; return view.t0 + (x - r.x) / r.w * (view.t1 - view.t0); }
  // Rows carry their place (y, h): bands of processors shown one above the other.
  function rowOfProc(p) { return drawn.rows.findIndex(r => p >= r.p0 && p < r.p1); }
  function procAtY(y) { return drawn.rows.find(r => y >= r.y && y < r.y + r.h) || null; }
  // The middle of a processor's row, or the plot's top or bottom edge when it is not shown.
  function yOfProc(p) {
    const i = rowOfProc(p), r = drawn.plot;
    if (i >= 0) return drawn.rows[i].y + drawn.rows[i].h / 2;
    return p < view.p0 || (drawn.rows.length && p < drawn.rows[0].p0) ? r.y : r.y + r.h;
  }

  // ---- drawing ----
  function resize() {
    const d = window.devicePixelRatio || 1;
    cv.width = Math.round(cv.clientWidth * d);
    cv.height = Math.round(cv.clientHeight * d);
    ctx.setTransform(d, 0, 0, d, 0, 0);
  }
  function niceStep(span, n) {
    const raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
    return 10 * p;
  }
  // The ruler's labels: one unit for the window (that of its largest time) and the decimals its step needs.
  function rulerLabel(big, step) {
    const [f, u] = [[1, "s"], [1e-3, "ms"], [1e-6, "µs"], [1e-9, "ns"]].find(([f]) => big >= f) || [1e-9, "ns"];
    const d = Math.min(12, Math.max(0, Math.ceil(-Math.log10(step / f) - 1e-9)));
    return s => (s === 0 ? "0" : (s / f).toFixed(d)) + " " + u;
  }
  function drawRuler(r) {
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, 0, cv.clientWidth, RULER);
    const s0 = secs(view.t0), s1 = secs(view.t1), step = niceStep(s1 - s0, Math.max(2, r.w / 110));
    const label = rulerLabel(Math.max(Math.abs(s0), Math.abs(s1)), step);
    ctx.strokeStyle = "#888"; ctx.fillStyle = "#333"; ctx.font = "11px sans-serif"; ctx.textAlign = "center";
    for (let s = Math.ceil(s0 / step) * step; s <= s1; s += step) {
      const x = r.x + (s - s0) / (s1 - s0) * r.w;
      ctx.beginPath(); ctx.moveTo(x, RULER - 6); ctx.lineTo(x, RULER); ctx.stroke();
      ctx.fillText(label(Math.abs(s) < step / 1e6 ? 0 : s), x, RULER - 9);
    }
    ctx.beginPath(); ctx.moveTo(r.x, RULER - 0.5); ctx.lineTo(r.x + r.w, RULER - 0.5); ctx.stroke();
  }
  function drawLabels(r) {
    ctx.fillStyle = "#fff";
    ctx.fillRect(0, r.y, GUTTER - 2, r.h);
    ctx.fillStyle = "#333"; ctx.font = "11px sans-serif"; ctx.textAlign = "right";
    let last = -1e9;
    drawn.rows.forEach(row => {
      const y = row.y + row.h / 2 + 4;
      if (y - last < 12) return;
      last = y;
      const name = row.p1 - row.p0 === 1 ? meta.procs[row.p0] : row.p0 + "-" + (row.p1 - 1);
      ctx.fillText(name.length > 13 ? name.slice(0, 12) + "…" : name, GUTTER - 6, y);
    });
  }
  function makeRows(p0, p1, n) {
    const rows = [], total = p1 - p0;
    for (let i = 0; i < n; i++)
      rows.push({ p0: p0 + Math.ceil(i * total / n), p1: p0 + Math.ceil((i + 1) * total / n) });
    return rows.filter(x => x.p1 > x.p0);
  }
  // The rows of an answer drawn in the band r.
  function bandRows(r, a) {
    const rows = makeRows(a.p0, a.p1, a.mode === "exact" ? a.p1 - a.p0 : a.rows), rh = r.h / rows.length;
    rows.forEach((row, i) => { row.y = r.y + i * rh; row.h = rh; });
    return rows;
  }
  function drawExact(r, a) {
    const rh = r.h / (a.p1 - a.p0), iv = a.intervals, list = [];
    for (let k = 0; k + 4 < iv.length; k += 5) list.push(iv.slice(k, k + 5));
    list.sort((x, y) => x[4] - y[4]);
    // the time outside every region, from each processor's first to last interval, in the outside state
    for (const [p, t0, t1, reg, depth] of list) {
      if (hiddenRegions.has(reg)) continue; // hidden: what encloses it shows through
      const x0 = Math.max(xOf(t0), r.x), x1 = Math.min(xOf(t1), r.x + r.w);
      if (x1 < r.x || x0 > r.x + r.w) continue;
      const st = meta.regions[reg].state;
      if (by === "state" && st < 0) continue;
      ctx.fillStyle = by === "state" ? STATE_COLORS[st] : regionColor(reg);
      const y = r.y + (p - a.p0) * rh, pad = by === "region" ? Math.min(depth * 2, rh / 3) : 0;
      ctx.fillRect(x0, y + pad, Math.max(x1 - x0, 0.75), Math.max(rh - 1 - pad, 1));
    }
    drawn.messages = [];
    const m = a.messages;
    ctx.save();
    ctx.beginPath(); ctx.rect(r.x, r.y, r.w, r.h); ctx.clip();
    ctx.strokeStyle = "rgba(0,0,0,0.75)"; ctx.lineWidth = 1;
    for (let k = 0; k + 5 < m.length; k += 6) {
      const [src, dst, ts, tr, bytes, tag] = m.slice(k, k + 6);
      if (ts < 0 || hiddenTags.has(tag)) continue;
      const ys = yOfProc(src), yr = yOfProc(dst);
      const msg = { src, dst, ts, tr, bytes, tag, x0: xOf(ts), y0: ys, x1: xOf(tr), y1: yr };
      drawn.messages.push(msg);
      ctx.beginPath(); ctx.moveTo(msg.x0, ys); ctx.lineTo(msg.x1, yr); ctx.stroke();
    }
    ctx.restore();
  }
  // A binary raster answer (see core/server/rt_server.c): header, messages per column, a state
  // byte per cell (0 none, else 1 + 16 * idle + busy in fifteenths), a region per cell (+1, 0 none).
  function parseRaster(buf) {
    const dv = new DataView(buf);
    if (buf.byteLength < 40 || dv.getUint32(0, true) !== 0x41525452 || dv.getUint8(4) !== 1)
      throw new Error("not a raster answer");
    const rb = dv.getUint8(5), rows = dv.getUint32(8, true), cols = dv.getUint32(12, true), n = rows * cols;
    let off = 40;
    const msgs = new Uint32Array(buf.slice(off, off + 4 * cols));
    off += 4 * cols;
    const state = new Uint8Array(buf, off, n);
    off += (n + 3) & ~3;
    const region = rb === 1 ? new Uint8Array(buf, off, n) : new Uint16Array(buf.slice(off, off + 2 * n));
    return { mode: "raster", rows: rows, cols: cols, p0: dv.getUint32(16, true), p1: dv.getUint32(20, true),
      t0: dv.getFloat64(24, true), t1: dv.getFloat64(32, true), from_events: (dv.getUint8(6) & 1) === 1,
      state: state, region: region, msgs: msgs };
  }
  // The shares of idle, overhead and busy a state byte stands for (null: no time).
  function stateShares(code) {
    if (!code || code > 241) return null;
    const i = (code - 1) >> 4, b = (code - 1) & 15;
    return i + b > 15 ? null : [i / 15, (15 - i - b) / 15, b / 15];
  }
  const STATE_LUT = [];
  for (let code = 0; code < 256; code++) {
    const f = stateShares(code);
    STATE_LUT.push(f && [0, 1, 2].map(j => Math.round(f[0] * STATE_RGB[0][j] + f[1] * STATE_RGB[1][j] + f[2] * STATE_RGB[2][j])));
  }
  function drawRaster(r, a) {
    const img = ctx.createImageData(a.cols, a.rows), d = img.data;
    for (let i = 0; i < a.rows * a.cols; i++) {
      let rgb = STATE_LUT[a.state[i]];
      if (rgb && by === "region")
        rgb = a.region[i] && !hiddenRegions.has(a.region[i] - 1) ? regionRgb(a.region[i] - 1) : [200, 200, 200];
      const o = 4 * i;
      if (rgb) { d[o] = rgb[0]; d[o + 1] = rgb[1]; d[o + 2] = rgb[2]; }
      else d[o] = d[o + 1] = d[o + 2] = 255;
      d[o + 3] = 255;
    }
    const off = document.createElement("canvas");
    off.width = a.cols; off.height = a.rows;
    off.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(off, r.x, r.y, r.w, r.h);
  }
  // Message density under the timeline: darker where more messages are sent.
  function drawDensity(r, dens) {
    const y = r.y + r.h + 3;
    ctx.fillStyle = "#fff"; ctx.fillRect(r.x, y, r.w, DENSITY);
    if (!dens) return;
    let max = 0;
    for (const v of dens) max = Math.max(max, v);
    if (!max) return;
    for (let i = 0; i < dens.length; i++) {
      if (!dens[i]) continue;
      ctx.fillStyle = "rgba(20,40,140," + (0.15 + 0.85 * dens[i] / max) + ")";
      ctx.fillRect(r.x + i * r.w / dens.length, y, Math.max(r.w / dens.length, 1), DENSITY);
    }
  }
  function draw() {
    if (!answer) return;
    const r = drawn.plot = plotRect();
    ctx.clearRect(0, 0, cv.clientWidth, cv.clientHeight);
    ctx.fillStyle = "#f4f4f4"; ctx.fillRect(r.x, r.y, r.w, r.h);
    // a band per run of processors shown, its height in proportion to its processors
    const total = answers.reduce((n, a) => n + a.p1 - a.p0, 0);
    let before = 0;
    const bands = answers.map(a => {
      const b = { x: r.x, y: r.y + r.h * before / total, w: r.w, h: r.h * (a.p1 - a.p0) / total };
      before += a.p1 - a.p0;
      return b;
    });
    drawn.rows = [].concat(...answers.map((a, i) => bandRows(bands[i], a)));
    drawn.messages = [];
    answers.forEach((a, i) => { if (a.mode === "exact") drawExact(bands[i], a); else drawRaster(bands[i], a); });
    let dens = null;
    for (const a of answers) if (a.mode === "raster") {
      if (!dens) dens = new Uint32Array(a.cols);
      if (a.cols === dens.length) a.msgs.forEach((v, i) => { dens[i] += v; });
    }
    drawDensity(r, dens);
    if (!answers.length) {
      ctx.fillStyle = "#666"; ctx.font = "13px sans-serif"; ctx.textAlign = "center";
      ctx.fillText("no processor shown: the filters leave none in the view", r.x + r.w / 2, r.y + r.h / 2);
    }
    drawCritpath(r);
    drawRuler(r);
    drawLabels(r);
    if (hit) { // the search hit
      const row = rowOfProc(hit.proc);
      if (row >= 0) {
        const g = drawn.rows[row];
        ctx.strokeStyle = "#0050ff"; ctx.lineWidth = 2;
        ctx.strokeRect(xOf(hit.t0) - 1, g.y, Math.max(xOf(hit.t1) - xOf(hit.t0), 1) + 2, g.h);
        ctx.lineWidth = 1;
      }
    }
    if (selected) {
      ctx.strokeStyle = "#0050ff"; ctx.lineWidth = 3;
      ctx.beginPath(); ctx.moveTo(selected.x0, selected.y0); ctx.lineTo(selected.x1, selected.y1); ctx.stroke();
      ctx.lineWidth = 1;
    }
    if (drag && drag.select) {
      ctx.strokeStyle = "#0050ff"; ctx.setLineDash([4, 3]);
      ctx.strokeRect(Math.min(drag.x0, drag.x), Math.min(drag.y0, drag.y), Math.abs(drag.x - drag.x0), Math.abs(drag.y - drag.y0));
      ctx.setLineDash([]);
    }
    // the processors shown: the range, or the filter's runs within it
    const range = view.p0 + "–" + (view.p1 - 1);
    const shown = filtered() ? shownRuns(view).map(([a, b]) => b - a > 1 ? a + "–" + (b - 1) : String(a)).join(", ") +
      " of " + range : range;
    $("status").textContent = fmtTime(secs(view.t0)) + " – " + fmtTime(secs(view.t1)) + " · processors " +
      (shown || "none of " + range) + " · " + (answer.mode === "exact" ? "every event" :
      (answer.from_events ? "raster from events" : "summaries")) + (pending ? " · loading" : "");
  }

  // The critical path over the timeline: a thick line along each of its segments on its processor's
  // row, a dashed one along each message it follows (an end off the processors shown at the edge).
  function drawCritpath(r) {
    drawn.critpath = null;
    if (!cpOn || !critpath || critpath.t0 !== view.t0 || critpath.t1 !== view.t1) return;
    const u = meta.unit, segs = [], yOf = yOfProc;
    const line = (x0, y0, x1, y1) => {
      ctx.beginPath(); ctx.moveTo(x0, y0); ctx.lineTo(x1, y1);
      ctx.strokeStyle = "#fff"; ctx.lineWidth = 6; ctx.stroke();
      ctx.strokeStyle = CP_COLOR; ctx.lineWidth = 3; ctx.stroke();
    };
    ctx.save();
    ctx.beginPath(); ctx.rect(r.x, r.y, r.w, r.h); ctx.clip();
    ctx.setLineDash([5, 3]);
    for (const [src, dst, ts, tr] of list(critpath.messages)) line(xOf(ts * u), yOf(src), xOf(tr * u), yOf(dst));
    ctx.setLineDash([]);
    for (const [p, a, b] of list(critpath.segments)) {
      const row = rowOfProc(p);
      if (row < 0) continue;
      const y = yOf(p), x0 = xOf(a * u), x1 = Math.max(xOf(b * u), x0 + 1);
      line(x0, y, x1, y);
      segs.push({ proc: p, x0: x0, x1: x1, y: y });
    }
    ctx.restore();
    ctx.lineWidth = 1;
    drawn.critpath = { segments: segs };
  }
  function list(x) { return Array.isArray(x) ? x : []; }

  // ---- queries ----
  let seq = 0, statsTimer = null;
  function refresh() {
    const r = plotRect(), my = ++seq, runs = shownRuns(view);
    const total = runs.reduce((n, [a, b]) => n + b - a, 0);
    pending++;
    const comm = commSel >= 0 ? { comm: commSel } : {};
    Promise.all(runs.map(([a, b]) => api("view", Object.assign({ t0: view.t0, t1: view.t1, p0: a, p1: b,
      w: Math.round(r.w), h: Math.max(1, Math.round(r.h * (b - a) / total)) }, comm))))
      .then(list => {
        if (my !== seq) return;
        answers = list;
        answer = list[0] || { mode: "exact", p0: view.p0, p1: view.p0, intervals: [], messages: [] };
        selected = null;
        draw();
      })
      .catch(e => { $("status").textContent = "error: " + e.message; })
      .finally(() => { pending--; if (my === seq) draw(); });
    clearTimeout(statsTimer);
    statsTimer = setTimeout(loadStats, 120);
    // the counters' plot (counters.js) follows the window and the processors shown
    if (window.rtCounters && !EMBED) {
      const f = filterArgs(view);
      window.rtCounters.update(meta, view, r, f.procs !== undefined ? { procs: f.procs } : {}, api);
    }
  }
  let statsSeq = 0, profile = null, util = null;
  const UTIL_AXIS = 30;
  function loadStats() {
    const my = ++statsSeq, v = view;
    const f = filterArgs(v), key = JSON.stringify(f);
    api("profile", Object.assign({ t0: v.t0, t1: v.t1, p0: v.p0, p1: v.p1, w: $("utilcount").width - UTIL_AXIS },
      f.procs !== undefined ? { procs: f.procs } : {})).then(p => {
      if (my !== statsSeq) return;
      profile = p;
      profile.key = key;
      drawUtil();
    }).catch(e => { $("info").textContent = "profile: " + e.message; });
    api("stats", Object.assign({ t0: v.t0, t1: v.t1, p0: v.p0, p1: v.p1 }, f)).then(s => {
      if (my !== statsSeq) return;
      stats = s;
      stats.key = key;
      showStats(s);
      drawUtil();
    }).catch(e => { $("functions").textContent = "error: " + e.message; });
    loadCritpath();
  }
  // Ask for the view's critical path; the server answers "pending" while it computes it.
  function loadCritpath() {
    clearTimeout(cpTimer);
    if (!cpOn) return;
    const my = ++cpSeq, v = view;
    api("critpath", { t0: v.t0, t1: v.t1 }).then(c => {
      if (my !== cpSeq || !cpOn) return;
      if (c.pending) {
        $("critpath").textContent = "computing the critical path…";
        cpTimer = setTimeout(loadCritpath, 250);
        return;
      }
      critpath = c;
      showCritpath(c);
      draw();
    }).catch(e => { $("critpath").textContent = "error: " + e.message; });
  }
  function showCritpath(c) {
    const procs = list(c.procs).slice().sort((a, b) => b.time - a.time);
    const share = t => c.length > 0 ? (100 * t / c.length).toFixed(1) + "%" : "-";
    const rows = procs.slice(0, 100).map(p => ["<span class=sw style='background:" + CP_COLOR + "'></span>" +
      esc(meta.procs[p.proc] || p.proc), fmtTime(p.time), share(p.time)]);
    rows.push(["messages in flight", fmtTime(c.flight), share(c.flight)]);
    $("critpath").innerHTML = "<p>length " + fmtTime(c.length) + " in the view: " + c.nsegments + " segments, " +
      c.nmessages + " messages" + (c.truncated ? " (the first " + c.segments.length + " drawn)" : "") + "</p>" +
      table(["processor", "time on the path", "share"], rows);
  }
  function toggleCritpath() {
    cpOn = !cpOn;
    $("cppanel").hidden = !cpOn;
    $("cpbtn").classList.toggle("on", cpOn);
    writeHash();
    if (cpOn) loadCritpath(); else { critpath = null; draw(); }
  }
  function table(head, rows) {
    return "<table><tr>" + head.map(h => "<th>" + h + "</th>").join("") + "</tr>" +
      rows.map(r => "<tr>" + r.map(c => "<td>" + c + "</td>").join("") + "</tr>").join("") + "</table>";
  }
  function checkbox(kind, v, on) {
    return "<input type=checkbox class=filter data-kind=" + kind + " data-v=" + v + (on ? " checked" : "") + ">";
  }
  // A filter box ticked or cleared: the timeline redrawn without (or with) that function or tag.
  document.addEventListener("change", e => {
    const t = e.target;
    if (!t.classList || !t.classList.contains("filter")) return;
    const set = t.dataset.kind === "f" ? hiddenRegions : hiddenTags, v = Number(t.dataset.v);
    if (t.checked) set.delete(v); else set.add(v);
    writeHash();
    draw();
  });
  function esc(s) { return String(s).replace(/[&<>"]/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]); }
  function showStats(s) {
    const f = s.functions.slice().sort((a, b) => b.exclusive - a.exclusive);
    $("functions").innerHTML = table(["function", "calls", "exclusive", "inclusive", "shown"], f.slice(0, 200).map(x =>
      ["<span class=sw style='background:" + regionColor(x.region) + "'></span>" + esc(x.name), x.calls,
        fmtTime(x.exclusive), fmtTime(x.inclusive), checkbox("f", x.region, !hiddenRegions.has(x.region))]));
    const m = s.messages;
    const pairs = m.pairs.slice().sort((a, b) => b.bytes - a.bytes).slice(0, 50);
    const tags = m.tags.slice().sort((a, b) => b.count - a.count).slice(0, 20);
    $("messages").innerHTML = "<p>" + m.count + " messages received, " + m.bytes + " bytes</p>" +
      table(["sender → receiver", "count", "bytes"], pairs.map(p => [p.src + " → " + p.dst, p.count, p.bytes])) +
      table(["tag", "count", "bytes", "shown"], tags.map(t => [t.tag, t.count, t.bytes, checkbox("t", t.tag, !hiddenTags.has(t.tag))]));
    drawSizes(m.sizes);
    const tot = s.idle + s.overhead + s.busy;
    $("states").innerHTML = table(["state", "time", "share"], STATE_NAMES.map((n, k) => {
      const v = s[n];
      return ["<span class=sw style='background:" + STATE_COLORS[k] + "'></span>" + n, fmtTime(v),
        tot > 0 ? (100 * v / tot).toFixed(1) + "%" : "-"];
    }));
  }
  // Utilization (ParaGraph's count and summary): how many processors are in each state over the view's
  // time, stacked busy / overhead / idle from the bottom; and each processor's (or group's) shares of the
  // view's time as a bar, busy at the bottom.
  function drawUtil() {
    if (!profile || !stats || profile.t0 !== stats.t0 || profile.t1 !== stats.t1 || profile.p0 !== stats.p0 ||
        profile.p1 !== stats.p1) return;
    const order = [2, 1, 0], names = ["idle", "overhead", "busy"];
    util = { count: null, bars: [] };
    let c = $("utilcount"), g = c.getContext("2d");
    g.clearRect(0, 0, c.width, c.height);
    const n = profile.shown, ch = { x: UTIL_AXIS, y: 4, w: profile.cols, h: c.height - 8 };
    g.fillStyle = "#333"; g.font = "9px sans-serif"; g.textAlign = "right";
    g.fillText(String(n), UTIL_AXIS - 3, ch.y + 8); g.fillText("0", UTIL_AXIS - 3, ch.y + ch.h);
    for (let i = 0; i < profile.cols; i++) {
      let y = ch.y + ch.h;
      for (const k of order) {
        const hh = profile[names[k]][i] / n * ch.h;
        if (hh > 0) { g.fillStyle = STATE_COLORS[k]; g.fillRect(ch.x + i, y - hh, 1, hh); }
        y -= hh;
      }
    }
    g.strokeStyle = "#999"; g.strokeRect(ch.x - 0.5, ch.y - 0.5, ch.w + 1, ch.h + 1);
    util.count = Object.assign(ch, { procs: n, idle: profile.idle, overhead: profile.overhead, busy: profile.busy });
    c = $("utilsum"); g = c.getContext("2d");
    g.clearRect(0, 0, c.width, c.height);
    // groups of the processors shown (their entries in stats.procs), a bar each
    const w = c.width - UTIL_AXIS, groups = makeRows(0, stats.procs.length, Math.min(n, w)).map(g =>
      ({ i0: g.p0, i1: g.p1, p0: stats.procs[g.p0].proc, p1: stats.procs[g.p1 - 1].proc + 1 })), bw = w / groups.length;
    const bh = c.height - 8;
    g.fillStyle = "#333"; g.font = "9px sans-serif"; g.textAlign = "right"; g.fillText("100%", UTIL_AXIS - 3, 12); g.fillText("0", UTIL_AXIS - 3, 4 + bh);
    for (const [i, grp] of groups.entries()) {
      const t = [0, 0, 0];
      for (let i = grp.i0; i < grp.i1; i++) names.forEach((nm, k) => { t[k] += stats.procs[i][nm]; });
      const tot = t[0] + t[1] + t[2], sh = t.map(v => tot > 0 ? v / tot : 0);
      let y = 4 + bh;
      for (const k of order) {
        const hh = sh[k] * bh;
        if (hh > 0) { g.fillStyle = STATE_COLORS[k]; g.fillRect(UTIL_AXIS + i * bw, y - hh, Math.max(bw - (bw > 3 ? 1 : 0), 1), hh); }
        y -= hh;
      }
      util.bars.push({ p0: grp.p0, p1: grp.p1, x: UTIL_AXIS + i * bw, w: bw, y: 4, h: bh, shares: sh });
    }
  }
  // Message sizes: bar k counts messages of 2^(k-1) .. 2^k - 1 bytes (bar 0: empty messages).
  function drawSizes(h) {
    const c = $("sizes"), g = c.getContext("2d");
    g.clearRect(0, 0, c.width, c.height);
    if (!h.length) return;
    const max = Math.max(...h), bw = c.width / h.length;
    g.font = "9px sans-serif"; g.textAlign = "center";
    h.forEach((v, k) => {
      const bh = v ? Math.max(2, (c.height - 16) * v / max) : 0;
      g.fillStyle = "#4a6fa5"; g.fillRect(k * bw + 1, c.height - 12 - bh, bw - 2, bh);
      g.fillStyle = "#333";
      if (h.length < 24 || k % 4 === 0) g.fillText(k ? "2^" + (k - 1) : "0", k * bw + bw / 2, c.height - 2);
    });
  }

  // ---- search ----
  function search(q, next) {
    const from = next && lastSearch && lastSearch.query === q ? lastSearch.t0 + 1 : meta.tmin;
    api("search", { q: q, t: from }).then(s => {
      if (!s.found) { $("info").textContent = "“" + q + "”: " + (next ? "no later occurrence" : "not found"); return; }
      lastSearch = s;
      hit = s;
      const w = Math.max(s.t1 - s.t0, 2), pad = w * 0.5;
      const n = view.p1 - view.p0;
      let p0 = view.p0, p1 = view.p1;
      if (s.proc < p0 || s.proc >= p1) { p0 = Math.max(0, s.proc - Math.floor(n / 2)); p1 = p0 + n; }
      $("info").textContent = "“" + q + "”: " + s.name + " on " + meta.procs[s.proc] + " at " + fmtTime(secs(s.t0)) +
        " for " + fmtTime(w / meta.unit) + " (Enter again: next)";
      setView({ t0: s.t0 - pad, t1: s.t1 + pad, p0: p0, p1: p1 }, true);
    }).catch(e => { $("info").textContent = "search: " + e.message; });
  }

  // ---- mouse and keys ----
  let drag = null;
  function zoomAt(t, f) {
    const t0 = t - (t - view.t0) * f, t1 = t + (view.t1 - t) * f;
    setView({ t0: t0, t1: t1, p0: view.p0, p1: view.p1 }, true);
  }
  function zoomProcs(p, f) {
    const n = Math.max(1, (view.p1 - view.p0) * f);
    const p0 = p - (p - view.p0) * f;
    setView({ t0: view.t0, t1: view.t1, p0: Math.floor(p0), p1: Math.ceil(p0 + n) }, true);
  }
  cv.addEventListener("wheel", e => {
    e.preventDefault();
    if (!drawn.plot) return;
    const f = e.deltaY > 0 ? 1.25 : 0.8;
    const rect = cv.getBoundingClientRect(), x = e.clientX - rect.left, y = e.clientY - rect.top;
    if (e.shiftKey) {
      const row = procAtY(y);
      zoomProcs(row ? row.p0 : (view.p0 + view.p1) / 2, f);
    } else zoomAt(tOf(Math.min(Math.max(x, drawn.plot.x), drawn.plot.x + drawn.plot.w)), f);
  }, { passive: false });
  cv.addEventListener("mousedown", e => {
    const rect = cv.getBoundingClientRect();
    const x = e.clientX - rect.left, y = e.clientY - rect.top;
    drag = { x0: x, y0: y, x: x, y: y, select: e.shiftKey || y < RULER, v: view, moved: false };
  });
  window.addEventListener("mousemove", e => {
    const rect = cv.getBoundingClientRect(), x = e.clientX - rect.left, y = e.clientY - rect.top;
    if (!drag) { hover(x, y); return; }
    drag.x = x; drag.y = y;
    if (Math.abs(x - drag.x0) + Math.abs(y - drag.y0) > 3) drag.moved = true;
    if (!drag.moved) return;
    if (drag.select) { draw(); return; }
    const r = drawn.plot, dt = (x - drag.x0) / r.w * (drag.v.t1 - drag.v.t0);
    const dp = (y - drag.y0) / r.h * (drag.v.p1 - drag.v.p0);
    view = clampView({ t0: drag.v.t0 - dt, t1: drag.v.t1 - dt, p0: drag.v.p0 - dp, p1: drag.v.p1 - dp });
    draw();
  });
  window.addEventListener("mouseup", e => {
    if (!drag) return;
    const d = drag;
    drag = null;
    if (!d.moved) { click(d.x0, d.y0); return; }
    if (d.select) {
      const t0 = tOf(Math.min(d.x0, d.x)), t1 = tOf(Math.max(d.x0, d.x));
      let p0 = view.p0, p1 = view.p1;
      if (d.y0 >= RULER) {
        const a = procAtY(Math.min(d.y0, d.y)), b = procAtY(Math.max(d.y0, d.y));
        if (a && b) { p0 = a.p0; p1 = b.p1; }
      }
      setView({ t0: t0, t1: t1, p0: p0, p1: p1 }, true);
    } else {
      history.push(d.v);
      setView(view, false);
    }
  });
  function nearestMessage(x, y) {
    let best = null, bd = 6;
    for (const m of drawn.messages) {
      const dx = m.x1 - m.x0, dy = m.y1 - m.y0, l2 = dx * dx + dy * dy;
      const u = l2 ? Math.max(0, Math.min(1, ((x - m.x0) * dx + (y - m.y0) * dy) / l2)) : 0;
      const d = Math.hypot(x - (m.x0 + u * dx), y - (m.y0 + u * dy));
      if (d < bd) { bd = d; best = m; }
    }
    return best;
  }
  function click(x, y) {
    const r = drawn.plot;
    if (r && x < r.x && y >= r.y && y <= r.y + r.h) {
      // a group's label: expand it (its processors fill the timeline; undo folds it back)
      const row = procAtY(y);
      if (row && row.p1 - row.p0 > 1) setView({ t0: view.t0, t1: view.t1, p0: row.p0, p1: row.p1 }, true);
      return;
    }
    const m = nearestMessage(x, y);
    selected = m;
    if (m) {
      $("detail").innerHTML = "<h2>Message</h2>" + table(["", ""], [["sender", esc(meta.procs[m.src]) + " (" + m.src + ")"],
        ["receiver", esc(meta.procs[m.dst]) + " (" + m.dst + ")"], ["bytes", m.bytes], ["tag", m.tag],
        ["sent", fmtTime(secs(m.ts))], ["received", fmtTime(secs(m.tr))], ["in flight", fmtTime((m.tr - m.ts) / meta.unit)]]);
    }
    draw();
  }
  function hover(x, y) {
    if (!drawn.plot || !answer) return;
    const r = drawn.plot;
    if (x < r.x && y >= r.y && y <= r.y + r.h) {
      const row = procAtY(y);
      cv.style.cursor = row && row.p1 - row.p0 > 1 ? "pointer" : "";
      if (row && row.p1 - row.p0 > 1)
        $("info").textContent = "processors " + row.p0 + "–" + (row.p1 - 1) + ": click to expand the group (undo folds it)";
      return;
    }
    cv.style.cursor = "";
    if (x > r.x + r.w || y < r.y || y > r.y + r.h) return;
    const row = procAtY(y), t = tOf(x);
    let what = "";
    const ans = row && answers.find(a => row.p0 >= a.p0 && row.p0 < a.p1);
    if (ans && ans.mode === "exact") {
      let best = null;
      const iv = ans.intervals;
      for (let k = 0; k + 4 < iv.length; k += 5)
        if (iv[k] === row.p0 && iv[k + 1] <= t && t < iv[k + 2] && (!best || iv[k + 4] > best[4])) best = iv.slice(k, k + 5);
      if (best) what = " · " + meta.regions[best[3]].name + " (" + meta.regions[best[3]].class + ", " +
        fmtTime((best[2] - best[1]) / meta.unit) + ")";
    }
    $("info").textContent = (row ? (row.p1 - row.p0 === 1 ? meta.procs[row.p0] : "processors " + row.p0 + "–" + (row.p1 - 1)) : "") +
      " at " + fmtTime(secs(t)) + what;
  }
  window.addEventListener("keydown", e => {
    if (e.target.tagName === "INPUT") return;
    const w = view.t1 - view.t0, n = view.p1 - view.p0;
    const k = e.key;
    if (k === "ArrowLeft") setView({ ...view, t0: view.t0 - w / 5, t1: view.t1 - w / 5 }, true);
    else if (k === "ArrowRight") setView({ ...view, t0: view.t0 + w / 5, t1: view.t1 + w / 5 }, true);
    else if (k === "ArrowUp") setView({ ...view, p0: view.p0 - Math.max(1, n / 5), p1: view.p1 - Math.max(1, n / 5) }, true);
    else if (k === "ArrowDown") setView({ ...view, p0: view.p0 + Math.max(1, n / 5), p1: view.p1 + Math.max(1, n / 5) }, true);
    else if (k === "+" || k === "=") zoomAt((view.t0 + view.t1) / 2, 0.5);
    else if (k === "-") zoomAt((view.t0 + view.t1) / 2, 2);
    else if (k === "Backspace" || k === "u") undo();
    else if (k === "Home") home();
    else if (k === "/") { $("search").focus(); }
    else if (k === "c") toggleCritpath();
    else return;
    e.preventDefault();
  });
  function undo() { if (history.length) { view = history.pop(); writeHash(); refresh(); } }
  function home() { setView({ t0: meta.tmin, t1: Math.max(meta.tmax, meta.tmin + 2), p0: 0, p1: meta.procs.length }, true); }
  $("undo").onclick = undo;
  $("home").onclick = home;
  $("cpbtn").onclick = toggleCritpath;
  // The filters: a list of processors (Enter or leaving the box applies it) and a communicator.
  function applyFilters() {
    try {
      procList = parseProcs($("procs").value);
      $("procs").classList.remove("bad");
    } catch (e) {
      $("procs").classList.add("bad");
      $("info").textContent = "processors: " + e.message + " (a list such as 0-3,8)";
      return;
    }
    commSel = Number($("comm").value);
    writeHash();
    refresh();
  }
  function showFilters() {
    $("procs").value = procList === null ? "" : rangesText(procList);
    $("comm").value = String(commSel);
  }
  $("procform").onsubmit = e => { e.preventDefault(); applyFilters(); };
  $("procs").onchange = applyFilters;
  $("comm").onchange = applyFilters;
  $("colorby").onchange = e => { by = e.target.value; writeHash(); draw(); };
  $("searchform").onsubmit = e => {
    e.preventDefault();
    const q = $("search").value.trim();
    if (q) search(q, lastSearch && lastSearch.query === q);
  };
  // The canvas follows its own box, not only the window: a scrollbar that comes or goes when the
  // panels fill changes the box without resizing the window.
  let boxW = 0, boxH = 0;
  new ResizeObserver(() => {
    if (!view || (cv.clientWidth === boxW && cv.clientHeight === boxH)) return;
    boxW = cv.clientWidth; boxH = cv.clientHeight;
    resize(); refresh();
  }).observe(cv);
  window.addEventListener("hashchange", () => { const v = readHash(); showFilters(); if (v) setView(v, true); });

  // What the page shows, for tests and scripts: the view, where it drew, rows, and the panels' numbers.
  window.viewer = {
    data: () => ({ view: view, plot: drawn.plot, rows: drawn.rows, mode: answer && answer.mode,
      hidden: { functions: [...hiddenRegions], tags: [...hiddenTags] },
      messages: drawn.messages.map(m => [m.src, m.dst, m.ts, m.tr, m.tag]),
      answer: answer && (answer.mode === "exact" ? answer : { mode: answer.mode, rows: answer.rows, cols: answer.cols,
        p0: answer.p0, p1: answer.p1, t0: answer.t0, t1: answer.t1, from_events: answer.from_events }), stats: stats, selected: selected, hit: hit, by: by, meta: meta, pending: pending,
      util: util, filters: { procs: procList, comm: commSel, runs: view && shownRuns(view) },
      answers: answers.map(a => ({ mode: a.mode, p0: a.p0, p1: a.p1, rows: a.rows })), critpath: cpOn ? critpath : null, critpathDrawn: drawn.critpath,
      ready: !!stats && !!profile && stats.key === JSON.stringify(filterArgs(view)) && profile.key === stats.key &&
        (!cpOn || (!!critpath && critpath.t0 === view.t0 && critpath.t1 === view.t1)) && !!answer && !pending && !!stats && stats.t0 === view.t0 && stats.t1 === view.t1 &&
        stats.p0 === view.p0 && stats.p1 === view.p1 && !!util && profile.t0 === view.t0 && profile.t1 === view.t1 &&
        profile.p0 === view.p0 && profile.p1 === view.p1 }),
    // a raster cell as received: the shares of idle, overhead and busy (null: no time), the function (-1 none)
    cell: (row, col) => answer && answer.mode === "raster" ? { shares: stateShares(answer.state[row * answer.cols + col]),
      region: answer.region[row * answer.cols + col] - 1 } : null,
    regionRgb: regionRgb, xOf: xOf, tOf: tOf, setView: v => setView(v, true), follow: follow, stateColors: STATE_COLORS,
    trace: TRACE,
  };

  api("meta").then(m => {
    meta = m;
    $("title").textContent = m.title;
    if (TRACE) $("cpbtn").hidden = true; // the critical path: the first trace's only
    document.title = "retrace view – " + m.title;
    if (m.format === "pes") by = "region"; // a Chitra sequence: every state is busy, its name tells
    $("colorby").value = by;
    resize();
    const v = readHash();
    $("colorby").value = by;
    $("cppanel").hidden = !cpOn;
    $("cpbtn").classList.toggle("on", cpOn);
    $("comm").innerHTML = "<option value=-1>all communicators</option>" + list(m.comms).map(c =>
      "<option value=" + c.id + ">" + esc(c.name) + " (" + c.members.length + ")</option>").join("");
    showFilters();
    following = true; // the opening view is not told to a comparison page (it aligns the frames itself)
    try { setView(v || { t0: m.tmin, t1: Math.max(m.tmax, m.tmin + 2), p0: 0, p1: m.procs.length }, false); }
    finally { following = false; }
  }).catch(e => { $("status").textContent = "error: " + e.message; });
})();
