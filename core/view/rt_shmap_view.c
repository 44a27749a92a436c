/* rt_shmap_view.c - SHMAP animation state kept in C (see rt_shmap_view.h). */
#include "rt_shmap_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

typedef unsigned __int128 u128;

/* ---- layout of the memory canvases ------------------------------------------ */

static int ceil_div(int a, int k) { return (int)(((int64_t)a + k - 1) / k); }

/*
 * Place the regions at cell size f and k elements per cell. Returns 1 when all
 * fit. With `force` the regions are placed even when they do not fit: rows go
 * on while they fit vertically and the rest are hidden.
 */
static int place(int n, const int *rows, const int *cols, int W, int H, int gap, int f, int k,
                 int force, rt_shmap_region *out, rt_shmap_layout_info *info)
{
    /* first pass: rows of regions */
    int nrows = 0, i = 0;
    int64_t total_h = 0;
    int fits = 1;
    while (i < n) {
        int first = i;
        int64_t row_w = 0, row_h = 0;
        while (i < n) {
            int64_t pw = (int64_t)ceil_div(cols[i], k) * f, ph = (int64_t)ceil_div(rows[i], k) * f;
            int cnt = i - first + 1;
            if (row_w + pw + (int64_t)(cnt + 1) * gap > W) {
                if (cnt == 1) { /* alone and too wide */
                    fits = 0;
                    row_w += pw;
                    row_h = row_h > ph ? row_h : ph;
                    out[i].row = nrows;
                    i++;
                }
                break;
            }
            row_w += pw;
            row_h = row_h > ph ? row_h : ph;
            out[i].row = nrows;
            i++;
        }
        total_h += row_h;
        nrows++;
    }
    if (total_h + (int64_t)(nrows + 1) * gap > H)
        fits = 0;
    if (!fits && !force)
        return 0;
    /* second pass: positions (the row heights again) */
    int64_t *row_h = calloc((size_t)nrows, sizeof *row_h);
    if (!row_h)
        return 0;
    for (i = 0; i < n; i++) {
        int64_t ph = (int64_t)ceil_div(rows[i], k) * f;
        if (ph > row_h[out[i].row])
            row_h[out[i].row] = ph;
    }
    int64_t used = 0;
    int visible_rows = 0;
    for (int r = 0; r < nrows; r++) {
        if (used + row_h[r] + (int64_t)(r + 2) * gap > H && r > 0 && force)
            break;
        used += row_h[r];
        visible_rows = r + 1;
    }
    int64_t vspare = H - used;
    int64_t y_top = 0;
    info->hidden = 0;
    for (int r = 0, j = 0; r < nrows; r++) {
        int first = j, cnt = 0;
        int64_t sw = 0;
        while (j < n && out[j].row == r) {
            sw += (int64_t)ceil_div(cols[j], k) * f;
            j++;
            cnt++;
        }
        int64_t spare = W - sw;
        int64_t y_row = (r < visible_rows ? (int64_t)(r + 1) * vspare / (visible_rows + 1) : 0) + y_top;
        int64_t before = 0;
        for (int q = first; q < j; q++) {
            rt_shmap_region *g = &out[q];
            g->cw = ceil_div(cols[q], k);
            g->ch = ceil_div(rows[q], k);
            g->w = g->cw * f;
            g->h = g->ch * f;
            g->x = (int)((int64_t)(q - first + 1) * spare / (cnt + 1) + before);
            g->y = (int)(y_row + (row_h[r] - g->h) / 2);
            g->shown = r < visible_rows && g->x >= 0 && g->x + g->w <= W;
            info->hidden += !g->shown;
            before += g->w;
        }
        y_top += row_h[r];
    }
    free(row_h);
    info->f = f;
    info->k = k;
    info->rows = nrows;
    return fits;
}

int rt_shmap_regions(int n, const int *rows, const int *cols, int W, int H, int gap,
                     rt_shmap_region *out, rt_shmap_layout_info *info)
{
    if (n < 1 || W < 1 || H < 1 || gap < 0)
        return RT_EINVAL;
    int maxr = 1, maxc = 1;
    for (int i = 0; i < n; i++) {
        if (rows[i] < 1 || cols[i] < 1)
            return RT_EINVAL;
        maxr = rows[i] > maxr ? rows[i] : maxr;
        maxc = cols[i] > maxc ? cols[i] : maxc;
    }
    int aw = W - 2 * gap, ah = H - 2 * gap;
    if (aw >= 1 && ah >= 1) {
        int fmax = aw / maxc < ah / maxr ? aw / maxc : ah / maxr;
        for (int f = fmax; f >= 1; f--)
            if (place(n, rows, cols, W, H, gap, f, 1, 0, out, info))
                return RT_OK;
        /* k x k elements per cell */
        int kmin = 2;
        int kc = ceil_div(maxc, aw), kr = ceil_div(maxr, ah);
        kmin = kc > kmin ? kc : kmin;
        kmin = kr > kmin ? kr : kmin;
        int kmax = maxr > maxc ? maxr : maxc;
        for (int64_t k = kmin; k <= kmax;) {
            if (place(n, rows, cols, W, H, gap, 1, (int)k, 0, out, info))
                return RT_OK;
            k += k - kmin < 4096 ? 1 : k / 64; /* past 4096 tries, steps of about 1.5% */
        }
    }
    int kmax = maxr > maxc ? maxr : maxc;
    place(n, rows, cols, W, H, gap, 1, kmax, 1, out, info);
    return RT_OK;
}

/* ---- layout of the cache window --------------------------------------------- */

