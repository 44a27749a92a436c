/* rt_picl_source.c - PICL records as neutral events (see rt_picl_source.h). */
#include "rt_picl_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_picl_event_class(int e)
{
    if (e >= 0)
        return RT_TC_USER;
    switch (e) {
    case -52: case -55: case -56: case -61: case -31: return RT_TC_WAIT;
    case -401: case -402: return RT_TC_SYNC;
    case -601: return RT_TC_IDLE;
    default: break;
    }
    switch (rt_picl_event_family(e)) {
    case RT_EV_SEND: return RT_TC_SEND;
    case RT_EV_RECV: return RT_TC_RECV;
    case RT_EV_COLLECTIVE: return RT_TC_COLLECTIVE;
    case RT_EV_IO: return RT_TC_IO;
    case RT_EV_TRACING: return RT_TC_TRACING;
    default: return RT_TC_SYSTEM;
    }
}

int rt_picl_define_region(rt_tdefs *d, int event)
{
    const rt_tregion *r = rt_tdefs_region(d, event);
    if (r)
        return r->cls;
    char w[64];
    int cls = rt_picl_event_class(event);
    if (rt_tdefs_add_region(d, event, rt_picl_event_words(event, w, sizeof w),
                            rt_picl_family_name(rt_picl_event_family(event)), cls) != RT_OK)
        return -RT_ENOMEM;
    return cls;
}

/* Every field set (no memset: this runs per event). */
static void fill_common(rt_tevent *ev, int kind, const rt_picl_record *rec)
{
    ev->kind = kind;
    ev->ticks = 0;
    ev->peer = -1;
    ev->tag = 0;
    ev->comm = -1;
    ev->bytes = ev->bytes_in = 0;
    ev->proc = rec->proc;
    ev->time = rec->time;
    ev->region = rec->event;
    ev->task = rec->task;
    ev->line = rec->line;
    ev->raw = rec;
    ev->ndata = rec->ndata < RT_TE_MAXDATA ? rec->ndata : RT_TE_MAXDATA;
    /* all RT_TE_MAXDATA slots (a record has more), so the copy is a few fixed
     * moves, not a call; the slots past ndata mean nothing to the consumer */
    memcpy(ev->data, rec->data, sizeof ev->data);
}

static void fill_message(rt_tevent *ev, int kind, const rt_picl_record *rec, double bytes, long tag, long peer)
{
    fill_common(ev, kind, rec);
    ev->bytes = bytes;
    ev->tag = tag;
    /* out-of-range peers stay visible to the consumer, which warns about them */
    ev->peer = peer < -1000000000L ? -1000000000 : peer > 1000000000L ? 1000000000 : (int)peer;
}

/* Regions a source has defined, for event numbers -KNOWN_SPAN .. KNOWN_SPAN - 1, with their families
 * (a hash lookup and the family's range tests saved per event). */
#define KNOWN_SPAN 1024

/* A record's second event, made from the record when it is asked for: a send
 * after its entry, or the exit after a receive (kind 0: none). */
typedef struct second_ev {
    int kind;
    double bytes;
    long tag, peer;
} second_ev;

static void make_second(const rt_picl_record *rec, const second_ev *sec, rt_tevent *ev)
{
    if (sec->kind == RT_TE_SEND)
        fill_message(ev, RT_TE_SEND, rec, sec->bytes, sec->tag, sec->peer);
    else
        fill_common(ev, RT_TE_LEAVE, rec);
}

