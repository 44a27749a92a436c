/*
 * lmemspy.c - Lua face of core/memspy: one call that runs a trace through the
 * MemSpy engine and converts its statistics into plain tables.
 *
 *   memspy.run{trace=, format="msp"|"shmap"|"din"|"xdin"|"lackey"|"bin", alloc=LOG, procs=, size=, line=, ways=,
 *              policy=, seed=, hierarchy=SPEC, latency= (or {per level}), remote_latency=, ref_cycles=, misses_only=,
 *              monitor={names}, progress=fn(done, total)} -> result | nil, msg
 *
 * result = {totals = {refs, reads, writes, misses, read_misses, write_misses,
 *   first, replacement, invalidation, stall, read_stall, write_stall, time,
 *   busy, writebacks, invalidations, warnings, levels, level_misses = {per level}},
 *   code = {names}, data = {short names}, data_full = {full names},
 *   procs = {{busy=, stall=, time=}}, code_time = {[code name] = {cycles per processor}},
 *   bins = {{code=, data=, refs=, ..., causes = {[data name] = n},
 *            invalidators = {[processor] = n}}},
 *   warnings = {first messages}, config = {...}}
 * The report logic (matrix, detail, renames) lives in lua/retrace/memspy/.
 */
#include <string.h>

#include "bind.h"
#include "lcache.h"
#include "rt_memspy.h"
#include "rt_memspy_feed.h"
#include "rt_memtrace.h"

#define MEMSPY_T "retrace.MemSpyRun"

typedef struct run_box {
    rt_memspy *m; /* NULL until made, and after close */
} run_box;

static int box_close(lua_State *L)
{
    run_box *b = luaL_checkudata(L, 1, MEMSPY_T);
    rt_memspy_free(b->m);
    b->m = NULL;
    return 0;
}

static void set_counts(lua_State *L, const rt_memspy_counts *c, unsigned levels)
{
    lua_createtable(L, (int)levels, 0); /* misses per level of the machine */
    for (unsigned l = 0; l < levels; l++) {
        lua_pushinteger(L, (lua_Integer)c->level_miss[l]);
        lua_rawseti(L, -2, (lua_Integer)l + 1);
    }
    lua_setfield(L, -2, "level_misses");
    rt_set_int(L, "refs", (lua_Integer)c->refs);
    rt_set_int(L, "reads", (lua_Integer)c->reads);
    rt_set_int(L, "writes", (lua_Integer)c->writes);
    rt_set_int(L, "misses", (lua_Integer)(c->read_misses + c->write_misses));
    rt_set_int(L, "read_misses", (lua_Integer)c->read_misses);
    rt_set_int(L, "write_misses", (lua_Integer)c->write_misses);
    rt_set_int(L, "first", (lua_Integer)c->first);
    rt_set_int(L, "replacement", (lua_Integer)c->replacement);
    rt_set_int(L, "invalidation", (lua_Integer)c->invalidation);
    rt_set_int(L, "stall", (lua_Integer)c->stall);
    rt_set_int(L, "read_stall", (lua_Integer)c->read_stall);
    rt_set_int(L, "write_stall", (lua_Integer)c->write_stall);
    rt_set_int(L, "remote", (lua_Integer)c->remote);
}

