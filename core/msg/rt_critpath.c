/*
 * rt_critpath.c - the critical path of a finished replay (see rt_replay.h):
 * walk back from the processor that ends last, jumping along the messages
 * whose arrival ended a wait of their receiver (the rule: rt_replay.h and the
 * README).
 *
 * The waits are kept in one append-only store: the newest CP_BLOCK waits in
 * memory, every older full block written to a temporary file. Each wait
 * links to the previous wait of its processor (prev1) and to an earlier one,
 * its anchor (far1), such that every wait of that processor after the anchor
 * was received no earlier than the anchor; a new anchor is taken every
 * CP_FAR waits of a processor (or sooner, when a wait breaks that order). The
 * walk back, looking on a processor for its latest wait received by a time t,
 * skips from anchor to anchor while an anchor is still later than t, then
 * steps back wait by wait: about n / CP_FAR + CP_FAR reads for n waits passed
 * over, instead of n. It reads the file in windows of records ending at
 * the one asked for, each read with one pread and reused while the walk stays
 * inside it (two windows: where the walk steps and where it probes anchors).
 * A window holds 16 to 1024 records: the size doubles while the walk moves
 * back just below a window (waits close together, as with few processors)
 * and halves while windows serve one read each (waits far apart, as with
 * many). Memory:
 * the block in memory, two windows and a few bytes per processor.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_critpath.h"
#include "rt_mem.h"
#include "rt_par_coll.h"
#include "rt_par_route.h"
#include "rt_replay_int.h"
#include "rt_spill.h"

#define CP_BLOCK 4096
#define CP_WINDOW_MIN 16
#define CP_WINDOW_MAX 1024
#define CP_FAR 32

/* Waits lo .. lo + n - 1 read back from the file. */
typedef struct cp_window {
    cp_wait w[CP_WINDOW_MAX];
    int64_t lo;
    int n;
    int used;                /* reads it served */
} cp_window;

/* A processor's current anchor. */
typedef struct cp_anchor {
    int64_t at1;             /* 1 + store index, 0 none */
    double recv_time;
    int n;                   /* waits added since */
} cp_anchor;

struct cp_store {
    rt_spill *waits;         /* every wait, in the order added; the newest block in memory */
    cp_window win[2];        /* read back: one where the walk steps, one where it probes anchors */
    int win_last;            /* the one used last */
    int win_size;            /* records read at a miss */
    cp_anchor *anchors;      /* per processor */
    size_t nanchors;
};

void rt_cp_free(cp_store *st)
{
    if (!st)
        return;
    rt_spill_free(st->waits);
    free(st->anchors);
    free(st);
}

int rt_cp_add(rt_replay *rp, int proc, int64_t *last1, const cp_wait *w)
{
    cp_store *st = rp->cps;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st)
            return RT_ENOMEM;
        if (!(st->waits = rt_spill_new(sizeof(cp_wait), CP_BLOCK))) {
            free(st);
            return RT_ENOMEM;
        }
        rp->cps = st;
    }
    if ((size_t)proc >= st->nanchors) {
        size_t n = st->nanchors;
        if (rt_grow((void **)&st->anchors, &st->nanchors, (size_t)proc + 1, sizeof *st->anchors) != RT_OK)
            return RT_ENOMEM;
        memset(st->anchors + n, 0, (st->nanchors - n) * sizeof *st->anchors);
    }
    cp_anchor *a = &st->anchors[proc];
    cp_wait e = *w;
    e.far1 = a->at1;
    if (rt_spill_append(st->waits, &e, 1) != RT_OK)
        return RT_EIO;
    *last1 = rt_spill_count(st->waits);
    if (!a->at1 || w->recv_time < a->recv_time || ++a->n >= CP_FAR)
        *a = (cp_anchor){*last1, w->recv_time, 0};
    return RT_OK;
}