/* The first event of rec into *a; sec says what the second is (kind 0: none).
 * Inlined into the source's next (it runs per record). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int record_first(rt_tdefs *d, unsigned char *known, const rt_picl_record *rec, rt_tevent *a,
                               second_ev *sec, rt_err *err)
{
    sec->kind = 0;
    if (rec->format != RT_PICL_NEW)
        return rt_err_set(err, RT_EINVAL, "PICL source: old-format record (translate it first)");
    if (rec->rectype != RT_PICL_ENTRY && rec->rectype != RT_PICL_EXIT) {
        fill_common(a, RT_TE_MARKER, rec);
        return RT_OK;
    }
    int e = rec->event, entry = rec->rectype == RT_PICL_ENTRY;
    int cached = known && e >= -KNOWN_SPAN && e < KNOWN_SPAN;
    rt_event_family f;
    if (cached && known[e + KNOWN_SPAN]) {
        f = (rt_event_family)(known[e + KNOWN_SPAN] - 1);
    } else {
        if (rt_picl_define_region(d, e) < 0)
            return rt_err_set(err, RT_ENOMEM, "PICL source: out of memory");
        f = rt_picl_event_family(e);
        if (cached)
            known[e + KNOWN_SPAN] = (unsigned char)(f + 1);
    }
    double bytes = 0;
    long tag = 0, peer = 0;
    /* only a send entry or a receive exit can carry a message (rt_picl_message_fields says which) */
    int msg = (entry ? f == RT_EV_SEND : f == RT_EV_RECV) ? rt_picl_message_fields(rec, &bytes, &tag, &peer) : 0;
    double d0 = rec->ndata >= 1 && rec->data[0] > 0 ? rec->data[0] : 0;
    if (entry) {
        fill_common(a, RT_TE_ENTER, rec);
        if (msg == 1)
            *sec = (second_ev){RT_TE_SEND, bytes, tag, peer};
        else if (f == RT_EV_SEND || f == RT_EV_COLLECTIVE)
            a->bytes = d0;
        return RT_OK;
    }
    if (msg == 2) {
        fill_message(a, RT_TE_RECV, rec, bytes, tag, peer);
        sec->kind = RT_TE_LEAVE;
        return RT_OK;
    }
    fill_common(a, RT_TE_LEAVE, rec);
    if (f == RT_EV_RECV || f == RT_EV_COLLECTIVE)
        a->bytes_in = d0;
    return RT_OK;
}

int rt_picl_record_events(rt_tdefs *d, const rt_picl_record *rec, rt_tevent out[2], int *n, rt_err *err)
{
    second_ev sec;
    int st = record_first(d, NULL, rec, &out[0], &sec, err);
    *n = 1;
    if (st == RT_OK && sec.kind) {
        make_second(rec, &sec, &out[1]);
        *n = 2;
    }
    return st;
}

/* ---- the source ---- */

/* A node's compstats bracketing state (old format). */
typedef struct cs_node {
    double call_time;  /* time of its last communication call record */
    int call_open;     /* that call may still be bracketed */
    int blocked;       /* inside recv_blocking .. recv_waking */
    int in_bracket;
} cs_node;

typedef struct picl_src {
    rt_tsource base;
    rt_picl *r;
    int own;
    rt_picl_xlate *x;           /* old format only */
    rt_picl_record rec[2][2];   /* two buffer sets, alternating per read, so raw pointers of
                                 * consecutive records differ */
    int set, nrec, irec;        /* translated records of the current set and the next to convert */
    second_ev second;           /* the second event of the last record converted (kind 0: none) */
    const rt_picl_record *second_rec; /* its record */
    int maxproc;                /* processors named so far: 0 .. maxproc - 1 */
    unsigned char known[2 * KNOWN_SPAN]; /* event number + KNOWN_SPAN: its family + 1 once its region is defined */
    int compstats;              /* old format: bracket communication calls (rt_picl_source_set_compstats) */
    cs_node *cs;                /* per node, for the brackets */
    int ncs;
} picl_src;

static int name_procs(picl_src *s, int p, rt_err *err)
{
    if (p < s->maxproc)
        return RT_OK;
    if (p >= RT_PICL_MAXPROC)
        return rt_err_at(err, RT_ERANGE, s->base.path, 0, "processor %d out of range", p);
    for (int i = s->maxproc; i <= p; i++) {
        char name[32];
        snprintf(name, sizeof name, "processor %d", i);
        if (rt_tdefs_set_proc(s->base.defs, i, name, NULL) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "PICL source: out of memory");
    }
    s->maxproc = p + 1;
    return RT_OK;
}

