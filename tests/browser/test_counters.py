#!/usr/bin/env python3
"""retrace view's counters in a real browser (headless Chromium through Selenium).

On the shared Paraver sample (qsort_beo3: hardware counters as event types without VALUES in its
.pcf): open the page on one processor, choose the counter "Total cycles", read the plotted line
at the middle of a sample's step and compare the value it stands for with the trace's own event
record (read here from the .prv); then the sum over the processors. On an OTF2 archive with metrics
(bench/gen_otf2_mpi --metrics): the member "power" of one processor, its samples against
otf2-print's METRIC records and its line at a step's value. Screenshots go to the gallery.

Exit 77 (ctest: skipped) when the browser, the driver, Selenium or the shared sample is missing.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import (GALLERY, RETRACE, SHARED, browser, canvas_pixel, check, counters_ready,  # noqa: E402
                            finish, serve_view, skip, stop)

PRV = os.path.join(SHARED, "paraver/qsort_beo3.prv")
CYCLES = 42000060
GEN = os.path.join(os.path.dirname(os.path.abspath(RETRACE)), "bench", "gen_otf2_mpi")
if not os.path.exists(PRV) and not os.path.exists(GEN):
    skip("neither the shared Paraver sample %s nor %s is there" % (PRV, GEN))


def records(task):
    """(time, value) of Total cycles on task's thread 1, in file order, from the .prv."""
    out = []
    with open(PRV) as f:
        for line in f:
            if not line.startswith("2:"):
                continue
            x = line.strip().split(":")
            if int(x[3]) != task:
                continue
            for i in range(6, len(x) - 1, 2):
                if int(x[i]) == CYCLES:
                    out.append((int(x[5]), int(x[i + 1])))
    return out


def open_meta(d, url):
    """Open the page; its meta once loaded."""
    d.get(url)
    for _ in range(200):
        if d.execute_script("return window.viewer && viewer.data().meta !== null"):
            break
        time.sleep(0.05)
    return d.execute_script("return viewer.data().meta")


def line_at_widest_step(d, x, want):
    """The widest step of the samples want [(tick, value)]: its middle pixel lies on the drawn line at the
    height of its value, and 12 pixels below it the colour differs."""
    a, r = x["answer"], x["drawn"]["plot"]
    span = a["t1"] - a["t0"]
    steps = [(want[k][0], want[k + 1][0] if k + 1 < len(want) else a["t1"], want[k][1]) for k in range(len(want))]
    t0, t1, v = max(steps, key=lambda s: s[1] - s[0])
    px = int(r["x"] + ((t0 + t1) / 2 - a["t0"]) / span * r["w"])
    py = d.execute_script("return rtCounters.yOf(arguments[0])", v)
    rgb = canvas_pixel(d, "counters", px, int(round(py)))
    col = x["drawn"]["series"][0]["color"]
    want_rgb = [int(col[i:i + 2], 16) for i in (1, 3, 5)]
    check(all(abs(rgb[i] - want_rgb[i]) <= 40 for i in range(3)),
          "pixel (%d, %d) on the line of value %g: %s, line colour %s" % (px, py, v, rgb, want_rgb))
    off = canvas_pixel(d, "counters", px, int(round(py)) + 12)
    check(off != rgb, "12 pixels below the line the colour differs: %s" % off)


def choose_counter(d, url, c, hash_):
    """Open the page at hash_ and plot counter c; what rtCounters.data() says once drawn."""
    d.get(url + hash_)
    d.refresh()
    counters_ready(d, "load")
    d.execute_script("var s=document.getElementById('counter'); s.value=arguments[0];"
                     "s.dispatchEvent(new Event('change'))", c)
    time.sleep(0.2)
    return counters_ready(d, "choosing counter %d" % c)


