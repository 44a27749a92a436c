/*
 * lcapture.c - Lua face of core/capture: running a program under valgrind
 * lackey with the trace streamed into RTMB.
 *
 *   capture.run{ argv = {...}, env = {"N=V", ...}, rtmb =, alloc =, fdlog =, text =, tool = }
 *     (tool = true: argv runs the retrace Valgrind tool and its binary stream is read)
 *     -> { refs, ifetches, records, allocs, bytes_in, exit_code, signal, interrupted, threads }
 *     or nil, message, status
 *   capture.interleave{trace =, alloc =, out_trace =, out_alloc =, quantum =} -> true | nil, message
 *                                          (threads take turns: rt_interleave.h)
 *   local s = capture.symbols(path)      -- an ELF object (or nil, message)
 *   s:lookup_many{addr, ...} -> {{func =, file =, line =, inlined =}, ...}   (link-time
 *                                  addresses; fields left out when unknown; inlined: in
 *                                  inlined code, the frames {func, file, line} innermost
 *                                  first, each caller at the line of the inlined call)
 *   s:list() -> functions {addr, size, name}, objects {addr, size, name}
 *   s:lines() -> {{addr, size, func, line}, ...}   stretches of code of one source line
 *   s:result_var(ret) -> name, type (the variable holding a call's result at its
 *                        return address ret), or nothing
 *   capture.raw_scan(raw) -> paths, others | nil, message   (rt_alloc_raw.h: the distinct
 *                        call paths of the A records, in order; {kind, rest} of L / K records)
 *   capture.raw_rewrite(raw, {out1, out2}, {head1, head2}, tail, names) -> A records | nil,
 *                        message   (names: call path text -> " SHORT LONG\n")
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "rt_alloc_raw.h"
#include "rt_capture.h"
#include "rt_interleave.h"
#include "rt_symbols.h"

#define SYMBOLS_T "retrace.Symbols"

/* t[key] as a NULL-terminated array of strings (kept alive by t) */
static const char **string_list(lua_State *L, int t, const char *key, int required)
{
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1) && !required) {
        lua_pop(L, 1);
        return NULL;
    }
    luaL_argcheck(L, lua_istable(L, -1), 1, key);
    lua_Integer n = luaL_len(L, -1);
    const char **v = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *v, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -2, i);
        v[i - 1] = luaL_checkstring(L, -1); /* the list table, left on the stack, keeps it */
        lua_pop(L, 1);
    }
    v[n] = NULL;
    return v;
}

static const char *opt_string(lua_State *L, int t, const char *key)
{
    lua_getfield(L, t, key);
    const char *s = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
    return s; /* left on the stack: kept alive */
}

static int l_run(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rt_capture_opts o;
    memset(&o, 0, sizeof o);
    o.argv = string_list(L, 1, "argv", 1);
    o.env = string_list(L, 1, "env", 0);
    o.rtmb = opt_string(L, 1, "rtmb");
    o.alloc = opt_string(L, 1, "alloc");
    o.fdlog = opt_string(L, 1, "fdlog");
    o.text = opt_string(L, 1, "text");
    lua_getfield(L, 1, "tool");
    o.tool = lua_toboolean(L, -1);
    lua_pop(L, 1);
    luaL_argcheck(L, o.rtmb && o.alloc, 1, "rtmb and alloc are required");
    rt_capture_result r;
    rt_err err;
    rt_err_clear(&err);
    int st = rt_capture_run(&o, &r, &err);
    if (st != RT_OK) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        lua_pushinteger(L, st);
        return 3;
    }
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, (lua_Integer)r.refs);
    lua_setfield(L, -2, "refs");
    lua_pushinteger(L, (lua_Integer)r.ifetches);
    lua_setfield(L, -2, "ifetches");
    lua_pushinteger(L, (lua_Integer)r.records);
    lua_setfield(L, -2, "records");
    lua_pushinteger(L, (lua_Integer)r.allocs);
    lua_setfield(L, -2, "allocs");
    lua_pushinteger(L, (lua_Integer)r.bytes_in);
    lua_setfield(L, -2, "bytes_in");
    lua_pushinteger(L, r.exit_code);
    lua_setfield(L, -2, "exit_code");
    lua_pushinteger(L, r.signal);
    lua_setfield(L, -2, "signal");
    lua_pushinteger(L, r.threads);
    lua_setfield(L, -2, "threads");
    lua_pushboolean(L, r.interrupted);
    lua_setfield(L, -2, "interrupted");
    return 1;
}

