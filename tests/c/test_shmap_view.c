/* Tests of the SHMAP view (core/view/rt_shmap_view): the strsv example of the
 * SHMAP paper (active PEs per step, references histogram, flashes), the fading
 * grids after every event against a slow model on random traces, and the
 * layouts of the memory canvases and of the cache window worked out by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_test.h"

#include "rt_shmap_view.h"

static rt_shmap *open_path(const char *path)
{
    rt_err e;
    rt_shmap *r = rt_shmap_open(path, &e);
    if (!r)
        fail_msg("%s", e.msg);
    return r;
}

static rt_shmap *open_fixture(const char *name)
{
    char path[512];
    return open_path(rt_test_fixture(path, sizeof path, "shmap/%s", name));
}

static rt_shmap_sim *make_sim(rt_shmap *r, int pes, int ncaches, uint64_t size, uint64_t line,
                              uint64_t ways, int write_back)
{
    rt_cache_config caches[8];
    rt_err e;
    for (int i = 0; i < ncaches; i++) {
        caches[i] = rt_cache_defaults(size, line);
        caches[i].ways = ways;
        caches[i].write_back = write_back;
    }
    rt_shmap_sim *s = rt_shmap_sim_new(r, pes, ncaches ? caches : NULL, ncaches, line, &e);
    if (!s)
        fail_msg("%s", e.msg);
    return s;
}

static rt_shmap_view *make_view_folding(rt_shmap_sim *s, double fade, int shades, uint64_t fold_every)
{
    rt_shmap_view_config c = rt_shmap_view_defaults();
    c.fold_every = fold_every;
    c.fade = fade;
    c.shades = shades;
    c.memory = c.cache = c.active = c.refs = c.timeline = 1;
    rt_err e;
    rt_shmap_view *v = rt_shmap_view_new(s, &c, &e);
    if (!v)
        fail_msg("%s", e.msg);
    return v;
}

static rt_shmap_view *make_view(rt_shmap_sim *s, double fade, int shades)
{
    return make_view_folding(s, fade, shades, 0);
}

/* ---- the strsv example (seed section 6): three groups of flops, 2 loads, 1 store ---- */

/* Active PEs of each step as a string "012|012|..." and the step times. */
static void run_active(int pes, char *out, double *times, int *nsteps)
{
    rt_shmap *r = open_fixture("three_groups.shm");
    rt_shmap_sim *s = make_sim(r, pes, 0, 0, 1, 0, 0);
    rt_shmap_view *v = make_view(s, 1, 4);
    rt_err e;
    int n = 0;
    out[0] = 0;
    for (;;) {
        uint64_t done;
        int st = rt_shmap_sim_step(s, 1, &done, &e);
        if (st == RT_EEOF)
            break;
        assert_int_equal(st, RT_OK);
        int act[256], k = rt_shmap_view_active(v, act);
        if (n)
            strcat(out, "|");
        for (int i = 0; i < k; i++)
            sprintf(out + strlen(out), "%d", act[i]);
        times[n++] = rt_shmap_view_time(v);
        assert_int_equal(rt_shmap_view_step(v), (uint64_t)n);
    }
    *nsteps = n;
    rt_shmap_view_free(v);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
}

static void test_strsv_active(void **state)
{
    (void)state;
    char got[256];
    double t[32];
    int n;
    run_active(4, got, t, &n);
    assert_string_equal(got, "012|012|012|012");
    /* step 1 runs flops only: time 0; steps 2-4 the largest stamp among their events */
    assert_true(t[0] == 0 && t[1] == 0.95 && t[2] == 0.95 && t[3] == 0.95);
    run_active(2, got, t, &n);
    assert_string_equal(got, "01|01|01|01|0|0|0|0");
    /* step 5: flops of group 3, keeps 0.95; step 6: PE 0 loads at 0.95 */
    assert_true(t[1] == 0.95 && t[4] == 0.95 && t[5] == 0.95);
    run_active(1, got, t, &n);
    assert_string_equal(got, "0|0|0|0|0|0|0|0|0|0|0|0");
    /* P = 1: group 1 runs 0.93333, 0.93333, 0.95; group 2 starts with flops (keeps 0.95) */
    assert_true(t[0] == 0 && t[1] == 0.93333 && t[2] == 0.93333 && t[3] == 0.95 && t[4] == 0.95);
}

