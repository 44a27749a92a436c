/*
 * lpar.c - Lua face of core/par: the MPI job this process belongs to.
 *
 *   par.rank() -> r            0 .. size-1 (0 when not launched by mpirun / srun)
 *   par.size() -> n            1 when not launched
 *   par.launched() -> bool     MPI was started (mpirun / srun)
 *   par.built() -> bool        the build has MPI
 *   par.agree(status) -> max   collective: the largest status over the ranks
 *   par.gather(s) -> {s0, s1, ...} on rank 0, nil elsewhere   (collective; s a string)
 *   par.bcast(s) -> s          rank 0's string on every rank (collective)
 *   par.abort(code)            end the whole job now (a failure the others cannot know of)
 *   par.speaks() -> bool       this process writes stdout and files (rank 0, or not launched)
 *   par.solo(on) -> was        work alone: rank 0 of size 1 until par.solo(false)
 *   par.settle(code, has_message, patience) -> code, speak | nil   (collective, rt_par_settle)
 *   par.settled() / par.mark_settled()
 *   par.silence()              this rank writes nothing: stdout to /dev/null, outputs discarded
 *   par.encode(v) -> s, par.decode(s) -> v   values as bytes (the format below), for gather / bcast
 * lua/retrace/par.lua builds tables, spreading and reductions on these.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bind.h"
#include "rt_out.h"
#include "rt_par.h"

static int l_rank(lua_State *L)
{
    lua_pushinteger(L, rt_par_rank());
    return 1;
}

static int l_size(lua_State *L)
{
    lua_pushinteger(L, rt_par_size());
    return 1;
}

static int l_launched(lua_State *L)
{
    lua_pushboolean(L, rt_par_launched());
    return 1;
}

static int l_built(lua_State *L)
{
    lua_pushboolean(L, rt_par_built());
    return 1;
}

static int l_agree(lua_State *L)
{
    lua_pushinteger(L, rt_par_agree((int)luaL_checkinteger(L, 1)));
    return 1;
}

static int l_abort(lua_State *L)
{
    rt_par_abort((int)luaL_optinteger(L, 1, 1));
    return 0;
}

static int l_speaks(lua_State *L)
{
    lua_pushboolean(L, rt_par_speaks());
    return 1;
}

static int l_solo(lua_State *L)
{
    lua_pushboolean(L, rt_par_solo(lua_toboolean(L, 1)));
    return 1;
}

static int l_settle(lua_State *L)
{
    int code = (int)luaL_checkinteger(L, 1), speak = 0;
    int has = lua_toboolean(L, 2);
    double patience = luaL_optnumber(L, 3, -1);
    int r = rt_par_settle(code, has, patience, &speak);
    if (r < 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushinteger(L, r);
    lua_pushboolean(L, speak);
    return 2;
}

static int l_settled(lua_State *L)
{
    lua_pushboolean(L, rt_par_settled());
    return 1;
}

static int l_mark_settled(lua_State *L)
{
    (void)L;
    rt_par_mark_settled();
    return 0;
}

/* Standard output goes to /dev/null (what is buffered is dropped) and every output file is discarded. */
static int l_silence(lua_State *L)
{
    fflush(stdout);
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    int ok = fd >= 0 && dup2(fd, STDOUT_FILENO) >= 0;
    if (fd >= 0)
        close(fd);
    if (!ok)
        return luaL_error(L, "par.silence: /dev/null: cannot open");
    rt_out_discard(1);
    return 0;
}


/*
 * Values as bytes: one tag byte per value, n nil, t / f booleans, i integer (8 bytes, little
 * endian), d float (its 8 bytes), s string (4-byte length, little endian, then the bytes), T a
 * table: its key / value pairs, then a 0 byte. In C: a gather of every processor's statistics
 * is hundreds of thousands of values.
 */
/* The bytes being encoded: malloc'd, owned by a userdata on the stack (freed by its __gc on an error). */
typedef struct enc_buf {
    char *p;
    size_t n, cap;
} enc_buf;

static int enc_buf_gc(lua_State *L)
{
    enc_buf *b = lua_touserdata(L, 1);
    free(b->p);
    b->p = NULL;
    return 0;
}

static void enc_add(lua_State *L, enc_buf *b, const void *s, size_t n)
{
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->n < n)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p)
            luaL_error(L, "par.encode: not enough memory");
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void enc_char(lua_State *L, enc_buf *b, char c)
{
    enc_add(L, b, &c, 1);
}

