/*
 * rt_memspy.c - the MemSpy engine: bins, the coherent multiprocessor cache
 * model, miss causes and the time model. See rt_memspy.h.
 */
#include "rt_memspy.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_linemap.h"
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
    rt_cache *cache;
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
    struct ms_slot { uint32_t data, gen; } *slot;
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

    rt_linemap lines;         /* line number -> line index */
    uint64_t *present;        /* [line index]: bit p when held by processor p */
    int8_t *dirty;            /* [line index]: processor holding it dirty, -1 none */
    uint32_t *why;            /* [line index * P + p]: LS_* state and who */
    size_t nlines, caplines;

    rt_memspy_totals tot;
    const char *place_file;
    unsigned long place_line;
    char *warn[RT_MEMSPY_WARN_KEEP];
    size_t nwarn;
};

/* ---- small helpers ---- */

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return RT_OK;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return RT_ENOMEM;
    *p = q;
    *cap = n;
    return RT_OK;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static int nomem(rt_err *err)
{
    return rt_err_set(err, RT_ENOMEM, "memspy: out of memory");
}

static void warnf(rt_memspy *m, const char *fmt, ...)
{
    m->tot.warnings++;
    if (m->nwarn >= RT_MEMSPY_WARN_KEEP)
        return;
    char body[400], full[RT_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    if (m->place_file && m->place_line)
        snprintf(full, sizeof full, "%s:%lu: warning: %s", m->place_file, m->place_line, body);
    else
        snprintf(full, sizeof full, "warning: %s", body);
    m->warn[m->nwarn] = dupstr(full);
    if (m->warn[m->nwarn])
        m->nwarn++;
}

/* ---- code bins ---- */

static int code_intern(rt_memspy *m, const char *name, uint32_t *out)
{
    int created;
    int64_t *v = rt_strmap_put(m->names, NS_CODE, name, strlen(name), &created);
    if (!v)
        return RT_ENOMEM;
    if (!created) {
        *out = (uint32_t)*v;
        return RT_OK;
    }
    size_t old = m->capcode;
    if (grow((void **)&m->code, &m->capcode, m->ncode + 1, sizeof *m->code) != RT_OK) {
        rt_strmap_remove(m->names, NS_CODE, name, strlen(name));
        return RT_ENOMEM;
    }
    if (m->capcode != old) {
        uint8_t *mon = realloc(m->monitored, m->capcode);
        uint64_t *t = realloc(m->code_time, m->capcode * (size_t)m->P * sizeof *t);
        if (mon)
            m->monitored = mon;
        if (t)
            m->code_time = t;
        if (!mon || !t) {
            m->capcode = old;
            rt_strmap_remove(m->names, NS_CODE, name, strlen(name));
            return RT_ENOMEM;
        }
    }
    char *d = dupstr(name);
    if (!d) {
        rt_strmap_remove(m->names, NS_CODE, name, strlen(name));
        return RT_ENOMEM;
    }
    size_t i = m->ncode++;
    m->code[i] = d;
    m->monitored[i] = 1;
    if (m->cfg.monitor && i > CODE_OTHER) {
        m->monitored[i] = 0;
        for (const char *const *q = m->cfg.monitor; *q; q++)
            if (strcmp(*q, name) == 0)
                m->monitored[i] = 1;
    }
    memset(m->code_time + i * (size_t)m->P, 0, (size_t)m->P * sizeof *m->code_time);
    *v = (int64_t)i;
    *out = (uint32_t)i;
    return RT_OK;
}

static uint32_t fold(const rt_memspy *m, uint32_t code)
{
    return m->monitored[code] ? code : CODE_OTHER;
}

static uint32_t current_code(const ms_proc *p)
{
    return p->depth ? p->stack[p->depth - 1] : CODE_UNKNOWN;
}

/* ---- data bins ---- */

static int data_intern(rt_memspy *m, const char *full, const char *shortname, uint32_t *out)
{
    int created;
    int64_t *v = rt_strmap_put(m->names, NS_DATA, full, strlen(full), &created);
    if (!v)
        return RT_ENOMEM;
    if (!created) {
        *out = (uint32_t)*v;
        return RT_OK;
    }
    if (grow((void **)&m->data, &m->capdata, m->ndata + 1, sizeof *m->data) != RT_OK) {
        rt_strmap_remove(m->names, NS_DATA, full, strlen(full));
        return RT_ENOMEM;
    }
    int64_t *seen = rt_strmap_put(m->names, NS_SHORT, shortname, strlen(shortname), NULL);
    if (!seen) {
        rt_strmap_remove(m->names, NS_DATA, full, strlen(full));
        return RT_ENOMEM;
    }
    char *name;
    if (*seen == 0) {
        name = dupstr(shortname);
    } else {
        /* the same short name from another site or call path: number it */
        size_t n = strlen(shortname) + 24;
        name = malloc(n);
        if (name)
            snprintf(name, n, "%s#%lld", shortname, (long long)*seen + 1);
    }
    char *f = dupstr(full);
    if (!name || !f) {
        free(name);
        free(f);
        rt_strmap_remove(m->names, NS_DATA, full, strlen(full));
        return RT_ENOMEM;
    }
    (*seen)++;
    size_t i = m->ndata++;
    m->data[i].name = name;
    m->data[i].full = f;
    /* the second put may have grown the table: find the full name's slot again */
    v = rt_strmap_get(m->names, NS_DATA, full, strlen(full));
    *v = (int64_t)i;
    *out = (uint32_t)i;
    return RT_OK;
}

/* the data bin of addr, whose line sits in cache slot `slot` of processor p */
static uint32_t data_of(rt_memspy *m, ms_proc *p, uint64_t addr, uint32_t slot)
{
    struct ms_slot *sm = &p->slot[slot];
    uint32_t gen = (uint32_t)m->ranges.gen;
    if (sm->gen == gen && sm->data != RT_RANGEMAP_NONE)
        return sm->data;
    if (p->memo_gen == m->ranges.gen && addr >= p->memo_lo && addr < p->memo_hi) {
        /* the last range found */
    } else {
        rt_range r;
        uint32_t d = rt_rangemap_find(&m->ranges, addr, &r);
        if (d == RT_RANGEMAP_NONE)
            return DATA_UNMAPPED;
        p->memo_lo = r.lo;
        p->memo_hi = r.hi;
        p->memo_gen = m->ranges.gen;
        p->memo_data = d;
    }
    uint64_t lstart = addr & ~(m->line - 1);
    if (p->memo_lo <= lstart && lstart + m->line <= p->memo_hi) {
        sm->data = p->memo_data;
        sm->gen = gen;
    } else {
        sm->data = RT_RANGEMAP_NONE;
    }
    return p->memo_data;
}

uint32_t rt_memspy_data_of(rt_memspy *m, uint64_t addr)
{
    uint32_t d = rt_rangemap_find(&m->ranges, addr, NULL);
    return d == RT_RANGEMAP_NONE ? DATA_UNMAPPED : d;
}

/* ---- statistical bins and causes ---- */

static int bin_of(rt_memspy *m, ms_proc *p, uint32_t code, uint32_t data, uint32_t *out)
{
    struct ms_binmemo *bm = &p->binmemo[data & MEMO_MASK];
    if (bm->bin != UINT32_MAX && bm->code == code && bm->data == data) {
        *out = bm->bin;
        return RT_OK;
    }
    uint64_t key = (uint64_t)code << 32 | data;
    int added;
    uint32_t *slot = rt_linemap_slot(&m->binmap, key, &added);
    if (!slot)
        return RT_ENOMEM;
    if (added) {
        if (grow((void **)&m->bins, &m->capbins, m->nbins + 1, sizeof *m->bins) != RT_OK) {
            rt_linemap_del(&m->binmap, key);
            return RT_ENOMEM;
        }
        memset(&m->bins[m->nbins], 0, sizeof m->bins[0]);
        m->bins[m->nbins].code = code;
        m->bins[m->nbins].data = data;
        *slot = (uint32_t)m->nbins++;
    }
    bm->code = code;
    bm->data = data;
    bm->bin = *slot;
    *out = *slot;
    return RT_OK;
}

static int cause_add(rt_memspy *m, uint32_t bin, int kind, uint32_t who)
{
    uint64_t key = (uint64_t)bin << 32 | (uint64_t)kind << 31 | who;
    int added;
    uint32_t *slot = rt_linemap_slot(&m->causemap, key, &added);
    if (!slot)
        return RT_ENOMEM;
    if (added) {
        if (grow((void **)&m->causes, &m->capcauses, m->ncauses + 1, sizeof *m->causes) != RT_OK) {
            rt_linemap_del(&m->causemap, key);
            return RT_ENOMEM;
        }
        m->causes[m->ncauses] = (ms_cause){bin, who, kind, 0};
        *slot = (uint32_t)m->ncauses++;
    }
    m->causes[*slot].count++;
    return RT_OK;
}

/* ---- line states ---- */

static int line_index(rt_memspy *m, uint64_t line, uint32_t *out)
{
    int added;
    uint32_t *slot = rt_linemap_slot(&m->lines, line, &added);
    if (!slot)
        return RT_ENOMEM;
    if (added) {
        size_t n = m->nlines;
        if (n + 1 > m->caplines) {
            size_t cap = m->caplines ? m->caplines * 2 : 1024;
            uint64_t *pr = realloc(m->present, cap * sizeof *pr);
            if (pr)
                m->present = pr;
            int8_t *dt = pr ? realloc(m->dirty, cap) : NULL;
            if (dt)
                m->dirty = dt;
            uint32_t *wy = dt ? realloc(m->why, cap * (size_t)m->P * sizeof *wy) : NULL;
            if (!wy) {
                rt_linemap_del(&m->lines, line);
                return RT_ENOMEM;
            }
            m->why = wy;
            m->caplines = cap;
        }
        m->present[n] = 0;
        m->dirty[n] = -1;
        memset(m->why + n * (size_t)m->P, 0, (size_t)m->P * sizeof *m->why);
        *slot = (uint32_t)n;
        m->nlines++;
    }
    *out = *slot;
    return RT_OK;
}

/* processor p's cache dropped `line` to make room for a reference to data bin d */
static int evicted(rt_memspy *m, int p, uint64_t line, uint32_t d)
{
    uint32_t li;
    int st = line_index(m, line, &li);
    if (st != RT_OK)
        return st;
    m->present[li] &= ~(UINT64_C(1) << p);
    if (m->dirty[li] == p) {
        m->dirty[li] = -1;
        m->tot.writebacks++;
    }
    m->why[li * (size_t)m->P + (size_t)p] = LS_MAKE(LS_REPLACED, d);
    return RT_OK;
}

/* ---- the engine ---- */

rt_memspy *rt_memspy_new(const rt_memspy_config *cfg, rt_cache **caches, rt_err *err)
{
    int P = cfg ? cfg->procs : 0;
    if (!cfg || P < 1 || P > RT_MEMSPY_MAX_PROCS || !caches) {
        for (int i = 0; caches && i < P && i < RT_MEMSPY_MAX_PROCS; i++)
            rt_cache_free(caches[i]);
        rt_err_set(err, RT_EINVAL, "processors: %d is not in 1..%d", P, RT_MEMSPY_MAX_PROCS);
        return NULL;
    }
    rt_memspy *m = calloc(1, sizeof *m);
    if (!m) {
        for (int i = 0; i < P; i++)
            rt_cache_free(caches[i]);
        nomem(err);
        return NULL;
    }
    m->cfg = *cfg;
    m->P = P;
    for (int i = 0; i < P; i++) {
        m->proc[i].cache = caches[i];
        for (int k = 0; k <= (int)MEMO_MASK; k++)
            m->proc[i].binmemo[k].bin = UINT32_MAX;
        m->proc[i].memo_gen = UINT64_MAX;
    }
    rt_rangemap_init(&m->ranges);
    rt_rangemap_init(&m->funcs);
    const rt_cache_config *c0 = NULL;
    for (int i = 0; i < P; i++) {
        const rt_cache_config *c = caches[i] ? rt_cache_config_get(caches[i]) : NULL;
        if (!c || !c->write_back || (c0 && c->line != c0->line)) {
            rt_err_set(err, RT_EINVAL, "caches: every processor needs a write-back cache of one line size");
            rt_memspy_free(m);
            return NULL;
        }
        c0 = c;
        size_t slots = (size_t)rt_cache_sets(caches[i]) * c->ways;
        m->proc[i].ways = (uint32_t)c->ways;
        m->proc[i].slot = malloc(slots * sizeof *m->proc[i].slot);
        if (!m->proc[i].slot) {
            nomem(err);
            rt_memspy_free(m);
            return NULL;
        }
        for (size_t k = 0; k < slots; k++)
            m->proc[i].slot[k] = (struct ms_slot){RT_RANGEMAP_NONE, 0};
    }
    m->line = c0->line;
    while ((UINT64_C(1) << m->shift) < m->line)
        m->shift++;
    m->names = rt_strmap_new();
    uint32_t id;
    if (!m->names || rt_linemap_init(&m->binmap, 64) != RT_OK ||
        rt_linemap_init(&m->causemap, 64) != RT_OK || rt_linemap_init(&m->lines, 4096) != RT_OK ||
        code_intern(m, "(unknown)", &id) != RT_OK || code_intern(m, "(other)", &id) != RT_OK ||
        data_intern(m, "(unmapped)", "(unmapped)", &id) != RT_OK) {
        nomem(err);
        rt_memspy_free(m);
        return NULL;
    }
    return m;
}

void rt_memspy_free(rt_memspy *m)
{
    if (!m)
        return;
    for (int i = 0; i < m->P; i++) {
        ms_proc *p = &m->proc[i];
        rt_cache_free(p->cache);
        for (size_t k = 0; k < p->depth; k++)
            free(p->sites[k]);
        free(p->stack);
        free(p->slot);
        free(p->stack_raw);
        free(p->sites);
    }
    for (size_t i = 0; i < m->ncode; i++)
        free(m->code[i]);
    for (size_t i = 0; i < m->ndata; i++) {
        free(m->data[i].name);
        free(m->data[i].full);
    }
    for (size_t i = 0; i < m->nwarn; i++)
        free(m->warn[i]);
    free(m->code);
    free(m->monitored);
    free(m->code_time);
    free(m->data);
    free(m->bins);
    free(m->causes);
    free(m->present);
    free(m->dirty);
    free(m->why);
    rt_strmap_free(m->names);
    rt_rangemap_destroy(&m->ranges);
    rt_rangemap_destroy(&m->funcs);
    rt_linemap_destroy(&m->binmap);
    rt_linemap_destroy(&m->causemap);
    rt_linemap_destroy(&m->lines);
    free(m);
}

void rt_memspy_set_place(rt_memspy *m, const char *file, unsigned long line)
{
    m->place_file = file;
    m->place_line = line;
}

static int check_proc(const rt_memspy *m, int proc, rt_err *err)
{
    if (proc < 0 || proc >= m->P)
        return rt_err_set(err, RT_EINVAL, "processor: %d is not in 0..%d", proc, m->P - 1);
    return RT_OK;
}

int rt_memspy_enter(rt_memspy *m, int proc, const char *name, const char *site, rt_err *err)
{
    int st = check_proc(m, proc, err);
    if (st != RT_OK)
        return st;
    ms_proc *p = &m->proc[proc];
    uint32_t code;
    if (code_intern(m, name, &code) != RT_OK)
        return nomem(err);
    if (p->depth == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        uint32_t *s = realloc(p->stack, cap * sizeof *s);
        if (s)
            p->stack = s;
        uint32_t *r = s ? realloc(p->stack_raw, cap * sizeof *r) : NULL;
        if (r)
            p->stack_raw = r;
        char **si = r ? realloc(p->sites, cap * sizeof *si) : NULL;
        if (!si)
            return nomem(err);
        p->sites = si;
        p->cap = cap;
    }
    char *s = NULL;
    if (site && *site && !(s = dupstr(site)))
        return nomem(err);
    p->stack[p->depth] = fold(m, code);
    p->stack_raw[p->depth] = code;
    p->sites[p->depth] = s;
    p->depth++;
    return RT_OK;
}

int rt_memspy_exit(rt_memspy *m, int proc, const char *name, rt_err *err)
{
    int st = check_proc(m, proc, err);
    if (st != RT_OK)
        return st;
    ms_proc *p = &m->proc[proc];
    if (p->depth == 0) {
        warnf(m, "exit%s%s on processor %d without an entry", name ? " of " : "", name ? name : "",
              proc);
        return RT_OK;
    }
    const char *inner = m->code[p->stack_raw[p->depth - 1]];
    if (name && strcmp(name, inner) != 0)
        warnf(m, "exit of %s on processor %d while in %s", name, proc, inner);
    p->depth--;
    free(p->sites[p->depth]);
    return RT_OK;
}

int rt_memspy_set_code(rt_memspy *m, int proc, const char *name, rt_err *err)
{
    int st = check_proc(m, proc, err);
    if (st != RT_OK)
        return st;
    ms_proc *p = &m->proc[proc];
    if (p->depth == 0)
        return rt_memspy_enter(m, proc, name, NULL, err);
    uint32_t code;
    if (code_intern(m, name, &code) != RT_OK)
        return nomem(err);
    p->stack[p->depth - 1] = fold(m, code);
    p->stack_raw[p->depth - 1] = code;
    return RT_OK;
}

static int check_range(uint64_t addr, uint64_t size, rt_err *err)
{
    if (size == 0)
        return rt_err_set(err, RT_EINVAL, "size: 0 is not a size");
    if (addr + size < addr)
        return rt_err_set(err, RT_EINVAL, "size: the range passes the end of the address space");
    return RT_OK;
}

static int add_range(rt_memspy *m, uint64_t addr, uint64_t size, uint32_t d, const char *what,
                     rt_err *err)
{
    size_t dropped;
    if (rt_rangemap_insert(&m->ranges, addr, addr + size, d, &dropped) != RT_OK)
        return nomem(err);
    if (dropped)
        warnf(m, "%s 0x%llx..0x%llx overlaps %zu live range%s (dropped)", what,
              (unsigned long long)addr, (unsigned long long)(addr + size - 1), dropped,
              dropped == 1 ? "" : "s");
    return RT_OK;
}

int rt_memspy_alloc(rt_memspy *m, int proc, uint64_t addr, uint64_t size, const char *typevar,
                    const char *site, rt_err *err)
{
    int st = check_proc(m, proc, err);
    if (st == RT_OK)
        st = check_range(addr, size, err);
    if (st != RT_OK)
        return st;
    ms_proc *p = &m->proc[proc];
    /* full name: the call path (each frame NAME or NAME@CALLSITE) > ... / site / TYPE.VAR */
    size_t n = strlen(typevar) + strlen(site ? site : "") + 4;
    for (size_t k = 0; k < p->depth; k++)
        n += strlen(m->code[p->stack_raw[k]]) + (p->sites[k] ? strlen(p->sites[k]) + 1 : 0) + 1;
    char *full = malloc(n);
    if (!full)
        return nomem(err);
    size_t o = 0;
    for (size_t k = 0; k < p->depth; k++) {
        o += (size_t)snprintf(full + o, n - o, "%s%s%s%s", k ? ">" : "", m->code[p->stack_raw[k]],
                              p->sites[k] ? "@" : "", p->sites[k] ? p->sites[k] : "");
    }
    snprintf(full + o, n - o, "/%s/%s", site ? site : "", typevar);
    uint32_t d;
    st = data_intern(m, full, typevar, &d);
    free(full);
    if (st != RT_OK)
        return nomem(err);
    return add_range(m, addr, size, d, "allocation", err);
}

int rt_memspy_release(rt_memspy *m, uint64_t addr, rt_err *err)
{
    (void)err;
    if (rt_rangemap_remove(&m->ranges, addr) == RT_RANGEMAP_NONE)
        warnf(m, "free of 0x%llx, which is not the start of a live allocation",
              (unsigned long long)addr);
    return RT_OK;
}

int rt_memspy_named(rt_memspy *m, uint64_t addr, uint64_t size, const char *name, rt_err *err)
{
    int st = check_range(addr, size, err);
    if (st != RT_OK)
        return st;
    uint32_t d;
    if (data_intern(m, name, name, &d) != RT_OK)
        return nomem(err);
    return add_range(m, addr, size, d, "range", err);
}

int rt_memspy_function(rt_memspy *m, uint64_t addr, uint64_t size, const char *name, rt_err *err)
{
    int st = check_range(addr, size, err);
    if (st != RT_OK)
        return st;
    uint32_t c;
    if (code_intern(m, name, &c) != RT_OK)
        return nomem(err);
    if (rt_rangemap_insert(&m->funcs, addr, addr + size, c, NULL) != RT_OK)
        return nomem(err);
    return RT_OK;
}

int rt_memspy_busy(rt_memspy *m, int proc, uint64_t cycles, rt_err *err)
{
    int st = check_proc(m, proc, err);
    if (st != RT_OK)
        return st;
    ms_proc *p = &m->proc[proc];
    p->busy += cycles;
    m->tot.busy += cycles;
    m->code_time[(size_t)current_code(p) * (size_t)m->P + (size_t)proc] += cycles;
    return RT_OK;
}

/* A write by processor `proc` to line index li: invalidate every other copy. */
static int invalidate_others(rt_memspy *m, int proc, uint32_t li, uint64_t line)
{
    uint64_t others = m->present[li] & ~(UINT64_C(1) << proc);
    while (others) {
        int q = __builtin_ctzll(others);
        others &= others - 1;
        int st = rt_cache_flush_range(m->proc[q].cache, line << m->shift, m->line, 1);
        if (st != RT_OK)
            return st;
        m->why[li * (size_t)m->P + (size_t)q] = LS_MAKE(LS_INVALIDATED, proc);
        m->tot.invalidations++;
    }
    if (m->dirty[li] >= 0 && m->dirty[li] != proc)
        m->tot.writebacks++; /* the old owner's data goes to memory before the new write */
    m->present[li] = UINT64_C(1) << proc;
    m->dirty[li] = (int8_t)proc;
    return RT_OK;
}

/* one line piece of a reference */
static int ref_line(rt_memspy *m, int proc, ms_proc *p, uint64_t addr, int is_write, uint32_t code,
                    rt_err *err)
{
    rt_cache_result res;
    int st = rt_cache_access(p->cache, addr, is_write, &res);
    if (st != RT_OK)
        return rt_err_set(err, st, "policy: %s", rt_cache_error(p->cache));
    rt_memspy_counts *tc = &m->tot.c;
    tc->refs++;
    if (is_write)
        tc->writes++;
    else
        tc->reads++;
    p->busy += m->cfg.ref_cycles;
    m->tot.busy += m->cfg.ref_cycles;
    uint64_t cycles = m->cfg.ref_cycles;
    if (res.hit) {
        if (is_write && m->P > 1) {
            uint32_t li;
            if (line_index(m, res.line, &li) != RT_OK)
                return nomem(err);
            if (m->present[li] != (UINT64_C(1) << proc) || m->dirty[li] != proc) {
                st = invalidate_others(m, proc, li, res.line);
                if (st != RT_OK)
                    return rt_err_set(err, st, "policy: %s", rt_cache_error(m->proc[0].cache));
            }
        }
        m->code_time[(size_t)code * (size_t)m->P + (size_t)proc] += cycles;
        if (m->cfg.misses_only)
            return RT_OK;
        uint32_t b;
        if (bin_of(m, p, code, data_of(m, p, addr, res.set * p->ways + res.way), &b) != RT_OK)
            return nomem(err);
        rt_memspy_counts *c = &m->bins[b].c;
        c->refs++;
        if (is_write)
            c->writes++;
        else
            c->reads++;
        return RT_OK;
    }
    /* a miss: the slot now holds another line, so its remembered bin is stale */
    p->slot[res.set * p->ways + res.way].data = RT_RANGEMAP_NONE;
    uint32_t d = data_of(m, p, addr, res.set * p->ways + res.way);
    if (res.evicted && evicted(m, proc, res.evicted_line, d) != RT_OK)
        return nomem(err);
    uint32_t li;
    if (line_index(m, res.line, &li) != RT_OK)
        return nomem(err);
    uint32_t *w = &m->why[li * (size_t)m->P + (size_t)proc];
    uint32_t b;
    if (bin_of(m, p, code, d, &b) != RT_OK)
        return nomem(err);
    rt_memspy_counts *c = &m->bins[b].c;
    uint64_t lat = m->cfg.latency;
    if (m->cfg.remote_latency && res.line % (uint64_t)m->P != (uint64_t)proc) {
        lat = m->cfg.remote_latency;
        c->remote++;
        tc->remote++;
    }
    switch (LS_STATE(*w)) {
    case LS_REPLACED:
        c->replacement++;
        tc->replacement++;
        st = cause_add(m, b, 0, LS_WHO(*w));
        break;
    case LS_INVALIDATED:
        c->invalidation++;
        tc->invalidation++;
        st = cause_add(m, b, 1, LS_WHO(*w));
        break;
    default: /* never held (LS_HELD cannot miss: its holder's cache has it) */
        c->first++;
        tc->first++;
        st = RT_OK;
        break;
    }
    if (st != RT_OK)
        return nomem(err);
    *w = LS_MAKE(LS_HELD, 0);
    if (is_write) {
        c->write_misses++;
        tc->write_misses++;
        c->write_stall += lat;
        tc->write_stall += lat;
        st = invalidate_others(m, proc, li, res.line);
        if (st != RT_OK)
            return rt_err_set(err, st, "policy: cache flush failed");
    } else {
        c->read_misses++;
        tc->read_misses++;
        c->read_stall += lat;
        tc->read_stall += lat;
        if (m->dirty[li] >= 0 && m->dirty[li] != proc) {
            m->dirty[li] = -1; /* the owner writes back and keeps a shared copy */
            m->tot.writebacks++;
        }
        m->present[li] |= UINT64_C(1) << proc;
    }
    c->stall += lat;
    tc->stall += lat;
    p->stall += lat;
    cycles += lat;
    m->code_time[(size_t)code * (size_t)m->P + (size_t)proc] += cycles;
    if (!m->cfg.misses_only) {
        c->refs++;
        if (is_write)
            c->writes++;
        else
            c->reads++;
    }
    return RT_OK;
}

int rt_memspy_ref(rt_memspy *m, int proc, uint64_t addr, uint64_t size, int is_write, int has_pc,
                  uint64_t pc, rt_err *err)
{
    if ((unsigned)proc >= (unsigned)m->P)
        return check_proc(m, proc, err);
    ms_proc *p = &m->proc[proc];
    uint32_t code = current_code(p);
    if (has_pc) {
        uint32_t f = rt_rangemap_find(&m->funcs, pc, NULL);
        code = f == RT_RANGEMAP_NONE ? CODE_UNKNOWN : fold(m, f);
    }
    if (size == 0)
        size = 1;
    uint64_t last = (addr + size - 1) >> m->shift;
    if (addr + size - 1 < addr)
        return rt_err_set(err, RT_EINVAL, "size: the reference passes the end of the address space");
    for (uint64_t a = addr;;) {
        int st = ref_line(m, proc, p, a, is_write, code, err);
        if (st != RT_OK)
            return st;
        if ((a >> m->shift) == last)
            break;
        a = ((a >> m->shift) + 1) << m->shift;
    }
    return RT_OK;
}

/* ---- results ---- */

void rt_memspy_get_totals(const rt_memspy *m, rt_memspy_totals *t)
{
    *t = m->tot;
    /* one processor: no coherence, so the cache's own dirty bits are exact */
    if (m->P == 1)
        t->writebacks = rt_cache_stats_get(m->proc[0].cache)->writebacks;
    t->time = 0;
    for (int i = 0; i < m->P; i++) {
        uint64_t pt = m->proc[i].busy + m->proc[i].stall;
        if (pt > t->time)
            t->time = pt;
    }
}

size_t rt_memspy_bins(const rt_memspy *m) { return m->nbins; }
const rt_memspy_bin *rt_memspy_bin_at(const rt_memspy *m, size_t i) { return &m->bins[i]; }
size_t rt_memspy_code_count(const rt_memspy *m) { return m->ncode; }
const char *rt_memspy_code_name(const rt_memspy *m, size_t i) { return m->code[i]; }
size_t rt_memspy_data_count(const rt_memspy *m) { return m->ndata; }
const char *rt_memspy_data_name(const rt_memspy *m, size_t i) { return m->data[i].name; }
const char *rt_memspy_data_full(const rt_memspy *m, size_t i) { return m->data[i].full; }
int rt_memspy_procs(const rt_memspy *m) { return m->P; }

void rt_memspy_proc_time(const rt_memspy *m, int p, uint64_t *busy, uint64_t *stall)
{
    *busy = m->proc[p].busy;
    *stall = m->proc[p].stall;
}

uint64_t rt_memspy_code_time(const rt_memspy *m, size_t code, int p)
{
    return m->code_time[code * (size_t)m->P + (size_t)p];
}

size_t rt_memspy_causes(const rt_memspy *m) { return m->ncauses; }

void rt_memspy_cause_at(const rt_memspy *m, size_t i, uint32_t *bin, int *kind, uint32_t *who,
                        uint64_t *count)
{
    *bin = m->causes[i].bin;
    *kind = m->causes[i].kind;
    *who = m->causes[i].who;
    *count = m->causes[i].count;
}

size_t rt_memspy_warnings_kept(const rt_memspy *m) { return m->nwarn; }
const char *rt_memspy_warning(const rt_memspy *m, size_t i) { return m->warn[i]; }
size_t rt_memspy_live_ranges(const rt_memspy *m) { return rt_rangemap_count(&m->ranges); }