/* The references of element (row, col) of matrix index 0 as PEs "012". */
static void refs_of(rt_shmap_view *v, int row, int col, char *out)
{
    int rr = rt_shmap_view_refs_row(v, 0, row, col);
    rt_grid *g = rt_shmap_view_refs(v);
    uint64_t n = rt_shmap_view_refs_count(v, rr);
    int k1 = rt_shmap_view_config_get(v)->shades + 1;
    for (uint64_t j = 0; j < n; j++) {
        int32_t c = g->cells[(uint64_t)rr * (uint64_t)g->w + j];
        assert_int_equal(c % k1, 0);
        out[j] = (char)('0' + c / k1);
    }
    out[n] = 0;
    for (uint64_t j = n; j < (uint64_t)g->w; j++)
        assert_int_equal(g->cells[(uint64_t)rr * (uint64_t)g->w + j], -1);
}

static void test_strsv_refs(void **state)
{
    (void)state;
    static const int pes[] = {4, 2, 1};
    /* rows 1-16 of column 1: three loads; rows 17-32 of columns 1-3: a load and a store each */
    static const char *const expect[3][4] = {
        {"012", "00", "11", "22"},
        {"010", "00", "11", "00"},
        {"000", "00", "00", "00"},
    };
    for (int k = 0; k < 3; k++) {
        rt_shmap *r = open_fixture("three_groups.shm");
        rt_shmap_sim *s = make_sim(r, pes[k], 0, 0, 1, 0, 0);
        rt_shmap_view *v = make_view(s, 1, 4);
        rt_err e;
        assert_int_equal(rt_shmap_sim_step(s, 0, NULL, &e), RT_EEOF);
        assert_int_equal(rt_shmap_view_elements(v), 10000);
        char got[64];
        for (int row = 1; row <= 100; row++)
            for (int col = 1; col <= 100; col++) {
                refs_of(v, row, col, got);
                const char *want = "";
                if (col == 1 && row <= 16)
                    want = expect[k][0];
                else if (col <= 3 && row >= 17 && row <= 32)
                    want = expect[k][col];
                if (strcmp(got, want) != 0)
                    fail_msg("P=%d element (%d, %d): refs %s, expected %s", pes[k], row, col, got, want);
            }
        /* row-major histogram rows: element (r, c) is row (r-1)*100 + c-1 */
        assert_int_equal(rt_shmap_view_refs_row(v, 0, 17, 3), 16 * 100 + 2);
        rt_shmap_view_free(v);
        rt_shmap_sim_free(s);
        rt_shmap_free(r);
    }
}

static uint64_t flashes_at(int pes, double fade, int ncaches)
{
    rt_shmap *r = open_fixture("three_groups.shm");
    rt_shmap_sim *s = make_sim(r, pes, ncaches, 64, 4, 0, 0);
    rt_shmap_view *v = make_view(s, fade, 4);
    rt_err e;
    assert_int_equal(rt_shmap_sim_step(s, 0, NULL, &e), RT_EEOF);
    uint64_t n = rt_shmap_view_flashes(v);
    rt_shmap_view_free(v);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
    return n;
}

static void test_strsv_flashes(void **state)
{
    (void)state;
    /* P = 3, no cache: step 2 has PE 0 load rows 1-16 of column 1 at 0.93333, then PEs 1 and 2
     * at 0.95. F = 0.01: PE 1's load first fades PE 0's cells (0.95 - 0.93333 >= 0.01), so only
     * PE 2 finds them at full brightness: 16 flashes. F = 1: nothing fades, 32. */
    assert_int_equal(flashes_at(3, 0.01, 0), 16);
    assert_int_equal(flashes_at(3, 1, 0), 32);
    /* with one cache of 64 words (lines of 4): PE 0 misses the 4 lines of rows 1-16 (its hits
     * on words its own misses lit do not flash); PEs 1 and 2 hit all 16 words: the cells lit at
     * 0.93333 are faded by PE 1's event at F = 0.01, so PE 1 flashes none, PE 2 all 16; step 3
     * fills new lines into empty ways */
    assert_int_equal(flashes_at(3, 0.01, 1), 16);
    assert_int_equal(flashes_at(3, 1, 1), 32);
}