int rt_shmap_cache_layout_of(int ncaches, uint64_t words, uint64_t line, int W, int H, int gap,
                             double aspect, rt_shmap_cache_layout *out)
{
    if (ncaches < 1 || line < 1 || words < line || W < 1 || H < 1 || gap < 0 || !(aspect > 0))
        return RT_EINVAL;
    uint64_t lines = words / line;
    double aw = W - (double)(ncaches + 1) * gap, ah = H - 2.0 * gap;
    if (aw <= 0 || ah <= 0) {
        aw = W;
        ah = H;
        gap = 0;
    }
    int found = 0;
    memset(out, 0, sizeof *out);
    for (uint64_t k = 1; k <= lines; k++) {
        uint64_t rws = (lines + k - 1) / k;
        double cw = aw / ((double)ncaches * (double)k * (double)line), ch = ah / (double)rws;
        double c = cw < ch ? cw : ch;
        if (c >= 1)
            c = floor(c);
        double w = (double)ncaches * (double)k * (double)line * c + (double)(ncaches + 1) * gap;
        double h = (double)rws * c + 2.0 * gap;
        double score = fabs(log((w / h) / aspect));
        double best = found ? fabs(log((out->w / out->h) / aspect)) : 0;
        if (!found || c > out->cell || (c == out->cell && score < best)) {
            found = 1;
            out->per_row = (int)k;
            out->rows = (int)rws;
            out->cell = c;
            out->w = w;
            out->h = h;
        }
    }
    out->region_w = (double)out->per_row * (double)line * out->cell;
    out->region_h = out->rows * out->cell;
    out->gap = gap;
    out->x0 = gap;
    return RT_OK;
}

/* ---- the view ------------------------------------------------------------------ */

rt_shmap_view_config rt_shmap_view_defaults(void)
{
    rt_shmap_view_config c;
    memset(&c, 0, sizeof c);
    c.shades = 4;
    c.fade = 1;
    c.mem_gap = 2;
    c.cache_gap = 4;
    c.cache_aspect = 2;
    c.active_keep = 4096;
    c.refs_len = 256;
    c.time_w = 512;
    return c;
}

struct rt_shmap_view {
    rt_shmap_sim *sim;      /* NULL once detached */
    rt_shmap_view_config cfg;
    int k1;                 /* shades + 1 */
    int nmat, npes, ncaches;
    uint64_t line, ways;
    uint64_t line_mask;     /* line - 1 when a power of two, else 0 (see word_of) */
    /* memory */
    rt_shmap_region *reg;
    rt_shmap_layout_info lay;
    /* grid slots: 0..nmat-1 load, nmat..2nmat-1 store, then caches; NULL when absent */
    int nslots;
    rt_grid **grid;
    /* the grids' cells are written from the nodes by sync(); memory nodes go
     * column by column (the order loads and stores walk a matrix, so lighting
     * walks the nodes in order), cache nodes in the grid's order */
    uint64_t *gbase;        /* first cell id of each slot */
    uint64_t ncells;
    rt_shmap_cache_layout clay;
    /* per cell, in 8 bytes (so that lighting, which reads and writes one node,
     * walks little memory). Fading is folded in lazily (see fold()): a node
     * holds its shade as of the last fold or as lit since (fresh), and its grid
     * cell (PE * (K + 1) + shade, or -1) is written by sync(). Its last fade is
     * the clock of event estamp when fresh, lastf[id] otherwise. */
    struct node {
        uint32_t estamp;    /* load / store event that last lit the cell */
        uint8_t fstamp;     /* frame + 1 (mod 2^8, see new_frame) in which it flashed */
        int8_t shade;       /* its shade (K <= 64), -1 when empty */
        uint8_t pe;         /* the PE that lit it (< RT_SCHED_MAX_PES = 256) */
        uint8_t fresh;      /* lit since the last fold */
    } *node;
    double *lastf;          /* per cell its last fade as of the last fold */
    uint32_t event_no;
    /* the clocks of the load / store events since the last fold (rising):
     * evclock[i] is the clock of event base + i */
    double *evclock;
    size_t nev, maxev;
    uint32_t base;
    uint64_t nlit;          /* lit cells as of the last fold */
    /* flashes */
    uint64_t flashes, frame_flashes;
    uint32_t frame;
    int32_t *flist;
    size_t nflist, capflist;
    /* events and steps */
    uint64_t ev_step;
    int ev_pe;
    int have_clock;
    double clock, step_time;
    uint64_t steps;
    int active[RT_SCHED_MAX_PES], nactive;
    /* active ring */
    double *atime;
    uint64_t (*amask)[4];
    int akeep, an, astart;
    /* refs and timeline */
    u128 elements;
    u128 *mat_first;        /* row-major element offset of each matrix */
    int *mcols, *mrows;     /* columns and rows of each matrix */
    int small;              /* all elements index in 63 bits: first64 holds mat_first */
    uint64_t *first64, elements64; /* elements64: elements, or UINT64_MAX past it */
    int tcol;               /* time-line column of the current event */
    rt_grid *refs, *refs_over, *tl;
    int32_t *tlcol;         /* the time line column by column, see node */
    int dirty;              /* nodes or tlcol changed since the last sync */
    uint64_t *rcount;
    int rrows, trows;
    double rscale, tscale;  /* rows / elements */
    uint64_t overflowed;
    double t0, t1;
    int status;
};

/* First i >= from with evclock[i] - last >= F (the clocks rise, so the test
 * does too), nev if none. */
static size_t next_fade(const rt_shmap_view *v, size_t from, double last)
{
    const double F = v->cfg.fade;
    size_t lo = from, hi = v->nev;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->evclock[mid] - last >= F)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* A node's last fade (or lighting). */
static inline double node_last(const rt_shmap_view *v, const struct node *x, int32_t id)
{
    return x->fresh ? v->evclock[x->estamp - v->base] : v->lastf[id];
}

