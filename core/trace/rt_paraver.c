/*
 * rt_paraver.c - the Paraver .prv reader (see rt_paraver.h).
 *
 * The body of a .prv is sorted by each record's first time stamp, but a
 * record also speaks about later times: a state's end, a message's physical
 * send and receive. Those later events wait in a min-heap keyed by (time,
 * priority, arrival); a record's own events (a state's ENTER, an event
 * record's markers) are returned once every waiting event at or before their
 * time has gone out. The heap holds one leave per thread plus the messages in
 * flight, so memory does not grow with the trace.
 *
 * Names come from the companions: rt_paraver_defs.c reads the .pcf and .row.
 */
#include "rt_paraver.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_field.h"
#include "rt_lines.h"
#include "rt_mem.h"
#include "rt_paraver_defs.h"

/* An event waiting in the heap: a state's LEAVE, a message's SEND or RECV. */
typedef struct pending {
    int64_t ticks;
    uint64_t seq;           /* arrival order: ties keep file order */
    int kind, proc, peer, region;
    int prio;               /* at equal times: 0 send / receive, 1 leave */
    int64_t tag;
    double bytes;
    unsigned long line;     /* the record that made it */
} pending;

typedef struct prv_reader {
    rt_tsource base;        /* first member: the source handed out */
    rt_lines *in;
    prv_model model;        /* threads and their dense indices */
    rt_paraver_stats st;
    unsigned long body_line; /* line number of the first body record */
    /* the waiting events */
    pending *heap;
    size_t nheap, capheap;
    uint64_t seq;
    /* the current record's own events, returned in order */
    rt_tevent *now;
    size_t nnow, capnow, headnow;
    int eof;                /* the body is read to its end */
    uint64_t records;       /* body records read (any type) */
    int64_t last_ticks;     /* time of the last event returned */
    int started;
    int64_t frontier;       /* first time stamp of the last record read: waiting events
                             * before it can go out, no later record comes before them */
    int last_type_known;    /* a one-entry cache of the event type lookup */
    int64_t last_type;
    int last_counter;       /* its counter's number, -1 when it is no counter (rt_paraver_defs.c) */
    unsigned char *used;    /* per thread: named by a record */
    struct leave_pos {
        size_t at;          /* 1 + heap index of the thread's latest pending LEAVE, 0 when none */
        uint64_t seq;       /* that LEAVE's arrival number */
    } *leave_at;            /* per thread */
    /* a part of the trace (a byte range, or lines routed to this rank): no check of the whole body */
    int part;
    int rec_thread[2];      /* the threads named by the last record (-1 none) */
    rt_paraver_record_fn on_record;
    void *on_record_ud;
} prv_reader;

static const rt_tsource_ops prv_ops;

/* ---- the heap of waiting events ---- */

static int before(const pending *a, const pending *b)
{
    if (a->ticks != b->ticks)
        return a->ticks < b->ticks;
    if (a->prio != b->prio)
        return a->prio < b->prio;
    return a->seq < b->seq;
}

/* Put p at heap index i, noting where a thread's latest LEAVE is. */
static void place(prv_reader *r, size_t i, pending p)
{
    r->heap[i] = p;
    if (p.kind == RT_TE_LEAVE && p.seq == r->leave_at[p.proc].seq)
        r->leave_at[p.proc].at = i + 1;
}

/* Move the entry at i up to its place (its key went down, or it is new). */
static void sift_up(prv_reader *r, size_t i)
{
    pending p = r->heap[i];
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!before(&p, &r->heap[up]))
            break;
        place(r, i, r->heap[up]);
        i = up;
    }
    place(r, i, p);
}

static int heap_push(prv_reader *r, pending p)
{
    if (rt_grow((void **)&r->heap, &r->capheap, r->nheap + 1, sizeof *r->heap) != RT_OK)
        return RT_ENOMEM;
    p.seq = r->seq++;
    if (p.kind == RT_TE_LEAVE)
        r->leave_at[p.proc].seq = p.seq;
    r->heap[r->nheap++] = p;
    sift_up(r, r->nheap - 1);
    return RT_OK;
}

