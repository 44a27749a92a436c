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

/* the data bin of addr, whose line sits in first-level slot `slot` of
 * processor p (UINT32_MAX: in none) */
static uint32_t data_of(rt_memspy *m, ms_proc *p, uint64_t addr, uint32_t slot)
{
    struct ms_slot none, *sm = slot == UINT32_MAX ? &none : &p->slot[slot];
    none.gen = 0;
    none.data = RT_RANGEMAP_NONE;
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
            uint32_t *wy = realloc(m->why, cap * (size_t)m->P * sizeof *wy);
            if (!wy) {
                rt_linemap_del(&m->lines, line);
                return RT_ENOMEM;
            }
            m->why = wy;
            m->caplines = cap;
        }
        memset(m->why + n * (size_t)m->P, 0, (size_t)m->P * sizeof *m->why);
        *slot = (uint32_t)n;
        m->nlines++;
    }
    *out = *slot;
    return RT_OK;
}

/* processor p's first level dropped `line` (written back when dirty) to make
 * room for a reference to data bin d */
static int evicted(rt_memspy *m, int p, uint64_t line, int dirty, uint32_t d)
{
    uint32_t li;
    int st = line_index(m, line, &li);
    if (st != RT_OK)
        return st;
    m->tot.writebacks += (uint64_t)(dirty != 0);
    m->why[li * (size_t)m->P + (size_t)p] = LS_MAKE(LS_REPLACED, d);
    return RT_OK;
}

/* ---- the engine ---- */

/* the first data (or unified) cache of a machine */
static const rt_hcache_config *first_data(const rt_hier_config *hc)
{
    return hc->c[0][RT_HIER_UNIFIED].present ? &hc->c[0][RT_HIER_UNIFIED] : &hc->c[0][RT_HIER_DATA];
}

