/*
 * rt_paje_int.h - the Pajé reader's tables and the entry points a trace read
 * in byte ranges over the ranks of an MPI job (core/par/rt_par_paje.c) uses;
 * internal to those two files.
 *
 * Read in ranges, one reader object serves three steps on every rank:
 *   1. tables: the header, then every definition line of the file (types,
 *      containers, destroyed containers) fed in file order (RT_PJ_TABLES);
 *   2. resolving the rank's own lines against those tables (rt_pj_resolve),
 *      and the values (regions) numbered in file order from every rank's first
 *      uses (rt_pj_value_def, rt_pj_value_use), processors numbered by first
 *      use (rt_pj_set_proc);
 *   3. reading the lines routed to the rank with those numbers preset
 *      (RT_PJ_PRESET, rt_pj_preset_stream): a link line then carries its peer
 *      and tag in front ("@PEER@TAG@" + the line), worked out by the rank that
 *      paired its two ends.
 * The serial reader is the same object in RT_PJ_SERIAL mode.
 */
#ifndef RT_PAJE_INT_H
#define RT_PAJE_INT_H

#include <stdint.h>

#include "rt_chanmap.h"
#include "rt_lines.h"
#include "rt_paje.h"
#include "rt_paje_fmt.h"
#include "rt_strmap.h"

enum { RT_PJ_SERIAL, RT_PJ_TABLES, RT_PJ_PRESET };

typedef struct pj_type {
    int kind;             /* K_CTYPE, K_STYPE, K_ETYPE, K_VTYPE or K_LTYPE */
    int parent;           /* the container type it lives in */
    char *name;
    unsigned long line;   /* of its definition: its names mean it from there on */
} pj_type;

/* The states open for one state type on one container, outermost first. */
typedef struct pj_stack {
    int stype;
    int n, cap;
    int *reg;
} pj_stack;

typedef struct pj_cont {
    char *name;
    int parent, type;
    int proc;             /* processor index, -1 until it holds something */
    int child, sibling;   /* first sub-container; next container of the same parent */
    int destroyed;
    pj_stack *st;         /* one per state type used on it */
    int nst;
    unsigned long line;   /* of its creation */
    unsigned long first;  /* the line that made it a processor (when proc >= 0) */
} pj_cont;

/* A value of a state, event or link type. */
typedef struct pj_val {
    int region;           /* state / event values: region id; link values: -1 */
    double bytes;         /* link values: the name as a number, else 0 */
} pj_val;

/* A link whose one end has been read. */
typedef struct pj_plink {
    uint64_t seq;         /* queue position of that end's event */
    int64_t tag;
    int proc;             /* the processor of that end */
} pj_plink;

/* A variable's value on a container (key: container, variable type). */
typedef struct pj_var {
    rt_chankey key;
    double value;
} pj_var;

typedef struct pj_qent {
    rt_tevent ev;
    int waiting;          /* a link end whose peer is not read yet */
} pj_qent;

typedef struct pj {
    rt_tsource base;      /* first: the reader is handed out as an rt_tsource */
    rt_lines *lines;
    const char *file;     /* = base.path, for messages */
    int mode;             /* RT_PJ_* */
    rt_err stuck;         /* a failure, returned again by every later call */

    rt_pjfmt fmt;         /* the %EventDef definitions */

    pj_type *types;
    size_t ntypes, captypes;
    pj_cont *conts;
    size_t nconts, capconts;
    pj_val *vals;
    size_t nvals, capvals;
    pj_plink *plinks;     /* pool; free slots chained through proc */
    size_t nplinks, capplinks;
    int plink_free;
    rt_strmap *tnames;    /* scope 0: type identifiers -> index */
    rt_strmap *cnames;    /* scope 0: container identifiers -> index */
    rt_strmap *vnames;    /* scope = type: value identifiers -> index into vals */
    rt_strmap *links;     /* scope = link type: container + key -> index into plinks */
    rt_chanmap vars;      /* pj_var: the variables' values */
    char *keybuf;
    size_t capkey;

    unsigned long cur;    /* the line being read (the file's number) */
    int nprocs, nregions;
    double last;          /* the largest time read */
    int have_time, order_warned, late_warned, finished;
    unsigned long eof_line; /* RT_PJ_PRESET: the file's last line */
    double eof_time;        /* RT_PJ_PRESET: the largest time of the file */
    int ann_peer;           /* RT_PJ_PRESET: the peer and tag of the link line being read */
    int64_t ann_tag;

    pj_qent *q;           /* look-ahead ring, capacity qmask + 1 */
    size_t qmask;
    uint64_t qhead, qtail;

    rt_paje_stats stats;
} pj;

/* A line of the file decoded and its names looked up (rt_pj_resolve). */
typedef struct rt_pjline {
    int kind;             /* K_*; K_UNKNOWN for a kind not modelled */
    int ti, ci, eci;      /* type, container, and a link's end container; -1 when none */
    rt_span value, key;   /* states, events, links: the value; links: the key */
    double time;
    int has_time;
    double bytes;         /* links, when values are numbered: the bytes the event carries */
} rt_pjline;

/* A reader with empty tables and no input, in mode RT_PJ_TABLES; NULL with err. */
pj *rt_pj_new(const char *path, rt_err *err);

/* A header line ('%') of line `line`; p .. e is the line. */
int rt_pj_header(pj *r, unsigned long line, const char *p, const char *e, rt_err *err);

/* 1 when the kind of a line of definitions (types, values, containers made or destroyed). */
static inline int rt_pj_is_def(int kind)
{
    return kind >= K_CTYPE && kind <= K_DESTROY;
}

/* The kind of an event line from its event id alone (K_*), -1 when the id is not a number
 * or not defined (rt_pj_resolve tells why). */
int rt_pj_kind_of(const pj *r, const char *p, const char *e);

/* RT_PJ_TABLES: a definition line (rt_pj_is_def of its kind) in file order, values excepted
 * (rt_pj_value_def takes those once every use is known). */
int rt_pj_def(pj *r, unsigned long line, const char *p, const char *e, rt_err *err);

/*
 * Decode the event line `line` and look its names up as the serial reader
 * would at that line (a name defined later is unknown). values 1 when the
 * values are numbered (rt_pj_value_*): a link's bytes are then worked out
 * and checked. RT_OK or the serial reader's error.
 */
int rt_pj_resolve(pj *r, unsigned long line, const char *p, const char *e, int values, rt_pjline *out,
                  rt_err *err);

/* The values, in file order: a definition line, or the first use of value s of type ti. */
int rt_pj_value_def(pj *r, unsigned long line, const char *p, const char *e, rt_err *err);
int rt_pj_value_use(pj *r, unsigned long line, int ti, rt_span s, rt_err *err);

/* Container ci becomes processor proc at line first (processors are set in the order of their numbers). */
int rt_pj_set_proc(pj *r, int ci, int proc, unsigned long first, rt_err *err);

/*
 * Read the numbered lines of body (not closed here) with every number preset:
 * mode RT_PJ_PRESET. eof_line and eof_time are the file's last line and largest
 * time (the open states left at the end are left there). Time-order and link
 * warnings are the caller's (it sees the whole file).
 */
int rt_pj_preset_stream(pj *r, FILE *body, unsigned long eof_line, double eof_time, rt_err *err);

/* The reader as a source, and back. */
static inline rt_tsource *rt_pj_source(pj *r) { return &r->base; }

#endif
