/*
 * rt_index_counters.c - the index's per-column counter summaries (see
 * rt_index_counters.h): built as the samples stream, written after the state
 * summaries, read by rt_index_counter_summary.
 *
 * The build keeps, per (processor, counter) pair met, its last sample and C
 * cells of the finest grid (columns of width colw from the origin). The grid
 * doubles its width (pairs of cells merge) when a sample falls past its end,
 * and halves its number of columns the same way when a new pair would pass the
 * cell budget, so memory stays within IX_K_CELL_BUDGET cells.
 */
#include "rt_index_counters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_chanmap.h"
#include "rt_mem.h"

/* Cells of the finest grid over all pairs, and the bounds on its columns per pair. */
#define IX_K_CELL_BUDGET (1u << 17)
#define IX_K_COLS_MAX 1024
#define IX_K_COLS_MIN 16
/* The finest level written keeps at least this many samples per column of a pair on average. */
#define IX_K_SAMPLES_PER_COLUMN 8

typedef struct ix_khead {
    int64_t origin, colw0;
    uint32_t levels, nrows;
} ix_khead;

typedef struct kcell { /* while building: the value's integral, not its mean */
    double lo, hi, area, cover;
} kcell;

typedef struct kpair {
    int32_t proc, counter;
    int has_prev;
    int64_t tprev;
    double vprev;
    uint64_t nsamples;
} kpair;

typedef struct kent {
    rt_chankey key;
    size_t row;
} kent;

struct ix_kbuild {
    rt_chanmap map;           /* (proc, counter) -> row */
    kpair *pairs;
    size_t npairs, cappairs;
    kcell *cells;             /* npairs x C */
    size_t capcells;          /* in cells */
    size_t C;
    int started;
    int64_t origin, colw;
};

static void cell_clear(kcell *c)
{
    *c = (kcell){INFINITY, -INFINITY, 0, 0};
}

static void cell_fold(kcell *d, const kcell *a, const kcell *b)
{
    kcell r = {a->lo < b->lo ? a->lo : b->lo, a->hi > b->hi ? a->hi : b->hi, a->area + b->area, a->cover + b->cover};
    *d = r;
}

ix_kbuild *ix_kbuild_new(void)
{
    ix_kbuild *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    rt_chanmap_init(&k->map, sizeof(kent));
    k->C = IX_K_COLS_MAX;
    k->colw = 1;
    return k;
}

void ix_kbuild_free(ix_kbuild *k)
{
    if (!k)
        return;
    rt_chanmap_free(&k->map);
    free(k->pairs);
    free(k->cells);
    free(k);
}

/* Merge each row's pairs of cells: rows of C cells become rows of C / 2 (stride halves too when
 * pack, else the row keeps stride C with its second half cleared). */
static void merge_pairs(ix_kbuild *k, int pack)
{
    size_t C = k->C, H = C / 2;
    for (size_t r = 0; r < k->npairs; r++) {
        kcell *row = &k->cells[r * C], *out = pack ? &k->cells[r * H] : row;
        for (size_t i = 0; i < H; i++)
            cell_fold(&out[i], &row[2 * i], &row[2 * i + 1]);
        if (!pack)
            for (size_t i = H; i < C; i++)
                cell_clear(&row[i]);
    }
}

/* The value v held over [a, e) into row r's cells. */
static void hold(ix_kbuild *k, size_t r, int64_t a, int64_t e, double v)
{
    if (e <= a)
        return;
    int64_t span = (int64_t)k->C * k->colw;
    if (a - k->origin >= span)
        return;
    if (e - k->origin > span)
        e = k->origin + span;
    int64_t c0 = (a - k->origin) / k->colw, c1 = (e - 1 - k->origin) / k->colw;
    kcell *row = &k->cells[r * k->C];
    for (int64_t c = c0; c <= c1; c++) {
        int64_t lo = k->origin + c * k->colw, hi = lo + k->colw;
        if (lo < a)
            lo = a;
        if (hi > e)
            hi = e;
        kcell *x = &row[c];
        if (v < x->lo)
            x->lo = v;
        if (v > x->hi)
            x->hi = v;
        x->area += v * (double)(hi - lo);
        x->cover += (double)(hi - lo);
    }
}