/*
 * Apply the fades of the events since the last fold to every lit cell. Before
 * each load / store event with clock T, a lit cell with T - last >= F fades
 * one shade and takes last = T; so from its last fade a cell fades at the first
 * event whose clock is at least F later, then at the first at least F after
 * that, and so on: a few binary searches per cell instead of a queue touched
 * per event.
 */
static void fold(rt_shmap_view *v)
{
    if (v->nev == 0)
        return;
    const double F = v->cfg.fade, T = v->evclock[v->nev - 1];
    const int K = v->cfg.shades;
    uint64_t lit = 0;
    struct node *nd = v->node;
    for (int32_t id = 0; id < (int32_t)v->ncells; id++) {
        struct node *x = &nd[id];
        if (x->shade < 0)
            continue;
        double last = node_last(v, x, id);
        if (T - last >= F) {
            for (size_t i = next_fade(v, 0, last); i < v->nev; i = next_fade(v, i + 1, last)) {
                if (x->shade == K) {
                    x->shade = -1;
                    break;
                }
                x->shade++;
                last = v->evclock[i];
            }
        }
        v->lastf[id] = last;
        x->fresh = 0;
        lit += x->shade >= 0;
    }
    v->nlit = lit;
    v->nev = 0;
    v->base = v->event_no + 1;
}

/* Light node id in PE pe's colour (counting a flash when it is one). */
static inline void light_id(rt_shmap_view *v, int32_t id, int pe)
{
    struct node *x = &v->node[id];
    /* still at full brightness: lit, not faded since (no event at least F after
     * its last fade, the clock being the largest stamp), by an earlier event */
    if (x->shade == 0 && x->estamp != v->event_no && v->clock - node_last(v, x, id) < v->cfg.fade) {
        v->flashes++;
        v->frame_flashes++;
        if (x->fstamp != (uint8_t)(v->frame + 1)) {
            x->fstamp = (uint8_t)(v->frame + 1);
            if (v->nflist == v->capflist
                && rt_grow((void **)&v->flist, &v->capflist, v->nflist + 1, sizeof *v->flist) != RT_OK)
                v->status = RT_ENOMEM;
            else
                v->flist[v->nflist++] = id;
        }
    }
    x->estamp = v->event_no;
    x->shade = 0;
    x->pe = (uint8_t)pe;
    x->fresh = 1;
}

/* Node of element (row, col) of matrix i on the load (store 0) or store grid,
 * -1 when that grid is not drawn. Memory nodes go down the columns, the order
 * loads and stores run. */
static inline int32_t element_id(const rt_shmap_view *v, int i, int store, int row, int col)
{
    int s = store ? v->nmat + i : i;
    const rt_grid *g = v->grid[s];
    if (!g)
        return -1;
    int k = v->lay.k;
    if (k == 1) /* no division in the usual case */
        return (int32_t)(v->gbase[s] + (uint64_t)(col - 1) * (uint64_t)g->h + (uint64_t)(row - 1));
    return (int32_t)(v->gbase[s] + (uint64_t)((col - 1) / k) * (uint64_t)g->h + (uint64_t)((row - 1) / k));
}

/* Node of word 0 of the line in (set, way) of cache c (its words follow), -1 when not drawn. */
static inline int32_t line_id(const rt_shmap_view *v, int c, uint32_t set, uint32_t way)
{
    int s = 2 * v->nmat + c;
    if (!v->grid[s])
        return -1;
    return (int32_t)(v->gbase[s] + ((uint64_t)set * v->ways + way) * v->line);
}

/* Light element (row, col) of matrix i on the load (store 0) or store grid. */
static inline void light_element(rt_shmap_view *v, int i, int store, int row, int col, int pe)
{
    int32_t id = element_id(v, i, store, row, col);
    if (id >= 0)
        light_id(v, id, pe);
}

/* The word of its line that address addr is (no division for the usual power-of-two lines). */
static inline uint64_t word_of(const rt_shmap_view *v, uint64_t addr)
{
    return v->line_mask ? addr & v->line_mask : v->line > 1 ? addr % v->line : 0;
}

/* Light word w of the line in (set, way) of cache c. */
static inline void light_cache(rt_shmap_view *v, int c, uint32_t set, uint32_t way, uint64_t w, int pe)
{
    int32_t id = line_id(v, c, set, way);
    if (id >= 0)
        light_id(v, id + (int32_t)w, pe);
}

/* Row-major index of element (r, c) of matrix i over all matrices. */
static u128 elem_index(const rt_shmap_view *v, int i, int r, int c)
{
    return v->mat_first[i] + (u128)(r - 1) * (u128)v->mcols[i] + (u128)(c - 1);
}

/* Histogram row of element index e for a histogram of nrows rows (scale: nrows / elements). */
static inline int hist_row_of(const rt_shmap_view *v, u128 e, int nrows, double scale)
{
    if ((uint64_t)nrows == v->elements64)
        return (int)e;
    uint64_t e64 = e > UINT64_MAX ? UINT64_MAX : (uint64_t)e;
    int row = (int)((double)e64 * scale);
    return row < nrows ? row : nrows - 1;
}

static int hist_row(const rt_shmap_view *v, int i, int r, int c, int nrows)
{
    return hist_row_of(v, elem_index(v, i, r, c), nrows, (double)nrows / (double)v->elements);
}

/* Before the accesses of a batch (all of one load or store event): when they
 * begin a new event, record its clock and its time-line column. */
