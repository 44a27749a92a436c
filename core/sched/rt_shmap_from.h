/*
 * rt_shmap_from.h - a SHMAP trace from a program capture (`retrace shmap
 * --from-capture`): the capture's data bins become matrices and each data
 * reference into one of them an element access.
 *
 * The capture is a memory trace (RTMB) and its allocation log (rt_msp.h records
 * stamped @SEQ: N static ranges, A / F heap allocations, C code ranges, S thread
 * switches). Two streamed passes over both: the first finds the bins the program
 * touched (and the size of their references), the second writes the trace. A
 * bin's shape comes, in this order, from a hint (name=RxC), from the program's
 * DWARF type (C `double a[N][M]`: N x M row-major; Fortran or DW_AT_ordering
 * column-major), or is the nearest square (columns = ceil(sqrt(n))), row-major;
 * the element size from the type, else the most frequent reference size.
 *
 * Each element touched is a one-element load or store (a wider reference: a run
 * of a row), its time the reference's number in the trace (1-based), on the PE
 * of its thread: with several threads each thread's accesses are one group of a
 * parallel section, so thread t runs on PE t. When the function holding the PC
 * of the instruction before a reference changes, a flops record of 0 named after
 * the function is written first (SHMAP's subroutine column). Memory: the bins
 * and the code ranges, never the trace.
 */
#ifndef RT_SHMAP_FROM_H
#define RT_SHMAP_FROM_H

#include <stdint.h>

#include "rt_error.h"

typedef struct rt_shmap_hint {
    const char *name;  /* the bin's name as MemSpy shows it (`a`, `double*.p@main:12`) */
    int rows, cols;
    int col_major;
} rt_shmap_hint;

typedef struct rt_shmap_from_opts {
    const char *rtmb;       /* the capture's trace.rtmb */
    const char *log;        /* its alloc.msp */
    const char *program;    /* the program's ELF file, for DWARF types (NULL: none) */
    const char *out;        /* the SHMAP trace to write (whole or not at all) */
    const rt_shmap_hint *hints;
    int nhints;
    uint64_t min_elements;  /* bins with fewer elements are left out (0: 4) */
    int max_matrices;       /* the most-touched bins kept (0: 32) */
} rt_shmap_from_opts;

/* What became of one bin kept as a matrix. */
typedef struct rt_shmap_from_matrix {
    int id;
    char name[128];
    int rows, cols, col_major;
    int elem;              /* bytes per element */
    char how[160];         /* where the shape came from: "hint", "DWARF double[6][10]", "nearest square of 37" */
    uint64_t refs;         /* data references into it */
} rt_shmap_from_matrix;

typedef struct rt_shmap_from_result {
    rt_shmap_from_matrix *matrices; /* malloc'ed; rt_shmap_from_result_free */
    int nmatrices;
    int left_out;           /* touched bins not kept (too small, or past max_matrices) */
    int threads;            /* PEs used */
    uint64_t refs;          /* data references in the trace */
    uint64_t accesses;      /* element accesses written */
} rt_shmap_from_result;

/*
 * Convert. RT_OK with res filled; otherwise an error naming the file and the
 * record or line (a malformed trace or log), RT_EINVAL when no bin was touched
 * ("no data bin of the capture was touched by a reference"), RT_EIO when out
 * cannot be written.
 */
int rt_shmap_from_capture(const rt_shmap_from_opts *o, rt_shmap_from_result *res, rt_err *err);
void rt_shmap_from_result_free(rt_shmap_from_result *res);

/*
 * The shape the DWARF of program gives the global variable name: 1 with rows,
 * cols, col_major and elem (bytes) set for a two-dimensional array, 0 when the
 * variable is not there or not such an array (*dims gets its rank, 0 unknown).
 * decl (may be NULL) receives a C-like spelling: "double[6][10]".
 */
int rt_shmap_dwarf_shape(const char *program, const char *name, int *rows, int *cols, int *col_major, int *elem,
                         int *dims, char *decl, size_t decl_cap);

#endif
