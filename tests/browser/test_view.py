#!/usr/bin/python3
"""Browser tests of `retrace view` (headless Chromium through Selenium).

On the shared OTF2 ping-pong archive: open the page, zoom by wheel events into
the ping-pong phase, read the state drawn at a pixel and the function summary
of a shift-drag selection and compare both with `retrace stats` on the same
window; click a message line and compare sender, receiver and bytes with
otf2-print; search a region and land on its first occurrence (otf2-print);
every interval and message at full detail equals otf2-print's events; the
server refuses requests without the token and answers malformed queries with
400 (random queries, then the server still answers). Screenshots of the steps
go to BUILD/gallery/viewer/view_*.png (or $RETRACE_VIEW_GALLERY), which
`make demo` puts on the gallery page (tests/browser/gallery_shots.lua).

Exit 77 (ctest: skipped) when the browser, the driver, Selenium or the shared
data are missing, saying which.
"""
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import (GALLERY, RETRACE, SHARED, browser, check, serve_view, skip,  # noqa: E402
                            stop, finish, page_ready, canvas_pixel)
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

TRACE = os.path.join(SHARED, "otf2/pingpong/traces.otf2")
if not os.path.exists(TRACE):
    skip("the shared OTF2 sample %s is absent" % TRACE)
if not shutil.which("otf2-print"):
    skip("otf2-print (otf2-tools) is not installed")


def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def pure_pixels(d, trace, unit, proc, y, x0, x1, want=4):
    """Pixels of a processor's row where retrace stats says it spends the time around the pixel in one
    state: (probes, how many have that state's colour)."""
    cols = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in d.execute_script("return viewer.stateColors")]
    probes = good = 0
    for px in range(int(x0), int(x1), 7):
        ta, tb = d.execute_script("return [viewer.tOf(arguments[0]-1), viewer.tOf(arguments[0]+2)]", px)
        out = subprocess.run([RETRACE, "stats", "--json", "--from", repr(ta / unit), "--to", repr(tb / unit), trace],
                             capture_output=True, text=True, check=True).stdout
        p = json.loads(out)["processors"][proc]
        sh = [p[k] for k in ("idle", "overhead", "busy")]
        k = max(range(3), key=lambda j: sh[j])
        if sh[k] <= 0 or sum(sh) - sh[k] > 0:
            continue
        probes += 1
        rgb = canvas_pixel(d, "plot", px, y)
        ok = all(abs(rgb[j] - cols[k][j]) <= 3 for j in range(3))
        if not ok:
            print("  pixel", px, y, rgb, "stats", sh)
        good += ok
        if probes == want:
            break
    return probes, good


def data_filters(d):
    return d.execute_script("return viewer.data().filters.procs")


# ---- the reference: otf2-print's events ----
def reference():
    out = subprocess.run(["otf2-print", TRACE], capture_output=True, text=True, check=True).stdout
    clock = subprocess.run(["otf2-print", "-G", TRACE], capture_output=True, text=True, check=True).stdout
    m = re.search(r"Ticks per Seconds: (\d+), Global Offset: (\d+)", clock)
    unit, offset = int(m.group(1)), int(m.group(2))
    stacks, intervals, sends, recvs, tags, comms = {}, [], [], [], {}, {}
    for line in out.splitlines():
        f = line.split()
        if len(f) < 3 or not f[1].isdigit():
            continue
        kind, loc, t = f[0], int(f[1]), int(f[2]) - offset
        if kind == "ENTER":
            name = re.search(r'Region: "(.*)" <', line).group(1)
            stacks.setdefault(loc, []).append((name, t))
        elif kind == "LEAVE":
            name, t0 = stacks[loc].pop()
            intervals.append((loc, t0, t, name, len(stacks[loc])))
        elif kind == "MPI_SEND":
            peer = int(re.search(r"Receiver: (\d+)", line).group(1))
            size = int(re.search(r"Length: (\d+)", line).group(1))
            sends.append((loc, peer, t, size, int(re.search(r"Tag: (\d+)", line).group(1)),
                          int(re.search(r'Communicator: "[^"]*" <(\d+)>', line).group(1))))
        elif kind == "MPI_RECV":
            peer = int(re.search(r"Sender: (\d+)", line).group(1))
            size = int(re.search(r"Length: (\d+)", line).group(1))
            recvs.append((peer, loc, t, size))
    # pair sends and receives in order per (sender, receiver)
    msgs = []
    for (s, r, tr, size) in recvs:
        k = next(i for i, x in enumerate(sends) if x[0] == s and x[1] == r)
        snd = sends.pop(k)
        msgs.append((s, r, snd[2], tr, size))
        tags[(s, r, snd[2], tr)] = snd[4]
        comms[(s, r, snd[2], tr)] = snd[5]
    return unit, sorted(intervals), sorted(msgs), tags, comms


UNIT, REF_INTERVALS, REF_MESSAGES, REF_TAGS, REF_COMMS = reference()

