/*
 * rt_tevent.c - definitions tables and the source plumbing of the neutral
 * event stream (see rt_tevent.h).
 *
 * Definitions are small next to the events (thousands of regions, up to 10^4
 * processors), so they are plain growing arrays plus one open-addressing hash
 * from region id to its slot. Regions and communicators are allocated one by
 * one so the pointers handed out stay valid while the tables grow.
 */
#include <stdatomic.h>
#include "rt_tevent.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

const char *rt_te_kind_name(int kind)
{
    static const char *const n[] = {"?", "enter", "leave", "send", "receive",
                                    "collective begin", "collective end", "marker", "counter"};
    return kind > 0 && kind < RT_TE_KIND_COUNT ? n[kind] : "?";
}

static const char *const class_names[RT_TC_COUNT] = {
    "user", "send", "receive", "wait", "collective", "sync", "io", "idle", "system", "tracing"};

const char *rt_tclass_name(int cls)
{
    return cls >= 0 && cls < RT_TC_COUNT ? class_names[cls] : "?";
}

int rt_tclass_from_name(const char *name)
{
    for (int i = 0; name && i < RT_TC_COUNT; i++)
        if (strcmp(name, class_names[i]) == 0)
            return i;
    return -1;
}

int rt_tclass_state(int cls)
{
    switch (cls) {
    case RT_TC_USER: return 2;
    case RT_TC_WAIT:
    case RT_TC_SYNC:
    case RT_TC_IDLE: return 0;
    case RT_TC_TRACING: return -1;
    default: return 1; /* send, receive, collective, io, system: overhead */
    }
}

int rt_tclass_is_comm(int cls)
{
    return cls == RT_TC_SEND || cls == RT_TC_RECV || cls == RT_TC_WAIT || cls == RT_TC_COLLECTIVE ||
           cls == RT_TC_SYNC;
}

/* Name starts with prefix (after an optional leading 'P' for the profiling interface). */
static int has(const char *name, const char *prefix)
{
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

int rt_tclass_guess(const char *name)
{
    if (!name)
        return RT_TC_USER;
    if (strcmp(name, "idle") == 0 || strcmp(name, "Idle") == 0 || strcmp(name, "IDLE") == 0)
        return RT_TC_IDLE;
    if (name[0] == 'P' && has(name + 1, "MPI_"))
        name++;
    if (!has(name, "MPI_"))
        return RT_TC_USER;
    const char *m = name + 4;
    static const char *const wait[] = {"Recv", "Wait", "Probe", "Sendrecv", "Mprobe", "Mrecv"};
    static const char *const recv[] = {"Irecv", "Test", "Iprobe", "Improbe", "Imrecv", "Recv_init"};
    static const char *const send[] = {"Send", "Isend", "Bsend", "Ssend", "Rsend", "Ibsend", "Issend",
                                       "Irsend", "Start"};
    static const char *const coll[] = {"Bcast", "Reduce", "Allreduce", "Allgather", "Alltoall", "Gather",
                                       "Scatter", "Scan", "Exscan", "Reduce_scatter", "Ibcast", "Ireduce",
                                       "Iallreduce", "Iallgather", "Ialltoall", "Igather", "Iscatter",
                                       "Neighbor", "Ineighbor"};
    if (has(m, "Barrier") || has(m, "Ibarrier"))
        return RT_TC_SYNC;
    if (has(m, "File_"))
        return RT_TC_IO;
    /* longest names first: Irecv before Recv is automatic (different first letter) */
    for (size_t i = 0; i < sizeof recv / sizeof *recv; i++)
        if (has(m, recv[i]))
            return RT_TC_RECV;
    for (size_t i = 0; i < sizeof wait / sizeof *wait; i++)
        if (has(m, wait[i]))
            return RT_TC_WAIT;
    for (size_t i = 0; i < sizeof coll / sizeof *coll; i++)
        if (has(m, coll[i]))
            return RT_TC_COLLECTIVE;
    for (size_t i = 0; i < sizeof send / sizeof *send; i++)
        if (has(m, send[i]))
            return RT_TC_SEND;
    return RT_TC_SYSTEM;
}

/* haystack contains needle (lower case), ASCII case ignored; whole_end: the match may not
 * run on into a lower-case letter ("join" in "pthread_join", not in "joint"). */
static int contains_nocase(const char *hay, const char *needle, int whole_end)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && (hay[i] | 0x20) == needle[i])
            i++;
        if (i == n && !(whole_end && hay[n] >= 'a' && hay[n] <= 'z'))
            return 1;
    }
    return 0;
}

