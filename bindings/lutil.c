/*
 * lutil.c - Lua face of core/util: the streaming line reader.
 *
 *   for n, line in util.lines(path) do ... end   -- closes on break
 *   util.count_lines(path) -> lines, bytes        -- or nil, message
 *   util.isatty(fd) -> boolean
 *   local o = util.create(path)                   -- an output written whole or not at all
 *   o:write(s, ...); o:commit() -> true | nil, message   (o:abort() gives up)
 *   util.same_file(a, b) -> boolean
 *   util.detect(path) -> format, why | nil, message   -- the one format detector (rt_detect.h)
 *   util.read_once(path) -> boolean   -- a FIFO, pipe or terminal: the input can be read once
 *   local l = util.lock(path)      -- an exclusive lock on a file (flock), or nil, message;
 *                                  -- l:unlock(); released when collected or the process ends
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "bind.h"
#include "rt_detect.h"
#include "rt_file.h"
#include "rt_input.h"
#include "rt_lines.h"
#include "rt_out.h"

#define LINES_T "retrace.Lines"
#define OUT_T "retrace.Output"
#define LOCK_T "retrace.Lock"

typedef struct {
    rt_lines *r; /* NULL once closed */
} lines_box;

static lines_box *check_lines(lua_State *L, int i)
{
    lines_box *b = luaL_checkudata(L, i, LINES_T);
    if (!b->r)
        luaL_argerror(L, i, "line reader is closed");
    return b;
}

static int lines_close(lua_State *L)
{
    lines_box *b = luaL_checkudata(L, 1, LINES_T);
    rt_lines_free(b->r);
    b->r = NULL;
    return 0;
}

/* iterator step: (box, _) -> lineno, line | nil */
static int lines_step(lua_State *L)
{
    lines_box *b = check_lines(L, 1);
    const char *line;
    size_t len;
    rt_err err;
    int st = rt_lines_next(b->r, &line, &len, &err);
    if (st == RT_EEOF)
        return 0;
    if (st != RT_OK)
        return luaL_error(L, "%s", err.msg);
    lua_pushinteger(L, (lua_Integer)rt_lines_lineno(b->r));
    lua_pushlstring(L, line, len);
    return 2;
}

static int l_lines(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lines_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->r = NULL; /* safe empty state before allocating */
    luaL_setmetatable(L, LINES_T);
    rt_err err;
    b->r = rt_lines_open(path, &err);
    if (!b->r)
        return luaL_error(L, "%s", err.msg);
    lua_pushcfunction(L, lines_step);
    lua_insert(L, -2);      /* step, box */
    lua_pushnil(L);         /* control */
    lua_pushvalue(L, -2);   /* closing value */
    return 4;
}

static int l_count_lines(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    rt_err err;
    rt_lines *r = rt_lines_open(path, &err);
    if (!r)
        return rt_push_fail(L, &err);
    const char *line;
    size_t len;
    int st;
    while ((st = rt_lines_next(r, &line, &len, &err)) == RT_OK)
        ;
    lua_Integer n = (lua_Integer)rt_lines_lineno(r);
    lua_Integer bytes = (lua_Integer)rt_lines_offset(r);
    rt_lines_free(r);
    if (st != RT_EEOF)
        return rt_push_fail(L, &err);
    lua_pushinteger(L, n);
    lua_pushinteger(L, bytes);
    return 2;
}

/* isatty(fd) -> boolean */
static int l_isatty(lua_State *L)
{
    lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)));
    return 1;
}

/* "retrace.Lines: trace.din, line 12" */
static int lines_tostring(lua_State *L)
{
    lines_box *b = luaL_checkudata(L, 1, LINES_T);
    if (!b->r) {
        lua_pushstring(L, LINES_T " (closed)");
        return 1;
    }
    lua_pushfstring(L, LINES_T ": %s, line %I", rt_lines_name(b->r), (lua_Integer)rt_lines_lineno(b->r));
    return 1;
}

/* ---- outputs: rt_out behind a userdata (the temporary goes with the box) ---- */

typedef struct {
    rt_out *o; /* NULL once committed or abandoned */
} out_box;

static out_box *check_out(lua_State *L, int i)
{
    out_box *b = luaL_checkudata(L, i, OUT_T);
    if (!b->o)
        luaL_argerror(L, i, "output is closed");
    return b;
}

/* util.create(path) -> output, or nil, "PATH: reason" */
static int l_create(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    out_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->o = NULL;
    luaL_setmetatable(L, OUT_T);
    rt_err err;
    b->o = rt_out_open(path, &err);
    if (!b->o)
        return rt_push_fail(L, &err);
    return 1;
}

