/* rt_timeline.c - the state / task raster (see rt_timeline.h). */
#include "rt_timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct tl_proc {
    int state, task;      /* current state (-1: counted elsewhere, rt_timeline_leave_out); current task (-1 none) */
    double since, tsince; /* accounted (for good) up to these times */
} tl_proc;

struct rt_timeline {
    int cols, rows, nprocs, ntasks, nslots;
    double t0, t1, dt;
    int tasks[RT_TIMELINE_MAXTASKS];
    tl_proc *procs;
    int *row;             /* per processor: its row (rt_timeline_row_of without a division per call) */
    int64_t *st;          /* cols * rows * RT_NSTATES, committed time in RT_TIMELINE_UNIT-ths of dt */
    int64_t *tk;          /* cols * rows * nslots */
    int64_t *pst, *ptk;   /* the same with the pending (current) parts up to `upto` added */
    double upto;          /* last advance time */
    int dirty;            /* committed changed since the pending copy was made */
};

int rt_timeline_new(const rt_timeline_opts *o, rt_timeline **out, rt_err *err)
{
    *out = NULL;
    if (o->cols < 1 || o->cols > 1 << 16)
        return rt_err_set(err, RT_EINVAL, "timeline: columns %d (1..65536)", o->cols);
    if (o->rows < 1 || o->rows > 1 << 16)
        return rt_err_set(err, RT_EINVAL, "timeline: rows %d (1..65536)", o->rows);
    if (o->nprocs < 1 || o->nprocs > RT_TE_MAXPROC)
        return rt_err_set(err, RT_EINVAL, "timeline: processors %d (at least 1)", o->nprocs);
    if (!isfinite(o->t0) || !isfinite(o->t1) || !(o->t0 < o->t1))
        return rt_err_set(err, RT_EINVAL, "timeline: window %g .. %g (start before end)", o->t0, o->t1);
    if (o->ntasks < 0 || o->ntasks > RT_TIMELINE_MAXTASKS)
        return rt_err_set(err, RT_EINVAL, "timeline: %d tasks (at most %d)", o->ntasks, RT_TIMELINE_MAXTASKS);
    if (o->place)
        for (int p = 0; p < o->nprocs; p++)
            if (o->place[p] < 0 || o->place[p] >= o->nprocs)
                return rt_err_set(err, RT_EINVAL, "timeline: place %d of processor %d (0..%d)",
                                  o->place[p], p, o->nprocs - 1);
    rt_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return rt_err_set(err, RT_ENOMEM, "timeline: out of memory");
    tl->cols = o->cols;
    tl->nprocs = o->nprocs;
    tl->rows = o->rows < o->nprocs ? o->rows : o->nprocs;
    tl->ntasks = o->ntasks;
    tl->nslots = o->ntasks + 1;
    if (o->ntasks)
        memcpy(tl->tasks, o->tasks, (size_t)o->ntasks * sizeof *tl->tasks);
    size_t cells = (size_t)tl->cols * (size_t)tl->rows;
    tl->procs = calloc((size_t)tl->nprocs, sizeof *tl->procs);
    tl->row = malloc((size_t)tl->nprocs * sizeof *tl->row);
    tl->st = calloc(cells * RT_NSTATES, sizeof *tl->st);
    tl->pst = calloc(cells * RT_NSTATES, sizeof *tl->pst);
    tl->tk = calloc(cells * (size_t)tl->nslots, sizeof *tl->tk);
    tl->ptk = calloc(cells * (size_t)tl->nslots, sizeof *tl->ptk);
    if (!tl->procs || !tl->row || !tl->st || !tl->pst || !tl->tk || !tl->ptk) {
        rt_timeline_free(tl);
        return rt_err_set(err, RT_ENOMEM, "timeline: out of memory");
    }
    for (int p = 0; p < tl->nprocs; p++) {
        tl->procs[p].state = RT_STATE_IDLE;
        tl->procs[p].task = -1;
        tl->row[p] = (int)((int64_t)(o->place ? o->place[p] : p) * tl->rows / tl->nprocs);
    }
    rt_timeline_set_window(tl, o->t0, o->t1, NULL);
    for (int p = 0; p < tl->nprocs; p++)
        tl->procs[p].since = tl->procs[p].tsince = o->t0;
    *out = tl;
    return RT_OK;
}

