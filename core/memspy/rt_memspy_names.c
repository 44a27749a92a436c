/*
 * rt_memspy_names.c - the name tables of MemSpy's code and data bins, the
 * warnings, and the read-only accessors of the results (see rt_memspy.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_memspy_int.h"

/* ---- small helpers ---- */

int rt_ms_nomem(rt_err *err)
{
    return rt_err_set(err, RT_ENOMEM, "memspy: out of memory");
}

void rt_ms_warnf(rt_memspy *m, const char *fmt, ...)
{
    m->tot.warnings++;
    if (m->nwarn >= RT_MEMSPY_WARN_KEEP)
        return;
    char body[400], full[RT_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    if (m->place_file && m->place_line)
        snprintf(full, sizeof full, "%s:%lu: warning: %s", m->place_file, m->place_line, body);
    else
        snprintf(full, sizeof full, "warning: %s", body);
    m->warn[m->nwarn] = strdup(full);
    if (m->warn[m->nwarn])
        m->nwarn++;
}

/* ---- code bins ---- */

int rt_ms_code_intern(rt_memspy *m, const char *name, uint32_t *out)
{
    int created;
    int64_t *v = rt_strmap_put(m->names, NS_CODE, name, strlen(name), &created);
    if (!v)
        return RT_ENOMEM;
    if (!created) {
        *out = (uint32_t)*v;
        return RT_OK;
    }
    size_t old = m->capcode;
    if (rt_grow((void **)&m->code, &m->capcode, m->ncode + 1, sizeof *m->code) != RT_OK) {
        rt_strmap_remove(m->names, NS_CODE, name, strlen(name));
        return RT_ENOMEM;
    }
    if (m->capcode != old) {
        uint8_t *mon = realloc(m->monitored, m->capcode);
        uint64_t *t = realloc(m->code_time, m->capcode * (size_t)m->P * sizeof *t);
        if (mon)
            m->monitored = mon;
        if (t)
            m->code_time = t;
        if (!mon || !t) {
            m->capcode = old;
            rt_strmap_remove(m->names, NS_CODE, name, strlen(name));
            return RT_ENOMEM;
        }
    }
    char *d = strdup(name);
    if (!d) {
        rt_strmap_remove(m->names, NS_CODE, name, strlen(name));
        return RT_ENOMEM;
    }
    size_t i = m->ncode++;
    m->code[i] = d;
    m->monitored[i] = 1;
    if (m->cfg.monitor && i > CODE_OTHER) {
        m->monitored[i] = 0;
        for (const char *const *q = m->cfg.monitor; *q; q++)
            if (strcmp(*q, name) == 0)
                m->monitored[i] = 1;
    }
    memset(m->code_time + i * (size_t)m->P, 0, (size_t)m->P * sizeof *m->code_time);
    *v = (int64_t)i;
    *out = (uint32_t)i;
    return RT_OK;
}



/* ---- data bins ---- */

int rt_ms_data_intern(rt_memspy *m, const char *full, const char *shortname, uint32_t *out)
{
    int created;
    int64_t *v = rt_strmap_put(m->names, NS_DATA, full, strlen(full), &created);
    if (!v)
        return RT_ENOMEM;
    if (!created) {
        *out = (uint32_t)*v;
        return RT_OK;
    }
    if (rt_grow((void **)&m->data, &m->capdata, m->ndata + 1, sizeof *m->data) != RT_OK) {
        rt_strmap_remove(m->names, NS_DATA, full, strlen(full));
        return RT_ENOMEM;
    }
    int64_t *seen = rt_strmap_put(m->names, NS_SHORT, shortname, strlen(shortname), NULL);
    if (!seen) {
        rt_strmap_remove(m->names, NS_DATA, full, strlen(full));
        return RT_ENOMEM;
    }
    char *name;
    if (*seen == 0) {
        name = strdup(shortname);
    } else {
        /* the same short name from another site or call path: number it */
        size_t n = strlen(shortname) + 24;
        name = malloc(n);
        if (name)
            snprintf(name, n, "%s#%lld", shortname, (long long)*seen + 1);
    }
    char *f = strdup(full);
    if (!name || !f) {
        free(name);
        free(f);
        rt_strmap_remove(m->names, NS_DATA, full, strlen(full));
        return RT_ENOMEM;
    }
    (*seen)++;
    size_t i = m->ndata++;
    m->data[i].name = name;
    m->data[i].full = f;
    /* the second put may have grown the table: find the full name's slot again */
    v = rt_strmap_get(m->names, NS_DATA, full, strlen(full));
    *v = (int64_t)i;
    *out = (uint32_t)i;
    return RT_OK;
}

/* ---- results ---- */

void rt_memspy_get_totals(const rt_memspy *m, rt_memspy_totals *t)
{
    *t = m->tot;
    t->time = 0;
    for (int i = 0; i < m->P; i++) {
        uint64_t pt = m->proc[i].busy + m->proc[i].stall;
        if (pt > t->time)
            t->time = pt;
    }
}

size_t rt_memspy_bins(const rt_memspy *m) { return m->nbins; }
const rt_memspy_bin *rt_memspy_bin_at(const rt_memspy *m, size_t i) { return &m->bins[i]; }
size_t rt_memspy_code_count(const rt_memspy *m) { return m->ncode; }
const char *rt_memspy_code_name(const rt_memspy *m, size_t i) { return m->code[i]; }
size_t rt_memspy_data_count(const rt_memspy *m) { return m->ndata; }
const char *rt_memspy_data_name(const rt_memspy *m, size_t i) { return m->data[i].name; }
const char *rt_memspy_data_full(const rt_memspy *m, size_t i) { return m->data[i].full; }
int rt_memspy_procs(const rt_memspy *m) { return m->P; }
unsigned rt_memspy_levels(const rt_memspy *m) { return m->levels; }
const rt_hier *rt_memspy_machine(const rt_memspy *m) { return m->h; }

void rt_memspy_proc_time(const rt_memspy *m, int p, uint64_t *busy, uint64_t *stall)
{
    *busy = m->proc[p].busy;
    *stall = m->proc[p].stall;
}

uint64_t rt_memspy_code_time(const rt_memspy *m, size_t code, int p)
{
    return m->code_time[code * (size_t)m->P + (size_t)p];
}

size_t rt_memspy_causes(const rt_memspy *m) { return m->ncauses; }

void rt_memspy_cause_at(const rt_memspy *m, size_t i, uint32_t *bin, int *kind, uint32_t *who,
                        uint64_t *count)
{
    *bin = m->causes[i].bin;
    *kind = m->causes[i].kind;
    *who = m->causes[i].who;
    *count = m->causes[i].count;
}

size_t rt_memspy_warnings_kept(const rt_memspy *m) { return m->nwarn; }
const char *rt_memspy_warning(const rt_memspy *m, size_t i) { return m->warn[i]; }
size_t rt_memspy_live_ranges(const rt_memspy *m) { return rt_rangemap_count(&m->ranges); }