static pending heap_pop(prv_reader *r)
{
    pending top = r->heap[0], last = r->heap[--r->nheap];
    if (top.kind == RT_TE_LEAVE && top.seq == r->leave_at[top.proc].seq)
        r->leave_at[top.proc].at = 0;
    size_t i = 0, n = r->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&r->heap[c + 1], &r->heap[c]))
            c++;
        if (!before(&r->heap[c], &last))
            break;
        place(r, i, r->heap[c]);
        i = c;
    }
    if (n > 0)
        place(r, i, last);
    return top;
}

/*
 * A new state of thread proc begins at begin: its earlier state, when it is
 * still pending past that time (states that overlap on one thread), ends
 * there instead. So a thread has one state at a time, as Paraver draws it, and
 * the heap keeps one LEAVE per thread however the states overlap.
 */
static void cut_overlap(prv_reader *r, int proc, int64_t begin, unsigned long line)
{
    size_t at = r->leave_at[proc].at;
    if (!at || r->heap[at - 1].ticks <= begin)
        return;
    if (r->st.overlapping++ == 0)
        rt_tsource_warn(&r->base, "%s:%lu: begin: %lld, before the end (%lld) of the thread's state of line %lu: "
                        "states overlap on one thread; the earlier one is cut there", r->base.path, line,
                        (long long)begin, (long long)r->heap[at - 1].ticks, r->heap[at - 1].line);
    r->heap[at - 1].ticks = begin;
    sift_up(r, at - 1);
}

/* The first time stamp of the record read: only grows (a record out of order
 * is warned about when its events go out), so waiting events keep going out. */
static void advance(prv_reader *r, int64_t t)
{
    if (t > r->frontier)
        r->frontier = t;
}

/* ---- fields of a record ---- */

/* The text of the field at cur, for messages ("" at the end of the line). */
static const char *field_text(const char *cur, const char *end, char *buf, size_t cap)
{
    size_t n = 0;
    while (cur + n < end && cur[n] != ':' && n + 1 < cap)
        n++;
    memcpy(buf, cur, n);
    buf[n] = '\0';
    return buf;
}

static int bad_field(prv_reader *r, unsigned long line, const char *field, const char *cur,
                     const char *end, rt_err *err)
{
    if (cur >= end)
        return rt_err_at(err, RT_EFORMAT, r->base.path, line, "%s: missing (record cut short)", field);
    char buf[40];
    return rt_err_at(err, RT_EFORMAT, r->base.path, line, "%s: not an integer '%s'", field,
                     field_text(cur, end, buf, sizeof buf));
}

/*
 * The integer field at *cur, which must end at ':' (skipped) or at the line's
 * end. Signed 64-bit; event values may also use the whole unsigned range
 * (unsigned_ok), returned through *out as their bit pattern. RT_OK or
 * RT_EFORMAT naming the field.
 */
static int field(prv_reader *r, unsigned long line, const char **cur, const char *end, const char *name,
                 int64_t *out, int unsigned_ok, rt_err *err)
{
    const char *p = *cur;
    int neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    const char *digits = p;
    uint64_t v = 0;
    while (p < end && (unsigned)(*p - '0') < 10) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return rt_err_at(err, RT_EFORMAT, r->base.path, line, "%s: out of range", name);
        v = v * 10 + d;
        p++;
    }
    if (p == digits || (p < end && *p != ':'))
        return bad_field(r, line, name, *cur, end, err);
    if (neg ? v > (uint64_t)INT64_MAX + 1 : (!unsigned_ok && v > (uint64_t)INT64_MAX))
        return rt_err_at(err, RT_EFORMAT, r->base.path, line, "%s: out of range", name);
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    *cur = p < end ? p + 1 : p;
    return RT_OK;
}