static void enter_event(rt_shmap_view *v, const rt_shmap_access *a)
{
    if (a->step != v->ev_step || a->pe != v->ev_pe) { /* a new load or store event */
        v->ev_step = a->step;
        v->ev_pe = a->pe;
        if (v->nev == v->maxev)
            fold(v); /* the record of clocks stays bounded: fold it in now */
        v->event_no++;
        v->dirty = 1;
        if (!v->have_clock || a->time > v->clock)
            v->clock = a->time;
        v->have_clock = 1;
        v->evclock[v->nev++] = v->clock;
        if (v->tl) {
            v->tcol = 0;
            if (v->t1 > v->t0) {
                double f = (a->time - v->t0) / (v->t1 - v->t0) * v->tl->w;
                v->tcol = f < 0 ? 0 : f >= v->tl->w ? v->tl->w - 1 : (int)f;
            }
        }
    }
}

/* One access of the current event. */
static void apply(rt_shmap_view *v, const rt_shmap_access *a)
{
    const int pe = a->pe;
    if (v->cfg.memory || v->cfg.cache) {
        if (a->outcome == RT_SHM_NOLOOKUP) {
            light_element(v, a->matrix, a->store, a->row, a->col, pe);
        } else if (a->store) { /* write-back */
            light_element(v, a->matrix, 1, a->row, a->col, pe);
            light_cache(v, a->cache, a->set, a->way, word_of(v, a->addr), pe);
        } else if (a->outcome == RT_SHM_HIT) {
            light_cache(v, a->cache, a->set, a->way, word_of(v, a->addr), pe);
        } else { /* a miss: the line's cache cells, and the words of it in a matrix */
            int32_t id = line_id(v, a->cache, a->set, a->way);
            for (uint64_t w = 0; id >= 0 && w < v->line; w++)
                light_id(v, id + (int32_t)w, pe);
            int mi = -1, r = 0, c = 0; /* the element of the word, stepped down the columns */
            if (v->cfg.memory && v->lay.k == 1 && rt_shmap_sim_locate(v->sim, a->line_first, &mi, &r, &c)
                && (uint64_t)r + v->line - 1 <= (uint64_t)v->mrows[mi] && (id = element_id(v, mi, 0, r, c)) >= 0) {
                /* the usual case: the whole line down one column, one node after another */
                for (uint64_t w = 0; w < v->line; w++)
                    light_id(v, id + (int32_t)w, pe);
            } else if (v->cfg.memory) {
                mi = -1;
                for (uint64_t w = 0; w < v->line; w++) {
                    if (mi >= 0 && ++r > v->mrows[mi]) {
                        r = 1;
                        if (++c > v->mcols[mi])
                            mi = -1; /* past the matrix: padding or the next one */
                    }
                    if (mi < 0 && !rt_shmap_sim_locate(v->sim, a->line_first + w, &mi, &r, &c)) {
                        mi = -1;
                        continue;
                    }
                    light_element(v, mi, 0, r, c, pe);
                }
            }
        }
    }
    u128 e = 0;
    if (v->refs || v->tl)
        e = v->small ? (u128)(v->first64[a->matrix] + (uint64_t)(a->row - 1) * (uint64_t)v->mcols[a->matrix]
                              + (uint64_t)(a->col - 1))
                     : elem_index(v, a->matrix, a->row, a->col);
    int rrow = 0;
    if (v->refs) {
        int row = rrow = hist_row_of(v, e, v->rrows, v->rscale);
        uint64_t n = a->refs; /* the element's references so far */
        if (n > v->rcount[row]) {
            v->rcount[row] = n;
            if (n <= (uint64_t)v->refs->w) {
                v->refs->cells[(uint64_t)row * (uint64_t)v->refs->w + (n - 1)] = pe * v->k1;
            } else {
                v->overflowed++;
                v->refs_over->cells[row] = 0;
            }
        }
    }
    if (v->tl) { /* the same rows as the refs histogram when as many (the same scale) */
        int row = v->refs && v->trows == v->rrows ? rrow : hist_row_of(v, e, v->trows, v->tscale);
        v->tlcol[(uint64_t)v->tcol * (uint64_t)v->trows + (uint64_t)row] = pe * v->k1;
    }
}

/* A run of accesses of one event: first ask for the nodes each will light
 * (they are spread over more memory than a core's cache holds, and taken one
 * at a time the loads would wait in turn), then apply them in order. */
static void on_batch(void *ud, const rt_shmap_access *acc, size_t n)
{
    rt_shmap_view *v = ud;
    if (v->cfg.memory || v->cfg.cache)
        for (size_t j = 0; j < n; j++) {
            const rt_shmap_access *a = &acc[j];
            int32_t id = a->outcome != RT_SHM_NOLOOKUP ? line_id(v, a->cache, a->set, a->way) : -1;
            if (id >= 0)
                __builtin_prefetch(&v->node[id], 1);
            id = a->outcome != RT_SHM_HIT || a->store ? element_id(v, a->matrix, a->store, a->row, a->col) : -1;
            if (id >= 0) /* a miss, a store, or no cache */
                __builtin_prefetch(&v->node[id], 1);
        }
    if (n)
        enter_event(v, &acc[0]);
    for (size_t j = 0; j < n; j++)
        apply(v, &acc[j]);
}

static void on_step(void *ud, const rt_shmap_sim *s)
{
    rt_shmap_view *v = ud;
    const rt_sched *sc = rt_shmap_sim_sched(s);
    v->steps++;
    v->nactive = 0;
    int has = 0;
    double t = 0;
    for (int p = 0; p < v->npes; p++) {
        const rt_shmap_event *ev = rt_sched_event(sc, p);
        if (!ev)
            continue;
        v->active[v->nactive++] = p;
        if ((ev->op == RT_SHM_LOAD || ev->op == RT_SHM_STORE) && (!has || ev->time > t)) {
            t = ev->time;
            has = 1;
        }
    }
    if (has) /* a step without loads or stores keeps the previous time */
        v->step_time = t;
    if (v->akeep) {
        int at = v->an < v->akeep ? (v->astart + v->an) % v->akeep : v->astart;
        if (v->an < v->akeep)
            v->an++;
        else
            v->astart = (v->astart + 1) % v->akeep;
        v->atime[at] = v->step_time;
        memset(v->amask[at], 0, sizeof v->amask[at]);
        for (int j = 0; j < v->nactive; j++)
            v->amask[at][v->active[j] >> 6] |= UINT64_C(1) << (v->active[j] & 63);
    }
}