int rt_tclass_runtime_wait(const char *name)
{
    if (!name)
        return -1;
    if (contains_nocase(name, "barrier", 0))
        return RT_TC_SYNC;
    if (contains_nocase(name, "synchroniz", 0) || contains_nocase(name, "wait", 0) ||
        contains_nocase(name, "join", 1) || contains_nocase(name, "clfinish", 0))
        return RT_TC_WAIT;
    return -1;
}

void rt_tevent_clear(rt_tevent *ev)
{
    memset(ev, 0, sizeof *ev);
    ev->peer = -1;
    ev->comm = -1;
}

/* ---- definitions ---- */

struct rt_tdefs {
    rt_tregion **regions;   /* definition order */
    size_t nregions, capregions;
    int *slots;             /* hash: index + 1 into regions, 0 = empty; capslots a power of two */
    size_t capslots;
    rt_tproc *procs;
    size_t nprocs, capprocs;
    rt_tcomm **comms;
    size_t ncomms, capcomms;
    uint64_t resolution;
    int64_t offset;
    int outside;            /* class of the time outside every region */
    rt_tcounter *counters;  /* definition order */
    size_t ncounters, capcounters;
};

rt_tdefs *rt_tdefs_new(void)
{
    rt_tdefs *d = calloc(1, sizeof *d);
    if (d) {
        d->resolution = 1;
        d->outside = RT_TC_USER;
    }
    return d;
}

void rt_tdefs_free(rt_tdefs *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nregions; i++) {
        free((char *)d->regions[i]->name);
        free((char *)d->regions[i]->group);
        free(d->regions[i]);
    }
    free(d->regions);
    free(d->slots);
    for (size_t i = 0; i < d->nprocs; i++) {
        free((char *)d->procs[i].name);
        free((char *)d->procs[i].path);
    }
    free(d->procs);
    for (size_t i = 0; i < d->ncounters; i++) {
        free((char *)d->counters[i].name);
        free((char *)d->counters[i].unit);
    }
    free(d->counters);
    for (size_t i = 0; i < d->ncomms; i++) {
        free((char *)d->comms[i]->name);
        free((int *)d->comms[i]->members);
        free(d->comms[i]);
    }
    free(d->comms);
    free(d);
}

static size_t hash_id(int id)
{
    uint64_t k = (uint64_t)(uint32_t)id * 0x9E3779B97F4A7C15ull;
    return (size_t)(k >> 29);
}

/* Slot holding id, or the empty slot where it would go. */
static size_t find_slot(const rt_tdefs *d, int id)
{
    size_t mask = d->capslots - 1, j = hash_id(id) & mask;
    while (d->slots[j] && d->regions[d->slots[j] - 1]->id != id)
        j = (j + 1) & mask;
    return j;
}

