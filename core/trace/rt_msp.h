/*
 * rt_msp.h - reader of `.msp` traces: MemSpy's text input, one record per line,
 * the file order being the global interleaving of the processors.
 *
 *   msp 1                          first record: the magic and the version
 *   E P NAME [SITE]                processor P enters procedure NAME (SITE: the call site)
 *   X P [NAME]                     processor P leaves its innermost procedure
 *   A P ADDR SIZE TYPE.VAR [SITE]  processor P allocates SIZE bytes at ADDR (heap)
 *   F P ADDR                       processor P frees the allocation starting at ADDR
 *   N ADDR SIZE NAME               a named static or stack range
 *   C ADDR SIZE NAME               the code of function NAME (for references with a PC)
 *   R P ADDR [SIZE [PC]]           processor P reads SIZE bytes (default 8) at ADDR
 *   W P ADDR [SIZE [PC]]           processor P writes
 *   B P CYCLES                     processor P computes for CYCLES cycles
 *
 * P, SIZE and CYCLES are decimal; ADDR and PC hexadecimal (0x optional).
 * Any record may start with a stamp "@SEQ" (decimal): in an allocation log
 * that goes with a memory trace (din, xdin, lackey, RTMB), the record takes
 * effect just before the trace's data reference number SEQ (0-based, counting
 * loads and stores only); a record without a stamp keeps the previous one.
 * Blank lines and lines starting with '#' are skipped. Names run without
 * blanks. Shaped for traces of 10^8 lines: streamed in bounded memory.
 */
#ifndef RT_MSP_H
#define RT_MSP_H

#include <stdint.h>

#include "rt_error.h"

#define RT_MSP_NAME_MAX 1024

typedef struct rt_msp_rec {
    char kind;              /* 'E', 'X', 'A', 'F', 'N', 'C', 'R', 'W', 'B', 'S' (allocation logs:
                               the trace's next references are processor proc's) */
    int proc;               /* -1 for N and C */
    uint64_t addr, size;    /* size: A, N, C, R, W; cycles for B */
    int has_pc;
    uint64_t pc;
    const char *name;       /* E, X (NULL when absent), A (TYPE.VAR), N, C; valid until the next call */
    const char *site;       /* E, A; NULL when absent */
    int has_seq;            /* the record carried "@SEQ" */
    uint64_t seq;           /* that stamp */
} rt_msp_rec;

typedef struct rt_msp rt_msp;

/* Open path and read the magic line. NULL with err ("FILE:LINE: magic: ...") on failure. */
rt_msp *rt_msp_open(const char *path, rt_err *err);
/* Next record: RT_OK, RT_EEOF, or an error "FILE:LINE: FIELD: what is wrong". */
int rt_msp_next(rt_msp *r, rt_msp_rec *rec, rt_err *err);
void rt_msp_free(rt_msp *r);
/* Line of the record last returned; the file name; bytes read and file size. */
unsigned long rt_msp_lineno(const rt_msp *r);
const char *rt_msp_name(const rt_msp *r);
uint64_t rt_msp_offset(const rt_msp *r);
uint64_t rt_msp_size(const rt_msp *r);

#endif