tmp = tempfile.mkdtemp(prefix="retrace-view-test-")
index = os.path.join(tmp, "pingpong.rtidx")
os.makedirs(GALLERY, exist_ok=True)
server = subprocess.Popen([RETRACE, "view", TRACE, "--port", "0", "--index", index],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
url = server.stdout.readline().strip()
check(re.match(r"^http://127\.0\.0\.1:\d+/[0-9a-f]{32}/$", url) is not None, "prints a 127.0.0.1 URL with a token: " + url)
base = url.rsplit("/", 2)[0]


def get(path):
    try:
        with urllib.request.urlopen(path, timeout=20) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def api(q):
    st, body = get(url + q)
    assert st == 200, (q, st, body)
    return json.loads(body)


def stats_cli(a, b):
    out = subprocess.run([RETRACE, "stats", "--json", "--from", repr(a), "--to", repr(b), TRACE],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


try:
    # ---- exactness: at full detail every interval and message equals otf2-print's ----
    meta = api("api/meta")
    names = [r["name"] for r in meta["regions"]]
    full = api("api/view?t0=%d&t1=%d&w=4000&h=100" % (meta["tmin"], meta["tmax"]))
    check(full["mode"] == "exact", "the whole ping-pong run is answered with its events")
    iv = full["intervals"]
    got = sorted((iv[k], iv[k + 1], iv[k + 2], names[iv[k + 3]], iv[k + 4]) for k in range(0, len(iv), 5))
    check(got == REF_INTERVALS, "intervals equal otf2-print's ENTER/LEAVE pairs (%d)" % len(REF_INTERVALS))
    m = full["messages"]
    gotm = sorted((m[k], m[k + 1], m[k + 2], m[k + 3], int(m[k + 4])) for k in range(0, len(m), 6))
    check(gotm == REF_MESSAGES, "messages equal otf2-print's MPI_SEND/MPI_RECV pairs (%d)" % len(REF_MESSAGES))
    # a window: exactly the reference intervals overlapping it
    a, b = REF_MESSAGES[3][2], REF_MESSAGES[6][3]
    win = api("api/view?t0=%d&t1=%d&w=2000&h=100" % (a, b))
    iv = win["intervals"]
    gotw = sorted((iv[k], iv[k + 1], names[iv[k + 3]]) for k in range(0, len(iv), 5))
    refw = sorted((x[0], x[1], x[3]) for x in REF_INTERVALS if x[2] >= a and x[1] <= b)
    check(gotw == refw, "a window's intervals are the reference's overlapping it (%d)" % len(refw))

    # ---- security and malformed queries ----
    check(get(base + "/api/meta")[0] == 403, "no token: 403")
    check(get(base + "/" + "0" * 32 + "/api/meta")[0] == 403, "a wrong token: 403")
    check(get(url + "..%2F..%2Fetc%2Fpasswd")[0] == 404, "a path outside the page's files: 404")
    check(get(url + "api/view?t0=1&t1=0&w=10&h=10")[0] == 400, "an empty window: 400")
    st, body = get(url + "api/view?w=abc&h=3")
    check(st == 400 and b"argument w" in body, "a malformed argument: 400 with a message")
    rnd = random.Random(31)
    alphabet = "0123456789-+eE.%&=xyzt01p19hw?q/ "
    keys = ["t0", "t1", "p0", "p1", "w", "h", "q", "t", "zz", "procs", "comm", "trace"]
    bad = 0
    for i in range(400):
        ep = rnd.choice(["api/view", "api/stats", "api/search", "api/meta", "api/nothing", "viewer.js", "api/critpath"])
        q = "&".join("%s=%s" % (rnd.choice(keys), "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12))))
                     for _ in range(rnd.randint(0, 20)))
        st, body = get(url + ep + "?" + q.replace(" ", "%20"))
        if st not in (200, 202, 400, 404) or (st == 400 and b'"error"' not in body):
            bad += 1
            print("  unexpected", st, ep, q, body[:200])
    check(bad == 0, "400 random queries: each 200, 400 or 404 with a message")
    check(server.poll() is None and get(url + "api/meta")[0] == 200, "the server still answers after them")

    # ---- the page ----
    d = browser()
    d.set_script_timeout(30)

    def data():
        return d.execute_script("return viewer.data()")

    def wait_ready(what):
        return page_ready(d, what)

    try:
        d.get(url)
        x = wait_ready("load")
        check(x["view"]["t0"] == meta["tmin"] and x["view"]["t1"] == meta["tmax"], "opens on the whole run")
        d.save_screenshot(os.path.join(GALLERY, "view_1-whole-run.png"))

        # the page's scrollbar comes and goes without the window changing: the canvas follows its box
        def box():
            return d.execute_script("const c = document.getElementById('plot'); "
                                    "return [c.width, c.clientWidth, viewer.data().plot.w]")

        def fits(b):
            return b[0] == b[1] and b[1] - b[2] == before[1] - before[2]
        before = box()
        widths = []
        for style in ["hidden", "scroll", ""]:
            d.execute_script("document.documentElement.style.overflowY = arguments[0]", style)
            for _ in range(100):
                if fits(box()):
                    break
                time.sleep(0.05)
            wait_ready("overflow-y " + (style or "back"))
            b = box()
            widths.append(b[1])
            check(fits(b), "overflow-y %s: the canvas bitmap and the plot follow the box %s" % (style or "back", b))
        check(widths[0] > widths[1] and box() == before, "a scrollbar narrows the canvas (%s)" % widths)
        canvas = d.find_element("id", "plot")
        plot = x["plot"]
        cw, ch = canvas.size["width"], canvas.size["height"]

        # zoom by wheel into the ping-pong phase: at the pixel of the 4th message's send
        target = REF_MESSAGES[3][2]
        for i in range(26):
            px = d.execute_script("return viewer.xOf(arguments[0])", target)
            origin = ScrollOrigin.from_element(canvas, int(px - cw / 2), int(plot["y"] + 20 - ch / 2))
            ActionChains(d).scroll_from_origin(origin, 0, -100).perform()
            time.sleep(0.03)
        x = wait_ready("wheel zoom")
        v = x["view"]
        check(v["t0"] <= target <= v["t1"] and v["t1"] - v["t0"] < (meta["tmax"] - meta["tmin"]) / 100,
              "wheel events zoomed in around the target (window %d ticks)" % (v["t1"] - v["t0"]))
        d.save_screenshot(os.path.join(GALLERY, "view_2-wheel-zoom.png"))

        # the state drawn at a pixel against `retrace stats` on the pixel's time
        ans = x["answer"]
        check(ans["mode"] == "exact", "zoomed in, the page draws every event")
        iv = ans["intervals"]
        best = None
        for k in range(0, len(iv), 5):
            p, a, b, r, dep = iv[k:k + 5]
            a2, b2 = max(a, v["t0"]), min(b, v["t1"])
            if p == 0 and dep == 1 and (best is None or b2 - a2 > best[1] - best[0]):
                best = (a2, b2, r)
        tmid = (best[0] + best[1]) // 2
        px = int(d.execute_script("return viewer.xOf(arguments[0])", tmid))
        rows = x["rows"]
        py = int(plot["y"] + (0.5) * plot["h"] / len(rows))
        rgb = canvas_pixel(d, "plot", px, py)
        cols = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in x["by"] and d.execute_script("return viewer.stateColors")]
        drawn = min(range(3), key=lambda k: sum((rgb[i] - cols[k][i]) ** 2 for i in range(3)))
        t_a, t_b = d.execute_script("return [viewer.tOf(arguments[0]), viewer.tOf(arguments[0]+1)]", px)
        s = stats_cli(t_a / UNIT, t_b / UNIT)
        p0 = s["processors"][0]
        st = max(range(3), key=lambda k: p0[["idle", "overhead", "busy"][k]])
        check(drawn == st, "state drawn at pixel (%d,%d) = %s, retrace stats on its time says %s" %
              (px, py, ["idle", "overhead", "busy"][drawn], ["idle", "overhead", "busy"][st]))

        # a selection by shift-drag: the function summary against `retrace stats` on the same window
        x0 = int(plot["x"] + plot["w"] * 0.2)
        x1 = int(plot["x"] + plot["w"] * 0.8)
        y0, y1 = int(plot["y"] + 5), int(plot["y"] + plot["h"] - 5)
        ActionChains(d).key_down(Keys.SHIFT).move_to_element_with_offset(canvas, x0 - cw // 2, y0 - ch // 2) \
            .click_and_hold().move_to_element_with_offset(canvas, x1 - cw // 2, y1 - ch // 2) \
            .release().key_up(Keys.SHIFT).perform()
        x = wait_ready("selection")
        v = x["view"]
        d.save_screenshot(os.path.join(GALLERY, "view_3-selection.png"))
        s = stats_cli(v["t0"] / UNIT, v["t1"] / UNIT)
        page = {f["name"]: f for f in x["stats"]["functions"]}
        ok = True
        for rid, row in s["regions"].items():
            t = sum(p["events"].get(rid, {}).get("time", 0) for p in s["processors"])
            n = sum(p["events"].get(rid, {}).get("count", 0) for p in s["processors"])
            if t == 0 and n == 0:
                continue
            f = page.get(row["name"])
            good = f is not None and close(f["inclusive"], t, 1e-6) and f["calls"] == n
            if not good:
                print("  region", row["name"], "stats", t, n, "page", f)
            ok = ok and good
        check(ok and len(page) > 0, "function summary of the selection (%d functions) = retrace stats --from --to" % len(page))
        okp = True
        for i, p in enumerate(s["processors"]):
            q = x["stats"]["procs"][i]
            for k in ("idle", "overhead", "busy"):
                okp = okp and close(p[k], q[k], 1e-6)
        check(okp, "per-processor busy / overhead / idle of the selection = retrace stats")

        # the utilization panel: processors in each state per column (ParaGraph's count) and each
        # processor's shares, against retrace stats on the column's time; their pixels
        u = x["util"]["count"]
        names3 = ["idle", "overhead", "busy"]
        okc = okpix = 0
        probes = (u["w"] // 4, u["w"] // 2, 3 * u["w"] // 4)
        for i in probes:
            ca = v["t0"] + i * (v["t1"] - v["t0"]) / u["w"]
            cb = ca + (v["t1"] - v["t0"]) / u["w"]
            sc = stats_cli(ca / UNIT, cb / UNIT)
            ref = [sum(p[k] for p in sc["processors"]) / ((cb - ca) / UNIT) for k in names3]
            good = all(abs(u[k][i] - ref[j]) <= 1e-3 * max(1, ref[j]) for j, k in enumerate(names3))
            if not good:
                print("  column", i, [u[k][i] for k in names3], "stats", ref)
            okc += good
            bottom = next(k for k in (2, 1, 0) if u[names3[k]][i] / u["procs"] * u["h"] >= 2)
            okpix += canvas_pixel(d, "utilcount", int(u["x"] + i), int(u["y"] + u["h"] - 1)) == list(cols[bottom])
        check(okc == len(probes), "utilization count: processors per state in %d columns = retrace stats" % okc)
        check(okpix == len(probes), "the count's bottom pixels have the colour of the state at the bottom")
        b0 = x["util"]["bars"][0]
        p0s = s["processors"][0]
        tot = sum(p0s[k] for k in names3)
        check(all(abs(b0["shares"][j] - p0s[k] / tot) < 1e-6 for j, k in enumerate(names3)),
              "utilization summary: processor 0's shares = retrace stats")
        bottom = next(k for k in (2, 1, 0) if b0["shares"][k] * b0["h"] >= 2)
        check(canvas_pixel(d, "utilsum", int(b0["x"] + 1), int(b0["y"] + b0["h"] - 1)) == list(cols[bottom]),
              "processor 0's bar is drawn with its bottom state's colour")

        # undo returns to the wheel-zoomed view
        d.find_element("id", "undo").click()
        x = wait_ready("undo")
        check(x["view"]["t1"] - x["view"]["t0"] > v["t1"] - v["t0"], "undo zoom returns to the wider view")

        # click a message line: sender, receiver, bytes as in otf2-print
        msgs = x["answer"]["messages"]
        mm = None
        for k in range(0, len(msgs), 6):
            src, dst, ts, tr, nb, tag = msgs[k:k + 6]
            if x["view"]["t0"] < ts and tr < x["view"]["t1"]:
                mm = (src, dst, ts, tr, int(nb))
                break
        check(mm is not None, "a whole message in the view")
        xa = d.execute_script("return viewer.xOf(arguments[0])", mm[2])
        xb = d.execute_script("return viewer.xOf(arguments[0])", mm[3])
        rows = x["rows"]
        rh = x["plot"]["h"] / len(rows)
        ya = x["plot"]["y"] + (mm[0] + 0.5) * rh
        yb = x["plot"]["y"] + (mm[1] + 0.5) * rh
        cx, cy = (xa + xb) / 2, (ya + yb) / 2
        ActionChains(d).move_to_element_with_offset(canvas, int(cx - cw / 2), int(cy - ch / 2)).click().perform()
        time.sleep(0.3)
        sel = data()["selected"]
        detail = d.find_element("id", "detail").text
        check(sel is not None and (sel["src"], sel["dst"], sel["ts"], sel["tr"], int(sel["bytes"])) in REF_MESSAGES,
              "the clicked message is one of otf2-print's: %s" % (sel and (sel["src"], sel["dst"], sel["bytes"]),))
        check("sender" in detail and str(mm[4]) in detail, "the detail panel shows sender, receiver and bytes")
        d.save_screenshot(os.path.join(GALLERY, "view_4-message.png"))

        # search a region: its first occurrence in otf2-print
        first = min((x for x in REF_INTERVALS if x[3] == "MPI_Recv"), key=lambda x: x[1])
        box = d.find_element("id", "search")
        box.clear()
        box.send_keys("mpi_recv" + Keys.ENTER)
        for _ in range(100):
            h = data()["hit"]
            if h:
                break
            time.sleep(0.05)
        x = wait_ready("search")
        h = x["hit"]
        check(h and (h["proc"], h["t0"], h["t1"]) == (first[0], first[1], first[2]),
              "search 'mpi_recv' lands on the first MPI_Recv (processor %d at %d)" % (first[0], first[1]))
        check(x["view"]["t0"] <= first[1] and first[2] <= x["view"]["t1"], "the view shows it")
        check("t0=%d" % x["view"]["t0"] in d.current_url, "the URL keeps the view as a bookmark")
        d.save_screenshot(os.path.join(GALLERY, "view_5-search.png"))

        # a bookmark opens the same view; colour by function
        d.get(d.current_url.replace("by=state", "by=region"))
        d.refresh()
        y = wait_ready("bookmark")
        check(y["view"] == x["view"] and y["by"] == "region", "the bookmarked URL opens the same view, by function")
        d.save_screenshot(os.path.join(GALLERY, "view_6-by-function.png"))

        # filters: hide MPI_Recv (its caller shows through where it ran) and the messages of tag 10
        def near(a, b):
            return all(abs(a[i] - b[i]) <= 2 for i in range(3))

        recv = names.index("MPI_Recv")
        parent = max((iv for iv in REF_INTERVALS if iv[0] == first[0] and iv[4] == first[4] - 1 and
                      iv[1] <= first[1] and first[2] <= iv[2]), key=lambda iv: iv[4])
        tm = (first[1] + first[2]) / 2
        px = int(d.execute_script("return viewer.xOf(arguments[0])", tm))
        rh = y["plot"]["h"] / len(y["rows"])
        py = int(y["plot"]["y"] + (first[0] - y["view"]["p0"]) * rh + rh - 3)
        c_recv = d.execute_script("return viewer.regionRgb(arguments[0])", recv)
        c_parent = d.execute_script("return viewer.regionRgb(arguments[0])", names.index(parent[3]))
        check(near(canvas_pixel(d, "plot", px, py), c_recv), "by function, MPI_Recv's pixel has MPI_Recv's colour")
        d.find_element("css selector", "input.filter[data-kind=f][data-v='%d']" % recv).click()
        time.sleep(0.2)
        check(near(canvas_pixel(d, "plot", px, py), c_parent), "MPI_Recv hidden: its pixel shows its caller %s (otf2-print)" % parent[3])
        z = data()
        check(z["hidden"]["functions"] == [recv] and "hidef=%d" % recv in d.current_url,
              "the hidden function is in the data and the bookmark")
        before = z["messages"]
        tag_box = d.find_element("css selector", "input.filter[data-kind=t][data-v='10']")
        tag_box.click()
        time.sleep(0.2)
        after = data()["messages"]
        kept = [m for m in before if REF_TAGS.get(tuple(m[:4])) != 10]
        check(len(before) > len(after) > 0 and sorted(map(tuple, after)) == sorted(map(tuple, kept)) and
              all(REF_TAGS.get(tuple(m[:4])) == 20 for m in after),
              "tag 10 hidden: the message lines left are those of tag 20 in otf2-print (%d of %d)" %
              (len(after), len(before)))
        d.save_screenshot(os.path.join(GALLERY, "view_8-filters.png"))
        d.refresh()
        z = wait_ready("bookmark with filters")
        check(z["hidden"] == {"functions": [recv], "tags": [10]} and len(z["messages"]) == len(after),
              "the bookmark keeps the filters")

        # the critical path on demand (key c) for the selection's window, against retrace stats on it
        d.execute_script("viewer.setView(arguments[0])", {"t0": v["t0"], "t1": v["t1"], "p0": 0, "p1": len(meta["procs"])})
        wait_ready("the selection's window again")
        d.execute_script("document.activeElement && document.activeElement.blur()")
        ActionChains(d).send_keys("c").perform()
        z = wait_ready("the critical path")
        cp = z["critpath"]
        ref = stats_cli(v["t0"] / UNIT, v["t1"] / UNIT)["critical_path"]
        check(cp is not None and close(cp["length"], ref["length"], 1e-9) and cp["length"] > 0,
              "critical path length in the view %s = retrace stats --from --to %s" % (cp and cp["length"], ref["length"]))
        segs_ok = len(cp["segments"]) == len(ref["segments"]) == cp["nsegments"] and all(
            g[0] == r["proc"] and close(g[1], r["from"], 1e-12) and close(g[2], r["to"], 1e-12)
            for g, r in zip(cp["segments"], ref["segments"]))
        check(segs_ok, "its %d segments (processor, from, to) = retrace stats'" % len(ref["segments"]))
        check(cp["nmessages"] == len(ref["messages"]) and all(
            (m[0], m[1]) == (r["src"], r["dst"]) and close(m[2], r["send"], 1e-12) for m, r in zip(cp["messages"], ref["messages"])),
            "its %d messages = retrace stats'" % len(ref["messages"]))
        per = {}
        for r in ref["segments"]:
            per[r["proc"]] = per.get(r["proc"], 0) + r["to"] - r["from"]
        flight = sum(max(0, min(r["recv"], v["t1"] / UNIT) - max(r["send"], v["t0"] / UNIT)) for r in ref["messages"])
        check({p["proc"]: round(p["time"], 12) for p in cp["procs"]} == {k: round(t, 12) for k, t in per.items()} and
              close(sum(per.values()) + flight, ref["length"], 1e-9),
              "time on the path per processor = the sums of retrace stats' segments, with flights the length")
        big = max(z["critpathDrawn"]["segments"], key=lambda g: g["x1"] - g["x0"])
        check(canvas_pixel(d, "plot", int((big["x0"] + big["x1"]) / 2), int(big["y"])) == [192, 0, 192],
              "the path is drawn over processor %d's row" % big["proc"])
        panel = d.find_element("id", "critpath").text
        check("length" in panel and "messages in flight" in panel, "the panel gives the length and the shares")
        check("cp=1" in d.current_url, "the bookmark keeps the critical path shown")
        d.save_screenshot(os.path.join(GALLERY, "view_10-critical-path.png"))
        # the whole run: the run's path
        d.find_element("id", "home").click()
        z = wait_ready("the whole run's critical path")
        ref = stats_cli(meta["tmin"] / UNIT, meta["tmax"] / UNIT)["critical_path"]
        check(close(z["critpath"]["length"], ref["length"], 1e-9) and z["critpath"]["nsegments"] == len(ref["segments"]),
              "whole run: critical path length %s = retrace stats %s" % (z["critpath"]["length"], ref["length"]))
        ActionChains(d).send_keys("c").perform()
        time.sleep(0.2)
        check(data()["critpath"] is None and d.find_element("id", "cppanel").get_attribute("hidden") is not None,
              "c again hides it")

        # the communicator filter: its processors and its messages only (otf2-print's Communicator field)
        from selenium.webdriver.support.ui import Select
        z = wait_ready("before the communicator filter")
        comms = {c["id"]: c for c in z["meta"]["comms"]}
        all_lines = len(z["messages"])
        for cid in sorted(comms):
            Select(d.find_element("id", "comm")).select_by_value(str(cid))
            z = wait_ready("communicator %d" % cid)
            want = sorted(k for k, c in REF_COMMS.items() if c == cid)
            shown = sorted({p for r in z["rows"] for p in range(r["p0"], r["p1"])})
            lines = sorted(tuple(m[:4]) for m in z["messages"])
            check(shown == sorted(comms[cid]["members"]) and z["stats"]["messages"]["count"] == len(want) and
                  all(REF_COMMS.get(l) == cid for l in lines) and "comm=%d" % cid in d.current_url,
                  "communicator %s: processors %s, %d messages (otf2-print: %d), %d lines drawn, in the bookmark" %
                  (comms[cid]["name"], shown, z["stats"]["messages"]["count"], len(want), len(lines)))
            if want:
                d.save_screenshot(os.path.join(GALLERY, "view_11-communicator.png"))
        Select(d.find_element("id", "comm")).select_by_value("-1")
        z = wait_ready("every communicator")
        check(len(z["messages"]) == all_lines and "comm=" not in d.current_url, "every communicator again: every line")
    finally:
        d.quit()
finally:
    stop(server, tmp)

check(server.returncode == 0, "the server stops cleanly on SIGTERM")


# ---- a raster: more events than an exact view holds (PICL mpicl-10: 120 444 events on 10 processors) ----
def quantize(shares):
    """The server's state byte as shares in fifteenths (rt_server.c state_code)."""
    tot = sum(shares)
    qi, qb = int(15.0 * shares[0] / tot + 0.5), int(15.0 * shares[2] / tot + 0.5)
    if qi + qb > 15:
        if qi >= qb:
            qi -= 1
        else:
            qb -= 1
    return (qi, 15 - qi - qb, qb)


RASTER_TRACE = os.path.join(SHARED, "picl/mpicl-10.trf")
if os.path.exists(RASTER_TRACE):
    tmp = tempfile.mkdtemp(prefix="retrace-view-test-")
    server = subprocess.Popen([RETRACE, "view", RASTER_TRACE, "--port", "0", "--index",
                               os.path.join(tmp, "mpicl.rtidx")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = server.stdout.readline().strip()
    try:
        d = browser()
        try:
            d.get(url)
            for _ in range(200):
                x = d.execute_script("return window.viewer ? viewer.data() : null")
                if x and x["ready"]:
                    break
                time.sleep(0.05)
            a = x["answer"]
            unit = x["meta"]["unit"]
            check(x["ready"] and a["mode"] == "raster" and a["from_events"] and a["cols"] == round(x["plot"]["w"]),
                  "the whole run is a binary raster drawn from the events, a column a pixel (%s x %s)" %
                  (a["rows"], a["cols"]))
            d.save_screenshot(os.path.join(GALLERY, "view_7-raster.png"))
            ok_cells = ok_pix = n = 0
            cols = d.execute_script("return viewer.stateColors")
            cols = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in cols]
            plot = x["plot"]
            span = (a["t1"] - a["t0"]) / a["cols"]
            for row in (a["rows"] // 5, a["rows"] // 2, a["rows"] - 3):
                grp = x["rows"][row]
                for col in (a["cols"] // 7, a["cols"] // 3, a["cols"] // 2, 5 * a["cols"] // 6):
                    t0 = a["t0"] + col * span
                    out = subprocess.run([RETRACE, "stats", "--json", "--from", repr(t0 / unit), "--to",
                                          repr((t0 + span) / unit), RASTER_TRACE], capture_output=True, text=True,
                                         check=True).stdout
                    procs = json.loads(out)["processors"][grp["p0"]:grp["p1"]]
                    ref = [sum(p[k] for p in procs) for k in ("idle", "overhead", "busy")]
                    cell = d.execute_script("return viewer.cell(arguments[0], arguments[1])", row, col)
                    n += 1
                    if sum(ref) <= 0:
                        good = cell["shares"] is None
                        want = (255, 255, 255)
                    else:
                        q = quantize(ref)
                        good = cell["shares"] is not None and \
                            all(abs(cell["shares"][k] * 15 - q[k]) <= 1.01 for k in range(3))
                        want = tuple(sum(q[k] / 15 * cols[k][j] for k in range(3)) for j in range(3))
                    if not good:
                        print("  cell", row, col, "page", cell, "stats", ref)
                    ok_cells += good
                    px = int(plot["x"] + (col + 0.5) * plot["w"] / a["cols"])
                    py = int(plot["y"] + (row + 0.5) * plot["h"] / a["rows"])
                    rgb = canvas_pixel(d, "plot", px, py)
                    good = all(abs(rgb[j] - want[j]) <= 3 + 255 / 15 for j in range(3))
                    if not good:
                        print("  pixel", px, py, rgb, "want", want)
                    ok_pix += good
            check(ok_cells == n, "raster cells' state shares = retrace stats on the cell's time and processors (%d/%d)" %
                  (ok_cells, n))
            check(ok_pix == n, "the pixels drawn there have the colour of those shares (%d/%d)" % (ok_pix, n))

            # the processor filter: processors 2-4 and 7 only, against retrace stats' processors summed by hand
            def ready(what):
                return page_ready(d, what)
            # (inside the run: at its very end the index and retrace stats differ by ~1e-4 s of idle time)
            span = x["meta"]["tmax"] - x["meta"]["tmin"]
            d.execute_script("viewer.setView(arguments[0])", {"t0": x["meta"]["tmin"] + int(0.3 * span),
                             "t1": x["meta"]["tmin"] + int(0.6 * span), "p0": 0, "p1": 10})
            ready("a window inside the run")
            box = d.find_element("id", "procs")
            box.clear()
            box.send_keys("7, 2-4" + Keys.ENTER)
            f = ready("the processor filter")
            keep = [2, 3, 4, 7]
            shown = sorted({p for r in f["rows"] for p in range(r["p0"], r["p1"])})
            check(f["filters"]["runs"] == [[2, 5], [7, 8]] and shown == keep,
                  "processors 7, 2-4: the timeline's rows are processors %s" % shown)
            v = f["view"]
            out = subprocess.run([RETRACE, "stats", "--json", "--from", repr(v["t0"] / unit), "--to",
                                  repr(v["t1"] / unit), RASTER_TRACE], capture_output=True, text=True, check=True).stdout
            ref = json.loads(out)
            st = f["stats"]
            okp = [q["proc"] for q in st["procs"]] == keep and all(
                close(st[k], sum(ref["processors"][p][k] for p in keep), 1e-6) for k in ("idle", "overhead", "busy"))
            if not okp:
                print("  page", [(q["proc"]) for q in st["procs"]], [st[k] for k in ("idle", "overhead", "busy")],
                      "stats", [sum(ref["processors"][p][k] for p in keep) for k in ("idle", "overhead", "busy")])
            check(okp, "states of the processors shown = the sums of retrace stats' processors 2, 3, 4, 7")
            # by the region's id in the trace (retrace stats keys a PICL trace's events by id)
            page = {str(f["meta"]["regions"][x["region"]]["id"]): x for x in st["functions"]}
            ids = {rid for p in keep for rid in ref["processors"][p]["events"]}
            okf = len(page) > 0
            for rid in ids:
                t = sum(ref["processors"][p]["events"].get(rid, {}).get("time", 0) for p in keep)
                n = sum(ref["processors"][p]["events"].get(rid, {}).get("count", 0) for p in keep)
                if t == 0 and n == 0:
                    continue
                g = page.get(rid)
                good = g is not None and close(g["inclusive"], t, 1e-6) and g["calls"] == n
                if not good:
                    print("  region", rid, "stats", t, n, "page", g)
                okf = okf and good
            check(okf, "function summary of the processors shown = retrace stats' sums over them")
            check(f["util"]["count"]["procs"] == 4 and len(f["util"]["bars"]) == 4 and
                  [b["p0"] for b in f["util"]["bars"]] == keep, "utilization counts the 4 processors shown")
            d.save_screenshot(os.path.join(GALLERY, "view_12-processors.png"))
            # pixels of processor 7's band against retrace stats on the pixel's time: where the processor
            # spends the time around a pixel in one state, the pixel has that state's colour
            # (zoomed in, where states last several pixels)
            d.execute_script("viewer.setView(arguments[0])", {"t0": x["meta"]["tmin"] + int(0.45 * span),
                             "t1": x["meta"]["tmin"] + int(0.45 * span) + span // 2000, "p0": 0, "p1": 10})
            f2 = ready("zoomed in with the processor filter")
            row7 = next(r for r in f2["rows"] if r["p0"] == 7)
            plot = f2["plot"]
            y7 = int(row7["y"] + row7["h"] / 2)
            probes, good = pure_pixels(d, RASTER_TRACE, unit, 7, y7, plot["x"] + plot["w"] * 0.3,
                                       plot["x"] + plot["w"] * 0.9, want=6)
            check(probes >= 3 and good == probes, "processor 7's band: %d/%d pixels where it is in one state have its colour"
                  % (good, probes))
            check("procs=2-4,7" in d.current_url, "the bookmark keeps the processors shown")
            d.refresh()
            g = ready("the bookmark with processors")
            check(g["filters"]["procs"] == keep and d.find_element("id", "procs").get_attribute("value") == "2-4,7",
                  "the bookmark restores them")
            box = d.find_element("id", "procs")
            box.send_keys("x" + Keys.ENTER)
            time.sleep(0.2)
            check("processors:" in d.find_element("id", "info").text and data_filters(d) == keep,
                  "a malformed list is refused with a message, the filter kept")
        finally:
            d.quit()
    finally:
        stop(server, tmp)
else:
    print("note: %s absent, the raster check is left out" % RASTER_TRACE)

# ---- groups of processors: Pajé simu-mardi's 305 resources in a short window, two to some rows ----
GROUP_TRACE = os.path.join(SHARED, "paje/simu-mardi.trace")
if os.path.exists(GROUP_TRACE):
    tmp = tempfile.mkdtemp(prefix="retrace-view-test-")
    server, url = serve_view(GROUP_TRACE, "--index", os.path.join(tmp, "sm.rtidx"))
    try:
        d = browser(560)
        try:
            d.get(url)

            def ready(what):
                return page_ready(d, what)

            x = ready("load")
            groups = [r for r in x["rows"] if r["p1"] - r["p0"] > 1]
            check(x["mode"] == "raster" and len(x["rows"]) < 305 and len(groups) > 0,
                  "305 processors in %d rows, %d of them groups" % (len(x["rows"]), len(groups)))
            # a group with something drawn in the middle of the run; rows are a pixel tall, so the pointer
            # is moved over its label until the page names the group (as a user would), then clicked
            rows = x["rows"]
            mid = x["answer"]["cols"] // 2
            cand = [i for i, r in enumerate(rows) if r["p1"] - r["p0"] > 1 and
                    d.execute_script("return viewer.cell(arguments[0], arguments[1]).shares", i, mid)]
            check(len(cand) > 0, "some groups have states drawn (%d)" % len(cand))
            i = (cand or [len(rows) // 2])[len(cand) // 2]
            g = rows[i]
            plot = x["plot"]
            canvas = d.find_element("id", "plot")
            cw, ch = canvas.size["width"], canvas.size["height"]
            ly = plot["y"] + (i + 0.5) * plot["h"] / len(rows)
            want = "processors %d–%d:" % (g["p0"], g["p1"] - 1)
            for dy in (0, -1, 1, -2, 2):
                ActionChains(d).move_to_element_with_offset(canvas, math.floor(20 - cw / 2),
                                                            math.floor(ly - ch / 2) + dy).perform()
                if d.find_element("id", "info").text.startswith(want):
                    ActionChains(d).click().perform()
                    break
            y = ready("expanding a group")
            check((y["view"]["p0"], y["view"]["p1"]) == (g["p0"], g["p1"]) and
                  [(r["p0"], r["p1"]) for r in y["rows"]] == [(p, p + 1) for p in range(g["p0"], g["p1"])],
                  "a click on group %d-%d's label shows its processors, a row each" % (g["p0"], g["p1"] - 1))
            d.save_screenshot(os.path.join(GALLERY, "view_9-group.png"))
            d.find_element("id", "undo").click()
            z = ready("folding it")
            check(z["view"] == x["view"] and len(z["rows"]) == len(x["rows"]), "undo folds the group back")
        finally:
            d.quit()
    finally:
        stop(server, tmp)
# ---- two traces compared: the ping-pong archive above the halo run (tests/fixtures/mpi), one time axis ----
HALO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mpi", "halo2.otf2")


if os.path.isdir(HALO):
    tmp = tempfile.mkdtemp(prefix="retrace-view-test-")
    halo = os.path.join(tmp, "halo2.otf2")
    shutil.copytree(HALO, halo)  # its index is written beside it
    HALO_TRACE = os.path.join(halo, "traces.otf2")
    server, url = serve_view(TRACE, HALO_TRACE, "--index", os.path.join(tmp, "pp.rtidx"))
    try:
        d = browser(1000)
        try:
            d.get(url)

            def both_ready(what):
                for _ in range(300):
                    c = d.execute_script("return window.compare ? compare.data() : null")
                    if c and c["shown"] and c["aligned"]:
                        d.switch_to.frame("fa")
                        a = d.execute_script("return viewer.data()")
                        d.switch_to.default_content()
                        d.switch_to.frame("fb")
                        b = d.execute_script("return viewer.data()")
                        d.switch_to.default_content()
                        c = d.execute_script("return compare.data()")
                        if a["ready"] and b["ready"] and json.dumps([a["stats"]["t0"], a["stats"]["t1"], b["stats"]["t0"],
                                                                    b["stats"]["t1"], a["stats"]["key"], b["stats"]["key"]],
                                                                   separators=(",", ":")) == c["shown"]:
                            return a, b, c
                    time.sleep(0.1)
                raise AssertionError("comparison not ready after " + what)

            def secs_from_start(x):
                return (x["view"]["t0"] - x["meta"]["tmin"]) / x["meta"]["unit"], \
                    (x["view"]["t1"] - x["meta"]["tmin"]) / x["meta"]["unit"]

            a, b, c = both_ready("load")
            check(a["meta"]["title"].endswith("pingpong/traces.otf2") and b["meta"]["title"] == HALO_TRACE,
                  "two timelines: the ping-pong run above, the halo run below")
            sa, sb = secs_from_start(a), secs_from_start(b)
            check(all(abs(sa[i] - sb[i]) < 2e-9 for i in range(2)),
                  "the second shows the same seconds from its start as the first (%s, %s)" % (sa, sb))
            # wheel zoom in the first: the second follows
            d.switch_to.frame("fa")
            canvas = d.find_element("id", "plot")
            plot = a["plot"]
            cw, ch = canvas.size["width"], canvas.size["height"]
            for i in range(6):
                origin = ScrollOrigin.from_element(canvas, int(plot["x"] + plot["w"] * 0.98 - cw / 2), int(plot["y"] + 10 - ch / 2))
                ActionChains(d).scroll_from_origin(origin, 0, -100).perform()
                time.sleep(0.05)
            d.switch_to.default_content()
            a, b, c = both_ready("wheel zoom in the first")
            sa, sb = secs_from_start(a), secs_from_start(b)
            check(sa[1] - sa[0] < 0.1 and all(abs(sa[i] - sb[i]) < 2e-9 for i in range(2)),
                  "zoomed in the first, the second shows the same window: %.6f-%.6f s" % sa)
            # drawn states at pixels of each timeline against each trace's retrace stats
            for name, x, trace in (("fa", a, TRACE), ("fb", b, HALO_TRACE)):
                d.switch_to.frame(name)
                row = x["rows"][0]
                probes, good = pure_pixels(d, trace, x["meta"]["unit"], 0, int(row["y"] + row["h"] / 2),
                                           x["plot"]["x"] + 2, x["plot"]["x"] + x["plot"]["w"] - 2)
                d.switch_to.default_content()
                check(probes >= 2 and good == probes, "%s: %d/%d pixels of processor 0 in one state have its colour "
                      "(retrace stats on %s)" % (name, good, probes, os.path.basename(os.path.dirname(trace))))
            # the functions side by side: each side's summary and the difference
            fa = {f["name"]: f for f in a["stats"]["functions"]}
            fb = {f["name"]: f for f in b["stats"]["functions"]}
            ok = len(c["rows"]) == len(set(fa) | set(fb)) > 0
            for r in c["rows"]:
                ea = fa.get(r["name"], {"exclusive": 0, "calls": 0})
                eb = fb.get(r["name"], {"exclusive": 0, "calls": 0})
                ok = ok and close(r["exclusive"][0], ea["exclusive"], 1e-12) and close(r["exclusive"][1], eb["exclusive"], 1e-12) \
                    and close(r["diff"], eb["exclusive"] - ea["exclusive"], 1e-12) and r["diff_calls"] == eb["calls"] - ea["calls"]
            check(ok, "the comparison table: %d functions, each side's exclusive time and calls and the difference" % len(c["rows"]))
            ref = stats_cli(a["view"]["t0"] / UNIT, a["view"]["t1"] / UNIT)
            okp = all(close(a["stats"]["procs"][i][k], p[k], 1e-6) for i, p in enumerate(ref["processors"])
                      for k in ("idle", "overhead", "busy"))
            out = subprocess.run([RETRACE, "stats", "--json", "--from", repr(b["view"]["t0"] / b["meta"]["unit"]), "--to",
                                  repr(b["view"]["t1"] / b["meta"]["unit"]), HALO_TRACE], capture_output=True, text=True,
                                 check=True).stdout
            refb = json.loads(out)
            okp = okp and all(close(b["stats"]["procs"][i][k], p[k], 1e-6) for i, p in enumerate(refb["processors"])
                              for k in ("idle", "overhead", "busy"))
            check(okp, "each side's states = retrace stats of its trace on its window")
            d.save_screenshot(os.path.join(GALLERY, "view_13-compare.png"))
            # aligned at a chosen time: the second trace shifted by 0.5 s
            from selenium.webdriver.support.ui import Select
            Select(d.find_element("id", "align")).select_by_value("time")
            box = d.find_element("id", "shift")
            box.clear()
            box.send_keys("0.5" + Keys.TAB)
            a, b, c = both_ready("a shift")
            sa, sb = secs_from_start(a), secs_from_start(b)
            check(all(abs(sa[i] + 0.5 - sb[i]) < 2e-9 for i in range(2)),
                  "shifted by 0.5 s: the second shows %.6f-%.6f s for the first's %.6f-%.6f s" % (sb + sa))
        finally:
            d.quit()
    finally:
        stop(server, tmp)
else:
    print("note: %s absent, the comparison is left out" % HALO)

finish()
print("all passed")