void rt_timeline_free(rt_timeline *tl)
{
    if (!tl)
        return;
    free(tl->procs);
    free(tl->row);
    free(tl->st);
    free(tl->pst);
    free(tl->tk);
    free(tl->ptk);
    free(tl);
}

int rt_timeline_set_window(rt_timeline *tl, double t0, double t1, rt_err *err)
{
    if (!isfinite(t0) || !isfinite(t1) || !(t0 < t1))
        return rt_err_set(err, RT_EINVAL, "timeline: window %g .. %g (start before end)", t0, t1);
    tl->t0 = t0;
    tl->t1 = t1;
    tl->dt = (t1 - t0) / tl->cols;
    size_t cells = (size_t)tl->cols * (size_t)tl->rows;
    memset(tl->st, 0, cells * RT_NSTATES * sizeof *tl->st);
    memset(tl->tk, 0, cells * (size_t)tl->nslots * sizeof *tl->tk);
    memset(tl->pst, 0, cells * RT_NSTATES * sizeof *tl->pst);
    memset(tl->ptk, 0, cells * (size_t)tl->nslots * sizeof *tl->ptk);
    tl->upto = -INFINITY;
    tl->dirty = 0;
    return RT_OK;
}

/* Shift every row of v (stride slots per cell) by k columns, zeroing what comes in. */
static void shift(const rt_timeline *tl, int64_t *v, int stride, int k)
{
    size_t W = (size_t)tl->cols, cs = (size_t)stride * sizeof *v;
    for (int r = 0; r < tl->rows; r++) {
        int64_t *row = v + (size_t)r * W * (size_t)stride;
        if (k >= tl->cols || -k >= tl->cols) {
            memset(row, 0, W * cs);
        } else if (k > 0) {
            memmove(row, row + (size_t)k * (size_t)stride, (W - (size_t)k) * cs);
            memset(row + (W - (size_t)k) * (size_t)stride, 0, (size_t)k * cs);
        } else if (k < 0) {
            size_t m = (size_t)-k;
            memmove(row + m * (size_t)stride, row, (W - m) * cs);
            memset(row, 0, m * cs);
        }
    }
}

void rt_timeline_scroll(rt_timeline *tl, int k)
{
    if (k == 0)
        return;
    shift(tl, tl->st, RT_NSTATES, k);
    shift(tl, tl->tk, tl->nslots, k);
    shift(tl, tl->pst, RT_NSTATES, k); /* the copy with the current states stays readable */
    shift(tl, tl->ptk, tl->nslots, k);
    tl->t0 += k * tl->dt;
    tl->t1 = tl->t0 + tl->cols * tl->dt;
}

int rt_timeline_row_of(const rt_timeline *tl, int p)
{
    if (p < 0 || p >= tl->nprocs)
        return -1;
    return tl->row[p];
}

int rt_timeline_row_procs(const rt_timeline *tl, int r, int *count)
{
    /* first p with p * R / P >= r: ceil(r * P / R) */
    int64_t a = ((int64_t)r * tl->nprocs + tl->rows - 1) / tl->rows;
    int64_t b = ((int64_t)(r + 1) * tl->nprocs + tl->rows - 1) / tl->rows;
    if (count)
        *count = r >= 0 && r < tl->rows ? (int)(b - a) : 0;
    return (int)a;
}

/*
 * Time a as a fixed-point place in the raster: columns from t0 in units of
 * 1 / RT_TIMELINE_UNIT of a column, clamped to the window. Every cell sums
 * whole units, so a cell's time is the same whatever order the processors that
 * share it were fed in (or whichever ranks of a job fed them: their rasters add
 * up exactly), and a processor's segments tile its time without a gap.
 */