/* The wait at store index i (0-based) copied to *w; RT_OK or RT_EIO. */
static int cp_get(cp_store *st, int64_t i, cp_wait *w)
{
    if (i >= rt_spill_file_bytes(st->waits) / (int64_t)sizeof *w) /* in memory: no window */
        return rt_spill_read(st->waits, i, 1, w);
    int k = st->win_last;
    if (i < st->win[k].lo || i >= st->win[k].lo + st->win[k].n)
        k ^= 1;
    cp_window *c = &st->win[k];
    if (i < c->lo || i >= c->lo + c->n) {
        /* the size follows the walk: larger while it moves back just below a window (waits close
         * together, as with few processors), smaller while windows serve one read each (waits
         * far apart, as with many) */
        k = st->win_last ^ 1; /* replace the one used less recently */
        c = &st->win[k];
        int near = 0;
        for (int j = 0; j < 2; j++)
            near |= st->win[j].n && i < st->win[j].lo && i >= st->win[j].lo - st->win_size;
        if (st->win_size == 0)
            st->win_size = CP_WINDOW_MIN;
        else if (near && st->win_size < CP_WINDOW_MAX)
            st->win_size *= 2;
        else if (!near && c->n && c->used <= 1 && st->win_size > CP_WINDOW_MIN)
            st->win_size /= 2;
        /* the walk goes back: the window ends at i */
        int64_t lo = i >= st->win_size - 1 ? i - (st->win_size - 1) : 0;
        c->n = c->used = 0;
        if (rt_spill_read(st->waits, lo, (size_t)(i - lo + 1), c->w) != RT_OK)
            return RT_EIO;
        c->lo = lo;
        c->n = (int)(i - lo + 1);
    }
    c->used++;
    st->win_last = k;
    *w = c->w[i - c->lo];
    return RT_OK;
}

/*
 * The latest wait of a processor, among its waits below 1 + index k1, that
 * was received by time t: into *w, returning 1 + its index; 0 when none;
 * -1 on a read error or a link that does not go back.
 */
static int64_t cp_latest(cp_store *st, int64_t k1, double t, cp_wait *w)
{
    while (k1 > 0) {
        if (cp_get(st, k1 - 1, w) != RT_OK)
            return -1;
        if (w->recv_time <= t)
            return k1;
        int64_t next = w->prev1;
        if (w->far1 > 0 && w->far1 < next) {
            cp_wait f;
            if (cp_get(st, w->far1 - 1, &f) != RT_OK)
                return -1;
            if (f.recv_time > t) /* so is every wait between it and w */
                next = w->far1;
        }
        if (next >= k1)
            return -1; /* links only go back: a damaged file */
        k1 = next;
    }
    return 0;
}

void rt_critical_path_clear(rt_critical_path *cp)
{
    if (!cp)
        return;
    free(cp->segments);
    free(cp->messages);
    memset(cp, 0, sizeof *cp);
}

/* One step of the walk back: the wait found (k1 = 1 + its index, 0 none, -1 unreadable)
 * and the processor's first record time. */
typedef struct cp_step {
    int64_t k1;
    cp_wait w;
    double first;
} cp_step;

#define CP_PATH_BLOCK 4096

struct rt_cp_path {
    rt_spill *parts;      /* in the walk's order: latest first */
    double start, end;
};

void rt_cp_path_free(rt_cp_path *p)
{
    if (!p)
        return;
    rt_spill_free(p->parts);
    free(p);
}

int64_t rt_cp_path_count(const rt_cp_path *p)
{
    return rt_spill_count(p->parts);
}

void rt_cp_path_span(const rt_cp_path *p, double *start, double *end, double *length)
{
    *start = p->start;
    *end = p->end;
    *length = p->end - p->start;
}