/* capture.interleave{trace =, alloc =, out_trace =, out_alloc =, quantum =} -> true | nil, message */
static int l_interleave(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *ti = opt_string(L, 1, "trace"), *ai = opt_string(L, 1, "alloc");
    const char *to = opt_string(L, 1, "out_trace"), *ao = opt_string(L, 1, "out_alloc");
    luaL_argcheck(L, ti && ai && to && ao, 1, "trace, alloc, out_trace and out_alloc are required");
    lua_getfield(L, 1, "quantum");
    lua_Integer q = luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    luaL_argcheck(L, q >= 1, 1, "quantum: at least 1");
    rt_err err;
    rt_err_clear(&err);
    if (rt_interleave(ti, ai, to, ao, (uint64_t)q, &err) != RT_OK) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int raw_path(void *ud, const char *pcs, size_t n)
{
    lua_State *L = ud;
    lua_pushlstring(L, pcs, n);
    lua_rawseti(L, -3, (lua_Integer)lua_rawlen(L, -3) + 1);
    return RT_OK;
}

static int raw_other(void *ud, char kind, const char *rest, size_t n)
{
    lua_State *L = ud;
    lua_createtable(L, 2, 0);
    lua_pushlstring(L, &kind, 1);
    lua_rawseti(L, -2, 1);
    lua_pushlstring(L, rest, n);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
    return RT_OK;
}

/* capture.raw_scan(raw) -> paths, others | nil, message */
static int l_raw_scan(lua_State *L)
{
    const char *raw = luaL_checkstring(L, 1);
    lua_newtable(L); /* paths: at -2 while others is on top */
    lua_newtable(L);
    rt_err err;
    rt_err_clear(&err);
    if (rt_alloc_raw_scan(raw, raw_path, raw_other, L, &err) != RT_OK)
        return rt_push_fail(L, &err);
    return 2;
}

/* the names table (at index 5) for a call path; NULL when it has none */
static const char *raw_names(void *ud, const char *pcs, size_t n)
{
    lua_State *L = ud;
    lua_pushlstring(L, pcs, n);
    lua_rawget(L, 5);
    const char *s = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL; /* kept by the table */
    lua_pop(L, 1);
    return s;
}

/* capture.raw_rewrite(raw, {out1, out2}, {head1, head2}, tail, names) -> A records | nil, message */
static int l_raw_rewrite(lua_State *L)
{
    const char *raw = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checktype(L, 3, LUA_TTABLE);
    size_t tail_len;
    const char *tail = luaL_checklstring(L, 4, &tail_len);
    luaL_checktype(L, 5, LUA_TTABLE);
    const char *out[2], *head[2];
    size_t head_len[2];
    for (int k = 0; k < 2; k++) {
        lua_rawgeti(L, 2, k + 1);
        out[k] = luaL_checkstring(L, -1);
        lua_rawgeti(L, 3, k + 1);
        head[k] = luaL_checklstring(L, -1, &head_len[k]);
    }
    rt_err err;
    rt_err_clear(&err);
    uint64_t na = 0;
    if (rt_alloc_raw_rewrite(raw, out, head, head_len, tail, tail_len, raw_names, L, &na, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushinteger(L, (lua_Integer)na);
    return 1;
}

typedef struct {
    rt_symbols *s;
} sym_box;

static rt_symbols *check_sym(lua_State *L)
{
    sym_box *b = luaL_checkudata(L, 1, SYMBOLS_T);
    if (!b->s)
        luaL_argerror(L, 1, "symbols are closed");
    return b->s;
}

static int sym_close(lua_State *L)
{
    sym_box *b = luaL_checkudata(L, 1, SYMBOLS_T);
    rt_symbols_free(b->s);
    b->s = NULL;
    return 0;
}

static int l_symbols(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    sym_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->s = NULL;
    luaL_setmetatable(L, SYMBOLS_T);
    rt_err err;
    rt_err_clear(&err);
    b->s = rt_symbols_open(path, &err);
    if (!b->s) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    return 1;
}

static void push_place(lua_State *L, rt_symbols *s, lua_Integer addr)
{
    const char *fn, *file;
    int line;
    rt_symbols_lookup(s, (uint64_t)addr, &fn, &file, &line);
    lua_createtable(L, 3, 0);
    if (fn) {
        lua_pushstring(L, fn);
        lua_setfield(L, -2, "func");
    }
    if (file) {
        lua_pushstring(L, file);
        lua_setfield(L, -2, "file");
        lua_pushinteger(L, line);
        lua_setfield(L, -2, "line");
    }
    rt_symframe fr[16];
    int n = rt_symbols_frames(s, (uint64_t)addr, fr, 16);
    if (n > 1) { /* inlined code: the frames, innermost first */
        lua_createtable(L, n, 0);
        for (int i = 0; i < n; i++) {
            lua_createtable(L, 0, 3);
            if (fr[i].func) {
                lua_pushstring(L, fr[i].func);
                lua_setfield(L, -2, "func");
            }
            if (fr[i].file) {
                lua_pushstring(L, fr[i].file);
                lua_setfield(L, -2, "file");
                lua_pushinteger(L, fr[i].line);
                lua_setfield(L, -2, "line");
            }
            lua_seti(L, -2, i + 1);
        }
        lua_setfield(L, -2, "inlined");
    }
}

/* s:result_var(ret) -> name, type | nil */
static int sym_result_var(lua_State *L)
{
    rt_symbols *s = check_sym(L);
    lua_Integer ret = luaL_checkinteger(L, 2);
    char name[128], type[128];
    if (!rt_symbols_result_var(s, (uint64_t)ret, name, sizeof name, type, sizeof type))
        return 0;
    lua_pushstring(L, name);
    lua_pushstring(L, type);
    return 2;
}

static int sym_lookup_many(lua_State *L)
{
    rt_symbols *s = check_sym(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 2);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, 2, i);
        lua_Integer a = luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        push_place(L, s, a);
        lua_seti(L, -2, i);
    }
    return 1;
}

typedef struct {
    lua_State *L;
    lua_Integer nf, no;
} walk;

/* a new table {addr =, size =} on the stack (room for more fields) */
static void push_range(lua_State *L, uint64_t addr, uint64_t size)
{
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)addr);
    lua_setfield(L, -2, "addr");
    lua_pushinteger(L, (lua_Integer)size);
    lua_setfield(L, -2, "size");
}