/*
 * Compstats bracketing of one translated old-format record: returns 1 when
 * *ev was filled (a bracket's ENTER or LEAVE), 0 to convert rec as usual, or
 * -status on an error.
 */
static int compstats_event(picl_src *s, const rt_picl_record *rec, rt_tevent *ev, rt_err *err)
{
    int p = rec->proc;
    if (p >= s->ncs) {
        int n = s->ncs ? s->ncs : 16;
        while (n <= p)
            n *= 2;
        cs_node *c = realloc(s->cs, (size_t)n * sizeof *c);
        if (!c)
            return -rt_err_set(err, RT_ENOMEM, "PICL source: out of memory");
        memset(c + s->ncs, 0, (size_t)(n - s->ncs) * sizeof *c);
        s->cs = c;
        s->ncs = n;
    }
    cs_node *c = &s->cs[p];
    if (rec->rectype == RT_PICL_MARK && rec->event == -RT_PICL_OLD_COMPSTATS) {
        int open = !c->in_bracket && c->call_open && rec->time == c->call_time && !c->blocked;
        c->call_open = 0;
        if (!c->in_bracket && !open)
            return 0;
        fill_common(ev, c->in_bracket ? RT_TE_LEAVE : RT_TE_ENTER, rec);
        ev->region = RT_PICL_COMPSTATS_REGION;
        c->in_bracket = !c->in_bracket;
        return 1;
    }
    rt_event_family f = rt_picl_event_family(rec->event);
    if (rec->rectype == RT_PICL_ENTRY && (f == RT_EV_SEND || f == RT_EV_RECV)) {
        c->call_time = rec->time;
        c->call_open = 1;
        if (rec->event == -52)
            c->blocked = 1;
    } else if (rec->rectype == RT_PICL_EXIT && rec->event == -52) {
        c->blocked = 0;
    } else if (rec->rectype != RT_PICL_EXIT || rec->time != c->call_time) {
        c->call_open = 0; /* something else came between the call and a compstats record */
    }
    return 0;
}

static int src_next(rt_tsource *base, rt_tevent *ev, rt_err *err)
{
    picl_src *s = (picl_src *)base;
    if (s->second.kind) {
        make_second(s->second_rec, &s->second, ev);
        s->second.kind = 0;
        return RT_OK;
    }
    if (s->irec >= s->nrec) {
        s->set ^= 1;
        rt_picl_record *out = s->rec[s->set];
        int st;
        if (s->x) {
            rt_picl_record old;
            st = rt_picl_next(s->r, &old, err);
            if (st == RT_OK && (st = rt_picl_xlate_record(s->x, &old, out, &s->nrec)) != RT_OK)
                rt_err_set(err, st, "PICL source: out of memory");
        } else {
            st = rt_picl_next(s->r, out, err);
            s->nrec = 1;
        }
        base->skipped = rt_picl_skipped(s->r);
        if (st != RT_OK) {
            s->nrec = 0;
            return st;
        }
        s->irec = 0;
    }
    const rt_picl_record *rec = &s->rec[s->set][s->irec++];
    if (rec->proc >= s->maxproc) {
        int st = name_procs(s, rec->proc, err);
        if (st != RT_OK)
            return st;
    }
    if (s->x && s->compstats) {
        int r = compstats_event(s, rec, ev, err);
        if (r != 0)
            return r < 0 ? -r : RT_OK;
    }
    int st = record_first(base->defs, s->known, rec, ev, &s->second, err);
    if (st != RT_OK)
        s->second.kind = 0;
    s->second_rec = rec;
    return st;
}

static int src_rewind(rt_tsource *base, rt_err *err)
{
    picl_src *s = (picl_src *)base;
    int st = rt_picl_rewind(s->r, err);
    if (st != RT_OK)
        return st;
    if (s->x) {
        rt_picl_xlate_free(s->x);
        if (!(s->x = rt_picl_xlate_new()))
            return rt_err_set(err, RT_ENOMEM, "PICL source: out of memory");
    }
    s->nrec = s->irec = s->second.kind = 0;
    if (s->cs)
        memset(s->cs, 0, (size_t)s->ncs * sizeof *s->cs);
    return RT_OK;
}