/* ---- fading against a slow model on random traces ---------------------------------- */

typedef struct {
    rt_shmap_access a[4096];
    int n;
} recorder;

static void record(void *ud, const rt_shmap_access *a)
{
    recorder *r = ud;
    assert_true(r->n < 4096);
    r->a[r->n++] = *a;
}

/* The slow model: one cell array per grid (load grids, store grids, caches), each
 * cell a value and a last-fade time; every event scans every cell. */
typedef struct {
    int ncells;
    int32_t val[4096];
    double last[4096];
    int ev[4096];           /* event that lit the cell */
    int event;
    int have_clock;
    double clock;
    uint64_t flashes;
} model;

static void model_light(model *m, int cell, int pe, int k1)
{
    if (m->val[cell] >= 0 && m->val[cell] % k1 == 0 && m->ev[cell] != m->event)
        m->flashes++;
    m->ev[cell] = m->event;
    m->val[cell] = pe * k1;
    m->last[cell] = m->clock;
}

static char *random_trace(unsigned *seed, int *rows, int *cols, int nmat)
{
    size_t cap = 1 << 16, n = 0;
    char *t = malloc(cap);
    assert_non_null(t);
#define ADD(...) (n += (size_t)snprintf(t + n, cap - n, __VA_ARGS__))
    for (int i = 0; i < nmat; i++) {
        rows[i] = 1 + rand_r(seed) % 7;
        cols[i] = 1 + rand_r(seed) % 6;
        ADD("0 %d %d %d\n", i + 1, rows[i], cols[i]);
    }
    double time = 0;
    int sections = 2 + rand_r(seed) % 3;
    for (int sct = 0; sct < sections; sct++) {
        int par = rand_r(seed) % 2;
        if (par)
            ADD("6 par\n");
        int groups = 1 + rand_r(seed) % 4;
        for (int g = 0; g < groups; g++) {
            ADD("8 g\n");
            int evs = 1 + rand_r(seed) % 5;
            for (int k = 0; k < evs; k++) {
                int kind = rand_r(seed) % 6;
                if (kind == 0) {
                    ADD("5 1 %d sub\n", rand_r(seed) % 100);
                    continue;
                }
                int i = rand_r(seed) % nmat;
                int r1 = 1 + rand_r(seed) % rows[i], c1 = 1 + rand_r(seed) % cols[i];
                int r2 = r1 + rand_r(seed) % (rows[i] - r1 + 1), c2 = c1 + rand_r(seed) % (cols[i] - c1 + 1);
                /* time mostly grows, sometimes goes back (the clock keeps the largest) */
                time += (rand_r(seed) % 7 - 1) * 0.004;
                if (time < 0)
                    time = 0;
                ADD("%d %d %d %d %d %d %.3f\n", kind < 4 ? 1 : 2, i + 1, r1, r2, c1, c2, time);
            }
            ADD("9 g\n");
        }
        if (par)
            ADD("7 par\n");
    }
#undef ADD
    return t;
}

