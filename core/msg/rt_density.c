/*
 * rt_density.c - whole-window state raster and message density of a replay
 * (see rt_density.h).
 */
#include "rt_density.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"
#include "rt_par.h"
#include "rt_par_route.h"

struct rt_density {
    rt_density_opts o;
    rt_timeline *tl;
    int *pos;             /* processor id -> position in the selection, -1 not chosen */
    int *sel;             /* position -> processor id */
    int nsel, rows;
    rt_density_line *lines;
    size_t nlines, caplines;
    int dense;            /* 1: passed max_lines, lines folded into count */
    uint32_t *count;      /* rows x cols */
    uint32_t maxc;
    int64_t messages, tachyons;
};

/* 1 when processor p is this part's (every processor when the picture is not split): the
 * distributed replay's ownership rule (rt_par_route.h), so the part draws what its replay holds. */
static int mine(const rt_density *d, int p)
{
    return rt_par_owns(p, d->o.part, d->o.parts);
}

int rt_density_new(const rt_density_opts *o, rt_density **out, rt_err *err)
{
    *out = NULL;
    if (o->cols < 1 || o->rows < 1 || o->nprocs < 1 || o->max_lines < 0 || !(o->t0 < o->t1) ||
        !isfinite(o->t0) || !isfinite(o->t1) || o->nsel < 0 || (o->nsel > 0 && !o->sel) ||
        (o->parts > 1 && (o->part < 0 || o->part >= o->parts)))
        return rt_err_set(err, RT_EINVAL, "density: bad sizes or window");
    rt_density *d = calloc(1, sizeof *d);
    if (!d)
        return rt_err_set(err, RT_ENOMEM, "density: out of memory");
    d->o = *o;
    d->nsel = o->nsel > 0 ? o->nsel : o->nprocs;
    d->pos = malloc((size_t)o->nprocs * sizeof *d->pos);
    d->sel = malloc((size_t)d->nsel * sizeof *d->sel);
    if (!d->pos || !d->sel)
        goto nomem;
    for (int p = 0; p < o->nprocs; p++)
        d->pos[p] = o->nsel > 0 ? -1 : p;
    for (int i = 0; i < d->nsel; i++) {
        int p = o->nsel > 0 ? o->sel[i] : i;
        if (p < 0 || p >= o->nprocs) {
            rt_density_free(d);
            return rt_err_set(err, RT_EINVAL, "density: processor %d is not in 0 .. %d", p, o->nprocs - 1);
        }
        d->sel[i] = p;
        d->pos[p] = i;
    }
    d->o.sel = NULL;
    rt_timeline_opts to = {o->cols, o->rows, d->nsel, o->t0, o->t1, 0, NULL, NULL};
    if (rt_timeline_new(&to, &d->tl, err) != RT_OK) {
        rt_density_free(d);
        return err->status;
    }
    if (o->parts > 1)
        for (int i = 0; i < d->nsel; i++)
            if (!mine(d, d->sel[i]))
                rt_timeline_leave_out(d->tl, i);
    d->rows = rt_timeline_rows(d->tl);
    d->count = calloc((size_t)d->rows * (size_t)o->cols, sizeof *d->count);
    if (!d->count)
        goto nomem;
    *out = d;
    return RT_OK;
nomem:
    rt_density_free(d);
    return rt_err_set(err, RT_ENOMEM, "density: out of memory");
}

void rt_density_free(rt_density *d)
{
    if (!d)
        return;
    rt_timeline_free(d->tl);
    free(d->pos);
    free(d->sel);
    free(d->lines);
    free(d->count);
    free(d);
}

static void on_state(void *ud, int proc, double t, int old_state, int new_state)
{
    rt_density *d = ud;
    if (proc >= 0 && proc < d->o.nprocs && d->pos[proc] >= 0)
        rt_timeline_state(d->tl, d->pos[proc], t, old_state, new_state);
}