static void push_result(lua_State *L, const rt_memspy *m)
{
    lua_newtable(L);
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    lua_newtable(L);
    set_counts(L, &t.c, rt_memspy_levels(m));
    rt_set_int(L, "levels", (lua_Integer)rt_memspy_levels(m));
    rt_set_int(L, "time", (lua_Integer)t.time);
    rt_set_int(L, "busy", (lua_Integer)t.busy);
    rt_set_int(L, "writebacks", (lua_Integer)t.writebacks);
    rt_set_int(L, "invalidations", (lua_Integer)t.invalidations);
    rt_set_int(L, "warnings", (lua_Integer)t.warnings);
    lua_setfield(L, -2, "totals");
    size_t nc = rt_memspy_code_count(m), nd = rt_memspy_data_count(m);
    int P = rt_memspy_procs(m);
    lua_createtable(L, (int)nc, 0);
    for (size_t i = 0; i < nc; i++) {
        lua_pushstring(L, rt_memspy_code_name(m, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "code");
    lua_createtable(L, (int)nd, 0);
    for (size_t i = 0; i < nd; i++) {
        lua_pushstring(L, rt_memspy_data_name(m, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "data");
    lua_createtable(L, (int)nd, 0);
    for (size_t i = 0; i < nd; i++) {
        lua_pushstring(L, rt_memspy_data_full(m, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "data_full");
    lua_createtable(L, P, 0);
    for (int p = 0; p < P; p++) {
        uint64_t busy, stall;
        rt_memspy_proc_time(m, p, &busy, &stall);
        lua_createtable(L, 0, 3);
        rt_set_int(L, "busy", (lua_Integer)busy);
        rt_set_int(L, "stall", (lua_Integer)stall);
        rt_set_int(L, "time", (lua_Integer)(busy + stall));
        lua_rawseti(L, -2, p + 1);
    }
    lua_setfield(L, -2, "procs");
    lua_createtable(L, 0, (int)nc);
    for (size_t i = 0; i < nc; i++) {
        lua_createtable(L, P, 0);
        for (int p = 0; p < P; p++) {
            lua_pushinteger(L, (lua_Integer)rt_memspy_code_time(m, i, p));
            lua_rawseti(L, -2, p + 1);
        }
        lua_setfield(L, -2, rt_memspy_code_name(m, i));
    }
    lua_setfield(L, -2, "code_time");
    size_t nb = rt_memspy_bins(m);
    lua_createtable(L, (int)nb, 0);
    for (size_t i = 0; i < nb; i++) {
        const rt_memspy_bin *b = rt_memspy_bin_at(m, i);
        lua_createtable(L, 0, 16);
        rt_set_str(L, "code", rt_memspy_code_name(m, b->code));
        rt_set_str(L, "data", rt_memspy_data_name(m, b->data));
        set_counts(L, &b->c, rt_memspy_levels(m));
        lua_newtable(L);
        lua_setfield(L, -2, "causes");
        lua_newtable(L);
        lua_setfield(L, -2, "invalidators");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    /* causes: bins[bin + 1].causes[data name] / .invalidators[processor] */
    for (size_t i = 0; i < rt_memspy_causes(m); i++) {
        uint32_t bin, who;
        int kind;
        uint64_t count;
        rt_memspy_cause_at(m, i, &bin, &kind, &who, &count);
        lua_rawgeti(L, -1, (lua_Integer)bin + 1);
        lua_getfield(L, -1, kind == 0 ? "causes" : "invalidators");
        lua_pushinteger(L, (lua_Integer)count);
        if (kind == 0)
            lua_setfield(L, -2, rt_memspy_data_name(m, who));
        else
            lua_rawseti(L, -2, (lua_Integer)who);
        lua_pop(L, 2);
    }
    lua_setfield(L, -2, "bins");
    size_t nw = rt_memspy_warnings_kept(m);
    lua_createtable(L, (int)nw, 0);
    for (size_t i = 0; i < nw; i++) {
        lua_pushstring(L, rt_memspy_warning(m, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "warnings");
}

static int l_run(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "trace");
    const char *path = luaL_checkstring(L, -1);
    lua_getfield(L, 1, "format");
    const char *fmt = luaL_optstring(L, -1, "msp");
    int shmap = strcmp(fmt, "shmap") == 0;
    int memfmt = rt_memfmt_from_name(fmt);
    if (!shmap && memfmt < 0 && strcmp(fmt, "msp") != 0)
        return luaL_error(L, "format: expected msp, shmap, din, xdin, lackey or bin, got '%s'", fmt);
    lua_getfield(L, 1, "alloc");
    const char *alloc = luaL_optstring(L, -1, NULL);
    uint64_t P = rt_opt_u64(L, 1, "procs", 1);
    if (P < 1 || P > RT_MEMSPY_MAX_PROCS)
        return luaL_error(L, "procs: %d is not in 1..%d", (int)P, RT_MEMSPY_MAX_PROCS);
    uint64_t size = rt_opt_u64(L, 1, "size", 65536), line = rt_opt_u64(L, 1, "line", 64);
    uint64_t ways = rt_opt_u64(L, 1, "ways", 1), seed = rt_opt_u64(L, 1, "seed", 1);
    rt_err err;
    rt_err_clear(&err);
    if (rt_cache_check_geometry(size, line, ways, "bytes", &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    rt_memspy_config mc = {.procs = (int)P,
                           .latency = 50,
                           .ref_cycles = rt_opt_u64(L, 1, "ref_cycles", 1),
                           .remote_latency = rt_opt_u64(L, 1, "remote_latency", 0),
                           .misses_only = rt_opt_bool(L, 1, "misses_only", 0)};
    /* latency: one figure for every miss, or a list: a miss served by level 2, 3, ..., memory */
    lua_getfield(L, 1, "latency");
    if (lua_istable(L, -1)) {
        lua_Integer n = luaL_len(L, -1);
        if (n < 1 || n > RT_HIER_MAX_LEVELS)
            return luaL_error(L, "latency: %d values (1 to %d)", (int)n, RT_HIER_MAX_LEVELS);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            lua_Integer v = lua_tointeger(L, -1);
            if (v < 0)
                return luaL_error(L, "latency: value %d is negative", (int)i);
            mc.level_latency[i - 1] = (uint64_t)v;
            lua_pop(L, 1);
        }
        mc.nlevel_latency = n > 1 ? (unsigned)n : 0;
        mc.latency = mc.level_latency[0];
    } else if (!lua_isnil(L, -1)) {
        mc.latency = rt_opt_u64(L, 1, "latency", 50);
    }
    lua_pop(L, 1);
    /* the --monitor names: pointers into strings the options table keeps alive */
    lua_getfield(L, 1, "monitor");
    if (lua_istable(L, -1)) {
        lua_Integer n = luaL_len(L, -1);
        const char **mon = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *mon, 0);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -2, i);
            mon[i - 1] = lua_tostring(L, -1);
            if (!mon[i - 1])
                return luaL_error(L, "monitor: entry %d is not a name", (int)i);
            lua_pop(L, 1);
        }
        mon[n] = NULL;
        mc.monitor = mon;
    }
    run_box *box = lua_newuserdatauv(L, sizeof *box, 1);
    box->m = NULL;
    luaL_setmetatable(L, MEMSPY_T);
    int boxi = lua_gettop(L);
    /* one policy instance per cache, kept alive in a table held by the box */
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, boxi, 1);
    int insts = lua_gettop(L);
    lua_getfield(L, 1, "policy");
    int pidx = lua_gettop(L);
    /* the machine: the short form of `retrace cache --hierarchy`, or one level */
    rt_hier_config hc;
    lua_getfield(L, 1, "hierarchy");
    const char *spec = luaL_optstring(L, -1, NULL);
    lua_pop(L, 1);
    if (spec) {
        rt_hier_config_init(&hc);
        if (rt_hier_parse_short(&hc, spec, &err) != RT_OK)
            return luaL_error(L, "hierarchy: %s", err.msg);
        if (hc.skipcount || hc.maxcount || hc.flushcount) {
            rt_err_set(&err, RT_EINVAL, "caches: -skipcount, -maxcount and -flushcount are not for MemSpy "
                                        "(it runs the whole trace)");
            return rt_push_fail(L, &err);
        }
    } else {
        rt_hier_config_single(&hc, size, line, ways);
    }
    hc.seed = seed;
    void **uds = lua_newuserdatauv(L, (size_t)P * sizeof *uds, 0);
    lua_rawseti(L, insts, (lua_Integer)P + 1);
    for (int i = 0; i < (int)P && !lua_isnil(L, pidx) && !spec; i++) {
        rt_cache_config cfg = rt_cache_defaults(size, line);
        rt_lcache_policy(L, pidx, &cfg); /* raises on a bad policy, before the machine exists */
        lua_rawseti(L, insts, i + 1);
        hc.c[0][RT_HIER_UNIFIED].ops = cfg.policy;
        uds[i] = cfg.policy_ud;
    }
    if (!lua_isnil(L, pidx) && !spec) {
        hc.c[0][RT_HIER_UNIFIED].ops_ud = uds[0];
        hc.c[0][RT_HIER_UNIFIED].core_ud = (void *const *)uds;
    }
    box->m = rt_memspy_new(&mc, &hc, &err);
    if (!box->m)
        return rt_push_fail(L, &err);
    lua_getfield(L, 1, "progress");
    int has_progress = lua_isfunction(L, -1);
    rt_progress_ud pud = RT_PROGRESS_UD(L, lua_gettop(L));
    rt_memspy_progress_fn pf = has_progress ? rt_on_progress_void : NULL;
    int st = shmap         ? rt_memspy_feed_shmap(box->m, path, pf, &pud, &err)
             : memfmt >= 0 ? rt_memspy_feed_memtrace(box->m, path, memfmt, alloc, pf, &pud, &err)
                           : rt_memspy_feed_msp(box->m, path, pf, &pud, &err);
    if (st != RT_OK || pud.failed) {
        rt_memspy_free(box->m);
        box->m = NULL;
        rt_progress_check(&pud); /* the progress callback's error (Ctrl-C) is raised, not dropped */
        return rt_push_fail(L, &err);
    }
    push_result(L, box->m);
    rt_memspy_free(box->m);
    box->m = NULL;
    return 1;
}

static const luaL_Reg funcs[] = {
    {"run", l_run},
    {NULL, NULL},
};

static const luaL_Reg run_methods[] = {
    {NULL, NULL},
};

int rt_lopen_memspy(lua_State *L)
{
    rt_new_class(L, MEMSPY_T, run_methods, box_close);
    luaL_newlib(L, funcs);
    lua_pushinteger(L, RT_MEMSPY_MAX_PROCS);
    lua_setfield(L, -2, "max_procs");
    return 1;
}