rt_memspy *rt_memspy_new(const rt_memspy_config *cfg, const rt_hier_config *machine, rt_err *err)
{
    int P = cfg ? cfg->procs : 0;
    if (!cfg || P < 1 || P > RT_MEMSPY_MAX_PROCS || !machine) {
        rt_err_set(err, RT_EINVAL, "processors: %d is not in 1..%d", P, RT_MEMSPY_MAX_PROCS);
        return NULL;
    }
    rt_hier_config hc = *machine;
    hc.cores = (unsigned)P;
    hc.skip_coherence_misses = 1; /* MemSpy tells invalidation misses apart itself */
    const rt_hcache_config *l1 = first_data(&hc);
    if (hc.levels >= 1 && l1->present && (l1->wback != RT_WPOL_ALWAYS || l1->walloc != RT_WPOL_ALWAYS)) {
        rt_err_set(err, RT_EINVAL, "caches: the first data level must write back and allocate on writes");
        return NULL;
    }
    rt_memspy *m = calloc(1, sizeof *m);
    if (!m) {
        rt_ms_nomem(err);
        return NULL;
    }
    m->cfg = *cfg;
    m->P = P;
    for (int i = 0; i < P; i++) {
        for (int k = 0; k <= (int)MEMO_MASK; k++)
            m->proc[i].binmemo[k].bin = UINT32_MAX;
        m->proc[i].memo_gen = UINT64_MAX;
    }
    rt_rangemap_init(&m->ranges);
    rt_rangemap_init(&m->funcs);
    if (rt_hier_new(&hc, &m->h, err) != RT_OK) {
        rt_memspy_free(m);
        return NULL;
    }
    m->levels = hc.levels;
    if (cfg->nlevel_latency && cfg->nlevel_latency != hc.levels) {
        rt_err_set(err, RT_EINVAL, "latency: %u values for %u level%s (give 1, or one per level "
                   "below the first and memory)", cfg->nlevel_latency, hc.levels, hc.levels == 1 ? "" : "s");
        rt_memspy_free(m);
        return NULL;
    }
    uint64_t lines = l1->size / l1->block, ways = l1->assoc ? l1->assoc : lines;
    for (int i = 0; i < P; i++) {
        m->proc[i].ways = (uint32_t)ways;
        m->proc[i].slot = malloc((size_t)lines * sizeof *m->proc[i].slot);
        if (!m->proc[i].slot) {
            rt_ms_nomem(err);
            rt_memspy_free(m);
            return NULL;
        }
        for (size_t k = 0; k < lines; k++)
            m->proc[i].slot[k] = (struct ms_slot){RT_RANGEMAP_NONE, 0};
    }
    m->line = l1->block;
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
    free(m->why);
    rt_hier_free(m->h);
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

/* What the machine's coherence did to the other processors for a reference
 * by proc to `line`: the copies it removed (their next miss there is an
 * invalidation miss, caused by proc) and the dirty ones written back. */
static int coherence(rt_memspy *m, int proc, uint64_t line, const rt_hier_result *r)
{
    m->tot.writebacks += (uint64_t)__builtin_popcountll(r->snooped);
    if (!r->invalidated)
        return RT_OK;
    uint32_t li;
    if (line_index(m, line, &li) != RT_OK)
        return RT_ENOMEM;
    for (uint64_t q = r->invalidated; q; q &= q - 1) {
        m->why[li * (size_t)m->P + (size_t)__builtin_ctzll(q)] = LS_MAKE(LS_INVALIDATED, proc);
        m->tot.invalidations++;
    }
    return RT_OK;
}

/* one line piece [addr, addr + size) of a reference */
static int ref_line(rt_memspy *m, int proc, ms_proc *p, uint64_t addr, uint64_t size, int is_write,
                    uint32_t code, rt_err *err)
{
    rt_hier_result res;
    int st = rt_hier_access(m->h, (unsigned)proc, addr, size, is_write ? RT_REF_WRITE : RT_REF_READ, &res);
    if (st != RT_OK)
        return rt_err_set(err, st, "policy: %s", rt_hier_error(m->h));
    rt_memspy_counts *tc = &m->tot.c;
    tc->refs++;
    if (is_write)
        tc->writes++;
    else
        tc->reads++;
    p->busy += m->cfg.ref_cycles;
    m->tot.busy += m->cfg.ref_cycles;
    uint64_t cycles = m->cfg.ref_cycles;
    if (coherence(m, proc, res.block, &res) != RT_OK)
        return rt_ms_nomem(err);
    uint32_t slot = res.way == UINT32_MAX ? UINT32_MAX : res.set * p->ways + res.way;
    if (res.hit) {
        m->code_time[(size_t)code * (size_t)m->P + (size_t)proc] += cycles;
        if (m->cfg.misses_only)
            return RT_OK;
        uint32_t b;
        if (bin_of(m, p, code, data_of(m, p, addr, slot), &b) != RT_OK)
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
    if (slot != UINT32_MAX)
        p->slot[slot].data = RT_RANGEMAP_NONE;
    uint32_t d = data_of(m, p, addr, slot);
    if (res.evicted && evicted(m, proc, res.evicted_block, res.evicted_dirty, d) != RT_OK)
        return rt_ms_nomem(err);
    uint32_t li;
    if (line_index(m, res.block, &li) != RT_OK)
        return rt_ms_nomem(err);
    uint32_t *w = &m->why[li * (size_t)m->P + (size_t)proc];
    uint32_t b;
    if (bin_of(m, p, code, d, &b) != RT_OK)
        return rt_ms_nomem(err);
    rt_memspy_counts *c = &m->bins[b].c;
    /* the level that served it (a store of a whole line fetches nothing: the first below) */
    const unsigned served = res.level ? res.level : 1;
    uint64_t lat = m->cfg.nlevel_latency ? m->cfg.level_latency[served - 1] : m->cfg.latency;
    if (m->cfg.remote_latency && served == m->levels && res.block % (uint64_t)m->P != (uint64_t)proc) {
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
    default: /* never held (or taken by an inclusive level below) */
        c->first++;
        tc->first++;
        st = RT_OK;
        break;
    }
    if (st != RT_OK)
        return rt_ms_nomem(err);
    *w = LS_MAKE(LS_HELD, 0);
    for (unsigned l = 0; l < served && l < RT_HIER_MAX_LEVELS; l++) {
        c->level_miss[l]++;
        tc->level_miss[l]++;
    }
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
        uint64_t next = ((a >> m->shift) + 1) << m->shift, end = addr + size - 1;
        uint64_t piece = (a >> m->shift) == last ? end - a + 1 : next - a;
        int st = ref_line(m, proc, p, a, piece, is_write, code, err);
        if (st != RT_OK)
            return st;
        if ((a >> m->shift) == last)
            break;
        a = next;
    }
    return RT_OK;
}