/* Column of time t, clamped to the picture. */
static double col_of(const rt_density *d, double t)
{
    return (t - d->o.t0) / (d->o.t1 - d->o.t0) * d->o.cols;
}

/* Add one line to the density: one count per cell it crosses (DDA, clipped to the columns). */
static void rasterize(rt_density *d, const rt_density_line *l)
{
    double x0 = col_of(d, l->send), x1 = col_of(d, l->recv);
    double y0 = (double)l->src * d->rows / d->nsel, y1 = (double)l->dst * d->rows / d->nsel;
    y0 = floor(y0), y1 = floor(y1);
    int W = d->o.cols;
    double dx = x1 - x0, dy = y1 - y0;
    double n = ceil(fmax(fabs(dx), fabs(dy)));
    if (n < 1)
        n = 1;
    if (n > 4.0 * (W + d->rows))
        n = 4.0 * (W + d->rows);
    int lastc = -1, lastr = -1;
    for (int k = 0; k <= (int)n; k++) {
        double x = x0 + dx * k / n, y = y0 + dy * k / n;
        int c = (int)floor(x), r = (int)floor(y + 0.5);
        if (c == W && x == W)
            c = W - 1;
        if (c < 0 || c >= W || r < 0 || r >= d->rows || (c == lastc && r == lastr))
            continue;
        lastc = c, lastr = r;
        uint32_t *v = &d->count[(size_t)r * W + c];
        if (*v < UINT32_MAX)
            (*v)++;
        if (*v > d->maxc)
            d->maxc = *v;
    }
}

/* Switch to the density: the lines kept so far become counts. */
static void fold(rt_density *d)
{
    if (d->dense)
        return;
    d->dense = 1;
    for (size_t i = 0; i < d->nlines; i++)
        rasterize(d, &d->lines[i]);
    free(d->lines);
    d->lines = NULL;
    d->nlines = d->caplines = 0;
}

static void on_message(void *ud, const rt_message *m)
{
    rt_density *d = ud;
    if (m->src < 0 || m->dst < 0 || m->src >= d->o.nprocs || m->dst >= d->o.nprocs)
        return;
    int a = d->pos[m->src], b = d->pos[m->dst];
    if (a < 0 || b < 0 || isnan(m->recv_time) || !mine(d, m->dst))
        return;
    double lo = fmin(m->send_time, m->recv_time), hi = fmax(m->send_time, m->recv_time);
    if (hi < d->o.t0 || lo > d->o.t1)
        return;
    d->messages++;
    if (m->tachyon)
        d->tachyons++;
    rt_density_line l = {a, b, m->send_time, m->recv_time};
    if (!d->dense && d->nlines < (size_t)d->o.max_lines &&
        rt_grow((void **)&d->lines, &d->caplines, d->nlines + 1, sizeof *d->lines) == RT_OK) {
        d->lines[d->nlines++] = l;
        return;
    }
    fold(d);
    rasterize(d, &l);
}

void rt_density_attach(rt_density *d, rt_replay_opts *o)
{
    o->ud = d;
    o->on_state = on_state;
    o->on_message = on_message;
}

static int line_cmp(const void *pa, const void *pb)
{
    const rt_density_line *a = pa, *b = pb;
    if (a->send != b->send)
        return a->send < b->send ? -1 : 1;
    if (a->recv != b->recv)
        return a->recv < b->recv ? -1 : 1;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    return (a->dst > b->dst) - (a->dst < b->dst);
}

void rt_density_finish(rt_density *d)
{
    rt_timeline_advance(d->tl, d->o.t1);
    if (d->nlines > 1)
        qsort(d->lines, d->nlines, sizeof *d->lines, line_cmp);
}

