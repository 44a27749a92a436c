/*
 * bench/chitra.c - states per second for loading a PES and for each Chitra
 * transform, on a generated PES of 10^7 states (a periodic cycle of 8 states with
 * 5% random perturbations over 40 symbols, like a dining philosophers run).
 * Then the time view of the whole sequence: reduced in C to the rows present in
 * each of 914 pixel columns (the plot area of a 1000-pixel picture), and drawn
 * with Cairo into an image.
 * Usage: build/bench/chitra [STATES]   (the file goes to /tmp and is removed)
 */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "rt_seq.h"

static void report(const char *what, size_t n, double secs)
{
    printf("  %-28s %10zu states %8.3f s %8.1f M states/s\n", what, n, secs, (double)n / secs / 1e6);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000000;
    if (n < 100)
        return 1;
    char path[64];
    FILE *f = bench_create(bench_tmp_path(path, sizeof path, "chitra", "pes"));
    static const char *cycle[] = {"TE", "A1E", "A1R1", "A2R1", "ET", "EA1", "R1A1", "R2A2"};
    unsigned long long x = 88172645463325252ULL, t = 0;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (x % 100 < 5)
            fprintf(f, "P%llu %llu\n", (x >> 8) % 32, t);
        else
            fprintf(f, "%s %llu\n", cycle[i % 8], t);
        t += 1 + (x >> 20) % 30;
    }
    bench_close(f, path);
    printf("chitra: %zu-state PES (%s)\n", n, path);

    rt_err e;
    rt_ses *s = rt_ses_new();
    double t0 = bench_now();
    if (rt_ses_load(s, path, &e))
        bench_die("chitra bench", &e);
    report("load", n, bench_now() - t0);
    remove(path);
    size_t len = rt_ses_length(s, 0);

    /* the time view, as displays/chitra/sequence.lua draws it (1000 x 600 picture) */
    t0 = bench_now();
    int32_t *row = malloc(rt_ses_symbol_count(s) * sizeof *row);
    size_t nrows;
    rt_pack *segs;
    rt_ses_rows(s, 0, row, &nrows);
    rt_ses_frame fr = {'t', rt_ses_entry(s, 0, 0),
                       rt_ses_entry(s, 0, len - 1) + rt_ses_time(s, 0, len - 1),
                       70, 28, 914, 528, -0.5, (double)nrows - 0.5};
    if (rt_pack_new(4, &segs, &e) || rt_ses_view_segments(s, 0, &fr, row, segs, &e))
        bench_die("chitra bench", &e);
    double reduce = bench_now() - t0;
    report("time view: reduce", len, reduce);
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1000, 600);
    cairo_t *cr = cairo_create(img);
    cairo_set_source_rgb(cr, 0, 0, 0.5);
    cairo_set_line_width(cr, 1.5);
    for (size_t i = 0; i < segs->n; i++) {
        cairo_move_to(cr, segs->v[4 * i], segs->v[4 * i + 1]);
        cairo_line_to(cr, segs->v[4 * i + 2], segs->v[4 * i + 3]);
    }
    cairo_stroke(cr);
    cairo_surface_flush(img);
    report("time view: reduce + draw", len, bench_now() - t0);
    printf("  %-28s -> %zu segments, %zu rows\n", "", segs->n, nrows);
    cairo_destroy(cr);
    cairo_surface_destroy(img);
    rt_pack_free(segs);
    free(row);

    int32_t pat[3] = {rt_ses_lookup(s, "ET"), rt_ses_lookup(s, "EA1"), rt_ses_lookup(s, "R1A1")};
    size_t nsym = rt_ses_symbol_count(s);
    int32_t *map = malloc(nsym * sizeof *map);
    for (size_t i = 0; i < nsym; i++)
        map[i] = -1;
    int32_t a = rt_ses_intern(s, "A", 1);
    map[rt_ses_lookup(s, "A1E")] = a;
    map[rt_ses_lookup(s, "A1R1")] = a;
    map[rt_ses_lookup(s, "A2R1")] = a;

    struct {
        const char *name;
        int which;
    } runs[] = {{"clip 1000 1000", 0},  {"aggregate ET,EA1,R1A1", 1}, {"project 3 symbols", 2},
                {"filter_time 0.01", 3}, {"filter_event 20000", 4},     {"pattern search (3)", 5},
                {"chain", 6}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        t0 = bench_now();
        int st = RT_OK;
        uint64_t cnt;
        double tm;
        rt_chain *c = NULL;
        switch (runs[r].which) {
        case 0: st = rt_ses_clip(s, 1000, 1000, &e); break;
        case 1: st = rt_ses_aggregate(s, pat, 3, "Z", &e); break;
        case 2: st = rt_ses_project(s, map, nsym, &e); break;
        case 3: st = rt_ses_filter_time(s, 0.01, &e); break;
        case 4: st = rt_ses_filter_event(s, 20000, &e); break;
        case 5: st = rt_ses_find(s, pat, 3, NULL, NULL, &cnt, &tm, &e); break;
        case 6: st = rt_ses_chain(s, NULL, 0, &c, &e); break;
        }
        double dt = bench_now() - t0;
        if (st)
            bench_die("chitra bench", &e);
        report(runs[r].name, len, dt);
        if (runs[r].which < 5) {
            printf("  %-28s -> %zu symbols\n", "", rt_ses_length(s, 0));
            t0 = bench_now();
            if (rt_ses_undo(s, &e))
                bench_die("chitra bench", &e);
            report("undo", len, bench_now() - t0);
        }
        rt_chain_free(c);
    }
    free(map);
    rt_ses_free(s);
    return 0;
}