static int rehash(rt_tdefs *d)
{
    size_t nc = d->capslots ? d->capslots * 2 : 64;
    int *ns = calloc(nc, sizeof *ns);
    if (!ns)
        return RT_ENOMEM;
    free(d->slots);
    d->slots = ns;
    d->capslots = nc;
    for (size_t i = 0; i < d->nregions; i++)
        d->slots[find_slot(d, d->regions[i]->id)] = (int)i + 1;
    return RT_OK;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

const rt_tregion *rt_tdefs_region(const rt_tdefs *d, int id)
{
    if (!d->capslots)
        return NULL;
    int k = d->slots[find_slot(d, id)];
    return k ? d->regions[k - 1] : NULL;
}

int rt_tdefs_add_region(rt_tdefs *d, int id, const char *name, const char *group, int cls)
{
    char *n = dup_or_empty(name), *g = dup_or_empty(group);
    if (!n || !g)
        goto nomem;
    rt_tregion *r = (rt_tregion *)rt_tdefs_region(d, id);
    if (r) { /* redefinition: the newest names and class win */
        free((char *)r->name);
        free((char *)r->group);
        r->name = n;
        r->group = g;
        r->cls = cls;
        return RT_OK;
    }
    if ((d->nregions + 1) * 2 > d->capslots && rehash(d) != RT_OK)
        goto nomem;
    if (rt_grow((void **)&d->regions, &d->capregions, d->nregions + 1, sizeof *d->regions) != RT_OK)
        goto nomem;
    r = malloc(sizeof *r);
    if (!r)
        goto nomem;
    *r = (rt_tregion){id, cls, n, g};
    d->regions[d->nregions++] = r;
    d->slots[find_slot(d, id)] = (int)d->nregions;
    return RT_OK;
nomem:
    free(n);
    free(g);
    return RT_ENOMEM;
}

int rt_tdefs_nregions(const rt_tdefs *d) { return (int)d->nregions; }

const rt_tregion *rt_tdefs_region_at(const rt_tdefs *d, int i)
{
    return i >= 0 && (size_t)i < d->nregions ? d->regions[i] : NULL;
}

int rt_tdefs_set_proc(rt_tdefs *d, int p, const char *name, const char *path)
{
    if (p < 0 || p >= RT_TE_MAXPROC)
        return RT_ERANGE;
    if ((size_t)p >= d->nprocs) {
        if (rt_grow((void **)&d->procs, &d->capprocs, (size_t)p + 1, sizeof *d->procs) != RT_OK)
            return RT_ENOMEM;
        memset(d->procs + d->nprocs, 0, ((size_t)p + 1 - d->nprocs) * sizeof *d->procs);
        d->nprocs = (size_t)p + 1;
    }
    if (!name && !path)
        return RT_OK;
    char *n = dup_or_empty(name), *h = dup_or_empty(path);
    if (!n || !h) {
        free(n);
        free(h);
        return RT_ENOMEM;
    }
    free((char *)d->procs[p].name);
    free((char *)d->procs[p].path);
    d->procs[p].name = n;
    d->procs[p].path = h;
    return RT_OK;
}

int rt_tdefs_nprocs(const rt_tdefs *d) { return (int)d->nprocs; }

const rt_tproc *rt_tdefs_proc(const rt_tdefs *d, int p)
{
    static const rt_tproc unnamed = {"", ""};
    if (p < 0 || (size_t)p >= d->nprocs)
        return NULL;
    return d->procs[p].name ? &d->procs[p] : &unnamed;
}

int rt_tdefs_add_comm(rt_tdefs *d, int id, const char *name, int size, const int *members)
{
    if (rt_grow((void **)&d->comms, &d->capcomms, d->ncomms + 1, sizeof *d->comms) != RT_OK)
        return RT_ENOMEM;
    rt_tcomm *c = calloc(1, sizeof *c);
    char *n = dup_or_empty(name);
    int *m = NULL;
    if (members && size > 0) {
        m = malloc((size_t)size * sizeof *m);
        if (m)
            memcpy(m, members, (size_t)size * sizeof *m);
    }
    if (!c || !n || (members && size > 0 && !m)) {
        free(c);
        free(n);
        free(m);
        return RT_ENOMEM;
    }
    *c = (rt_tcomm){id, n, size, m};
    d->comms[d->ncomms++] = c;
    return RT_OK;
}

const rt_tcomm *rt_tdefs_comm(const rt_tdefs *d, int id)
{
    /* the newest definition of an id wins; communicators are few */
    for (size_t i = d->ncomms; i-- > 0;)
        if (d->comms[i]->id == id)
            return d->comms[i];
    return NULL;
}

int rt_tdefs_ncomms(const rt_tdefs *d) { return (int)d->ncomms; }

const rt_tcomm *rt_tdefs_comm_at(const rt_tdefs *d, int i)
{
    return i >= 0 && (size_t)i < d->ncomms ? d->comms[i] : NULL;
}

int rt_tdefs_counter_find(const rt_tdefs *d, int id)
{
    for (size_t i = 0; i < d->ncounters; i++)
        if (d->counters[i].id == id)
            return (int)i;
    return -1;
}

int rt_tdefs_add_counter(rt_tdefs *d, int id, const char *name, const char *unit)
{
    int i = rt_tdefs_counter_find(d, id);
    if (i >= 0)
        return i;
    if (rt_grow((void **)&d->counters, &d->capcounters, d->ncounters + 1, sizeof *d->counters) != RT_OK)
        return -1;
    char *n = dup_or_empty(name), *u = dup_or_empty(unit);
    if (!n || !u) {
        free(n);
        free(u);
        return -1;
    }
    d->counters[d->ncounters] = (rt_tcounter){id, n, u};
    return (int)d->ncounters++;
}

int rt_tdefs_ncounters(const rt_tdefs *d) { return (int)d->ncounters; }

const rt_tcounter *rt_tdefs_counter_at(const rt_tdefs *d, int i)
{
    return i >= 0 && (size_t)i < d->ncounters ? &d->counters[i] : NULL;
}

void rt_tdefs_set_outside(rt_tdefs *d, int cls)
{
    if (cls >= 0 && cls < RT_TC_COUNT && cls != RT_TC_TRACING)
        d->outside = cls;
}

int rt_tdefs_outside(const rt_tdefs *d)
{
    return d ? d->outside : RT_TC_USER;
}

void rt_tdefs_set_clock(rt_tdefs *d, uint64_t resolution, int64_t offset)
{
    d->resolution = resolution ? resolution : 1;
    d->offset = offset;
}

/* ---- the definitions as bytes ---- */

static int put_i(FILE *o, int64_t v) { return fwrite(&v, sizeof v, 1, o) == 1; }
static int put_s(FILE *o, const char *s)
{
    s = s ? s : "";
    return fwrite(s, 1, strlen(s) + 1, o) == strlen(s) + 1;
}

int rt_tdefs_pack(const rt_tdefs *d, FILE *o)
{
    int ok = put_i(o, (int64_t)d->nprocs) && put_i(o, (int64_t)d->nregions) && put_i(o, (int64_t)d->ncomms) &&
             put_i(o, (int64_t)d->ncounters) && put_i(o, d->outside) && put_i(o, (int64_t)d->resolution) &&
             put_i(o, d->offset);
    for (size_t p = 0; ok && p < d->nprocs; p++)
        ok = put_s(o, d->procs[p].name) && put_s(o, d->procs[p].path);
    for (size_t i = 0; ok && i < d->nregions; i++) {
        const rt_tregion *r = d->regions[i];
        ok = put_i(o, r->id) && put_i(o, r->cls) && put_s(o, r->name) && put_s(o, r->group);
    }
    for (size_t i = 0; ok && i < d->ncomms; i++) {
        const rt_tcomm *c = d->comms[i];
        ok = put_i(o, c->id) && put_i(o, c->size) && put_i(o, c->members != NULL) && put_s(o, c->name);
        for (int m = 0; ok && c->members && m < c->size; m++)
            ok = put_i(o, c->members[m]);
    }
    for (size_t i = 0; ok && i < d->ncounters; i++)
        ok = put_i(o, d->counters[i].id) && put_s(o, d->counters[i].name) && put_s(o, d->counters[i].unit);
    return ok ? RT_OK : RT_EIO;
}

static int get_i(const char **p, const char *end, int64_t *v)
{
    if (end - *p < (ptrdiff_t)sizeof *v)
        return 0;
    memcpy(v, *p, sizeof *v);
    *p += sizeof *v;
    return 1;
}

static const char *get_s(const char **p, const char *end)
{
    const char *s = *p, *z = memchr(s, '\0', (size_t)(end - s));
    if (!z)
        return NULL;
    *p = z + 1;
    return s;
}

int rt_tdefs_unpack(rt_tdefs *d, const char **p, const char *end)
{
    int64_t np, nr, nc, nk, outside, res, off;
    if (!get_i(p, end, &np) || !get_i(p, end, &nr) || !get_i(p, end, &nc) || !get_i(p, end, &nk) ||
        !get_i(p, end, &outside) || !get_i(p, end, &res) || !get_i(p, end, &off))
        return RT_EFORMAT;
    rt_tdefs_set_outside(d, (int)outside);
    rt_tdefs_set_clock(d, (uint64_t)res, off);
    int st = RT_OK;
    for (int64_t i = 0; st == RT_OK && i < np; i++) {
        const char *name = get_s(p, end), *path = name ? get_s(p, end) : NULL;
        st = path ? rt_tdefs_set_proc(d, (int)i, name, path) : RT_EFORMAT;
    }
    for (int64_t i = 0; st == RT_OK && i < nr; i++) {
        int64_t id, cls;
        const char *name = get_i(p, end, &id) && get_i(p, end, &cls) ? get_s(p, end) : NULL;
        const char *group = name ? get_s(p, end) : NULL;
        st = group ? rt_tdefs_add_region(d, (int)id, name, group, (int)cls) : RT_EFORMAT;
    }
    for (int64_t i = 0; st == RT_OK && i < nc; i++) {
        int64_t id, size, has;
        const char *name = get_i(p, end, &id) && get_i(p, end, &size) && get_i(p, end, &has) ? get_s(p, end) : NULL;
        if (!name || size < 0) {
            st = RT_EFORMAT;
            break;
        }
        int *m = has && size > 0 ? malloc((size_t)size * sizeof *m) : NULL;
        if (has && size > 0 && !m) {
            st = RT_ENOMEM;
            break;
        }
        for (int64_t k = 0; m && k < size && st == RT_OK; k++) {
            int64_t v;
            if (get_i(p, end, &v))
                m[k] = (int)v;
            else
                st = RT_EFORMAT;
        }
        if (st == RT_OK)
            st = rt_tdefs_add_comm(d, (int)id, name, (int)size, m);
        free(m);
    }
    for (int64_t i = 0; st == RT_OK && i < nk; i++) {
        int64_t id;
        const char *name = get_i(p, end, &id) ? get_s(p, end) : NULL, *unit = name ? get_s(p, end) : NULL;
        st = !unit ? RT_EFORMAT : rt_tdefs_add_counter(d, (int)id, name, unit) < 0 ? RT_ENOMEM : RT_OK;
    }
    return st;
}

uint64_t rt_tdefs_resolution(const rt_tdefs *d) { return d->resolution; }
int64_t rt_tdefs_offset(const rt_tdefs *d) { return d->offset; }

double rt_tdefs_seconds(const rt_tdefs *d, int64_t ticks)
{
    /* subtract in integers first: raw OTF2 stamps (~10^16) do not fit a double exactly */
    int64_t rel = ticks - d->offset;
    int64_t whole = rel / (int64_t)d->resolution, frac = rel % (int64_t)d->resolution;
    return (double)whole + (double)frac / (double)d->resolution;
}

/* ---- sources ---- */

/* Reads begun by every source of the process (rt_tsource_passes). */
static atomic_llong passes;

int rt_tsource_init(rt_tsource *s, const rt_tsource_ops *ops, const char *path, rt_err *err)
{
    memset(s, 0, sizeof *s);
    s->ops = ops;
    s->defs = rt_tdefs_new();
    s->path = strdup(path ? path : "");
    if (!s->defs || !s->path) {
        rt_tdefs_free(s->defs);
        free(s->path);
        s->defs = NULL;
        s->path = NULL;
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", path ? path : "trace");
    }
    return RT_OK;
}

int rt_tsource_next(rt_tsource *s, rt_tevent *ev, rt_err *err)
{
    /* Ctrl-C: a source that is not line-read (OTF2) stops here */
    if ((s->events & 0xffff) == 0 && rt_interrupt_pending())
        return rt_interrupt_check(err);
    if (s->nearly && s->on_warning) { /* warnings of the open, now that someone listens */
        for (const char *m = s->early; s->nearly > 0; s->nearly--, m += strlen(m) + 1)
            s->on_warning(s->ud, m);
        free(s->early);
        s->early = NULL;
        s->early_len = 0;
    }
    int st = s->ops->next(s, ev, err);
    if (st == RT_OK) {
        if (s->events++ == 0)
            atomic_fetch_add(&passes, 1);
        st = rt_timespan_add(&s->span, ev->time, s->path, ev->line, "time", err);
    }
    return st;
}

int64_t rt_tsource_passes(void) { return (int64_t)atomic_load(&passes); }

int rt_tsource_rewind(rt_tsource *s, rt_err *err)
{
    if (!s->ops->rewind)
        return rt_err_set(err, RT_EINVAL, "%s: cannot be read again", s->path);
    int st = s->ops->rewind(s, err);
    if (st == RT_OK) {
        s->events = s->skipped = s->warnings = 0;
        s->span = (rt_timespan){0};
    }
    return st;
}

uint64_t rt_tsource_offset(const rt_tsource *s) { return s->ops->offset ? s->ops->offset(s) : 0; }
uint64_t rt_tsource_size(const rt_tsource *s) { return s->ops->size ? s->ops->size(s) : 0; }

int rt_tsource_describe(const rt_tsource *s, const void *raw, char *buf, size_t size)
{
    if (!s || !raw || !s->describe)
        return -1;
    return s->describe(s, raw, buf, size);
}

void rt_tsource_warn(rt_tsource *s, const char *fmt, ...)
{
    s->warnings++;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->on_warning) {
        s->on_warning(s->ud, msg);
        return;
    }
    if (s->nearly >= RT_TSOURCE_EARLY)
        return;
    size_t k = strlen(msg) + 1;
    char *e = realloc(s->early, s->early_len + k);
    if (!e)
        return; /* counted, not shown */
    memcpy(e + s->early_len, msg, k);
    s->early = e;
    s->early_len += k;
    s->nearly++;
}

void rt_tsource_free(rt_tsource *s)
{
    if (!s)
        return;
    rt_tdefs *d = s->defs;
    char *p = s->path;
    free(s->early);
    if (s->ops && s->ops->free)
        s->ops->free(s); /* frees the reader's struct, which contains s */
    else
        free(s);
    rt_tdefs_free(d);
    free(p);
}