int rt_density_reduce(rt_density *d, rt_err *err)
{
#ifdef RETRACE_HAVE_MPI
    if (d->o.parts <= 1 || rt_par_size() <= 1)
        return RT_OK;
    MPI_Comm comm = rt_par_comm();
    int root = rt_par_rank() == 0;
    int64_t mine_n[2] = {d->messages, d->tachyons}, all_n[2] = {0, 0};
    if (MPI_Allreduce(mine_n, all_n, 2, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        return rt_err_set(err, RT_EIO, "density: the ranks' message counts could not be summed");
    int rc = MPI_SUCCESS;
    /* the raster: whole units summed */
    size_t n = 0;
    int64_t *cells = rt_timeline_state_cells(d->tl, &n);
    for (size_t off = 0; rc == MPI_SUCCESS && off < n; off += 1 << 24) {
        int k = (int)(n - off < (size_t)1 << 24 ? n - off : (size_t)1 << 24);
        rc = root ? MPI_Reduce(MPI_IN_PLACE, cells + off, k, MPI_INT64_T, MPI_SUM, 0, comm)
                  : MPI_Reduce(cells + off, NULL, k, MPI_INT64_T, MPI_SUM, 0, comm);
    }
    if (all_n[0] > d->o.max_lines) {
        /* the whole picture has more messages than lines: every part folds, the counts add up */
        fold(d);
        size_t nc = (size_t)d->rows * (size_t)d->o.cols;
        for (size_t off = 0; rc == MPI_SUCCESS && off < nc; off += 1 << 24) {
            int k = (int)(nc - off < (size_t)1 << 24 ? nc - off : (size_t)1 << 24);
            rc = root ? MPI_Reduce(MPI_IN_PLACE, d->count + off, k, MPI_UINT32_T, MPI_SUM, 0, comm)
                      : MPI_Reduce(d->count + off, NULL, k, MPI_UINT32_T, MPI_SUM, 0, comm);
        }
        d->maxc = 0;
        for (size_t i = 0; i < nc; i++)
            if (d->count[i] > d->maxc)
                d->maxc = d->count[i];
    } else if (rc == MPI_SUCCESS) {
        /* few enough: every part's lines to rank 0, put in the one order */
        int size = rt_par_size(), mybytes = (int)(d->nlines * sizeof *d->lines);
        int *counts = root ? calloc((size_t)size, sizeof *counts) : NULL;
        int *displs = root ? calloc((size_t)size, sizeof *displs) : NULL;
        rt_density_line *all = NULL;
        int bad = root && (!counts || !displs);
        rc = MPI_Gather(&mybytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
        if (rc == MPI_SUCCESS && root && !bad) {
            for (int r = 1; r < size; r++)
                displs[r] = displs[r - 1] + counts[r - 1];
            all = malloc((size_t)all_n[0] * sizeof *all + 1);
            bad = !all;
        }
        if (rc == MPI_SUCCESS)
            rc = MPI_Gatherv(d->lines, mybytes, MPI_BYTE, bad ? NULL : all, counts, displs, MPI_BYTE, 0, comm);
        if (root && !bad) {
            free(d->lines);
            d->lines = all;
            d->nlines = d->caplines = (size_t)all_n[0];
            if (d->nlines > 1)
                qsort(d->lines, d->nlines, sizeof *d->lines, line_cmp);
        } else {
            free(all);
        }
        free(counts);
        free(displs);
        if (bad)
            rc = MPI_ERR_NO_MEM;
    }
    if (rt_par_agree(rc != MPI_SUCCESS))
        return rt_err_set(err, RT_EIO, "density: the ranks' pictures could not be combined");
    d->messages = all_n[0];
    d->tachyons = all_n[1];
    return RT_OK;
#else
    (void)d;
    (void)err;
    return RT_OK;
#endif
}

const rt_timeline *rt_density_timeline(const rt_density *d) { return d->tl; }
int rt_density_nsel(const rt_density *d) { return d->nsel; }
int rt_density_sel(const rt_density *d, int i) { return i >= 0 && i < d->nsel ? d->sel[i] : -1; }
int64_t rt_density_messages(const rt_density *d) { return d->messages; }
int64_t rt_density_tachyons(const rt_density *d) { return d->tachyons; }
uint32_t rt_density_max(const rt_density *d) { return d->maxc; }

const rt_density_line *rt_density_lines(const rt_density *d, int *n)
{
    *n = d->dense ? 0 : (int)d->nlines;
    return d->dense ? NULL : d->lines;
}

uint32_t rt_density_count(const rt_density *d, int c, int r)
{
    if (c < 0 || c >= d->o.cols || r < 0 || r >= d->rows)
        return 0;
    return d->count[(size_t)r * d->o.cols + c];
}

void rt_density_fill(const rt_density *d, int which, int levels, int32_t *out)
{
    int W = d->o.cols;
    double lm = log1p((double)d->maxc);
    for (int r = 0; r < d->rows; r++)
        for (int c = 0; c < W; c++) {
            int32_t v;
            if (which == 0) {
                v = rt_timeline_dominant(d->tl, c, r);
            } else if (which == 2) {
                double b = rt_timeline_state_time(d->tl, c, r, RT_STATE_BUSY);
                double o = rt_timeline_state_time(d->tl, c, r, RT_STATE_OVERHEAD);
                double tot = b + o + rt_timeline_state_time(d->tl, c, r, RT_STATE_IDLE);
                if (tot <= 0 || levels < 1) {
                    v = -1;
                } else {
                    int nb = (int)floor(levels * b / tot + 0.5), no = (int)floor(levels * o / tot + 0.5);
                    if (nb + no > levels)
                        no = levels - nb;
                    v = nb * (levels + 1) + no;
                }
            } else {
                uint32_t n = d->count[(size_t)r * W + c];
                if (n == 0 || levels < 1) {
                    v = -1;
                } else {
                    v = lm > 0 ? (int32_t)(levels * log1p((double)n) / lm) : 0;
                    if (v >= levels)
                        v = levels - 1;
                }
            }
            out[(size_t)r * W + c] = v;
        }
}

const uint32_t *rt_density_counts(const rt_density *d) { return d->count; }

void rt_density_halve(const float *in, int cols, int rows, float *out)
{
    int c2 = (cols + 1) / 2;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < c2; c++) {
            const float *p = in + (size_t)r * cols + 2 * c;
            out[(size_t)r * c2 + c] = 2 * c + 1 < cols ? p[0] + p[1] : p[0];
        }
}

void rt_density_halve_counts(const uint32_t *in, int cols, int rows, uint32_t *out)
{
    int c2 = (cols + 1) / 2;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < c2; c++) {
            const uint32_t *p = in + (size_t)r * cols + 2 * c;
            uint64_t s = 2 * c + 1 < cols ? (uint64_t)p[0] + p[1] : p[0];
            out[(size_t)r * c2 + c] = s > UINT32_MAX ? UINT32_MAX : (uint32_t)s;
        }
}

void rt_density_dominant3(const float *idle, const float *overhead, const float *busy, size_t n, uint8_t *out)
{
    for (size_t k = 0; k < n; k++) {
        float i = idle[k], o = overhead[k], b = busy[k];
        if (i + o + b <= 0)
            out[k] = 0;
        else if (b >= o && b >= i)
            out[k] = 3;
        else if (o >= i)
            out[k] = 2;
        else
            out[k] = 1;
    }
}

void rt_density_levels(const uint32_t *count, size_t n, int levels, uint8_t *out)
{
    uint32_t mx = 0;
    for (size_t k = 0; k < n; k++)
        if (count[k] > mx)
            mx = count[k];
    double lm = log1p((double)mx);
    for (size_t k = 0; k < n; k++) {
        if (count[k] == 0 || levels < 1) {
            out[k] = 0;
            continue;
        }
        int v = lm > 0 ? 1 + (int)(levels * log1p((double)count[k]) / lm) : 1;
        out[k] = (uint8_t)(v > levels ? levels : v);
    }
}
