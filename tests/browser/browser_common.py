"""What the browser tests of `retrace view` share: the program, the gallery folder, the skip
rule (exit 77 for ctest, saying what is missing), checks that count failures, a headless
Chromium through Selenium, and a `retrace view` server started and stopped."""
import os
import shutil
import subprocess
import sys
import time

RETRACE = os.environ.get("RETRACE_BIN", "build/retrace")
SHARED = os.environ.get("RETRACE_SHARED", "../shared/data")
GALLERY = os.environ.get("RETRACE_VIEW_GALLERY") or \
    os.path.join(os.path.dirname(os.path.abspath(RETRACE)), "gallery", "viewer")


def skip(why):
    print("SKIPPED:", why)
    sys.exit(77)


try:
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
except ImportError:
    skip("python3-selenium is not installed (make deps installs it)")
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
if not os.path.exists(DRIVER):
    skip("chromium-driver is not installed (make deps installs it)")

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def browser(height=900):
    """Headless Chromium, 1280 pixels wide, one device pixel per CSS pixel."""
    opts = Options()
    for o in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,%d" % height,
              "--force-device-scale-factor=1"]:
        opts.add_argument(o)
    return webdriver.Chrome(service=Service(DRIVER), options=opts)


def serve_view(*args):
    """`retrace view ARGS --port 0` started: the process and the URL it prints."""
    p = subprocess.Popen([RETRACE, "view", *args, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    return p, p.stdout.readline().strip()


def stop(server, tmp=None):
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)


def page_ready(d, what, tries=300):
    """viewer.data() once the page has drawn the view and its panels."""
    for _ in range(tries):
        x = d.execute_script("return window.viewer ? viewer.data() : null")
        if x and x["ready"]:
            return x
        time.sleep(0.05)
    raise AssertionError("page not ready after " + what)


def canvas_pixel(d, cid, x, y):
    """The red, green and blue of a canvas's pixel."""
    return d.execute_script("var c=document.getElementById(arguments[0]).getContext('2d');"
                            "return Array.from(c.getImageData(arguments[1],arguments[2],1,1).data).slice(0,3)",
                            cid, x, y)


def counters_ready(d, what, tries=300):
    """rtCounters.data() once the counter plot has drawn its answer."""
    for _ in range(tries):
        x = d.execute_script("return window.rtCounters ? rtCounters.data() : null")
        if x and x["ready"] and x["drawn"]:
            return x
        time.sleep(0.05)
    raise AssertionError("counters not drawn after " + what)


def finish():
    """Exit 1 when a check failed."""
    if failures:
        print("%d failed" % len(failures))
        sys.exit(1)
