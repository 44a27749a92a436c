#!/usr/bin/env python3
"""retrace view on a SHMAP run (`retrace shmap --paje`) in a real browser (headless Chromium).

A kji LU of order 24 runs on 4 PEs sharing 2 caches and is written as a Pajé trace: a processor per
PE, a second per step. Checked against that file (read here, independently of retrace's reader):
zoomed to 40 steps, every interval drawn is the file's and the function summary gives each event
kind's steps; the pixel in the middle of a PE's longest state there has that state's colour; the
cache-miss counter of PE 1 plots the file's samples. Screenshots go to the gallery.

Exit 77 (ctest: skipped) when the browser, the driver or Selenium is missing.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import (GALLERY, RETRACE, browser, canvas_pixel, check, counters_ready, finish,  # noqa: E402
                            page_ready, serve_view, stop)

HERE = os.path.dirname(os.path.abspath(__file__))
LU = os.path.join(HERE, "..", "..", "examples", "shmap", "lu.lua")
MACHINE = ["--pes", "4", "--caches", "2", "--cache-size", "64", "--line", "4", "--ways", "2"]


def read_paje(path):
    """Per PE its states [(t0, t1, name)], the counters' samples {type: {pe: [(t, v)]}}, the end."""
    sets, samples, end = {}, {"H": {}, "M": {}}, 0
    for line in open(path):
        m = re.match(r'^5 (\d+) S pe(\d+) "(.*)"$', line)
        if m:
            sets.setdefault(int(m.group(2)), []).append((int(m.group(1)), m.group(3)))
        m = re.match(r"^6 (\d+) ([HM]) pe(\d+) (\d+)$", line)
        if m:
            samples[m.group(2)].setdefault(int(m.group(3)), []).append((int(m.group(1)), int(m.group(4))))
        m = re.match(r"^4 (\d+) PE pe\d+$", line)
        if m:
            end = int(m.group(1))
    states = {p: [(s[k][0], s[k + 1][0] if k + 1 < len(s) else end, s[k][1]) for k in range(len(s))]
              for p, s in sets.items()}
    return states, samples, end


def main():
    tmp = tempfile.mkdtemp(prefix="retrace_shmap_view_")
    shm, trace = os.path.join(tmp, "lu.shm"), os.path.join(tmp, "lu.trace")
    subprocess.run([RETRACE, LU, "kji", "24", shm], check=True, capture_output=True)
    subprocess.run([RETRACE, "shmap", shm, *MACHINE, "--paje", trace], check=True, capture_output=True)
    states, samples, end = read_paje(trace)
    server, url = serve_view(trace)
    os.makedirs(GALLERY, exist_ok=True)
    d = browser()
    try:
        d.get(url + "#by=region")
        x = page_ready(d, "load")
        meta = d.execute_script("return viewer.data().meta")
        unit = meta["unit"]
        check(meta["procs"] == ["PE 0", "PE 1", "PE 2", "PE 3"], "one processor per PE: %s" % meta["procs"])
        check(meta["tmax"] - meta["tmin"] == end * unit, "the run lasts its %d steps" % end)
        d.save_screenshot(os.path.join(GALLERY, "shmap_1-whole-run.png"))
        # 40 steps in the middle of the run, every event drawn
        a, b = end // 2, end // 2 + 40
        d.get(url + "#t0=%d&t1=%d&p0=0&p1=4&by=region" % (meta["tmin"] + a * unit, meta["tmin"] + b * unit))
        d.refresh()
        x = page_ready(d, "zoom to steps %d..%d" % (a, b))
        ans = x["answer"]
        check(ans["mode"] == "exact", "40 steps: every event drawn")
        names = {r["id"]: r["name"] for r in meta["regions"]}
        iv = ans["intervals"]
        got = sorted((iv[k], max(iv[k + 1], a * unit), min(iv[k + 2], b * unit), names[iv[k + 3]])
                     for k in range(0, len(iv), 5) if min(iv[k + 2], b * unit) > max(iv[k + 1], a * unit))
        want = sorted((p, max(t0, a) * unit, min(t1, b) * unit, n)
                      for p, s in states.items() for t0, t1, n in s if min(t1, b) > max(t0, a))
        check(got == want, "the %d intervals drawn are the file's (%d)" % (len(got), len(want)))
        per = {}
        for p, t0, t1, n in want:
            per[n] = per.get(n, 0) + (t1 - t0) / unit
        page = {f["name"]: f["exclusive"] for f in x["stats"]["functions"]}
        check(all(abs(page.get(n, -1) - v) < 1e-9 for n, v in per.items()),
              "function summary: steps per event kind in the window %s against %s" % (page, per))
        # the middle of PE 1's longest state in the window has its colour
        t0, t1, n = max(((max(s[0], a), min(s[1], b), s[2]) for s in states[1]
                         if min(s[1], b) > max(s[0], a) and s[2] != "idle"), key=lambda s: s[1] - s[0])
        px = int(round(d.execute_script("return viewer.xOf(arguments[0])", meta["tmin"] + (t0 + t1) / 2 * unit)))
        row = next(r for r in x["rows"] if r["p0"] <= 1 < r["p1"])
        py = int(row["y"] + row["h"] / 2)
        rgb = canvas_pixel(d, "plot", px, py)
        rid = next(r["id"] for r in meta["regions"] if r["name"] == n)
        want_rgb = list(d.execute_script("return viewer.regionRgb(arguments[0])", rid))[:3]
        check(all(abs(rgb[i] - want_rgb[i]) <= 3 for i in range(3)),
              "pixel (%d, %d) in PE 1's '%s' has its colour: %s against %s" % (px, py, n, rgb, want_rgb))
        # idle steps stay pale
        idle = next(r["id"] for r in meta["regions"] if r["name"] == "idle")
        check(list(d.execute_script("return viewer.regionRgb(arguments[0])", idle))[:3] == [240, 240, 240],
              "idle is drawn pale when coloured by function")
        # PE 1's cache misses: the file's samples
        cnames = [c["name"] for c in meta["counters"]]
        check("cache misses in the step" in cnames, "the counters: %s" % cnames)
        c = cnames.index("cache misses in the step")
        d.get(url + "#t0=%d&t1=%d&p0=1&p1=2&by=region" % (meta["tmin"], meta["tmax"]))
        d.refresh()
        counters_ready(d, "PE 1")
        d.execute_script("var s=document.getElementById('counter'); s.value=arguments[0];"
                         "s.dispatchEvent(new Event('change'))", c)
        time.sleep(0.2)
        y = counters_ready(d, "cache misses")
        ca = y["answer"]
        series = ca["series"][0] if ca["series"] else {"proc": -1, "samples": []}
        want_s = [(meta["tmin"] + t * unit, v) for t, v in samples["M"][1]]
        check(ca["counter"] == c and series["proc"] == 1 and [tuple(s) for s in series["samples"]] == want_s,
              "PE 1's cache misses plotted are the file's %d samples" % len(want_s))
        d.get(url + "#t0=%d&t1=%d&p0=0&p1=4&by=region" % (meta["tmin"] + a * unit, meta["tmin"] + b * unit))
        d.refresh()
        page_ready(d, "the window again")
        d.execute_script("var s=document.getElementById('counter'); s.value=arguments[0];"
                         "s.dispatchEvent(new Event('change'))", c)
        time.sleep(0.2)
        counters_ready(d, "the window's misses")
        d.save_screenshot(os.path.join(GALLERY, "shmap_2-steps-and-misses.png"))
    finally:
        d.quit()
        stop(server, tmp)
    finish()


main()