static int64_t place_of(const rt_timeline *tl, double a)
{
    if (!(a > tl->t0))
        return 0;
    if (a >= tl->t1)
        return (int64_t)tl->cols * RT_TIMELINE_UNIT;
    return llround((a - tl->t0) / tl->dt * (double)RT_TIMELINE_UNIT);
}

/* Add [a, b] (clipped to the window) to slot k of the row's cells in array v of `stride` slots per cell. */
static void spread(const rt_timeline *tl, int64_t *v, int stride, int row, int k, double a, double b)
{
    int64_t x = place_of(tl, a), e = place_of(tl, b);
    if (e <= x)
        return;
    int64_t c = x / RT_TIMELINE_UNIT;
    int64_t *base = v + (size_t)row * (size_t)tl->cols * (size_t)stride;
    while (x < e) {
        int64_t ce = (c + 1) * RT_TIMELINE_UNIT, y = e < ce ? e : ce;
        base[(size_t)c * (size_t)stride + (size_t)k] += y - x;
        x = y;
        c++;
    }
}

static int task_slot(const rt_timeline *tl, int task)
{
    for (int i = 0; i < tl->ntasks; i++)
        if (tl->tasks[i] == task)
            return i;
    return tl->ntasks;
}

void rt_timeline_state(rt_timeline *tl, int proc, double t, int old_state, int new_state)
{
    (void)old_state;
    if (proc < 0 || proc >= tl->nprocs || (unsigned)new_state >= RT_NSTATES)
        return;
    tl_proc *p = &tl->procs[proc];
    if (p->state < 0)
        return;
    if (t > p->since) {
        spread(tl, tl->st, RT_NSTATES, rt_timeline_row_of(tl, proc), p->state, p->since, t);
        tl->dirty = 1;
        p->since = t;
    }
    p->state = new_state;
}

void rt_timeline_task(rt_timeline *tl, int proc, double t, int old_task, int new_task)
{
    (void)old_task;
    if (proc < 0 || proc >= tl->nprocs)
        return;
    tl_proc *p = &tl->procs[proc];
    if (p->state < 0)
        return;
    if (t > p->tsince) {
        if (p->task >= 0) {
            spread(tl, tl->tk, tl->nslots, tl->row[proc], task_slot(tl, p->task), p->tsince, t);
            tl->dirty = 1;
        }
        p->tsince = t;
    }
    p->task = new_task;
}

void rt_timeline_advance(rt_timeline *tl, double t)
{
    size_t cells = (size_t)tl->cols * (size_t)tl->rows;
    memcpy(tl->pst, tl->st, cells * RT_NSTATES * sizeof *tl->st);
    memcpy(tl->ptk, tl->tk, cells * (size_t)tl->nslots * sizeof *tl->tk);
    for (int i = 0; i < tl->nprocs; i++) {
        const tl_proc *p = &tl->procs[i];
        if (p->state < 0)
            continue;
        int row = rt_timeline_row_of(tl, i);
        if (t > p->since)
            spread(tl, tl->pst, RT_NSTATES, row, p->state, p->since, t);
        if (p->task >= 0 && t > p->tsince)
            spread(tl, tl->ptk, tl->nslots, row, task_slot(tl, p->task), p->tsince, t);
    }
    tl->upto = t;
    tl->dirty = 0;
}

void rt_timeline_leave_out(rt_timeline *tl, int proc)
{
    if (proc >= 0 && proc < tl->nprocs)
        tl->procs[proc].state = -1;
}

static void tap_state(void *ud, int proc, double t, int o, int n) { rt_timeline_state(ud, proc, t, o, n); }
static void tap_task(void *ud, int proc, double t, int o, int n) { rt_timeline_task(ud, proc, t, o, n); }

