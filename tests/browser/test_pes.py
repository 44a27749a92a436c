#!/usr/bin/env python3
"""retrace view on a Chitra sequence (PES) in a real browser (headless Chromium through Selenium).

The shipped four-philosopher run (examples/chitra/phil4_x100.pes) opens as one processor whose
regions are its states. Checked against the file itself (read here, independently of retrace):
the function summary of the whole run gives each state's visits and holding time; the search
for a state lands on its first visit; coloured by function, the pixel in the middle of that visit
has the state's colour. Screenshots go to the gallery.

Exit 77 (ctest: skipped) when the browser, the driver or Selenium is missing.
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_common import GALLERY, browser, canvas_pixel, check, finish, page_ready, serve_view, stop  # noqa: E402 (skips first)
from selenium.webdriver.common.keys import Keys  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PES = os.path.join(HERE, "..", "..", "examples", "chitra", "phil4_x100.pes")


def states(path):
    """(name, entry, end) of every state of a "STATE TIME" PES; the last line only ends the run."""
    pairs = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                pairs.append((line[0], float(line[1])))
    return [(pairs[i][0], pairs[i][1], pairs[i + 1][1]) for i in range(len(pairs) - 1)]


def main():
    tmp = tempfile.mkdtemp(prefix="retrace_pes_view_")
    pes = os.path.join(tmp, "phil4.pes")
    shutil.copy(PES, pes)  # (its index is written beside the copy)
    ref = states(pes)
    server, url = serve_view(pes)
    os.makedirs(GALLERY, exist_ok=True)
    d = browser()
    try:
        check(url.startswith("http://127.0.0.1:"), "view prints the page's address: %s" % url)
        d.get(url)
        x = page_ready(d, "load")
        meta = d.execute_script("return viewer.data().meta")
        unit = meta["unit"]
        check(meta["format"] == "pes" and len(meta["procs"]) == 1, "one processor, format pes")
        check(x["by"] == "region", "it opens coloured by state name (function)")
        # the function summary of the whole run: each state's visits and holding time
        want = {}
        for name, t0, t1 in ref:
            c, h = want.get(name, (0, 0.0))
            want[name] = (c + 1, h + (t1 - t0))
        page = {f["name"]: f for f in x["stats"]["functions"]}
        bad = [n for n, (c, h) in want.items()
               if n not in page or page[n]["calls"] != c or abs(page[n]["exclusive"] - h) > 1e-9 * max(1.0, h)]
        check(not bad and len(page) == len(want),
              "function summary: visits and time of all %d states equal the file's (%s)" % (len(want), bad[:3]))
        d.save_screenshot(os.path.join(GALLERY, "pes_1-whole-run.png"))
        # search a state: its first visit
        name = "EA1EA1"
        first = min((s for s in ref if s[0] == name), key=lambda s: s[1])
        box = d.find_element("id", "search")
        box.clear()
        box.send_keys(name.lower() + Keys.ENTER)
        for _ in range(200):
            if d.execute_script("return viewer.data().hit"):
                break
            time.sleep(0.05)
        x = page_ready(d, "search")
        hit = x["hit"]
        check(hit and hit["t0"] == round(first[1] * unit) and hit["t1"] == round(first[2] * unit),
              "search '%s' lands on its first visit (%g .. %g): %s" % (name.lower(), first[1], first[2], hit))
        # coloured by function (as it opens): the middle of that visit has the state's colour
        d.refresh()
        x = page_ready(d, "reload")
        px = int(round(d.execute_script("return viewer.xOf(arguments[0])", (hit["t0"] + hit["t1"]) / 2)))
        row = x["rows"][0] if x.get("rows") else None
        py = int(row["y"] + row["h"] / 2) if row else int(x["plot"]["y"] + x["plot"]["h"] / 2)
        rgb = canvas_pixel(d, "plot", px, py)
        rid = next(r["id"] for r in meta["regions"] if r["name"] == name)
        want_rgb = list(d.execute_script("return viewer.regionRgb(arguments[0])", rid))[:3]
        check(all(abs(rgb[i] - want_rgb[i]) <= 3 for i in range(3)),
              "pixel (%d, %d) in the visit has %s's colour: %s against %s" % (px, py, name, rgb, want_rgb))
        d.save_screenshot(os.path.join(GALLERY, "pes_2-search-by-state.png"))
    finally:
        d.quit()
        stop(server, tmp)
    finish()


main()