void rt_shmap_view_detach(rt_shmap_view *v)
{
    if (v && v->sim) {
        rt_shmap_sim_unobserve(v->sim, v);
        v->sim = NULL;
    }
}

void rt_shmap_view_free(rt_shmap_view *v)
{
    if (!v)
        return;
    rt_shmap_view_detach(v);
    for (int s = 0; v->grid && s < v->nslots; s++) {
        rt_grid_free(v->grid[s]);
    }
    free(v->tlcol);
    free(v->grid);
    free(v->gbase);
    free(v->reg);
    free(v->node);
    free(v->evclock);
    free(v->lastf);
    free(v->flist);
    free(v->atime);
    free(v->amask);
    free(v->mat_first);
    free(v->mcols);
    free(v->mrows);
    free(v->first64);
    rt_grid_free(v->refs);
    rt_grid_free(v->refs_over);
    rt_grid_free(v->tl);
    free(v->rcount);
    free(v);
}

/* The memory layout with no canvas: one cell per k x k elements, k the smallest
 * keeping the cells of one canvas within max_cells. */
static void layout_unbounded(rt_shmap_view *v, const int *rows, const int *cols)
{
    uint64_t budget = v->cfg.max_cells ? v->cfg.max_cells : UINT64_C(1) << 22;
    for (int k = 1;; k = k < 64 ? k + 1 : k + k / 8) {
        u128 cells = 0;
        for (int i = 0; i < v->nmat; i++)
            cells += (u128)ceil_div(rows[i], k) * (u128)ceil_div(cols[i], k);
        if (cells <= budget || k >= (1 << 30)) {
            v->lay.f = 1;
            v->lay.k = k;
            v->lay.rows = v->nmat;
            v->lay.hidden = 0;
            int y = 0;
            for (int i = 0; i < v->nmat; i++) {
                rt_shmap_region *g = &v->reg[i];
                g->cw = ceil_div(cols[i], k);
                g->ch = ceil_div(rows[i], k);
                g->w = g->cw;
                g->h = g->ch;
                g->x = 0;
                g->y = y;
                y += g->h;
                g->row = i;
                g->shown = 1;
            }
            return;
        }
    }
}

static rt_shmap_view *fail(rt_shmap_view *v, rt_err *err, int st, const char *what)
{
    rt_shmap_view_free(v);
    rt_err_set(err, st, "%s", what);
    return NULL;
}

