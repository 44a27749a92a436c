/*
 * rt_memspy.c - the MemSpy machine: each reference's bins, the coherent
 * private caches, miss causes and the time model (see rt_memspy.h). The name
 * tables and the results' accessors are in rt_memspy_names.c.
 */
#include "rt_memspy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_memspy_int.h"
#include "rt_mesi.h"

/* ---- data bins of references ---- */

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
        if (rt_grow((void **)&m->bins, &m->capbins, m->nbins + 1, sizeof *m->bins) != RT_OK) {
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
        if (rt_grow((void **)&m->causes, &m->capcauses, m->ncauses + 1, sizeof *m->causes) != RT_OK) {
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
        rt_ms_nomem(err);
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
            rt_ms_nomem(err);
            rt_memspy_free(m);
            return NULL;
        }
        for (size_t k = 0; k < slots; k++)
            m->proc[i].slot[k] = (struct ms_slot){RT_RANGEMAP_NONE, 0, UINT32_MAX};
    }
    m->line = c0->line;
    while ((UINT64_C(1) << m->shift) < m->line)
        m->shift++;
    m->names = rt_strmap_new();
    uint32_t id;
    if (!m->names || rt_linemap_init(&m->binmap, 64) != RT_OK ||
        rt_linemap_init(&m->causemap, 64) != RT_OK || rt_linemap_init(&m->lines, 4096) != RT_OK ||
        rt_ms_code_intern(m, "(unknown)", &id) != RT_OK || rt_ms_code_intern(m, "(other)", &id) != RT_OK ||
        rt_ms_data_intern(m, "(unmapped)", "(unmapped)", &id) != RT_OK) {
        rt_ms_nomem(err);
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

/* processor proc, or NULL with err "processor: N is not in 0..P-1" */
static ms_proc *proc_at(rt_memspy *m, int proc, rt_err *err)
{
    return check_proc(m, proc, err) == RT_OK ? &m->proc[proc] : NULL;
}

int rt_memspy_enter(rt_memspy *m, int proc, const char *name, const char *site, rt_err *err)
{
    ms_proc *p = proc_at(m, proc, err);
    if (!p)
        return RT_EINVAL;
    uint32_t code;
    if (rt_ms_code_intern(m, name, &code) != RT_OK)
        return rt_ms_nomem(err);
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
            return rt_ms_nomem(err);
        p->sites = si;
        p->cap = cap;
    }
    char *s = NULL;
    if (site && *site && !(s = strdup(site)))
        return rt_ms_nomem(err);
    p->stack[p->depth] = rt_ms_fold(m, code);
    p->stack_raw[p->depth] = code;
    p->sites[p->depth] = s;
    p->depth++;
    return RT_OK;
}

int rt_memspy_exit(rt_memspy *m, int proc, const char *name, rt_err *err)
{
    ms_proc *p = proc_at(m, proc, err);
    if (!p)
        return RT_EINVAL;
    if (p->depth == 0) {
        rt_ms_warnf(m, "exit%s%s on processor %d without an entry", name ? " of " : "",
                    name ? name : "", proc);
        return RT_OK;
    }
    const char *inner = m->code[p->stack_raw[p->depth - 1]];
    if (name && strcmp(name, inner) != 0)
        rt_ms_warnf(m, "exit of %s on processor %d while in %s", name, proc, inner);
    p->depth--;
    free(p->sites[p->depth]);
    return RT_OK;
}