static void test_fading_random(void **state)
{
    (void)state;
    unsigned seed = 12345;
    uint64_t flashes = 0, faded = 0, emptied = 0;
    for (int round = 0; round < 60; round++) {
        int rows[3], cols[3], nmat = 1 + rand_r(&seed) % 3;
        char *text = random_trace(&seed, rows, cols, nmat);
        char *path = rt_test_write_text(text);
        free(text);
        int pes = 1 + rand_r(&seed) % 4;
        int cached = round % 3 != 0;
        int ncaches = cached ? 1 + rand_r(&seed) % pes : 0;
        uint64_t ways = (uint64_t)(rand_r(&seed) % 3 == 0 ? 0 : 1 << (rand_r(&seed) % 3));
        int wb = cached && rand_r(&seed) % 3 == 0;
        int shades = rand_r(&seed) % 4;
        const double F = 0.01;
        rt_shmap *r = open_path(path);
        rt_shmap_sim *s = make_sim(r, pes, ncaches, 16, 4, ways, wb);
        /* the view folds its fades in lazily: compared after every event in a
         * third of the rounds, every few events in the others, and folding
         * every 1-3 events on its own in some */
        int every = round % 3 == 1 ? 1 : 1 + rand_r(&seed) % 9;
        uint64_t fold_every = round % 2 ? (uint64_t)(1 + rand_r(&seed) % 3) : 0;
        rt_shmap_view *v = make_view_folding(s, F, shades, fold_every);
        recorder *rec = calloc(1, sizeof *rec);
        model *m = calloc(1, sizeof *m);
        assert_non_null(rec);
        assert_non_null(m);
        assert_int_equal(rt_shmap_sim_observe(s, record, NULL, rec), RT_OK);
        const int k1 = shades + 1;
        /* model cells: load grids, store grids, then caches (16 words each) */
        int base[8], nb = 0;
        for (int i = 0; i < 2 * nmat; i++) {
            base[i] = nb;
            nb += rows[i % nmat] * cols[i % nmat];
        }
        int cbase = nb;
        nb += 16 * ncaches;
        for (int c = 0; c < nb; c++)
            m->val[c] = -1;
        uint64_t ways_eff = ways ? ways : 4;
        rt_err e;
        for (int ev = 0;; ev++) {
            rec->n = 0;
            uint64_t done;
            int st = rt_shmap_sim_step_events(s, 1, &done, &e);
            if (st == RT_EEOF)
                break;
            assert_int_equal(st, RT_OK);
            if (rec->n) { /* a load or store: move the clock, fade by scanning every cell */
                double t = rec->a[0].time;
                m->event = ev + 1;
                if (!m->have_clock || t > m->clock)
                    m->clock = t;
                m->have_clock = 1;
                for (int c = 0; c < nb; c++)
                    if (m->val[c] >= 0 && m->clock - m->last[c] >= F) {
                        faded++;
                        emptied += m->val[c] % k1 == shades;
                        m->val[c] = m->val[c] % k1 == shades ? -1 : m->val[c] + 1;
                        m->last[c] = m->clock;
                    }
            }
            for (int k = 0; k < rec->n; k++) {
                const rt_shmap_access *a = &rec->a[k];
                int elem = (a->row - 1) * cols[a->matrix] + (a->col - 1);
                int cc = cbase + 16 * a->cache;
                if (a->outcome == RT_SHM_NOLOOKUP) {
                    model_light(m, base[a->store * nmat + a->matrix] + elem, a->pe, k1);
                } else if (a->store) {
                    model_light(m, base[nmat + a->matrix] + elem, a->pe, k1);
                    model_light(m, cc + (int)((a->set * ways_eff + a->way) * 4 + a->addr % 4), a->pe, k1);
                } else if (a->outcome == RT_SHM_HIT) {
                    model_light(m, cc + (int)((a->set * ways_eff + a->way) * 4 + a->addr % 4), a->pe, k1);
                } else {
                    for (uint64_t w = 0; w < 4; w++) {
                        model_light(m, cc + (int)((a->set * ways_eff + a->way) * 4 + w), a->pe, k1);
                        int mi, rr, c2;
                        if (rt_shmap_sim_locate(s, a->line_first + w, &mi, &rr, &c2))
                            model_light(m, base[mi] + (rr - 1) * cols[mi] + (c2 - 1), a->pe, k1);
                    }
                }
            }
            if (ev % every != 0)
                continue;
            /* compare every grid with the model */
            rt_shmap_view_sync(v);
            for (int i = 0; i < 2 * nmat; i++) {
                rt_grid *g = rt_shmap_view_grid(v, i % nmat, i >= nmat);
                assert_int_equal(g->w, cols[i % nmat]);
                assert_int_equal(g->h, rows[i % nmat]);
                for (int c = 0; c < rows[i % nmat] * cols[i % nmat]; c++)
                    if (g->cells[c] != m->val[base[i] + c])
                        fail_msg("round %d event %d: %s grid %d cell %d: view %d, model %d", round, ev,
                                 i >= nmat ? "store" : "load", i % nmat, c, g->cells[c], m->val[base[i] + c]);
            }
            for (int c = 0; c < ncaches; c++) {
                rt_grid *g = rt_shmap_view_cache_grid(v, c);
                for (int w = 0; w < 16; w++)
                    if (g->cells[w] != m->val[cbase + 16 * c + w])
                        fail_msg("round %d event %d: cache %d word cell %d: view %d, model %d", round, ev, c, w,
                                 g->cells[w], m->val[cbase + 16 * c + w]);
            }
            assert_int_equal(rt_shmap_view_flashes(v), m->flashes);
            uint64_t lit = 0;
            for (int c = 0; c < nb; c++)
                lit += m->val[c] >= 0;
            assert_int_equal(rt_shmap_view_lit(v), lit);
        }
        flashes += m->flashes;
        rt_shmap_sim_unobserve(s, rec);
        free(rec);
        free(m);
        rt_shmap_view_free(v);
        rt_shmap_sim_free(s);
        rt_shmap_free(r);
        rt_test_remove(path);
    }
    /* the traces exercised flashes, fades and cells going back to empty */
    assert_true(flashes > 50 && faded > 500 && emptied > 100);
}