static int one_line(void *ud, uint64_t addr, uint64_t size, const char *func, int line)
{
    walk *w = ud;
    lua_State *L = w->L;
    push_range(L, addr, size);
    if (func) {
        lua_pushstring(L, func);
        lua_setfield(L, -2, "func");
    }
    lua_pushinteger(L, line);
    lua_setfield(L, -2, "line");
    lua_seti(L, -2, ++w->nf);
    return 0;
}

/* s:lines() -> {{addr, size, func, line}, ...}: the stretches of code of one source line */
static int sym_lines(lua_State *L)
{
    rt_symbols *s = check_sym(L);
    walk w = {L, 0, 0};
    lua_newtable(L);
    rt_symbols_lines(s, one_line, &w);
    return 1;
}

static int one_symbol(void *ud, int is_func, uint64_t addr, uint64_t size, const char *name)
{
    walk *w = ud;
    lua_State *L = w->L;
    push_range(L, addr, size);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_seti(L, is_func ? -3 : -2, is_func ? ++w->nf : ++w->no);
    return 0;
}

static int sym_list(lua_State *L)
{
    rt_symbols *s = check_sym(L);
    lua_newtable(L); /* functions */
    lua_newtable(L); /* objects */
    walk w = {L, 0, 0};
    rt_symbols_each(s, one_symbol, &w);
    return 2;
}

static int sym_tostring(lua_State *L)
{
    sym_box *b = luaL_checkudata(L, 1, SYMBOLS_T);
    lua_pushstring(L, b->s ? SYMBOLS_T : SYMBOLS_T " (closed)");
    return 1;
}

static const luaL_Reg sym_methods[] = {
    {"__tostring", sym_tostring},
    {"close", sym_close},
    {"lookup_many", sym_lookup_many},
    {"lines", sym_lines},
    {"result_var", sym_result_var},
    {"list", sym_list},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"run", l_run},
    {"symbols", l_symbols},
    {"interleave", l_interleave},
    {"raw_scan", l_raw_scan},
    {"raw_rewrite", l_raw_rewrite},
    {NULL, NULL},
};

int rt_lopen_capture(lua_State *L)
{
    rt_new_class(L, SYMBOLS_T, sym_methods, sym_close);
    luaL_newlib(L, funcs);
    return 1;
}