/* The thread named by the cpu, appl, task, thread fields at *cur: its index.
 * receiver selects the field names of a message's receiving end. */
static int thread_field(prv_reader *r, unsigned long line, const char **cur, const char *end, int receiver,
                        int *proc, rt_err *err)
{
    static const char *const names[2][4] = {{"cpu", "appl", "task", "thread"},
                                            {"receiver cpu", "receiver appl", "receiver task",
                                             "receiver thread"}};
    const char *const *n = names[receiver != 0];
    int64_t v[4];
    for (int i = 0; i < 4; i++) {
        int st = field(r, line, cur, end, n[i], &v[i], 0, err);
        if (st != RT_OK)
            return st;
    }
    int bad = prv_model_find(&r->model, v[1], v[2], v[3], proc);
    if (bad)
        return rt_err_at(err, RT_EFORMAT, r->base.path, line,
                         "%s: %lld:%lld:%lld (appl:task:thread) not in the header (%s)", n[bad],
                         (long long)v[1], (long long)v[2], (long long)v[3], r->model.summary);
    r->used[*proc] = 1;
    r->rec_thread[receiver != 0] = *proc;
    return RT_OK;
}

static int end_of_record(prv_reader *r, unsigned long line, const char *cur, const char *end,
                         const char *last, rt_err *err)
{
    if (cur < end) {
        char buf[40];
        return rt_err_at(err, RT_EFORMAT, r->base.path, line, "%s: unexpected text after it '%s'", last,
                         field_text(cur, end, buf, sizeof buf));
    }
    return RT_OK;
}

/* ---- records into events ---- */

static rt_tevent *now_add(prv_reader *r, int kind, int proc, int64_t ticks, unsigned long line)
{
    if (rt_grow((void **)&r->now, &r->capnow, r->nnow + 1, sizeof *r->now) != RT_OK)
        return NULL;
    rt_tevent *ev = &r->now[r->nnow++];
    rt_tevent_clear(ev);
    ev->kind = kind;
    ev->proc = proc;
    ev->ticks = ticks;
    ev->line = line;
    return ev;
}

static int nomem(prv_reader *r, rt_err *err)
{
    return rt_err_set(err, RT_ENOMEM, "%s: out of memory", r->base.path);
}

/* The region of state value s, defined on first use when the .pcf has no name for it. */
static int state_region(prv_reader *r, unsigned long line, int64_t s, int *region, rt_err *err)
{
    if (s < 0 || s > RT_PARAVER_MAXSTATE)
        return rt_err_at(err, RT_EFORMAT, r->base.path, line, "state: %lld out of range 0..%d", (long long)s,
                         RT_PARAVER_MAXSTATE);
    *region = RT_PARAVER_STATE_REGION(s);
    if (rt_tdefs_region(r->base.defs, *region))
        return RT_OK;
    if (r->st.has_pcf)
        rt_tsource_warn(&r->base, "%s:%lu: state: value %lld is not in the .pcf (class system)", r->base.path,
                        line, (long long)s);
    if (prv_define_state(r->base.defs, (int)s, NULL, !r->st.has_pcf) != RT_OK)
        return nomem(r, err);
    return RT_OK;
}

