/*
 * retrace/shmap_trace.h - write SHMAP traces from C matrix code (header only).
 *
 * Installed by `make install` as PREFIX/include/retrace/shmap_trace.h. Put the
 * calls beside the code's own block accesses; the trace it writes is read by
 * `retrace shmap` (simulation, --frames animation) and `retrace memspy`.
 *
 *   shmap_trace t;
 *   if (shmap_trace_open(&t, "lu.shm") != 0) { perror("lu.shm"); return 1; }
 *   int A = shmap_trace_matrix(&t, n, n);            // opcode 0: matrix ID 1, 2, ...
 *   shmap_trace_info(&t, A, "LU of A");             // opcode 3
 *   shmap_trace_flops(&t, A, 2 * n, "daxpy");       // opcode 5 (before the accesses it counts)
 *   shmap_trace_load(&t, A, r1, r2, c1, c2);         // opcode 1: block rows r1..r2, columns c1..c2
 *   shmap_trace_store(&t, A, r1, r2, c1, c2);        // opcode 2 (1-based, inclusive)
 *   shmap_trace_section(&t, 1, "update");           // opcode 6 / 7: a parallel section
 *   shmap_trace_group(&t, 1, "column 5");           // opcode 8 / 9: one task of it
 *   ...  shmap_trace_group(&t, 0, ...); shmap_trace_section(&t, 0, ...);
 *   if (shmap_trace_close(&t) != 0) ...             // -1 when a write failed (disk full)
 *
 * Each load or store advances the trace time by one unit (an ordering, as in
 * SHMAP). An empty block (r1 > r2 or c1 > c2) writes nothing. Labels and texts
 * run to the end of their line: a newline in them is written as a blank.
 * Matrices are column-major with 1-based indices, as in the Fortran SHMAP traced.
 */
#ifndef RETRACE_SHMAP_TRACE_H
#define RETRACE_SHMAP_TRACE_H

#include <stdio.h>

typedef struct shmap_trace {
    FILE *f;
    long time;    /* loads and stores so far */
    int matrices; /* matrices defined so far (the last ID) */
    int failed;   /* a write failed */
} shmap_trace;

/* Create (truncate) path. 0, or -1 with errno set. */
static inline int shmap_trace_open(shmap_trace *t, const char *path)
{
    t->f = fopen(path, "w");
    t->time = 0;
    t->matrices = 0;
    t->failed = 0;
    return t->f ? 0 : -1;
}

static inline void shmap_trace_text_(shmap_trace *t, const char *s)
{
    for (; s && *s; s++)
        if (fputc(*s == '\n' || *s == '\r' ? ' ' : *s, t->f) == EOF)
            t->failed = 1;
    if (fputc('\n', t->f) == EOF)
        t->failed = 1;
}

/* Define a rows x cols matrix; returns its ID (1 for the first, then 2, ...). */
static inline int shmap_trace_matrix(shmap_trace *t, int rows, int cols)
{
    int id = ++t->matrices;
    if (fprintf(t->f, "0 %d %d %d\n", id, rows, cols) < 0)
        t->failed = 1;
    return id;
}

static inline void shmap_trace_block_(shmap_trace *t, int op, int id, int r1, int r2, int c1, int c2)
{
    if (r1 > r2 || c1 > c2)
        return;
    t->time++;
    if (fprintf(t->f, "%d %d %d %d %d %d %ld.0\n", op, id, r1, r2, c1, c2, t->time) < 0)
        t->failed = 1;
}

/* Load / store the block r1..r2 x c1..c2 of matrix id. */
static inline void shmap_trace_load(shmap_trace *t, int id, int r1, int r2, int c1, int c2)
{
    shmap_trace_block_(t, 1, id, r1, r2, c1, c2);
}

static inline void shmap_trace_store(shmap_trace *t, int id, int r1, int r2, int c1, int c2)
{
    shmap_trace_block_(t, 2, id, r1, r2, c1, c2);
}

/* flops operations done by the subroutine routine (a name without blanks) on matrix id. */
static inline void shmap_trace_flops(shmap_trace *t, int id, long flops, const char *routine)
{
    if (fprintf(t->f, "5 %d %ld %s\n", id, flops, routine) < 0)
        t->failed = 1;
}

/* An information message about matrix id. */
static inline void shmap_trace_info(shmap_trace *t, int id, const char *text)
{
    if (fprintf(t->f, "3 %d ", id) < 0)
        t->failed = 1;
    shmap_trace_text_(t, text);
}

/* Start (start = 1) or end (0) a parallel section / a group (one task of a section). */
static inline void shmap_trace_section(shmap_trace *t, int start, const char *label)
{
    if (fprintf(t->f, "%d ", start ? 6 : 7) < 0)
        t->failed = 1;
    shmap_trace_text_(t, label);
}

static inline void shmap_trace_group(shmap_trace *t, int start, const char *label)
{
    if (fprintf(t->f, "%d ", start ? 8 : 9) < 0)
        t->failed = 1;
    shmap_trace_text_(t, label);
}

/* Close; 0, or -1 when some write (or the close) failed. */
static inline int shmap_trace_close(shmap_trace *t)
{
    int bad = t->failed;
    if (t->f && fclose(t->f) != 0)
        bad = 1;
    t->f = NULL;
    return bad ? -1 : 0;
}

#endif