/* ---- layouts ---------------------------------------------------------------------- */

static void expect_region(const rt_shmap_region *g, int x, int y, int w, int h, int shown)
{
    if (g->x != x || g->y != y || g->w != w || g->h != h || g->shown != shown)
        fail_msg("region at %d,%d %dx%d shown %d, expected %d,%d %dx%d shown %d", g->x, g->y, g->w, g->h,
                 g->shown, x, y, w, h, shown);
}

static void test_regions(void **state)
{
    (void)state;
    rt_shmap_region g[5];
    rt_shmap_layout_info in;
    /* one 10 x 20 matrix on 100 x 50, gap 2: f = min(96/20, 46/10) = 4, centred */
    int r1[] = {10}, c1[] = {20};
    assert_int_equal(rt_shmap_regions(1, r1, c1, 100, 50, 2, g, &in), RT_OK);
    assert_int_equal(in.f, 4);
    assert_int_equal(in.k, 1);
    expect_region(&g[0], 10, 5, 80, 40, 1);
    /* 10x10, 10x10, 20x5 on 70 x 50: f = 2 (the 20 rows limit it), one row, spare 20 in 4 gaps,
     * regions centred in the row of height 40 */
    int r2[] = {10, 10, 20}, c2[] = {10, 10, 5};
    assert_int_equal(rt_shmap_regions(3, r2, c2, 70, 50, 2, g, &in), RT_OK);
    assert_int_equal(in.f, 2);
    assert_int_equal(in.rows, 1);
    expect_region(&g[0], 5, 15, 20, 20, 1);
    expect_region(&g[1], 30, 15, 20, 20, 1);
    expect_region(&g[2], 55, 5, 10, 40, 1);
    /* two 10 x 30 on 70 x 50: f = 2, the second wraps; vertical spare 10 in 3 gaps */
    int r3[] = {10, 10}, c3[] = {30, 30};
    assert_int_equal(rt_shmap_regions(2, r3, c3, 70, 50, 2, g, &in), RT_OK);
    assert_int_equal(in.f, 2);
    assert_int_equal(in.rows, 2);
    expect_region(&g[0], 5, 3, 60, 20, 1);
    expect_region(&g[1], 5, 26, 60, 20, 1);
    /* a larger f would not fit: 3 makes the rows 90 wide */
    /* 300 x 200 on 100 x 60: f = 1 does not fit; k >= max(ceil(200/96), ceil(300/56)) = 6
     * fits: 34 x 50 cells */
    int r4[] = {300}, c4[] = {200};
    assert_int_equal(rt_shmap_regions(1, r4, c4, 100, 60, 2, g, &in), RT_OK);
    assert_int_equal(in.f, 1);
    assert_int_equal(in.k, 6);
    expect_region(&g[0], 33, 5, 34, 50, 1);
    assert_int_equal(g[0].cw, 34);
    assert_int_equal(g[0].ch, 50);
    /* two 100 x 100 on 150 x 104, gap 2: alone each fits at k = 1 (f = 1), together in one
     * row they do not (204 > 150) and wrapped they are 200 high; k = 2 puts both in a row */
    int r5[] = {100, 100}, c5[] = {100, 100};
    assert_int_equal(rt_shmap_regions(2, r5, c5, 150, 104, 2, g, &in), RT_OK);
    assert_int_equal(in.k, 2);
    assert_int_equal(in.rows, 1);
    expect_region(&g[0], 16, 27, 50, 50, 1); /* spare 50 in 3 gaps: 16, 33; 54 in 2 */
    expect_region(&g[1], 83, 27, 50, 50, 1);
    /* five 1 x 1 on 3 x 3, gap 1: only one fits; the others are hidden */
    int r6[] = {1, 1, 1, 1, 1}, c6[] = {1, 1, 1, 1, 1};
    assert_int_equal(rt_shmap_regions(5, r6, c6, 3, 3, 1, g, &in), RT_OK);
    assert_int_equal(in.hidden, 4);
    expect_region(&g[0], 1, 1, 1, 1, 1);
    for (int i = 1; i < 5; i++)
        assert_int_equal(g[i].shown, 0);
    assert_int_equal(rt_shmap_regions(0, r6, c6, 3, 3, 1, g, &in), RT_EINVAL);
}