static int read_state(prv_reader *r, unsigned long line, const char *cur, const char *end, rt_err *err)
{
    int proc, region = 0, st;
    int64_t begin, stop, value;
    if ((st = thread_field(r, line, &cur, end, 0, &proc, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "begin", &begin, 0, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "end", &stop, 0, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "state", &value, 0, err)) != RT_OK ||
        (st = end_of_record(r, line, cur, end, "state", err)) != RT_OK)
        return st;
    if (stop < begin)
        return rt_err_at(err, RT_EFORMAT, r->base.path, line, "end: %lld before begin %lld", (long long)stop,
                         (long long)begin);
    if ((st = state_region(r, line, value, &region, err)) != RT_OK)
        return st;
    advance(r, begin);
    r->st.states++;
    if (stop == begin) { /* Paraver draws nothing for it either */
        r->st.empty_states++;
        return RT_OK;
    }
    cut_overlap(r, proc, begin, line);
    rt_tevent *ev = now_add(r, RT_TE_ENTER, proc, begin, line);
    if (!ev)
        return nomem(r, err);
    ev->region = region;
    pending leave = {.ticks = stop, .kind = RT_TE_LEAVE, .proc = proc, .peer = -1, .region = region,
                     .prio = 1, .line = line};
    return heap_push(r, leave) == RT_OK ? RT_OK : nomem(r, err);
}

static int type_known(prv_reader *r, int64_t type)
{
    if (r->last_type_known >= 0 && r->last_type == type)
        return r->last_type_known;
    int known = type >= 0 && type <= INT_MAX && rt_tdefs_region(r->base.defs, (int)type) != NULL;
    r->last_counter = known ? rt_tdefs_counter_find(r->base.defs, (int)type) : -1;
    r->last_type = type;
    r->last_type_known = known;
    return known;
}

static int read_event(prv_reader *r, unsigned long line, const char *cur, const char *end, rt_err *err)
{
    int proc, st;
    int64_t t, type, value;
    if ((st = thread_field(r, line, &cur, end, 0, &proc, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "time", &t, 0, err)) != RT_OK)
        return st;
    if (cur >= end)
        return bad_field(r, line, "event type", cur, end, err);
    advance(r, t);
    r->st.event_records++;
    while (cur < end) {
        if ((st = field(r, line, &cur, end, "event type", &type, 1, err)) != RT_OK ||
            (st = field(r, line, &cur, end, "event value", &value, 1, err)) != RT_OK)
            return st;
        r->st.event_pairs++;
        if (!type_known(r, type))
            r->st.unknown_types++;
        int counter = r->last_counter;
        rt_tevent *ev = now_add(r, counter >= 0 ? RT_TE_COUNTER : RT_TE_MARKER, proc, t, line);
        if (!ev)
            return nomem(r, err);
        if (counter >= 0) { /* a sample of a counter: its number and the value */
            ev->region = counter;
            ev->ndata = 1;
            ev->data[0] = value < 0 ? (double)(uint64_t)value : (double)value;
            continue;
        }
        /* types and values are unsigned 64-bit in Paraver; int64 holds their bits */
        ev->region = type >= 0 && type <= INT_MAX ? (int)type : INT_MIN;
        ev->ndata = 2;
        ev->data[0] = value < 0 ? (double)(uint64_t)value : (double)value;
        ev->data[1] = type < 0 ? (double)(uint64_t)type : (double)type;
    }
    return RT_OK;
}

static int read_comm(prv_reader *r, unsigned long line, const char *cur, const char *end, rt_err *err)
{
    int from, to, st;
    int64_t lsend, psend, lrecv, precv, size, tag;
    if ((st = thread_field(r, line, &cur, end, 0, &from, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "logical send", &lsend, 0, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "physical send", &psend, 0, err)) != RT_OK ||
        (st = thread_field(r, line, &cur, end, 1, &to, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "logical receive", &lrecv, 0, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "physical receive", &precv, 0, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "size", &size, 0, err)) != RT_OK ||
        (st = field(r, line, &cur, end, "tag", &tag, 0, err)) != RT_OK ||
        (st = end_of_record(r, line, cur, end, "tag", err)) != RT_OK)
        return st;
    (void)lrecv;
    if ((st = rt_field_count((double)size, r->base.path, line, "size", err)) != RT_OK)
        return st;
    advance(r, lsend);
    r->st.comms++;
    pending send = {.ticks = psend, .kind = RT_TE_SEND, .proc = from, .peer = to, .region = 0,
                    .prio = 0, .tag = tag, .bytes = (double)size, .line = line};
    pending recv = send;
    recv.ticks = precv;
    recv.kind = RT_TE_RECV;
    recv.proc = to;
    recv.peer = from;
    if (heap_push(r, send) != RT_OK || heap_push(r, recv) != RT_OK)
        return nomem(r, err);
    return RT_OK;
}