/* o:write(s, ...) -> o (strings and numbers, as file:write; failures come out at commit) */
static int out_write(lua_State *L)
{
    out_box *b = check_out(L, 1);
    FILE *fp = rt_out_fp(b->o);
    int n = lua_gettop(L);
    for (int i = 2; i <= n; i++) {
        size_t len;
        const char *s = luaL_checklstring(L, i, &len);
        if (len && fwrite(s, 1, len, fp) != len)
            rt_out_fail(b->o, errno);
    }
    lua_settop(L, 1);
    return 1;
}

/* o:commit() -> true, or nil, "PATH: reason" (the temporary removed, the target untouched) */
static int out_commit(lua_State *L)
{
    out_box *b = check_out(L, 1);
    rt_out *o = b->o;
    b->o = NULL;
    rt_err err;
    if (rt_out_commit(o, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* o:abort(), __gc and __close: drop the temporary unless committed (idempotent) */
static int out_abort(lua_State *L)
{
    out_box *b = luaL_checkudata(L, 1, OUT_T);
    rt_out_abort(b->o);
    b->o = NULL;
    return 0;
}

static int out_tostring(lua_State *L)
{
    out_box *b = luaL_checkudata(L, 1, OUT_T);
    if (!b->o)
        lua_pushstring(L, OUT_T " (closed)");
    else
        lua_pushfstring(L, OUT_T ": %s", rt_out_path(b->o));
    return 1;
}

static const luaL_Reg out_methods[] = {
    {"__tostring", out_tostring},
    {"write", out_write},
    {"commit", out_commit},
    {"abort", out_abort},
    {NULL, NULL},
};

/* util.same_file(a, b) -> true when both name one existing file */
/* util.detect(path) -> name, why | nil, message */
static int l_detect(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *name;
    char why[1024];
    int st = rt_detect(path, &name, why, sizeof why);
    if (st == RT_EINTR)
        return luaL_error(L, "%s", why);
    if (st != RT_OK || !name) {
        luaL_pushfail(L);
        lua_pushstring(L, why);
        return 2;
    }
    lua_pushstring(L, name);
    lua_pushstring(L, why);
    return 2;
}

static int l_read_once(lua_State *L)
{
    lua_pushboolean(L, rt_input_once(luaL_checkstring(L, 1)));
    return 1;
}

static int l_same_file(lua_State *L)
{
    lua_pushboolean(L, rt_same_file(luaL_checkstring(L, 1), luaL_checkstring(L, 2)));
    return 1;
}

/* ---- locks: one run at a time on an output folder ------------------------------- */

typedef struct {
    int fd; /* -1 once unlocked */
} lock_box;

/*
 * util.lock(path) -> lock, or nil, "PATH: in use by another run". flock() on the file
 * (created when missing): the kernel drops the lock when the process ends, however it
 * ends, so a killed run never leaves a folder locked.
 */
static int l_lock(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lock_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->fd = -1;
    luaL_setmetatable(L, LOCK_T);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        lua_pushnil(L);
        if (e == EWOULDBLOCK)
            lua_pushfstring(L, "%s: in use by another retrace run (wait for it to end)", path);
        else
            lua_pushfstring(L, "%s: cannot lock: %s", path, strerror(e));
        return 2;
    }
    b->fd = fd;
    return 1;
}

static int lock_unlock(lua_State *L)
{
    lock_box *b = luaL_checkudata(L, 1, LOCK_T);
    if (b->fd >= 0)
        close(b->fd); /* closing the only descriptor releases the flock */
    b->fd = -1;
    return 0;
}

static const luaL_Reg lock_methods[] = {
    {"unlock", lock_unlock},
    {NULL, NULL},
};

static const luaL_Reg lines_methods[] = {
    {"__tostring", lines_tostring},
    {"close", lines_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"lines", l_lines},
    {"count_lines", l_count_lines},
    {"isatty", l_isatty},
    {"create", l_create},
    {"same_file", l_same_file},
    {"detect", l_detect},
    {"read_once", l_read_once},
    {"lock", l_lock},
    {NULL, NULL},
};

int rt_lopen_util(lua_State *L)
{
    rt_new_class(L, LINES_T, lines_methods, lines_close);
    rt_new_class(L, OUT_T, out_methods, out_abort);
    rt_new_class(L, LOCK_T, lock_methods, lock_unlock);
    luaL_newlib(L, funcs);
    return 1;
}