static void test_cache_layout(void **state)
{
    (void)state;
    rt_shmap_cache_layout c;
    /* 2 caches of 64 words, lines of 4 (16 lines) in 200 x 100, gap 4: per row 1 gives cells of
     * min(188/8, 92/16) = 5, 2 per row min(11.75, 92/8) = 11, 3: 7, 4: 5 -> 2 per row, 11 px */
    assert_int_equal(rt_shmap_cache_layout_of(2, 64, 4, 200, 100, 4, 2.0, &c), RT_OK);
    assert_int_equal(c.per_row, 2);
    assert_int_equal(c.rows, 8);
    assert_true(c.cell == 11);
    assert_true(c.w == 188 && c.h == 96);
    /* one cache of 16 words, lines of 4, 100 x 100 gap 0: per row 1 -> min(25, 25) = 25 (square),
     * 2 -> min(12.5, 50) = 12, 4 -> 6: per row 1 */
    assert_int_equal(rt_shmap_cache_layout_of(1, 16, 4, 100, 100, 0, 1.0, &c), RT_OK);
    assert_int_equal(c.per_row, 1);
    assert_true(c.cell == 25);
    /* ties in cell size go to the aspect: 1 cache of 8 words, lines of 1, 8 x 8 gap 0:
     * per row 1: min(8, 1) = 1; 2: min(4, 2) = 2; 4: min(2, 4) = 2; 8: 1 -> per row 2 (4 x 8
     * cells of 2: 4 wide, 8 high, w/h 0.5) or 4 (8 wide, 4 high, 2): aspect 2 picks 4 */
    assert_int_equal(rt_shmap_cache_layout_of(1, 8, 1, 8, 8, 0, 2.0, &c), RT_OK);
    assert_int_equal(c.per_row, 4);
    assert_int_equal(rt_shmap_cache_layout_of(1, 8, 1, 8, 8, 0, 0.5, &c), RT_OK);
    assert_int_equal(c.per_row, 2);
}