/* Type 4 and anything else: checked for a known thread when it has one, counted. */
static int skip_record(prv_reader *r, unsigned long line, int64_t type, const char *cur, const char *end,
                       rt_err *err)
{
    if (type == 4) {
        int proc, st;
        if ((st = thread_field(r, line, &cur, end, 0, &proc, err)) != RT_OK)
            return st;
        r->st.global_ops++;
    } else {
        r->st.other_records++;
    }
    r->base.skipped++;
    return RT_OK;
}

/* Read body lines up to the next state, event or message record, or the body's end. */
static int read_record(prv_reader *r, rt_err *err)
{
    for (;;) {
        const char *p;
        size_t len;
        int st = rt_lines_next(r->in, &p, &len, err);
        if (st == RT_EEOF) {
            r->eof = 1;
            return RT_OK;
        }
        if (st != RT_OK)
            return st;
        unsigned long line = rt_lines_lineno(r->in);
        const char *end = p + len, *cur = p;
        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        if (cur == end || *cur == '#')
            continue; /* blank lines and comments, which the Paraver kernel skips too */
        r->records++;
        r->rec_thread[0] = r->rec_thread[1] = -1;
        if (*cur == 'c' || *cur == 'C' || *cur == 'i' || *cur == 'I') {
            r->st.other_records++; /* communicator lines past the header's count */
            r->base.skipped++;
            if (r->on_record)
                r->on_record(r->on_record_ud, p, len, line, -1, -1, -1);
            continue;
        }
        int64_t type;
        if ((st = field(r, line, &cur, end, "record type", &type, 0, err)) != RT_OK)
            return st;
        switch (type) {
        case 1: st = read_state(r, line, cur, end, err); break;
        case 2: st = read_event(r, line, cur, end, err); break;
        case 3: st = read_comm(r, line, cur, end, err); break;
        default: st = skip_record(r, line, type, cur, end, err); break;
        }
        if (st == RT_OK && r->on_record)
            r->on_record(r->on_record_ud, p, len, line, (int)type, r->rec_thread[0], r->rec_thread[1]);
        if (st != RT_OK || type == 1 || type == 2 || type == 3)
            return st;
    }
}

/* At the end of the body: a header with no records after it is a cut file. */
static int check_end(prv_reader *r, rt_err *err)
{
    if (r->part)
        return RT_OK; /* the whole body is checked where the parts are put together */
    if (r->records == 0)
        return rt_err_at(err, RT_EFORMAT, r->base.path, rt_lines_lineno(r->in),
                         "records: none after the header (%s; file cut short?)", r->model.summary);
    int unused = 0;
    for (int i = 0; i < r->model.nthreads; i++)
        unused += !r->used[i];
    if (unused)
        rt_tsource_warn(&r->base, "%s: %d of the header's %d threads have no records", r->base.path, unused,
                        r->model.nthreads);
    return RT_OK;
}

static void emit_pending(prv_reader *r, rt_tevent *ev)
{
    pending p = heap_pop(r);
    rt_tevent_clear(ev);
    ev->kind = p.kind;
    ev->proc = p.proc;
    ev->ticks = p.ticks;
    ev->region = p.region;
    ev->peer = p.peer;
    ev->tag = p.tag;
    ev->bytes = p.bytes;
    ev->line = p.line;
}