rt_shmap_view *rt_shmap_view_new(rt_shmap_sim *sim, const rt_shmap_view_config *cfg, rt_err *err)
{
    if (cfg->shades < 0 || cfg->shades > 64) {
        rt_err_set(err, RT_ERANGE, "shades: %d is outside 0..64", cfg->shades);
        return NULL;
    }
    if (!(cfg->fade > 0) || !isfinite(cfg->fade)) {
        rt_err_set(err, RT_ERANGE, "fade: %g is not a positive trace time", cfg->fade);
        return NULL;
    }
    if ((cfg->memory && (cfg->mem_w < 0 || cfg->mem_h < 0 || cfg->mem_gap < 0))
        || (cfg->refs && (cfg->refs_rows < 0 || cfg->refs_len < 1 || cfg->refs_len > (1 << 20)))
        || (cfg->timeline && (cfg->time_w < 1 || cfg->time_w > (1 << 16) || cfg->time_h < 0))
        || (cfg->active && (cfg->active_keep < 1 || cfg->active_keep > (1 << 24)))) {
        rt_err_set(err, RT_ERANGE, "view: a panel size is out of range");
        return NULL;
    }
    rt_shmap_view *v = calloc(1, sizeof *v);
    if (!v)
        return fail(v, err, RT_ENOMEM, "out of memory");
    const rt_shmap *tr = rt_shmap_sim_trace(sim);
    v->sim = sim;
    v->cfg = *cfg;
    v->k1 = cfg->shades + 1;
    v->nmat = rt_shmap_matrix_count(tr);
    v->npes = rt_shmap_sim_pes(sim);
    v->ncaches = rt_shmap_sim_caches(sim);
    v->ev_pe = -1;
    v->nslots = 2 * v->nmat + v->ncaches;
    v->grid = calloc((size_t)v->nslots + 1, sizeof *v->grid);
    v->gbase = calloc((size_t)v->nslots + 1, sizeof *v->gbase);
    v->reg = calloc((size_t)v->nmat + 1, sizeof *v->reg);
    v->mat_first = calloc((size_t)v->nmat + 1, sizeof *v->mat_first);
    v->mcols = calloc((size_t)v->nmat + 1, sizeof *v->mcols);
    v->mrows = calloc((size_t)v->nmat + 1, sizeof *v->mrows);
    v->first64 = calloc((size_t)v->nmat + 1, sizeof *v->first64);
    int *rows = calloc((size_t)v->nmat + 1, sizeof *rows), *cols = calloc((size_t)v->nmat + 1, sizeof *cols);
    if (!v->grid || !v->gbase || !v->reg || !v->mat_first || !v->mcols || !v->mrows || !v->first64 || !rows || !cols) {
        free(rows);
        free(cols);
        return fail(v, err, RT_ENOMEM, "out of memory");
    }
    for (int i = 0; i < v->nmat; i++) {
        const rt_shmap_matrix *m = rt_shmap_matrix_at(tr, i);
        rows[i] = m->rows;
        cols[i] = m->cols;
        v->mcols[i] = m->cols;
        v->mrows[i] = m->rows;
        v->mat_first[i] = v->elements;
        v->first64[i] = (uint64_t)v->elements;
        v->elements += (u128)m->rows * (u128)m->cols;
    }
    v->small = v->elements < ((u128)1 << 63);
    v->elements64 = v->small ? (uint64_t)v->elements : UINT64_MAX;
    int st = RT_OK;
    if (cfg->memory && v->nmat > 0) {
        if (cfg->mem_w > 0 && cfg->mem_h > 0)
            st = rt_shmap_regions(v->nmat, rows, cols, cfg->mem_w, cfg->mem_h, cfg->mem_gap, v->reg, &v->lay);
        else
            layout_unbounded(v, rows, cols);
        for (int i = 0; st == RT_OK && i < v->nmat; i++)
            if (v->reg[i].shown) {
                st = rt_grid_new(v->reg[i].cw, v->reg[i].ch, -1, &v->grid[i], err);
                if (st == RT_OK)
                    st = rt_grid_new(v->reg[i].cw, v->reg[i].ch, -1, &v->grid[v->nmat + i], err);
            }
    }
    free(rows);
    free(cols);
    if (st != RT_OK) {
        rt_shmap_view_free(v);
        return NULL;
    }
    if (v->ncaches) {
        const rt_cache_config *cc = rt_shmap_sim_cache_config(sim, 0);
        v->line = cc->line;
        v->ways = cc->ways;
    } else {
        v->line = 1;
        v->ways = 1;
    }
    v->line_mask = v->line > 1 && (v->line & (v->line - 1)) == 0 ? v->line - 1 : 0;
    if (cfg->cache && v->ncaches) {
        const rt_cache_config *cc = rt_shmap_sim_cache_config(sim, 0);
        uint64_t lines = cc->size / cc->line;
        if (cfg->cache_w > 0 && cfg->cache_h > 0)
            rt_shmap_cache_layout_of(v->ncaches, cc->size, cc->line, cfg->cache_w, cfg->cache_h, cfg->cache_gap,
                                     cfg->cache_aspect, &v->clay);
        else {
            v->clay.per_row = cfg->cache_per_row > 0 ? cfg->cache_per_row : 1;
            v->clay.rows = (int)((lines + (uint64_t)v->clay.per_row - 1) / (uint64_t)v->clay.per_row);
            v->clay.cell = 1;
            v->clay.gap = cfg->cache_gap;
            v->clay.x0 = cfg->cache_gap;
            v->clay.region_w = (double)v->clay.per_row * (double)cc->line;
            v->clay.region_h = v->clay.rows;
            v->clay.w = v->ncaches * v->clay.region_w + (v->ncaches + 1) * cfg->cache_gap;
            v->clay.h = v->clay.region_h + 2 * cfg->cache_gap;
        }
        if ((uint64_t)v->clay.per_row * cc->line > (1u << 30))
            return fail(v, err, RT_ERANGE, "cache: too many words for a grid");
        for (int c = 0; c < v->ncaches; c++)
            if (rt_grid_new(v->clay.per_row * (int)cc->line, v->clay.rows, -1, &v->grid[2 * v->nmat + c], err)
                != RT_OK) {
                rt_shmap_view_free(v);
                return NULL;
            }
    }
    for (int s = 0; s < v->nslots; s++) {
        v->gbase[s] = v->ncells;
        if (v->grid[s])
            v->ncells += (uint64_t)v->grid[s]->w * (uint64_t)v->grid[s]->h;
    }
    v->gbase[v->nslots] = v->ncells;
    if (v->ncells >= INT32_MAX)
        return fail(v, err, RT_ERANGE, "view: more cells than a view can hold");
    size_t n = (size_t)v->ncells + 1;
    /* a fold visits every cell: at most one per 65536 events, or one per
     * ncells / 4 events when there are more cells, a few visits per event */
    v->maxev = cfg->fold_every ? (size_t)cfg->fold_every : n / 4 > 65536 ? n / 4 : 65536;
    v->node = calloc(n, sizeof *v->node);
    v->lastf = malloc(n * sizeof *v->lastf);
    v->evclock = malloc(v->maxev * sizeof *v->evclock);
    v->base = 1; /* the first event is number 1 */
    if (!v->node || !v->lastf || !v->evclock)
        return fail(v, err, RT_ENOMEM, "out of memory");
    for (uint64_t id = 0; id < v->ncells; id++)
        v->node[id].shade = -1;
    if (cfg->active) {
        v->akeep = cfg->active_keep;
        /* written through now (with values never read: entries past `an` are unused),
         * so the memory is taken at the start and stays flat */
        v->atime = malloc((size_t)v->akeep * sizeof *v->atime);
        v->amask = malloc((size_t)v->akeep * sizeof *v->amask);
        if (!v->atime || !v->amask)
            return fail(v, err, RT_ENOMEM, "out of memory");
        memset(v->atime, 0xff, (size_t)v->akeep * sizeof *v->atime);
        memset(v->amask, 0xff, (size_t)v->akeep * sizeof *v->amask);
    }
    u128 cap_rows = 65536;
    if (cfg->refs && v->elements > 0) {
        u128 want = cfg->refs_rows > 0 ? (u128)cfg->refs_rows : cap_rows;
        v->rrows = (int)(v->elements < want ? v->elements : want);
        if (rt_grid_new(cfg->refs_len, v->rrows, -1, &v->refs, err) != RT_OK
            || rt_grid_new(1, v->rrows, -1, &v->refs_over, err) != RT_OK) {
            rt_shmap_view_free(v);
            return NULL;
        }
        v->rscale = (double)v->rrows / (double)v->elements;
        v->rcount = calloc((size_t)v->rrows, sizeof *v->rcount);
        if (!v->rcount)
            return fail(v, err, RT_ENOMEM, "out of memory");
    }
    if (cfg->timeline && v->elements > 0) {
        u128 want = cfg->time_h > 0 ? (u128)cfg->time_h : cfg->refs_rows > 0 ? (u128)cfg->refs_rows : cap_rows;
        v->trows = (int)(v->elements < want ? v->elements : want);
        v->tscale = (double)v->trows / (double)v->elements;
        if (rt_grid_new(cfg->time_w, v->trows, -1, &v->tl, err) != RT_OK) {
            rt_shmap_view_free(v);
            return NULL;
        }
        size_t cells = (size_t)cfg->time_w * (size_t)v->trows;
        v->tlcol = malloc(cells * sizeof *v->tlcol);
        if (!v->tlcol)
            return fail(v, err, RT_ENOMEM, "out of memory");
        for (size_t j = 0; j < cells; j++)
            v->tlcol[j] = -1;
        const rt_shmap_info *in = rt_shmap_get_info(tr);
        v->t0 = in->time_first < in->time_last ? in->time_first : 0;
        v->t1 = in->time_last;
    }
    /* with only the active graph (or nothing per cell) no access need be seen:
     * the simulation keeps its fast path */
    int per_access = (cfg->memory && v->nmat > 0) || (cfg->cache && v->ncaches) || v->refs || v->tl;
    if (rt_shmap_sim_observe_batch(sim, per_access ? on_batch : NULL, on_step, v) != RT_OK) {
        v->sim = NULL;
        return fail(v, err, RT_ERANGE, "view: the simulation has too many observers");
    }
    return v;
}

