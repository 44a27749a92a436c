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
 * lua/retrace/par.lua builds tables, spreading and reductions on these.
 */
#include <fcntl.h>
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

#ifdef RETRACE_HAVE_MPI
/* Sizes over MPI are ints: a string of 2 GiB or more is refused. */
static int check_len(lua_State *L, size_t n)
{
    if (n > (size_t)0x7fffffff)
        return luaL_error(L, "par: a message of %zu bytes is too large", n);
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
    {NULL, NULL},
};

int rt_lopen_par(lua_State *L)
{
    luaL_newlib(L, funcs);
    return 1;
}