static int prv_next(rt_tsource *s, rt_tevent *ev, rt_err *err)
{
    prv_reader *r = (prv_reader *)s;
    for (;;) {
        if (r->headnow < r->nnow) { /* the current record's own events, after what waits before them */
            if (r->nheap > 0 && r->heap[0].ticks <= r->now[r->headnow].ticks)
                emit_pending(r, ev);
            else
                *ev = r->now[r->headnow++];
            break;
        }
        r->nnow = r->headnow = 0;
        if (r->nheap > 0 && (r->eof || r->heap[0].ticks < r->frontier)) {
            emit_pending(r, ev);
            break;
        }
        if (r->eof)
            return RT_EEOF;
        int st = read_record(r, err);
        if (st == RT_OK && r->eof)
            st = check_end(r, err);
        if (st != RT_OK)
            return st;
    }
    ev->time = rt_tdefs_seconds(s->defs, ev->ticks);
    if (r->started && ev->ticks < r->last_ticks) {
        if (r->st.out_of_order++ == 0)
            rt_tsource_warn(s, "%s:%lu: time: %lld earlier than an event before it (file not sorted?)", s->path,
                            ev->line, (long long)ev->ticks);
    } else {
        r->last_ticks = ev->ticks;
    }
    r->started = 1;
    return RT_OK;
}

/* ---- opening, rewinding, freeing ---- */

static void reset_body(prv_reader *r)
{
    r->nheap = r->nnow = r->headnow = 0;
    r->seq = r->records = 0;
    r->eof = r->started = 0;
    r->last_ticks = r->frontier = 0;
    r->last_type_known = -1;
    memset(r->used, 0, (size_t)r->model.nthreads);
    memset(r->leave_at, 0, (size_t)r->model.nthreads * sizeof *r->leave_at);
    rt_paraver_stats keep = r->st;
    memset(&r->st.states, 0, sizeof r->st - offsetof(rt_paraver_stats, states));
    r->st.has_pcf = keep.has_pcf;
    r->st.has_row = keep.has_row;
    memcpy(r->st.first_warning, keep.first_warning, sizeof keep.first_warning);
}

static int prv_rewind(rt_tsource *s, rt_err *err)
{
    prv_reader *r = (prv_reader *)s;
    int st = rt_lines_rewind(r->in, err);
    if (st != RT_OK)
        return st;
    const char *p;
    size_t len;
    while (!rt_lines_is_numbered(r->in) && rt_lines_lineno(r->in) + 1 < r->body_line)
        if ((st = rt_lines_next(r->in, &p, &len, err)) != RT_OK)
            return st == RT_EEOF ? rt_err_set(err, RT_EIO, "%s: changed while read", s->path) : st;
    reset_body(r);
    return RT_OK;
}

static uint64_t prv_offset(const rt_tsource *s) { return rt_lines_offset(((const prv_reader *)s)->in); }
static uint64_t prv_size(const rt_tsource *s) { return rt_lines_size(((const prv_reader *)s)->in); }

static void prv_free(rt_tsource *s)
{
    prv_reader *r = (prv_reader *)s;
    rt_lines_free(r->in);
    prv_model_free(&r->model);
    free(r->heap);
    free(r->now);
    free(r->used);
    free(r->leave_at);
    free(r);
}

static const rt_tsource_ops prv_ops = {"paraver", prv_next, prv_rewind, prv_offset, prv_size, prv_free};