def otf2_case():
    """Metric "power" of rank 2 on a generated archive: otf2-print's values, drawn as steps."""
    if not os.path.exists(GEN):
        print("skipped: %s absent, the OTF2 metrics case left out" % GEN)
        return
    tmp = tempfile.mkdtemp(prefix="retrace_counters_otf2_")
    arch = os.path.join(tmp, "m")
    subprocess.run([GEN, "--metrics", arch, "4", "1200", "3"], check=True, capture_output=True)
    anchor = os.path.join(arch, "traces.otf2")
    want = None
    if shutil.which("otf2-print"):
        out = subprocess.run(["otf2-print", "-L", "2", anchor], capture_output=True, text=True).stdout
        want = [float(line.split("\"power\" <1>; DOUBLE; ")[1].split(")")[0])
                for line in out.splitlines() if line.startswith("METRIC")]
    server, url = serve_view(anchor)
    d = browser()
    try:
        meta = open_meta(d, url)
        names = [c["name"] for c in meta["counters"]]
        check(names == ["PAPI_TOT_INS", "power"], "the metric members are the counters: %s" % names)
        x = choose_counter(d, url, 1, "#t0=%d&t1=%d&p0=2&p1=3&by=function" % (meta["tmin"], meta["tmax"]))
        a = x["answer"]
        check(a["name"] == "power" and a["unit"] == "W" and a["exact"] and a["series"][0]["proc"] == 2,
              "rank 2's samples of power (W)")
        got = [tuple(v) for v in a["series"][0]["samples"]]
        if want is not None:
            check(len(got) == len(want) and all(abs(g[1] - w) <= 1e-5 * abs(w) for g, w in zip(got, want)),
                  "the samples drawn are otf2-print's %d METRIC values of location 2" % len(want))
        line_at_widest_step(d, x, got)
        d.save_screenshot(os.path.join(GALLERY, "counters_otf2.png"))
    finally:
        d.quit()
        stop(server, tmp)


def main():
    if not os.path.exists(PRV):
        print("skipped: the shared Paraver sample %s is absent" % PRV)
        return
    tmp = tempfile.mkdtemp(prefix="retrace_counters_")
    base = PRV[:-4]
    for ext in (".prv", ".pcf", ".row"):
        if os.path.exists(base + ext):
            shutil.copy(base + ext, os.path.join(tmp, "qsort" + ext))
    trace = os.path.join(tmp, "qsort.prv")
    server, url = serve_view(trace)
    os.makedirs(GALLERY, exist_ok=True)
    d = browser()
    try:
        meta = open_meta(d, url)
        names = [c["name"] for c in meta["counters"]]
        check("Total cycles (Total cycles)" in names, "meta lists the counter Total cycles: %s" % names)
        c = names.index("Total cycles (Total cycles)")
        # processor 1 (task 2) alone: its samples, drawn as steps
        x = choose_counter(d, url, c, "#t0=%d&t1=%d&p0=1&p1=2&by=state" % (meta["tmin"], meta["tmax"]))
        a = x["answer"]
        check(a["counter"] == c and a["exact"] and len(a["series"]) == 1 and a["series"][0]["proc"] == 1,
              "one processor's samples of counter %d" % c)
        want = records(2)
        got = [tuple(s) for s in a["series"][0]["samples"]]
        check(got == want, "the samples drawn are the .prv's records of task 2 (%d)" % len(want))
        line_at_widest_step(d, x, want)
        d.save_screenshot(os.path.join(GALLERY, "counters_one.png"))
        # every processor, summed: the band and the mean of the sum
        d.execute_script("document.getElementById('countersum').checked=true;"
                         "document.getElementById('countersum').dispatchEvent(new Event('change'))")
        d.get(url + "#t0=%d&t1=%d&p0=0&p1=4&by=state" % (meta["tmin"], meta["tmax"]))
        time.sleep(0.3)
        x = counters_ready(d, "the sum")
        a = x["answer"]
        check(len(a["series"]) in (1, 4), "the whole run: %d series" % len(a["series"]))
        d.save_screenshot(os.path.join(GALLERY, "counters_all.png"))
    finally:
        d.quit()
        stop(server, tmp)


main()
otf2_case()
finish()