const rt_shmap_view_config *rt_shmap_view_config_get(const rt_shmap_view *v) { return &v->cfg; }
const rt_shmap_layout_info *rt_shmap_view_layout(const rt_shmap_view *v) { return &v->lay; }
const rt_shmap_region *rt_shmap_view_region(const rt_shmap_view *v, int i) { return &v->reg[i]; }
static inline int32_t cell_of(const rt_shmap_view *v, const struct node *x)
{
    return x->shade < 0 ? -1 : (int32_t)x->pe * v->k1 + x->shade;
}

/* Fold the fades in and write the grids' cells from the nodes (memory nodes go
 * column by column, the grids row by row). */
static void sync(rt_shmap_view *v)
{
    if (!v->dirty)
        return;
    v->dirty = 0;
    fold(v);
    for (int s = 0; s < 2 * v->nmat; s++) {
        rt_grid *g = v->grid[s];
        if (!g)
            continue;
        const struct node *nd = &v->node[v->gbase[s]];
        for (int x = 0; x < g->w; x++, nd += g->h)
            for (int y = 0; y < g->h; y++)
                g->cells[(size_t)y * (size_t)g->w + (size_t)x] = cell_of(v, &nd[y]);
    }
    for (int s = 2 * v->nmat; s < v->nslots; s++) {
        rt_grid *g = v->grid[s];
        if (!g)
            continue;
        const struct node *nd = &v->node[v->gbase[s]];
        for (size_t j = 0; j < (size_t)g->w * (size_t)g->h; j++)
            g->cells[j] = cell_of(v, &nd[j]);
    }
    if (v->tl) {
        const int32_t *src = v->tlcol;
        for (int x = 0; x < v->tl->w; x++, src += v->trows)
            for (int y = 0; y < v->trows; y++)
                v->tl->cells[(size_t)y * (size_t)v->tl->w + (size_t)x] = src[y];
    }
}

void rt_shmap_view_sync(rt_shmap_view *v) { sync(v); }

rt_grid *rt_shmap_view_grid(const rt_shmap_view *v, int i, int store)
{
    return v->grid[store ? v->nmat + i : i];
}
rt_grid *rt_shmap_view_cache_grid(const rt_shmap_view *v, int i) { return v->grid[2 * v->nmat + i]; }
const rt_shmap_cache_layout *rt_shmap_view_cache_layout(const rt_shmap_view *v)
{
    return v->cfg.cache && v->ncaches ? &v->clay : NULL;
}
rt_grid *rt_shmap_view_refs(const rt_shmap_view *v) { return v->refs; }
rt_grid *rt_shmap_view_refs_overflow(const rt_shmap_view *v) { return v->refs_over; }
uint64_t rt_shmap_view_refs_count(const rt_shmap_view *v, int row) { return v->rcount ? v->rcount[row] : 0; }
int rt_shmap_view_refs_row(const rt_shmap_view *v, int matrix, int r, int c)
{
    return v->rrows ? hist_row(v, matrix, r, c, v->rrows) : -1;
}
uint64_t rt_shmap_view_refs_overflowed(const rt_shmap_view *v) { return v->overflowed; }
uint64_t rt_shmap_view_elements(const rt_shmap_view *v)
{
    return v->elements > UINT64_MAX ? UINT64_MAX : (uint64_t)v->elements;
}
rt_grid *rt_shmap_view_timeline(const rt_shmap_view *v) { return v->tl; }
uint64_t rt_shmap_view_step(const rt_shmap_view *v) { return v->steps; }
double rt_shmap_view_time(const rt_shmap_view *v) { return v->step_time; }
double rt_shmap_view_clock(const rt_shmap_view *v) { return v->clock; }
uint64_t rt_shmap_view_flashes(const rt_shmap_view *v) { return v->flashes; }
uint64_t rt_shmap_view_frame_flashes(const rt_shmap_view *v) { return v->frame_flashes; }
uint64_t rt_shmap_view_lit(const rt_shmap_view *v) { return v->nlit; }
int rt_shmap_view_status(const rt_shmap_view *v) { return v->status; }