int rt_cp_path_read(rt_cp_path *p, int64_t first, int64_t n, rt_cp_part *out)
{
    int64_t total = rt_spill_count(p->parts);
    if (first < 0 || n < 0 || n > total - first)
        return RT_EINVAL;
    if (n == 0)
        return RT_OK;
    /* time order is the walk's backwards: parts total-first-n .. total-first-1, reversed */
    int st = rt_spill_read(p->parts, total - first - n, (size_t)n, out);
    if (st != RT_OK)
        return st;
    for (int64_t i = 0, j = n - 1; i < j; i++, j--) {
        rt_cp_part t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
    return RT_OK;
}

/*
 * The walk: from the latest processor of the run back to the start, appending
 * each segment found, with the message that leaves its end (the one whose arrival
 * began the segment found just before), to p->parts.
 */
rt_cp_path *rt_cp_path_new(const rt_replay *rp, rt_err *err)
{
    if (!rp->finished || !rp->o.critical_path) {
        rt_err_set(err, RT_ESTATE, "critical path: needs a finished replay with critical_path set");
        return NULL;
    }
    rt_cp_path *path = calloc(1, sizeof *path);
    if (!path || !(path->parts = rt_spill_new(sizeof(rt_cp_part), CP_PATH_BLOCK))) {
        free(path);
        rt_err_set(err, RT_ENOMEM, "critical path: out of memory");
        return NULL;
    }
    int p = -1, size = rp->o.own_size > 1 ? rp->o.own_size : 1;
    for (int i = 0; i < rp->nprocs; i++)
        if (rp->procs[i].pub.seen && rt_par_owns(i, rp->o.own_rank, size) &&
            (p < 0 || rp->procs[i].pub.last > rp->procs[p].pub.last))
            p = i;
    double tend = p >= 0 ? rp->procs[p].pub.last : -INFINITY;
    if (size > 1) { /* a distributed part: the latest processor of the job (smallest id of equals) */
        rt_par_maxloc(&tend, &p);
        if (tend == -INFINITY)
            p = -1;
    }
    if (p < 0)
        return path;
    int64_t *upto = malloc((size_t)(rp->nprocs + 1) * sizeof *upto); /* 1 + index of each proc's latest usable wait */
    if (!upto) {
        rt_cp_path_free(path);
        rt_err_set(err, RT_ENOMEM, "critical path: out of memory");
        return NULL;
    }
    for (int i = 0; i < rp->nprocs; i++)
        upto[i] = rp->procs[i].last_wait1;
    double t = tend;
    path->end = t;
    rt_cp_part part = {0}; /* part.msg: the message into the segment found last */
    for (;;) {
        /* one step back, taken by p's owner (every rank in a distributed part: a token walk) */
        cp_step step = {0};
        if (rt_par_owns(p, rp->o.own_rank, size)) {
            step.k1 = rp->cps && p < rp->nprocs ? cp_latest(rp->cps, upto[p], t, &step.w) : 0;
            if (step.k1 < 0 || (step.k1 > 0 && step.w.prev1 >= step.k1))
                step.k1 = -1;
            step.first = p < rp->nprocs ? rp->procs[p].pub.first : t;
        }
        if (size > 1)
            rt_par_bcast_bytes(&step, sizeof step, rt_par_owner_of(p, size));
        int64_t k1 = step.k1;
        cp_wait w = step.w;
        if (k1 < 0)
            goto ioerr;
        part.seg = (rt_cp_segment){p, k1 == 0 ? step.first : w.recv_time, t};
        if (rt_spill_append(path->parts, &part, 1) != RT_OK)
            goto ioerr;
        if (k1 == 0) {
            path->start = step.first;
            break;
        }
        if (p < rp->nprocs)
            upto[p] = w.prev1;
        part.has_msg = 1;
        part.msg = (rt_message){w.src, p, w.tag, w.bytes, w.send_time, w.recv_time, 0, w.comm};
        t = w.send_time;
        p = w.src;
    }
    free(upto);
    return path;
ioerr:
    free(upto);
    rt_cp_path_free(path);
    rt_err_set(err, RT_EIO, "critical path: cannot read back the waits' temporary file (or it is damaged)");
    return NULL;
}

int rt_replay_critical_path(const rt_replay *rp, rt_critical_path *cp, rt_err *err)
{
    memset(cp, 0, sizeof *cp);
    rt_err e;
    rt_cp_path *path = rt_cp_path_new(rp, &e);
    if (!path) {
        if (err)
            *err = e;
        return e.status;
    }
    int64_t n = rt_cp_path_count(path);
    rt_cp_path_span(path, &cp->start, &cp->end, &cp->length);
    if (n == 0) {
        rt_cp_path_free(path);
        return RT_OK;
    }
    int st = RT_ENOMEM;
    if (n > INT_MAX || !(cp->segments = malloc((size_t)n * sizeof *cp->segments)) ||
        (n > 1 && !(cp->messages = malloc((size_t)(n - 1) * sizeof *cp->messages))))
        goto fail;
    rt_cp_part buf[256];
    for (int64_t i = 0; i < n; i += 256) {
        int64_t k = n - i < 256 ? n - i : 256;
        if ((st = rt_cp_path_read(path, i, k, buf)) != RT_OK)
            goto fail;
        for (int64_t j = 0; j < k; j++) {
            cp->segments[cp->nsegments++] = buf[j].seg;
            if (buf[j].has_msg)
                cp->messages[cp->nmessages++] = buf[j].msg;
        }
    }
    rt_cp_path_free(path);
    return RT_OK;
fail:
    rt_cp_path_free(path);
    rt_critical_path_clear(cp);
    return rt_err_set(err, st, st == RT_ENOMEM ? "critical path: out of memory"
                                               : "critical path: cannot read back the path's temporary file");
}