static void put_le(lua_State *L, enc_buf *b, uint64_t v, int n)
{
    char c[8];
    for (int i = 0; i < n; i++)
        c[i] = (char)(v >> (8 * i));
    enc_add(L, b, c, (size_t)n);
}

/* Encode the value at stack index i (absolute) into b; seen (absolute index) holds the tables being encoded. */
static void enc_value(lua_State *L, enc_buf *b, int i, int seen, int depth)
{
    switch (lua_type(L, i)) {
    case LUA_TNIL:
        enc_char(L, b, 'n');
        break;
    case LUA_TBOOLEAN:
        enc_char(L, b, lua_toboolean(L, i) ? 't' : 'f');
        break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, i)) {
            enc_char(L, b, 'i');
            put_le(L, b, (uint64_t)lua_tointeger(L, i), 8);
        } else {
            double d = lua_tonumber(L, i);
            uint64_t u;
            memcpy(&u, &d, sizeof u);
            enc_char(L, b, 'd');
            put_le(L, b, u, 8);
        }
        break;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(L, i, &n);
        if (n > 0xffffffffu)
            luaL_error(L, "par.encode: a string of %I bytes is too large", (lua_Integer)n);
        enc_char(L, b, 's');
        put_le(L, b, n, 4);
        enc_add(L, b, s, n);
        break;
    }
    case LUA_TTABLE:
        if (depth > 200)
            luaL_error(L, "par.encode: tables nested too deep");
        luaL_checkstack(L, 6, "par.encode");
        lua_pushvalue(L, i);
        if (lua_rawget(L, seen) != LUA_TNIL)
            luaL_error(L, "par.encode: a table that contains itself");
        lua_pop(L, 1);
        lua_pushvalue(L, i);
        lua_pushboolean(L, 1);
        lua_rawset(L, seen);
        enc_char(L, b, 'T');
        lua_pushnil(L);
        while (lua_next(L, i)) {
            int top = lua_gettop(L);
            enc_value(L, b, top - 1, seen, depth + 1);
            enc_value(L, b, top, seen, depth + 1);
            lua_pop(L, 1);
        }
        enc_char(L, b, '\0');
        lua_pushvalue(L, i);
        lua_pushnil(L);
        lua_rawset(L, seen);
        break;
    default:
        luaL_error(L, "par.encode: cannot send a %s", luaL_typename(L, i));
    }
}

static int l_encode(lua_State *L)
{
    lua_settop(L, 1);
    lua_newtable(L); /* 2: seen */
    enc_buf *b = lua_newuserdatauv(L, sizeof *b, 0); /* 3 */
    *b = (enc_buf){0};
    lua_newtable(L);
    lua_pushcfunction(L, enc_buf_gc);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, 3);
    enc_value(L, b, 1, 2, 0);
    lua_pushlstring(L, b->p, b->n);
    free(b->p);
    b->p = NULL;
    return 1;
}

typedef struct dec_in {
    const unsigned char *s;
    size_t n, i;
} dec_in;

static uint64_t get_le(lua_State *L, dec_in *d, int n)
{
    if (d->n - d->i < (size_t)n)
        luaL_error(L, "par.decode: truncated at byte %I", (lua_Integer)(d->i + 1));
    uint64_t v = 0;
    for (int k = 0; k < n; k++)
        v |= (uint64_t)d->s[d->i + (size_t)k] << (8 * k);
    d->i += (size_t)n;
    return v;
}

/* Push the value at d->i. */
static void dec_value(lua_State *L, dec_in *d, int depth)
{
    if (d->i >= d->n)
        luaL_error(L, "par.decode: truncated at byte %I", (lua_Integer)(d->i + 1));
    luaL_checkstack(L, 4, "par.decode");
    size_t at = d->i;
    unsigned char tag = d->s[d->i++];
    switch (tag) {
    case 'n': lua_pushnil(L); break;
    case 't': lua_pushboolean(L, 1); break;
    case 'f': lua_pushboolean(L, 0); break;
    case 'i': lua_pushinteger(L, (lua_Integer)get_le(L, d, 8)); break;
    case 'd': {
        uint64_t u = get_le(L, d, 8);
        double x;
        memcpy(&x, &u, sizeof x);
        lua_pushnumber(L, x);
        break;
    }
    case 's': {
        size_t n = (size_t)get_le(L, d, 4);
        if (d->n - d->i < n)
            luaL_error(L, "par.decode: truncated at byte %I", (lua_Integer)(d->i + 1));
        lua_pushlstring(L, (const char *)d->s + d->i, n);
        d->i += n;
        break;
    }
    case 'T':
        if (depth > 200)
            luaL_error(L, "par.decode: tables nested too deep");
        lua_newtable(L);
        for (;;) {
            if (d->i >= d->n)
                luaL_error(L, "par.decode: truncated at byte %I", (lua_Integer)(d->i + 1));
            if (d->s[d->i] == 0) {
                d->i++;
                break;
            }
            dec_value(L, d, depth + 1);
            dec_value(L, d, depth + 1);
            if (lua_isnil(L, -2))
                luaL_error(L, "par.decode: a nil key at byte %I", (lua_Integer)d->i);
            lua_rawset(L, -3);
        }
        break;
    default:
        luaL_error(L, "par.decode: bad tag at byte %I", (lua_Integer)(at + 1));
    }
}