int rt_timeline_attach(rt_timeline *tl, rt_replay *rp)
{
    rt_replay_tap tap = {.ud = tl, .on_state = tap_state, .on_task = tap_task};
    return rt_replay_add_tap(rp, &tap);
}

void rt_timeline_detach(rt_timeline *tl, rt_replay *rp) { rt_replay_remove_tap(rp, tl); }

int rt_timeline_cols(const rt_timeline *tl) { return tl->cols; }
int rt_timeline_rows(const rt_timeline *tl) { return tl->rows; }
int rt_timeline_ntasks(const rt_timeline *tl) { return tl->ntasks; }

void rt_timeline_window(const rt_timeline *tl, double *t0, double *t1)
{
    *t0 = tl->t0;
    *t1 = tl->t1;
}

/* The array to read: the committed one, or with the pending parts when an advance is current. */
static const int64_t *states_of(const rt_timeline *tl)
{
    return tl->upto > -INFINITY && !tl->dirty ? tl->pst : tl->st;
}

static const int64_t *tasks_of(const rt_timeline *tl)
{
    return tl->upto > -INFINITY && !tl->dirty ? tl->ptk : tl->tk;
}

static double units_to_seconds(const rt_timeline *tl, int64_t v)
{
    return (double)v / (double)RT_TIMELINE_UNIT * tl->dt;
}

static int in_raster(const rt_timeline *tl, int c, int r)
{
    return c >= 0 && c < tl->cols && r >= 0 && r < tl->rows;
}

double rt_timeline_state_time(const rt_timeline *tl, int c, int r, int s)
{
    if (!in_raster(tl, c, r) || (unsigned)s >= RT_NSTATES)
        return 0;
    return units_to_seconds(tl, states_of(tl)[((size_t)r * (size_t)tl->cols + (size_t)c) * RT_NSTATES + (size_t)s]);
}

double rt_timeline_task_time(const rt_timeline *tl, int c, int r, int k)
{
    if (!in_raster(tl, c, r) || k < 0 || k >= tl->nslots)
        return 0;
    return units_to_seconds(tl, tasks_of(tl)[((size_t)r * (size_t)tl->cols + (size_t)c) * (size_t)tl->nslots + (size_t)k]);
}

static int argmax(const int64_t *v, int n)
{
    int best = -1;
    int64_t bv = 0;
    for (int i = n - 1; i >= 0; i--) /* from the top: ties go to the higher index */
        if (v[i] > bv) {
            bv = v[i];
            best = i;
        }
    return best;
}

int rt_timeline_dominant(const rt_timeline *tl, int c, int r)
{
    if (!in_raster(tl, c, r))
        return -1;
    return argmax(states_of(tl) + ((size_t)r * (size_t)tl->cols + (size_t)c) * RT_NSTATES, RT_NSTATES);
}

int rt_timeline_dominant_task(const rt_timeline *tl, int c, int r)
{
    if (!in_raster(tl, c, r))
        return -1;
    return argmax(tasks_of(tl) + ((size_t)r * (size_t)tl->cols + (size_t)c) * (size_t)tl->nslots, tl->nslots);
}

int rt_timeline_fill_grid(const rt_timeline *tl, int which, rt_grid *g, rt_err *err)
{
    if (g->w != tl->cols || g->h != tl->rows)
        return rt_err_set(err, RT_ERANGE, "timeline: grid %dx%d for a %dx%d raster", g->w, g->h, tl->cols, tl->rows);
    for (int r = 0; r < tl->rows; r++)
        for (int c = 0; c < tl->cols; c++)
            g->cells[(size_t)r * (size_t)g->w + (size_t)c] =
                which ? rt_timeline_dominant_task(tl, c, r) : rt_timeline_dominant(tl, c, r);
    return RT_OK;
}

int64_t *rt_timeline_state_cells(rt_timeline *tl, size_t *n)
{
    *n = (size_t)tl->cols * (size_t)tl->rows * RT_NSTATES;
    return (int64_t *)states_of(tl);
}