static uint64_t src_offset(const rt_tsource *base) { return rt_picl_offset(((const picl_src *)base)->r); }
static uint64_t src_size(const rt_tsource *base) { return rt_picl_size(((const picl_src *)base)->r); }

static void src_free(rt_tsource *base)
{
    picl_src *s = (picl_src *)base;
    if (s->own)
        rt_picl_free(s->r);
    rt_picl_xlate_free(s->x);
    free(s->cs);
    free(s);
}

static int src_describe(const rt_tsource *base, const void *raw, char *buf, size_t size)
{
    (void)base;
    return rt_picl_describe(raw, buf, size);
}

static const rt_tsource_ops ops_new = {"picl-new", src_next, src_rewind, src_offset, src_size, src_free};
static const rt_tsource_ops ops_old = {"picl-old", src_next, src_rewind, src_offset, src_size, src_free};

rt_tsource *rt_picl_source(rt_picl *reader, int own, rt_err *err)
{
    picl_src *s = calloc(1, sizeof *s);
    int old = rt_picl_format(reader) == RT_PICL_OLD;
    if (!s || (old && !(s->x = rt_picl_xlate_new()))) {
        free(s);
        if (own)
            rt_picl_free(reader);
        rt_err_set(err, RT_ENOMEM, "PICL source: out of memory");
        return NULL;
    }
    s->r = reader;
    s->own = own;
    if (rt_tsource_init(&s->base, old ? &ops_old : &ops_new, rt_picl_name(reader), err) != RT_OK) {
        src_free(&s->base);
        return NULL;
    }
    s->compstats = 1;
    s->base.raw_size = sizeof(rt_picl_record); /* a kept copy's text must not be read: it points into a gone line */
    s->base.describe = src_describe;
    if (old && rt_tdefs_add_region(s->base.defs, RT_PICL_COMPSTATS_REGION, "communication call", "compstats",
                                   RT_TC_SYSTEM) != RT_OK) {
        src_free(&s->base);
        rt_err_set(err, RT_ENOMEM, "PICL source: out of memory");
        return NULL;
    }
    return &s->base;
}

rt_tsource *rt_picl_source_open(const char *path, const rt_picl_opts *opts, rt_err *err)
{
    rt_picl *r = rt_picl_open(path, opts, err);
    return r ? rt_picl_source(r, 1, err) : NULL;
}

int rt_picl_source_name_procs(rt_tsource *s, int n, rt_err *err)
{
    if (!rt_tsource_is_picl(s))
        return rt_err_set(err, RT_EINVAL, "not a PICL source");
    return n > 0 ? name_procs((picl_src *)s, n - 1, err) : RT_OK;
}

void rt_picl_source_set_compstats(rt_tsource *s, int on)
{
    if (rt_tsource_is_picl(s))
        ((picl_src *)s)->compstats = on != 0;
}

int rt_tsource_is_picl(const rt_tsource *s)
{
    return s && (s->ops == &ops_new || s->ops == &ops_old);
}

rt_picl *rt_picl_source_reader(const rt_tsource *s)
{
    return rt_tsource_is_picl(s) ? ((const picl_src *)s)->r : NULL;
}

int rt_picl_sniff(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    const char *p = (const char *)head, *end = p + n;
    if (!head || (n >= 8 && memcmp(head, "#Paraver", 8) == 0))
        return 0;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end; /* the prefix ends inside this line: judge what we have */
        const char *q = p;
        while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < e && *q != '#') {
            size_t len = (size_t)(e - p);
            int fmt = rt_picl_guess_format(p, len);
            if (!fmt || e == end) /* a cut line is only judged by its first fields */
                return fmt;
            rt_picl_record rec;
            char why[128];
            return rt_picl_parse_line(fmt, p, len, &rec, why, sizeof why) == 1 ? fmt : 0;
        }
        p = e + 1;
    }
    return 0;
}