static int l_decode(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    dec_in d = {(const unsigned char *)s, n, 0};
    dec_value(L, &d, 0);
    return 1;
}

#ifdef RETRACE_HAVE_MPI
/* Sizes over MPI are ints: a string of 2 GiB or more is refused. */
static int check_len(lua_State *L, size_t n)
{
    if (n > (size_t)0x7fffffff)
        return luaL_error(L, "par: a message of %I bytes is too large", (lua_Integer)n);
    return (int)n;
}

static int l_gather(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    if (!rt_par_launched()) {
        lua_createtable(L, 1, 0);
        lua_pushlstring(L, s, n);
        lua_rawseti(L, -2, 1);
        return 1;
    }
    MPI_Comm c = rt_par_comm();
    int size = rt_par_size(), rank = rt_par_rank(), len = check_len(L, n);
    int *lens = NULL, *offs = NULL;
    char *buf = NULL;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof *lens);
        offs = calloc((size_t)size, sizeof *offs);
        if (!lens || !offs) {
            free(lens);
            free(offs);
            return luaL_error(L, "par.gather: not enough memory");
        }
    }
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, c);
    size_t total = 0;
    if (rank == 0) {
        for (int i = 0; i < size; i++) {
            if (total + (size_t)lens[i] > (size_t)0x7fffffff) {
                free(lens);
                free(offs);
                return luaL_error(L, "par.gather: more than 2 GiB gathered");
            }
            offs[i] = (int)total;
            total += (size_t)lens[i];
        }
        buf = malloc(total ? total : 1);
        if (!buf) {
            free(lens);
            free(offs);
            return luaL_error(L, "par.gather: not enough memory");
        }
    }
    MPI_Gatherv(s, len, MPI_CHAR, buf, lens, offs, MPI_CHAR, 0, c);
    if (rank != 0)
        return 0;
    lua_createtable(L, size, 0);
    for (int i = 0; i < size; i++) {
        lua_pushlstring(L, buf + offs[i], (size_t)lens[i]);
        lua_rawseti(L, -2, i + 1);
    }
    free(lens);
    free(offs);
    free(buf);
    return 1;
}

static int l_bcast(lua_State *L)
{
    size_t n = 0;
    const char *s = rt_par_rank() == 0 ? luaL_checklstring(L, 1, &n) : NULL;
    if (!rt_par_launched()) {
        lua_pushlstring(L, s, n);
        return 1;
    }
    MPI_Comm c = rt_par_comm();
    int len = rt_par_rank() == 0 ? check_len(L, n) : 0;
    MPI_Bcast(&len, 1, MPI_INT, 0, c);
    char *buf = malloc(len ? (size_t)len : 1);
    if (!buf)
        return luaL_error(L, "par.bcast: not enough memory");
    if (rt_par_rank() == 0)
        memcpy(buf, s, (size_t)len);
    MPI_Bcast(buf, len, MPI_CHAR, 0, c);
    lua_pushlstring(L, buf, (size_t)len);
    free(buf);
    return 1;
}
#else
static int l_gather(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    lua_createtable(L, 1, 0);
    lua_pushlstring(L, s, n);
    lua_rawseti(L, -2, 1);
    return 1;
}

static int l_bcast(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_settop(L, 1);
    return 1;
}
#endif

static const luaL_Reg funcs[] = {
    {"rank", l_rank},       {"size", l_size},   {"launched", l_launched}, {"built", l_built},
    {"agree", l_agree},     {"gather", l_gather}, {"bcast", l_bcast},    {"abort", l_abort},
    {"speaks", l_speaks},   {"solo", l_solo},     {"settle", l_settle},  {"settled", l_settled},
    {"mark_settled", l_mark_settled},             {"silence", l_silence},
    {"encode", l_encode},   {"decode", l_decode},
    {NULL, NULL},
};

int rt_lopen_par(lua_State *L)
{
    luaL_newlib(L, funcs);
    return 1;
}