/* A direct-mapped cache: the cell of word w of set s is (s*1 + 0)*L + w. */
static void test_cache_cells(void **state)
{
    (void)state;
    char *path = rt_test_write_text("0 1 8 1\n1 1 6 6 1 1 1.0\n1 1 7 7 1 1 1.0\n");
    rt_shmap *r = open_path(path);
    rt_shmap_sim *s = make_sim(r, 1, 1, 8, 4, 1, 0);
    rt_shmap_view *v = make_view(s, 10, 2);
    rt_err e;
    assert_int_equal(rt_shmap_sim_step(s, 1, NULL, &e), RT_OK);
    /* element 6 is word 5: line 1, set 1 -> cells 4..7 lit, and rows 5..8 of the load grid */
    rt_shmap_view_sync(v);
    rt_grid *cg = rt_shmap_view_cache_grid(v, 0), *lg = rt_shmap_view_grid(v, 0, 0);
    for (int w = 0; w < 8; w++) {
        assert_int_equal(cg->cells[w], w >= 4 ? 0 : -1);
        assert_int_equal(lg->cells[w], w >= 4 ? 0 : -1);
    }
    assert_int_equal(rt_shmap_sim_step(s, 1, NULL, &e), RT_OK);
    /* element 7 hits: word cell 6 flashes (still at full brightness) */
    assert_int_equal(rt_shmap_view_flashes(v), 1);
    rt_pack *p;
    assert_int_equal(rt_pack_new(4, &p, &e), RT_OK);
    assert_int_equal(rt_shmap_view_flash_rects(v, 2, 0, p), RT_OK);
    assert_int_equal(p->n, 1);
    /* per row 1: the grid is 4 wide, cell 6 at column 2 of row 1, cell 1 px, gap 4 */
    assert_true(p->v[0] == 4 + 2 && p->v[1] == 4 + 1 && p->v[2] == 1);
    assert_int_equal(rt_shmap_view_flash_rects(v, 0, 0, p), RT_OK);
    assert_int_equal(p->n, 0);
    rt_shmap_view_new_frame(v);
    assert_int_equal(rt_shmap_view_flash_rects(v, 2, 0, p), RT_OK);
    assert_int_equal(p->n, 0);
    assert_int_equal(rt_shmap_view_flashes(v), 1);
    rt_pack_free(p);
    rt_shmap_view_free(v);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
    rt_test_remove(path);
}

/* A 2^20 x 2^20 matrix with a canvas: grids bounded by the canvas (k x k per cell). */
static void test_huge_bounded(void **state)
{
    (void)state;
    char *path = rt_test_write_text("0 1 1048576 1048576\n1 1 1 4 1 4 1.0\n2 1 1048576 1048576 1048576 1048576 2.0\n");
    rt_shmap *r = open_path(path);
    rt_shmap_sim *s = make_sim(r, 1, 0, 0, 1, 0, 0);
    rt_shmap_view_config c = rt_shmap_view_defaults();
    c.memory = c.refs = c.timeline = c.active = 1;
    c.fade = 10;
    c.mem_w = 640;
    c.mem_h = 480;
    c.refs_rows = 400;
    c.refs_len = 300;
    c.time_h = 400;
    rt_err e;
    rt_shmap_view *v = rt_shmap_view_new(s, &c, &e);
    assert_non_null(v);
    const rt_shmap_layout_info *in = rt_shmap_view_layout(v);
    assert_true(in->k >= 1048576 / 476);
    assert_true(rt_shmap_view_bytes(v) < 64u << 20);
    assert_int_equal(rt_shmap_sim_step(s, 0, NULL, &e), RT_EEOF);
    rt_shmap_view_sync(v);
    rt_grid *lg = rt_shmap_view_grid(v, 0, 0), *sg = rt_shmap_view_grid(v, 0, 1);
    assert_int_equal(lg->cells[0], 0);
    assert_int_equal(sg->cells[(uint64_t)sg->w * (uint64_t)sg->h - 1], 0);
    /* the last element is the last histogram row */
    assert_int_equal(rt_shmap_view_refs_row(v, 0, 1048576, 1048576), 399);
    assert_int_equal(rt_shmap_view_refs_count(v, 399), 1);
    rt_shmap_view_free(v);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
    rt_test_remove(path);
}