rt_tsource *rt_paraver_open(const char *path, rt_err *err)
{
    prv_reader *r = calloc(1, sizeof *r);
    if (!r) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (rt_tsource_init(&r->base, &prv_ops, path, err) != RT_OK) {
        free(r);
        return NULL;
    }
    r->in = rt_lines_open(path, err);
    if (!r->in)
        goto fail;
    if (prv_read_header(r->in, path, &r->model, r->base.defs, err) != RT_OK)
        goto fail;
    rt_tdefs_set_outside(r->base.defs, RT_TC_IDLE); /* outside every state record: state 0, Idle */
    r->body_line = rt_lines_lineno(r->in) + 1;
    r->st.nappl = r->model.nappl;
    r->st.ntasks = r->model.ntasks;
    r->st.nthreads = r->model.nthreads;
    r->st.ftime = r->model.ftime;
    r->st.resolution = rt_tdefs_resolution(r->base.defs);
    r->used = calloc((size_t)r->model.nthreads, 1);
    r->leave_at = calloc((size_t)r->model.nthreads, sizeof *r->leave_at);
    if (!r->used || !r->leave_at) {
        nomem(r, err);
        goto fail;
    }
    if (prv_read_companions(&r->base, &r->model, &r->st.has_pcf, &r->st.has_row, err) != RT_OK)
        goto fail;
    /* the warnings of the open (a missing .pcf) wait in the source for the first
     * listener (rt_tsource_next hands them over); the first is also kept here */
    if (r->base.nearly)
        snprintf(r->st.first_warning, sizeof r->st.first_warning, "%s", r->base.early);
    reset_body(r);
    return &r->base;
fail:
    rt_tsource_free(&r->base);
    return NULL;
}

rt_tsource *rt_paraver_open_range(const char *path, uint64_t begin, uint64_t end, unsigned long lines_before,
                                  rt_err *err)
{
    rt_tsource *s = rt_paraver_open(path, err);
    if (!s)
        return NULL;
    prv_reader *r = (prv_reader *)s;
    r->part = 1;
    if (rt_lines_range(r->in, begin, end, lines_before, err) != RT_OK) {
        rt_tsource_free(s);
        return NULL;
    }
    return s;
}

rt_tsource *rt_paraver_open_numbered(const char *path, FILE *body, rt_err *err)
{
    rt_tsource *s = rt_paraver_open(path, err);
    if (!s)
        return NULL;
    prv_reader *r = (prv_reader *)s;
    r->part = 1;
    rt_lines *in = rt_lines_from_stream(body, path, err);
    if (!in) {
        rt_tsource_free(s);
        return NULL;
    }
    rt_lines_numbered(in, 1);
    rt_lines_free(r->in);
    r->in = in;
    return s;
}

uint64_t rt_paraver_body_offset(const rt_tsource *s)
{
    return s && s->ops == &prv_ops ? rt_lines_offset(((const prv_reader *)s)->in) : 0;
}

uint64_t rt_paraver_records(const rt_tsource *s)
{
    return s && s->ops == &prv_ops ? ((const prv_reader *)s)->records : 0;
}

int rt_paraver_define_state(rt_tsource *s, int64_t v)
{
    if (!s || s->ops != &prv_ops || v < 0 || v > RT_PARAVER_MAXSTATE)
        return RT_EINVAL;
    prv_reader *r = (prv_reader *)s;
    if (rt_tdefs_region(s->defs, RT_PARAVER_STATE_REGION(v)))
        return RT_OK;
    return prv_define_state(s->defs, (int)v, NULL, !r->st.has_pcf) == RT_OK ? RT_OK : RT_ENOMEM;
}

void rt_paraver_on_record(rt_tsource *s, rt_paraver_record_fn fn, void *ud)
{
    if (s && s->ops == &prv_ops) {
        ((prv_reader *)s)->on_record = fn;
        ((prv_reader *)s)->on_record_ud = ud;
    }
}

const rt_paraver_stats *rt_paraver_stats_of(const rt_tsource *s)
{
    return s && s->ops == &prv_ops ? &((const prv_reader *)s)->st : NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int rt_paraver_sniff(const char *path, const unsigned char *head, size_t n)
{
    static const char magic[] = "#Paraver (", newfmt[] = "new format\n";
    if (!head || (path && (ends_with(path, ".pcf") || ends_with(path, ".row"))))
        return 0;
    const char *h = (const char *)head;
    size_t m = sizeof magic - 1, k = sizeof newfmt - 1;
    if (n >= k && memcmp(h, newfmt, k) == 0) {
        h += k;
        n -= k;
    }
    return n >= m && memcmp(h, magic, m) == 0;
}