/* The row of (proc, counter), made when new (halving the columns when the budget asks). */
static int row_of(ix_kbuild *k, int proc, int counter, size_t *row)
{
    kent *e = rt_chanmap_get(&k->map, proc, counter, 0, 0);
    if (!e)
        return RT_ENOMEM;
    if (e->row) {
        *row = e->row - 1;
        return RT_OK;
    }
    size_t r = k->npairs;
    while ((r + 1) * k->C > IX_K_CELL_BUDGET && k->C > IX_K_COLS_MIN) {
        merge_pairs(k, 1);
        k->C /= 2;
        k->colw *= 2;
    }
    if (rt_grow((void **)&k->pairs, &k->cappairs, r + 1, sizeof *k->pairs) != RT_OK ||
        rt_grow((void **)&k->cells, &k->capcells, (r + 1) * k->C, sizeof *k->cells) != RT_OK)
        return RT_ENOMEM;
    k->pairs[r] = (kpair){proc, counter, 0, 0, 0, 0};
    for (size_t i = 0; i < k->C; i++)
        cell_clear(&k->cells[r * k->C + i]);
    e->row = r + 1;
    k->npairs = r + 1;
    *row = r;
    return RT_OK;
}

int ix_kbuild_sample(ix_kbuild *k, int64_t origin, int proc, int counter, int64_t t, double v)
{
    if (!k->started) {
        k->started = 1;
        k->origin = origin;
    }
    if (t < k->origin)
        t = k->origin;
    size_t r;
    if (row_of(k, proc, counter, &r) != RT_OK)
        return RT_ENOMEM;
    while (t - k->origin >= (int64_t)k->C * k->colw) {
        merge_pairs(k, 0);
        k->colw *= 2;
    }
    kpair *p = &k->pairs[r];
    if (p->has_prev && t < p->tprev)
        t = p->tprev;
    if (p->has_prev)
        hold(k, r, p->tprev, t, p->vprev);
    p->has_prev = 1;
    p->tprev = t;
    p->vprev = v;
    p->nsamples++;
    return RT_OK;
}

/* A row in the written order: by counter, then processor. */
typedef struct krow {
    int32_t counter, proc;
    size_t row;
} krow;

static int krow_cmp(const void *a, const void *b)
{
    const krow *x = a, *y = b;
    if (x->counter != y->counter)
        return x->counter < y->counter ? -1 : 1;
    return (x->proc > y->proc) - (x->proc < y->proc);
}

int ix_kbuild_write(ix_kbuild *k, int64_t tend, int (*put)(void *ud, const void *p, size_t n), void *ud)
{
    ix_khead h = {k->origin, 0, 0, (uint32_t)k->npairs};
    if (!k->npairs)
        return put(ud, &h, sizeof h) ? RT_EIO : RT_OK;
    uint64_t total = 0;
    while (tend - k->origin >= (int64_t)k->C * k->colw) {
        merge_pairs(k, 0);
        k->colw *= 2;
    }
    for (size_t r = 0; r < k->npairs; r++) {
        kpair *p = &k->pairs[r];
        if (p->has_prev)
            hold(k, r, p->tprev, tend, p->vprev);
        total += p->nsamples;
    }
    /* the finest level with enough samples per column (over the columns the run uses) */
    int lc = 0;
    while (((size_t)1 << lc) < k->C)
        lc++;
    int lf = lc;
    double per_pair = (double)total / (double)k->npairs;
    while (lf > 0) {
        double used = ceil((double)(tend - k->origin + 1) / (double)(k->colw << (lc - lf)));
        if (per_pair / (used < 1 ? 1 : used) >= IX_K_SAMPLES_PER_COLUMN)
            break;
        lf--;
    }
    h.levels = (uint32_t)lf + 1;
    h.colw0 = k->colw << lc;
    krow *order = malloc(k->npairs * sizeof *order);
    rt_ix_ksum *tmp = malloc(((size_t)1 << lf) * sizeof *tmp);
    int32_t *rows = malloc(2 * k->npairs * sizeof *rows);
    int rc = order && tmp && rows ? RT_OK : RT_ENOMEM;
    for (size_t r = 0; !rc && r < k->npairs; r++)
        order[r] = (krow){k->pairs[r].counter, k->pairs[r].proc, r};
    if (!rc) {
        qsort(order, k->npairs, sizeof *order, krow_cmp);
        for (size_t i = 0; i < k->npairs; i++) {
            rows[2 * i] = order[i].proc;
            rows[2 * i + 1] = order[i].counter;
        }
        if (put(ud, &h, sizeof h) || put(ud, rows, 2 * k->npairs * sizeof *rows))
            rc = RT_EIO;
    }
    /* level L folds 2^(lc - L) finest cells per column */
    for (int l = 0; l <= lf && !rc; l++) {
        size_t n = (size_t)1 << l, f = (size_t)1 << (lc - l);
        for (size_t i = 0; i < k->npairs && !rc; i++) {
            const kcell *row = &k->cells[order[i].row * k->C];
            for (size_t c = 0; c < n; c++) {
                kcell x = row[c * f];
                for (size_t j = 1; j < f; j++)
                    cell_fold(&x, &x, &row[c * f + j]);
                tmp[c] = x.cover > 0 ? (rt_ix_ksum){x.lo, x.hi, x.area / x.cover, x.cover}
                                     : (rt_ix_ksum){0, 0, 0, 0};
            }
            if (put(ud, tmp, n * sizeof *tmp))
                rc = RT_EIO;
        }
    }
    free(order);
    free(tmp);
    free(rows);
    return rc;
}

