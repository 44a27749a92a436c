/*
 * rt_shmap.h - reader of SHMAP memory-access traces (opcodes 0-9).
 *
 * A SHMAP trace is a stream of white-space separated tokens; line breaks carry
 * no meaning except that the text of an information message (opcodes 3 and 4)
 * and the label after opcodes 6-9 run to the end of their line:
 *
 *   0 ID ROWS COLS              define matrix ID (ROWS x COLS, column-major)
 *   1 ID R1 R2 C1 C2 TIME       load the block R1..R2 x C1..C2 at trace time TIME
 *   2 ID R1 R2 C1 C2 TIME       store, same fields
 *   3|4 ID TEXT...              information message about matrix ID
 *   5 ID FLOPS NAME             FLOPS operations done by subroutine NAME
 *   6|7 label...                start / end of a parallel section
 *   8|9 label...                start / end of a group (one unit of work)
 *
 * Shaped for traces of 10^8 records: rt_shmap_open makes a first pass over the
 * whole file (as SHMAP does) that validates every record and collects the
 * matrix definitions, the trace's time span and smallest time step, and counts;
 * then the reader is rewound and rt_shmap_next streams the records again in
 * bounded memory. Because the first pass validates everything, a file that
 * opens never fails later except on an I/O error.
 */
#ifndef RT_SHMAP_H
#define RT_SHMAP_H

#include <stdint.h>

#include "rt_error.h"

typedef enum {
    RT_SHM_DEFINE = 0,
    RT_SHM_LOAD = 1,
    RT_SHM_STORE = 2,
    RT_SHM_INFO = 3,        /* opcode 4 is read as 3 */
    RT_SHM_FLOPS = 5,
    RT_SHM_PAR_START = 6,
    RT_SHM_PAR_END = 7,
    RT_SHM_GROUP_START = 8,
    RT_SHM_GROUP_END = 9
} rt_shmap_op;

/* One record. Opcodes 6-9 are markers and opcode 0 defines a matrix; the
 * others (1-5) are the events a PE executes. */
typedef struct rt_shmap_event {
    int op;                 /* rt_shmap_op */
    int matrix;             /* index into the matrix table (0-based, increasing ID), -1 for markers */
    int r1, r2, c1, c2;     /* load/store block, 1-based inclusive; define: r2 = ROWS, c2 = COLS */
    double time;            /* load/store time stamp */
    int64_t flops;          /* flops event */
    const char *text;       /* info text, flops subroutine name or marker label, NUL-terminated;
                               valid until the next rt_shmap_next call; "" when absent */
    unsigned long line;     /* line of the opcode */
} rt_shmap_event;

/* A matrix definition. */
typedef struct rt_shmap_matrix {
    int id;                 /* the trace's ID (positive, unique) */
    int rows, cols;
    unsigned long line;     /* line of its definition */
} rt_shmap_matrix;

/* What the first pass found. */
typedef struct rt_shmap_info {
    uint64_t records;       /* every record, markers included */
    uint64_t events;        /* events of the run: records other than markers and definitions (opcodes 1-5) */
    uint64_t loads, stores; /* load / store events */
    uint64_t load_elements, store_elements; /* elements those events touch */
    int64_t flops;          /* sum of the flops events */
    uint64_t sections, groups; /* parallel sections and groups */
    double time_first;      /* first time stamp (0 when there is none) */
    double time_last;       /* largest time stamp: the trace's total time */
    double min_step;        /* smallest positive difference between successive time stamps (0: none) */
    unsigned long lines;    /* lines in the file */
} rt_shmap_info;

typedef struct rt_shmap rt_shmap;

/*
 * Open path and make the first pass. Returns the reader positioned at the first
 * record, or NULL with err filled ("FILE:LINE: field: what is wrong") when the
 * file cannot be read or any record is malformed. Standard input ("-") cannot
 * be read twice and is refused.
 */
rt_shmap *rt_shmap_open(const char *path, rt_err *err);

/* Close and free; NULL is allowed. */
void rt_shmap_free(rt_shmap *r);

/*
 * Next record (markers included). Returns RT_OK and fills *ev, RT_EEOF at the
 * end, or RT_EIO on a read error (the file changed under us counts as one).
 */
int rt_shmap_next(rt_shmap *r, rt_shmap_event *ev, rt_err *err);

/* Back to the first record for another pass. */
int rt_shmap_rewind(rt_shmap *r, rt_err *err);

/* The first pass's findings; never NULL. */
const rt_shmap_info *rt_shmap_get_info(const rt_shmap *r);

/* Number of matrices and the i-th in increasing ID order (0 <= i < count). */
int rt_shmap_matrix_count(const rt_shmap *r);
const rt_shmap_matrix *rt_shmap_matrix_at(const rt_shmap *r, int i);

/* Index of the matrix with trace ID id, or -1. */
int rt_shmap_matrix_index(const rt_shmap *r, long id);

/* The file name given at open. */
const char *rt_shmap_name(const rt_shmap *r);

/*
 * Word addresses: matrices are laid out in increasing ID order, the first at 0,
 * each next at the first multiple of line at or after the end of the previous
 * one. Fills base[i] for every matrix (base has rt_shmap_matrix_count entries)
 * and returns the total words spanned (end of the last matrix). line >= 1.
 * The address of element (i, r, c) is base[i] + (c-1)*rows + (r-1).
 */
uint64_t rt_shmap_layout(const rt_shmap *r, uint64_t line, uint64_t *base);

#endif
