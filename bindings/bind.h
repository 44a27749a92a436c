/*
 * bind.h - helpers shared by the Lua bindings (bindings/l*.c) and the host.
 *
 * Conventions (see DESIGN.md): one binding file per core module, named
 * bindings/lNAME.c and defining `int rt_lopen_NAME(lua_State *L)`, which pushes
 * the module's table. The build generates the list of these openers, and
 * require "retrace.core" returns a table with one field per binding
 * (require("retrace.core").NAME). Bindings hold no analysis logic.
 */
#ifndef RT_BIND_H
#define RT_BIND_H

#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>

#include "rt_error.h"

#ifndef RETRACE_VERSION
#define RETRACE_VERSION "0.0.0"
#endif

/* Push nil and the message of err (expected failures: bad input); returns 2. */
int rt_push_fail(lua_State *L, const rt_err *err);

/*
 * Call the function below nargs arguments on the stack in protected mode with a
 * traceback handler (lua.c's docall). Returns the lua_pcall status; on error the
 * message (with traceback when the error was a string) is on the stack.
 */
int rt_docall(lua_State *L, int nargs, int nresults);
/* rt_docall's message handler, for a caller that pushes it once below the
 * function and its arguments (lua_pcall's msgh) and so needs no rotation. */
int rt_msghandler(lua_State *L);

/*
 * Create a metatable registered as tname ("retrace.Lines"), with __index set to
 * a table of methods, and __gc / __close set to closefn. A "__tostring" entry
 * in methods becomes the metatable's __tostring (a one-line summary such as
 * "retrace.Cache: 32 KiB 8-way LRU"); without one, tostring gives tname.
 * Leaves nothing on the stack.
 */
void rt_new_class(lua_State *L, const char *tname, const luaL_Reg *methods,
                  lua_CFunction closefn);

/* Write a size in units as "32 KiB" / "4 MiB" when it divides evenly, else "1000";
 * returns buf. */
const char *rt_size_text(char *buf, size_t n, uint64_t v);

/* Field k of the table at index t as a boolean; def when the field is nil. */
int rt_opt_bool(lua_State *L, int t, const char *k, int def);

/* Field k of the table at index t as a non-negative integer; def when nil.
 * Raises "k: expected a non-negative integer" otherwise. */
uint64_t rt_opt_u64(lua_State *L, int t, const char *k, uint64_t def);

/* t[k] = v for the table on top of the stack (building result tables). */
static inline void rt_set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static inline void rt_set_num(lua_State *L, const char *k, lua_Number v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static inline void rt_set_bool(lua_State *L, const char *k, int v)
{
    lua_pushboolean(L, v);
    lua_setfield(L, -2, k);
}

static inline void rt_set_str(lua_State *L, const char *k, const char *v)
{
    lua_pushstring(L, v);
    lua_setfield(L, -2, k);
}

/*
 * A progress callback for core functions that report (done, total) as they go:
 * calls the Lua function at stack index fn with the two numbers. An error in it
 * (Ctrl-C's "interrupted!" above all) is kept, not dropped: rt_on_progress
 * returns 1 from then on so a core loop that can stop does, and the binding
 * raises it with rt_progress_check once the core call has returned and its
 * C state is freed. Initialise with RT_PROGRESS_UD(L, fn).
 */
typedef struct rt_progress_ud {
    lua_State *L;
    int fn;     /* absolute stack index of the progress function */
    int failed; /* the callback raised; the error object is in the registry at ref */
    int ref;
} rt_progress_ud;
#define RT_PROGRESS_UD(L, fn) {(L), (fn), 0, LUA_NOREF}
int rt_on_progress(void *ud, uint64_t done, uint64_t total);
/* The same for core functions whose callback returns nothing (they run to the end). */
void rt_on_progress_void(void *ud, uint64_t done, uint64_t total);
/* Raise the error a progress callback raised (no return then); nothing otherwise. */
void rt_progress_check(rt_progress_ud *p);

/* Open every binding (generated list) into a fresh table; pushes it. */
int luaopen_retrace_core(lua_State *L);

#endif