/* ---- reading ---- */

int ix_kread_open(ix_kread *k, const unsigned char *p, size_t len, uint32_t nprocs, uint32_t ncounters)
{
    memset(k, 0, sizeof *k);
    ix_khead h;
    if (len < sizeof h)
        return -1;
    memcpy(&h, p, sizeof h);
    if (h.levels > 20 || (h.levels && h.colw0 <= 0) || (h.levels == 0) != (h.nrows == 0) ||
        h.nrows > len / 8)
        return -1;
    size_t need = sizeof h + (size_t)h.nrows * 8;
    if (h.levels)
        need += (size_t)h.nrows * (((size_t)1 << h.levels) - 1) * sizeof(rt_ix_ksum);
    if (need != len)
        return -1;
    k->origin = h.origin;
    k->colw0 = h.colw0;
    k->levels = h.levels;
    k->nrows = h.nrows;
    k->rows = (const int32_t *)(const void *)(p + sizeof h);
    k->cells = p + sizeof h + (size_t)h.nrows * 8;
    for (uint32_t i = 0; i < h.nrows; i++) {
        int32_t pr = k->rows[2 * i], c = k->rows[2 * i + 1];
        if (pr < 0 || (uint32_t)pr >= nprocs || c < 0 || (uint32_t)c >= ncounters)
            return -1;
        if (i && (c < k->rows[2 * i - 1] || (c == k->rows[2 * i - 1] && pr <= k->rows[2 * i - 2])))
            return -1; /* sorted, no pair twice */
    }
    return 0;
}

int rt_index_counter_levels(const rt_index *ix)
{
    return (int)ix_kread_of(ix)->levels;
}

/* Row of (counter c, processor p), -1 when the pair has no samples: binary search by (counter, processor). */
static int64_t find_row(const ix_kread *k, int c, int p)
{
    uint32_t lo = 0, hi = k->nrows;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        int32_t mc = k->rows[2 * m + 1], mp = k->rows[2 * m];
        if (mc < c || (mc == c && mp < p))
            lo = m + 1;
        else
            hi = m;
    }
    return lo == k->nrows || k->rows[2 * lo + 1] != c || k->rows[2 * lo] != p ? -1 : (int64_t)lo;
}

const rt_ix_ksum *rt_index_counter_cells(const rt_index *ix, int c, int level, int p, int64_t *origin, int64_t *colw)
{
    const ix_kread *k = ix_kread_of(ix);
    if (c < 0 || c >= rt_index_ncounters(ix) || p < 0 || p >= rt_index_nprocs(ix) || level < 0 ||
        (uint32_t)level >= k->levels)
        return NULL;
    if (origin)
        *origin = k->origin;
    if (colw)
        *colw = k->colw0 >> level;
    int64_t row = find_row(k, c, p);
    if (row < 0)
        return NULL;
    size_t before = (size_t)k->nrows * (((size_t)1 << level) - 1); /* the cells of the levels above */
    return (const rt_ix_ksum *)(const void *)(k->cells +
                                               (before + (size_t)row * ((size_t)1 << level)) * sizeof(rt_ix_ksum));
}

int rt_index_counter_summary(const rt_index *ix, int c, int level, int p, int64_t col, rt_ix_ksum *s,
                             int64_t *col_t0, int64_t *colw)
{
    const ix_kread *k = ix_kread_of(ix);
    if (c < 0 || c >= rt_index_ncounters(ix) || p < 0 || p >= rt_index_nprocs(ix) || level < 0 ||
        (uint32_t)level >= k->levels || col < 0 || col >= ((int64_t)1 << level))
        return RT_EINVAL;
    int64_t w = k->colw0 >> level;
    if (col_t0)
        *col_t0 = k->origin + col * w;
    if (colw)
        *colw = w;
    const rt_ix_ksum *row = rt_index_counter_cells(ix, c, level, p, NULL, NULL);
    *s = row ? row[col] : (rt_ix_ksum){0, 0, 0, 0};
    return RT_OK;
}
