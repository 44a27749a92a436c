/*
 * rt_memspy_int.h - the inside of an rt_memspy, shared by rt_memspy.c (the
 * machine: caches, coherence, miss causes, bins of each reference) and
 * rt_memspy_names.c (the name tables of code and data bins, warnings, the
 * results). Not a public header.
 */
#ifndef RT_MEMSPY_INT_H
#define RT_MEMSPY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "rt_linemap.h"
#include "rt_mem.h"
#include "rt_memspy.h"
#include "rt_rangemap.h"
#include "rt_strmap.h"

/* Line state of one processor, in 32 bits: the cause of its next miss. */
enum { LS_NEVER = 0, LS_HELD = 1, LS_REPLACED = 2, LS_INVALIDATED = 3 };
#define LS_STATE(w) ((w) >> 30)
#define LS_WHO(w) ((w) & 0x3FFFFFFFu)
#define LS_MAKE(s, who) (((uint32_t)(s) << 30) | ((uint32_t)(who) & 0x3FFFFFFFu))

/* Scopes of the name table. */
enum { NS_CODE = 0, NS_DATA = 1, NS_SHORT = 2 };

enum { CODE_UNKNOWN = 0, CODE_OTHER = 1 };
enum { DATA_UNMAPPED = 0 };

typedef struct ms_proc {
    uint32_t *stack;       /* code bins of the procedure stack, innermost last */
    uint32_t *stack_raw;   /* the procedure names' own code bins (before --monitor folding) */
    char **sites;          /* call site of each frame (NULL when none), owned */
    size_t depth, cap;
    uint64_t busy, stall;
    /* memo of the last data range */
    uint64_t memo_lo, memo_hi, memo_gen;
    uint32_t memo_data;
    /* data bin of the line in each cache slot (set * ways + way), valid while
     * the ranges' generation (low 32 bits) is unchanged: a hit then needs no
     * range lookup. Only lines lying wholly inside one range are remembered. */
    struct ms_slot {
        uint32_t data, gen;
    } *slot;
    uint32_t ways;
    /* recent statistical bins by data bin (data & MEMO_MASK) */
    struct ms_binmemo { uint32_t code, data, bin; } binmemo[64];
} ms_proc;
#define MEMO_MASK 63u

typedef struct ms_data {
    char *name;  /* short, unique */
    char *full;
} ms_data;

typedef struct ms_cause {
    uint32_t bin, who;
    int kind;
    uint64_t count;
} ms_cause;

struct rt_memspy {
    rt_memspy_config cfg;
    int P;
    unsigned shift;           /* log2 of the line size */
    uint64_t line;
    ms_proc proc[RT_MEMSPY_MAX_PROCS];

    rt_strmap *names;         /* (scope, name) -> index */
    char **code;              /* code bin names */
    uint8_t *monitored;       /* per code bin: kept under --monitor */
    size_t ncode, capcode;
    uint64_t *code_time;      /* [code * P + p] */
    ms_data *data;
    size_t ndata, capdata;

    rt_rangemap ranges;       /* data ranges -> data bin */
    rt_rangemap funcs;        /* function ranges -> code bin */

    rt_memspy_bin *bins;
    size_t nbins, capbins;
    rt_linemap binmap;        /* (code << 32 | data) -> bin index */

    ms_cause *causes;
    size_t ncauses, capcauses;
    rt_linemap causemap;      /* (bin << 32 | kind << 31 | who) -> cause index */

    rt_hier *h;               /* the machine: processor p is its core p */
    unsigned levels;
    rt_linemap lines;         /* line number -> line index */
    uint32_t *why;            /* [line index * P + p]: LS_* state and who */
    size_t nlines, caplines;

    rt_memspy_totals tot;
    const char *place_file;
    unsigned long place_line;
    char *warn[RT_MEMSPY_WARN_KEEP];
    size_t nwarn;
};

/* "memspy: out of memory" into err; returns RT_ENOMEM */
int rt_ms_nomem(rt_err *err);
/* count a warning and keep its message (with the current place) */
void rt_ms_warnf(rt_memspy *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* the code bin called name (made on first use, folded by --monitor at use) */
int rt_ms_code_intern(rt_memspy *m, const char *name, uint32_t *out);
/* the data bin of full name full, shown as shortname (numbered when taken) */
int rt_ms_data_intern(rt_memspy *m, const char *full, const char *shortname, uint32_t *out);

static inline uint32_t rt_ms_fold(const rt_memspy *m, uint32_t code)
{
    return m->monitored[code] ? code : CODE_OTHER;
}

static inline uint32_t rt_ms_current_code(const ms_proc *p)
{
    return p->depth ? p->stack[p->depth - 1] : CODE_UNKNOWN;
}

#endif