static void test_bad_config(void **state)
{
    (void)state;
    rt_shmap *r = open_fixture("three_groups.shm");
    rt_shmap_sim *s = make_sim(r, 1, 0, 0, 1, 0, 0);
    rt_shmap_view_config c = rt_shmap_view_defaults();
    rt_err e;
    c.fade = 0;
    assert_null(rt_shmap_view_new(s, &c, &e));
    assert_int_equal(e.status, RT_ERANGE);
    assert_non_null(strstr(e.msg, "fade"));
    c.fade = 1;
    c.shades = 65;
    assert_null(rt_shmap_view_new(s, &c, &e));
    assert_non_null(strstr(e.msg, "shades"));
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
}

/* ---- batches: the same accesses as one at a time, never across events ---------- */

typedef struct {
    rt_shmap_access a[8192];
    int n, calls, max;
} batches;

static void record_batch(void *ud, const rt_shmap_access *a, size_t n)
{
    batches *b = ud;
    assert_true(n >= 1 && n <= RT_SHMAP_SIM_BATCH);
    for (size_t k = 1; k < n; k++) { /* one event: one step, one PE */
        assert_int_equal(a[k].step, a[0].step);
        assert_int_equal(a[k].pe, a[0].pe);
    }
    assert_true(b->n + (int)n <= 8192);
    memcpy(&b->a[b->n], a, n * sizeof *a);
    b->n += (int)n;
    b->calls++;
    if ((int)n > b->max)
        b->max = (int)n;
}

/* After each event the batch observer has had every access of it, in the order
 * a per-access observer gets them. */
static void test_batches(void **state)
{
    (void)state;
    unsigned seed = 777;
    int full = 0;
    for (int round = 0; round < 20; round++) {
        int rows[3], cols[3], nmat = 1 + rand_r(&seed) % 3;
        char *text = random_trace(&seed, rows, cols, nmat);
        /* round 0: a 12 x 12 block, 144 accesses in one event (64 + 64 + 16) */
        char *path = rt_test_write_text(round ? text : "0 1 12 12\n1 1 1 12 1 12 1.0\n2 1 3 3 2 2 2.0\n");
        free(text);
        int pes = 1 + rand_r(&seed) % 4;
        int ncaches = round % 4 ? 1 + rand_r(&seed) % pes : 0;
        rt_shmap *r = open_path(path);
        rt_shmap_sim *s = make_sim(r, pes, ncaches, 16, 4, 2, round % 3 == 0);
        recorder *one = calloc(1, sizeof *one);
        batches *b = calloc(1, sizeof *b);
        assert_non_null(one);
        assert_non_null(b);
        assert_int_equal(rt_shmap_sim_observe_batch(s, record_batch, NULL, b), RT_OK);
        assert_int_equal(rt_shmap_sim_observe(s, record, NULL, one), RT_OK);
        rt_err e;
        for (;;) {
            one->n = 0;
            b->n = 0;
            uint64_t done;
            int st = rt_shmap_sim_step_events(s, 1, &done, &e);
            if (st == RT_EEOF)
                break;
            assert_int_equal(st, RT_OK);
            assert_int_equal(b->n, one->n);
            for (int k = 0; k < one->n; k++)
                assert_memory_equal(&b->a[k], &one->a[k], sizeof one->a[k]);
            if (round == 0 && one->n == 144)
                assert_int_equal(b->calls, 3);
            b->calls = 0;
        }
        full += b->max == RT_SHMAP_SIM_BATCH;
        free(one);
        free(b);
        rt_shmap_sim_free(s);
        rt_shmap_free(r);
        rt_test_remove(path);
    }
    assert_true(full > 0); /* some events were longer than a batch */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strsv_active),  cmocka_unit_test(test_strsv_refs),
        cmocka_unit_test(test_strsv_flashes), cmocka_unit_test(test_fading_random),
        cmocka_unit_test(test_regions),       cmocka_unit_test(test_cache_layout),
        cmocka_unit_test(test_cache_cells),   cmocka_unit_test(test_huge_bounded),
        cmocka_unit_test(test_bad_config),    cmocka_unit_test(test_batches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