int rt_memspy_set_code(rt_memspy *m, int proc, const char *name, rt_err *err)
{
    ms_proc *p = proc_at(m, proc, err);
    if (!p)
        return RT_EINVAL;
    if (p->depth == 0)
        return rt_memspy_enter(m, proc, name, NULL, err);
    uint32_t code;
    if (rt_ms_code_intern(m, name, &code) != RT_OK)
        return rt_ms_nomem(err);
    p->stack[p->depth - 1] = rt_ms_fold(m, code);
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
        return rt_ms_nomem(err);
    if (dropped)
        rt_ms_warnf(m, "%s 0x%llx..0x%llx overlaps %zu live range%s (dropped)", what,
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
        return rt_ms_nomem(err);
    size_t o = 0;
    for (size_t k = 0; k < p->depth; k++) {
        o += (size_t)snprintf(full + o, n - o, "%s%s%s%s", k ? ">" : "", m->code[p->stack_raw[k]],
                              p->sites[k] ? "@" : "", p->sites[k] ? p->sites[k] : "");
    }
    snprintf(full + o, n - o, "/%s/%s", site ? site : "", typevar);
    uint32_t d;
    st = rt_ms_data_intern(m, full, typevar, &d);
    free(full);
    if (st != RT_OK)
        return rt_ms_nomem(err);
    return add_range(m, addr, size, d, "allocation", err);
}

int rt_memspy_release(rt_memspy *m, uint64_t addr, rt_err *err)
{
    (void)err;
    if (rt_rangemap_remove(&m->ranges, addr) == RT_RANGEMAP_NONE)
        rt_ms_warnf(m, "free of 0x%llx, which is not the start of a live allocation",
              (unsigned long long)addr);
    return RT_OK;
}

int rt_memspy_named(rt_memspy *m, uint64_t addr, uint64_t size, const char *name, rt_err *err)
{
    int st = check_range(addr, size, err);
    if (st != RT_OK)
        return st;
    uint32_t d;
    if (rt_ms_data_intern(m, name, name, &d) != RT_OK)
        return rt_ms_nomem(err);
    return add_range(m, addr, size, d, "range", err);
}

int rt_memspy_has_functions(const rt_memspy *m)
{
    return rt_rangemap_count(&m->funcs) > 0;
}

int rt_memspy_function(rt_memspy *m, uint64_t addr, uint64_t size, const char *name, rt_err *err)
{
    int st = check_range(addr, size, err);
    if (st != RT_OK)
        return st;
    uint32_t c;
    if (rt_ms_code_intern(m, name, &c) != RT_OK)
        return rt_ms_nomem(err);
    if (rt_rangemap_insert(&m->funcs, addr, addr + size, c, NULL) != RT_OK)
        return rt_ms_nomem(err);
    return RT_OK;
}

int rt_memspy_busy(rt_memspy *m, int proc, uint64_t cycles, rt_err *err)
{
    ms_proc *p = proc_at(m, proc, err);
    if (!p)
        return RT_EINVAL;
    p->busy += cycles;
    m->tot.busy += cycles;
    m->code_time[(size_t)rt_ms_current_code(p) * (size_t)m->P + (size_t)proc] += cycles;
    return RT_OK;
}

/* processor q's state of line index li in the directory (rt_mesi.h; E and S
 * are not told apart: the rule treats them alike) */
static int state_of(const rt_memspy *m, uint32_t li, int q)
{
    return !(m->present[li] >> q & 1) ? 'I' : m->dirty[li] == q ? 'M' : 'S';
}

/* The snoop of a reference by processor `proc` to line index li (a store
 * when write), as rt_mesi.h rules: a dirty copy elsewhere is written back, a
 * store removes every other copy; then the directory holds proc's state. */
static int snoop(rt_memspy *m, int proc, uint32_t li, uint64_t line, int write)
{
    uint64_t others = m->present[li] & ~(UINT64_C(1) << proc);
    while (others) {
        int q = __builtin_ctzll(others);
        others &= others - 1;
        unsigned answer = rt_mesi_answer(state_of(m, li, q), write);
        if (answer & RT_MESI_WRITEBACK) {
            m->dirty[li] = -1; /* the owner's data goes to memory before the reference */
            m->tot.writebacks++;
        }
        if (answer & RT_MESI_INVALIDATE) {
            int st = rt_cache_flush_range(m->proc[q].cache, line << m->shift, m->line, 1);
            if (st != RT_OK)
                return st;
            m->present[li] &= ~(UINT64_C(1) << q);
            m->why[li * (size_t)m->P + (size_t)q] = LS_MAKE(LS_INVALIDATED, proc);
            m->tot.invalidations++;
        }
    }
    m->present[li] |= UINT64_C(1) << proc;
    if (write)
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
            /* the slot remembers its line's state index since the miss that filled it */
            struct ms_slot *sl = &p->slot[res.set * p->ways + res.way];
            uint32_t li = sl->li;
            if (li == UINT32_MAX) {
                if (line_index(m, res.line, &li) != RT_OK)
                    return rt_ms_nomem(err);
                sl->li = li;
            }
            if (rt_mesi_snoops(state_of(m, li, proc), 1)) {
                st = snoop(m, proc, li, res.line, 1);
                if (st != RT_OK)
                    return rt_err_set(err, st, "policy: %s", rt_cache_error(m->proc[0].cache));
            }
        }
        m->code_time[(size_t)code * (size_t)m->P + (size_t)proc] += cycles;
        if (m->cfg.misses_only)
            return RT_OK;
        uint32_t b;
        if (bin_of(m, p, code, data_of(m, p, addr, res.set * p->ways + res.way), &b) != RT_OK)
            return rt_ms_nomem(err);
        rt_memspy_counts *c = &m->bins[b].c;
        c->refs++;
        if (is_write)
            c->writes++;
        else
            c->reads++;
        return RT_OK;
    }
    /* a miss: the slot now holds another line, so what it remembered is stale */
    p->slot[res.set * p->ways + res.way].data = RT_RANGEMAP_NONE;
    p->slot[res.set * p->ways + res.way].li = UINT32_MAX;
    uint32_t d = data_of(m, p, addr, res.set * p->ways + res.way);
    if (res.evicted && evicted(m, proc, res.evicted_line, d) != RT_OK)
        return rt_ms_nomem(err);
    uint32_t li;
    if (line_index(m, res.line, &li) != RT_OK)
        return rt_ms_nomem(err);
    p->slot[res.set * p->ways + res.way].li = li;
    uint32_t *w = &m->why[li * (size_t)m->P + (size_t)proc];
    uint32_t b;
    if (bin_of(m, p, code, d, &b) != RT_OK)
        return rt_ms_nomem(err);
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
        return rt_ms_nomem(err);
    *w = LS_MAKE(LS_HELD, 0);
    if (is_write) {
        c->write_misses++;
        tc->write_misses++;
        c->write_stall += lat;
        tc->write_stall += lat;
    } else {
        c->read_misses++;
        tc->read_misses++;
        c->read_stall += lat;
        tc->read_stall += lat;
    }
    /* a miss: proc's copy was I (the owner of a dirty copy writes it back
     * and, for a load, keeps a shared one) */
    if ((st = snoop(m, proc, li, res.line, is_write)) != RT_OK)
        return rt_err_set(err, st, "policy: cache flush failed");
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
    uint32_t code = rt_ms_current_code(p);
    if (has_pc) {
        uint32_t f = rt_rangemap_find(&m->funcs, pc, NULL);
        code = f == RT_RANGEMAP_NONE ? CODE_UNKNOWN : rt_ms_fold(m, f);
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

