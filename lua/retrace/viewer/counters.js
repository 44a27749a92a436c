// retrace view: counters as line plots under the timeline (OTF2 metrics, Paraver event types that
// carry quantities, Pajé variables). The timeline (viewer.js) tells this file its view through
// rtCounters.update; the plot asks api/counters for the counter chosen over the same window and
// processors and draws, per processor or summed, the mean of each pixel column as a line and the
// least to largest value as a band; zoomed in far enough, the samples themselves as steps.
"use strict";
window.rtCounters = (function () {
  const MAXPROCS = 64; // per-processor lines up to this many processors (the server's limit), else the sum
  const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf"];
  const AXIS = 90; // left margin, the timeline's gutter
  let meta = null, ask = null, answer = null, drawn = null, seq = 0, pending = 0, api = null, error = null;
  function $(id) { return document.getElementById(id); }
  function fmt(v) {
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e6 || a < 1e-3)) return v.toExponential(2);
    return String(Math.round(v * 1000) / 1000);
  }
  function color(i) { return COLORS[i % COLORS.length]; }

  // The view changed (or the counter, or the sum box): ask again.
  function update(m, v, plot, procArgs, apiFn) {
    meta = m;
    api = apiFn;
    const box = $("counterbox");
    if (!box) return;
    if (!meta.counters || !meta.counters.length) { box.hidden = true; return; }
    box.hidden = false;
    const sel = $("counter");
    if (!sel.options.length) {
      sel.innerHTML = meta.counters.map((c, i) => "<option value=" + i + ">" + c.name.replace(/[&<>"]/g, "") +
        (c.unit ? " [" + c.unit.replace(/[&<>"]/g, "") + "]" : "") + "</option>").join("");
      sel.addEventListener("change", () => load());
      $("countersum").addEventListener("change", () => load());
    }
    ask = { t0: v.t0, t1: v.t1, p0: v.p0, p1: v.p1, plot: plot, procs: procArgs };
    load();
  }
  function shownCount() {
    if (!ask.procs.procs) return ask.p1 - ask.p0;
    return ask.procs.procs.split(",").reduce((n, r) => {
      const [a, b] = r.split("-").map(Number);
      return n + (b === undefined ? 1 : b - a + 1);
    }, 0);
  }
  function load() {
    if (!ask) return;
    const c = Number($("counter").value), cv = $("counters");
    const w = Math.max(1, Math.round(ask.plot.w));
    const sum = $("countersum").checked || shownCount() > MAXPROCS;
    const args = Object.assign({ c: c, t0: ask.t0, t1: ask.t1, p0: ask.p0, p1: ask.p1, w: w, sum: sum ? 1 : 0 }, ask.procs);
    const my = ++seq;
    pending++;
    api("counters", args).then(a => {
      if (my !== seq) return;
      answer = a;
      answer.forcedSum = sum && !$("countersum").checked;
      error = null;
      draw(cv);
    }).catch(e => { if (my === seq) { error = e.message; answer = null; draw(cv); } })
      .finally(() => { pending--; });
  }

  function draw(cv) {
    const d = window.devicePixelRatio || 1, cw = cv.clientWidth, ch = cv.clientHeight;
    cv.width = Math.round(cw * d);
    cv.height = Math.round(ch * d);
    const g = cv.getContext("2d");
    g.setTransform(d, 0, 0, d, 0, 0);
    g.clearRect(0, 0, cw, ch);
    g.font = "11px sans-serif";
    g.fillStyle = "#333";
    const r = { x: ask.plot.x, y: 6, w: ask.plot.w, h: ch - 20 };
    drawn = null;
    if (error || !answer) { g.fillText(error ? "error: " + error : "", AXIS, 14); return; }
    const series = answer.series;
    let lo = Infinity, hi = -Infinity;
    for (const s of series) {
      s.min.forEach(v => { if (v !== null && v < lo) lo = v; });
      s.max.forEach(v => { if (v !== null && v > hi) hi = v; });
      (s.samples || []).forEach(x => { if (x[1] < lo) lo = x[1]; if (x[1] > hi) hi = x[1]; });
    }
    if (!(lo <= hi)) { g.fillText("no value of " + answer.name + " in the view", r.x + 4, 14); drawn = { plot: r, series: [] }; return; }
    if (lo === hi) { lo -= 1; hi += 1; }
    const yOf = v => r.y + r.h - (v - lo) / (hi - lo) * r.h;
    const xOf = t => r.x + (t - answer.t0) / (answer.t1 - answer.t0) * r.w;
    const colx = r.w / answer.w;
    // axis: the extremes and the unit
    g.strokeStyle = "#bbb";
    g.strokeRect(r.x, r.y, r.w, r.h);
    g.textAlign = "right";
    g.fillText(fmt(hi), r.x - 4, r.y + 9);
    g.fillText(fmt(lo), r.x - 4, r.y + r.h);
    g.fillText(answer.unit || "", r.x - 4, r.y + r.h / 2 + 4);
    g.textAlign = "left";
    series.forEach((s, i) => {
      const col = answer.sum ? "#333" : color(s.proc);
      if (answer.exact && s.samples && s.samples.length) {
        // the samples as steps: each value held until the next, the last to the window's end
        g.strokeStyle = col;
        g.lineWidth = 2;
        g.beginPath();
        s.samples.forEach((x, k) => {
          const a = Math.max(r.x, xOf(x[0])), e = k + 1 < s.samples.length ? xOf(s.samples[k + 1][0]) : r.x + r.w;
          const y = yOf(x[1]);
          if (k) g.lineTo(a, y); else g.moveTo(a, y);
          g.lineTo(Math.min(e, r.x + r.w), y);
        });
        g.stroke();
        return;
      }
      // the band: least to largest value of each column
      g.fillStyle = col + "40";
      for (let c = 0; c < answer.w; c++)
        if (s.min[c] !== null) {
          const y0 = yOf(s.max[c]), y1 = yOf(s.min[c]);
          g.fillRect(r.x + c * colx, y0, Math.max(colx, 1), Math.max(y1 - y0, 1));
        }
      // the mean
      g.strokeStyle = col;
      g.lineWidth = 2;
      g.beginPath();
      let on = false;
      for (let c = 0; c < answer.w; c++) {
        const v = s.mean[c];
        if (v === null) { on = false; continue; }
        const x = r.x + (c + 0.5) * colx, y = yOf(v);
        if (on) g.lineTo(x, y); else g.moveTo(x, y);
        on = true;
      }
      g.stroke();
    });
    g.fillStyle = "#333";
    const who = answer.sum ? "sum of the processors shown" + (answer.forcedSum ? " (more than " + MAXPROCS + ")" : "")
      : series.length + " processor" + (series.length === 1 ? "" : "s");
    const how = answer.exact ? ", samples"
      : ", mean and range per pixel" + (answer.level >= 0 ? " (from the index's summaries)" : "");
    g.fillText(answer.name + ": " + who + how, r.x + 4, ch - 4);
    drawn = { plot: r, lo: lo, hi: hi, series: series.map((s, i) => ({ proc: s.proc, color: answer.sum ? "#333333" : color(s.proc) })) };
  }

  // For tests: the answer drawn, where, and the value scale (y of a value).
  function data() {
    return { answer: answer, drawn: drawn, pending: pending, ready: !!answer && !pending && !!ask &&
      answer.t0 === ask.t0 && answer.t1 === ask.t1,
      yOf: v => drawn && drawn.plot.y + drawn.plot.h - (v - drawn.lo) / (drawn.hi - drawn.lo) * drawn.plot.h };
  }
  return { update: update, data: () => { const x = data(); delete x.yOf; return x; },
    yOf: v => data().yOf(v), redraw: () => { if (ask && answer) draw($("counters")); } };
})();
