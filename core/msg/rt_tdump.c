/*
 * rt_tdump.c - one line per event of a trace (rt_tdump.h).
 */
#include <errno.h>
#include <string.h>

#include "rt_pg_view.h"
#include "rt_tdump.h"

int rt_tdump(rt_tsource *s, const rt_tdump_opts *o, FILE *out, uint64_t *lines, uint64_t *events, rt_err *err)
{
    uint64_t nlines = 0, nev = 0;
    rt_tevent ev;
    char buf[1024];
    int st;
    for (;;) {
        if ((nev & 4095) == 0 && (st = rt_interrupt_check(err)) != RT_OK)
            break;
        st = rt_tsource_next(s, &ev, err);
        if (st == RT_EEOF) {
            st = RT_OK;
            break;
        }
        if (st != RT_OK)
            break;
        nev++;
        if (ev.time < o->from || ev.time > o->to)
            continue;
        if (o->procs && (ev.proc < 0 || ev.proc >= o->nprocs || !o->procs[ev.proc]))
            continue;
        int n = rt_pg_view_describe(&ev, s->defs, buf, sizeof buf - 1);
        size_t len = n < 0 ? 0 : ((size_t)n < sizeof buf - 1 ? (size_t)n : sizeof buf - 2);
        buf[len++] = '\n';
        if (fwrite(buf, 1, len, out) != len) {
            rt_err_set(err, RT_EIO, "writing the dump: %s", strerror(errno));
            st = RT_EIO;
            break;
        }
        nlines++;
    }
    if (st == RT_OK && fflush(out) != 0) {
        rt_err_set(err, RT_EIO, "writing the dump: %s", strerror(errno));
        st = RT_EIO;
    }
    if (lines)
        *lines = nlines;
    if (events)
        *events = nev;
    return st;
}
