#!/usr/bin/env python3
"""The REPL in a pseudo-terminal: help(f) prints a function's signature and doc comment,
help(obj) an object's methods, help(module) its functions with their first sentences.
usage: repl_help_pty.py RETRACE"""
import os
import pty
import select
import sys
import tempfile
import time

PROMPT = b"retrace> "


def main():
    retrace = os.path.abspath(sys.argv[1])
    home = tempfile.mkdtemp()
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "TERM": "dumb", "XDG_CONFIG_HOME": home,
           "RETRACE_HISTORY": os.path.join(home, "history")}
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(home)
        os.execve(retrace, [retrace], env)
    buf = b""

    def read_until(mark, timeout=60):
        nonlocal buf
        end = time.time() + timeout
        while mark not in buf:
            left = end - time.time()
            if left <= 0:
                sys.exit("no %r from the REPL within %ds; it printed:\n%s" % (mark, timeout, buf.decode(errors="replace")))
            r, _, _ = select.select([fd], [], [], left)
            if r:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    sys.exit("the REPL ended; it printed:\n" + buf.decode(errors="replace"))
                buf += chunk
        at = buf.index(mark) + len(mark)
        text, buf = buf[:at], buf[at:]
        return text.decode(errors="replace").replace("\r\n", "\n")

    def ask(line):
        os.write(fd, line.encode() + b"\r")
        return read_until(PROMPT)

    read_until(PROMPT)
    failures = []

    def expect(out, *wants):
        for w in wants:
            if w not in out:
                failures.append("%r not in:\n%s" % (w, out))

    out = ask("help(retrace.cache.new)")
    expect(out, "retrace.cache.new(opts)\n",
           "  A cache object (see the header). Options: size, line (units), ways (0 or\n")
    out = ask("help(retrace.cache.hit_ratio)")
    expect(out, "retrace.cache.hit_ratio(hits, misses)\n", "The hit ratio hits / (hits + misses)")
    out = ask("c = retrace.cache.new{size = 1024, line = 16, ways = 2}")
    out = ask("help(c)")
    expect(out, "a retrace.Cache object; its methods:", "c:access(addr, write)", "c:stats()")
    out = ask("help(retrace.colors)")
    expect(out, "retrace.colors: colour names and parsing", "processors_paper(n, opts)",
           "The processor palette for white paper")
    out = ask("help('picl dump')")
    expect(out, "Usage: retrace picl dump")
    os.write(fd, b"\x04")
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        failures.append("the REPL ended with status %d on Ctrl-D" % status)
    if failures:
        sys.exit("\n".join(failures))
    print("repl help ok")


main()