int rt_shmap_view_active(const rt_shmap_view *v, int *pes)
{
    memcpy(pes, v->active, (size_t)v->nactive * sizeof *pes);
    return v->nactive;
}

int rt_shmap_view_active_kept(const rt_shmap_view *v) { return v->an; }

double rt_shmap_view_active_at(const rt_shmap_view *v, int i, const uint64_t **mask)
{
    int at = (v->astart + i) % v->akeep;
    if (mask)
        *mask = v->amask[at];
    return v->atime[at];
}

static int popcount4(const uint64_t *m)
{
    int n = 0;
    for (int k = 0; k < 4; k++)
        for (uint64_t w = m[k]; w; w &= w - 1)
            n++;
    return n;
}

/* Push the stacked bar of kept step i from x, wd wide. */
static int push_bar(const rt_shmap_view *v, rt_pack *p, int i, double x, double wd, double y0, double h,
                    double u)
{
    const uint64_t *m;
    rt_shmap_view_active_at(v, i, &m);
    int j = 0;
    for (int pe = 0; pe < v->npes; pe++)
        if (m[pe >> 6] >> (pe & 63) & 1) {
            double item[5] = {x, y0 + h - (j + 1) * u, wd, u, (double)(pe * v->k1)};
            if (rt_pack_push(p, item) != RT_OK)
                return RT_ENOMEM;
            j++;
        }
    return RT_OK;
}

int rt_shmap_view_active_rects(const rt_shmap_view *v, rt_pack *p, double t0, double t1,
                               double x0, double y0, double w, double h, int max_pes, double min_w)
{
    p->n = 0;
    if (!v->an || !(t1 > t0) || max_pes < 1 || p->stride < 5)
        return RT_OK;
    double u = h / max_pes, sx = w / (t1 - t0);
    /* per device pixel column the step with the most active PEs (the first of them) */
    int best = -1, bestn = -1;
    double bestx = 0, col = 0;
    for (int i = 0; i <= v->an; i++) {
        double t = i < v->an ? rt_shmap_view_active_at(v, i, NULL) : t1 + 1;
        int in = t >= t0 && t <= t1;
        double x = x0 + (t - t0) * sx;
        if (best >= 0 && (!in || floor(x) != col)) {
            double xe = in ? x : bestx + min_w;
            double wd = xe - bestx > min_w ? xe - bestx : min_w;
            if (bestx + wd > x0 + w)
                wd = x0 + w - bestx;
            if (push_bar(v, p, best, bestx, wd, y0, h, u) != RT_OK)
                return RT_ENOMEM;
            best = -1;
        }
        if (!in)
            continue;
        const uint64_t *m;
        rt_shmap_view_active_at(v, i, &m);
        int n = popcount4(m);
        if (best < 0) {
            best = i;
            bestn = n;
            bestx = x;
            col = floor(x);
        } else if (n > bestn) {
            best = i;
            bestn = n;
        }
    }
    return RT_OK;
}

int rt_shmap_view_flash_rects(const rt_shmap_view *v, int which, double inset, rt_pack *p)
{
    p->n = 0;
    if (p->stride < 4)
        return RT_EINVAL;
    for (size_t i = 0; i < v->nflist; i++) {
        int32_t id = v->flist[i];
        int lo = 0, hi = v->nslots - 1, s = 0; /* the slot: last with gbase <= id */
        while (lo <= hi) {
            int mid = (lo + hi) / 2;
            if (v->gbase[mid] <= (uint64_t)id) {
                s = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        while (s + 1 < v->nslots && v->gbase[s + 1] <= (uint64_t)id) /* skip empty slots */
            s++;
        const rt_grid *g = v->grid[s];
        uint64_t idx = (uint64_t)id - v->gbase[s];
        double x, y, sz;
        int kind = s < v->nmat ? 0 : s < 2 * v->nmat ? 1 : 2;
        if (kind != which)
            continue;
        if (kind < 2) { /* memory nodes go column by column */
            const rt_shmap_region *r = &v->reg[kind ? s - v->nmat : s];
            sz = v->lay.f;
            x = r->x + (double)(idx / (uint64_t)g->h) * sz;
            y = r->y + (double)(idx % (uint64_t)g->h) * sz;
        } else {
            int c = s - 2 * v->nmat;
            sz = v->clay.cell;
            x = v->clay.x0 + c * (v->clay.region_w + v->clay.gap) + (double)(idx % (uint64_t)g->w) * sz;
            y = v->clay.gap + (double)(idx / (uint64_t)g->w) * sz;
        }
        double item[4] = {x + inset, y + inset, sz - 2 * inset, sz - 2 * inset};
        if (rt_pack_push(p, item) != RT_OK)
            return RT_ENOMEM;
    }
    return RT_OK;
}

void rt_shmap_view_new_frame(rt_shmap_view *v)
{
    v->frame++;
    if ((uint8_t)(v->frame + 1) == 0) /* the stamps wrap: forget them all once */
        for (uint64_t id = 0; id < v->ncells; id++)
            v->node[id].fstamp = 0;
    v->nflist = 0;
    v->frame_flashes = 0;
}

uint64_t rt_shmap_view_bytes(const rt_shmap_view *v)
{
    uint64_t b = sizeof *v + v->ncells * (sizeof(struct node) + sizeof(double)) + v->capflist * 4
                 + v->maxev * sizeof(double);
    b += v->ncells * 4; /* the grids' cells */
    if (v->refs)
        b += (uint64_t)v->refs->w * (uint64_t)v->refs->h * 4 + (uint64_t)v->rrows * 12;
    if (v->tl)
        b += (uint64_t)v->tl->w * (uint64_t)v->tl->h * 8;
    b += (uint64_t)v->akeep * (sizeof(double) + 32);
    return b;
}
