/*
 * The Lua API when memory runs out: each snippet below runs again and again in a
 * fresh Lua state whose allocator (lua_setallocf) refuses the Nth request, for N
 * from 1 up to the snippet's whole count (every N at first, then spaced so a run
 * stays short). Every run must end either normally or with a Lua error (memory, or
 * a message the binding made of a refused allocation), never a crash, and - under
 * the sanitizer build, where LeakSanitizer checks the process at exit - without a
 * leak: a binding that holds C memory across a call that can raise leaks here.
 *
 * Only the Lua state's allocations fail; C code's own malloc does not (Linux does
 * not fail those either, short of a limit).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "rt_test.h"

#include "bind.h"

typedef struct {
    long count; /* requests that asked for memory so far */
    long fail_at; /* refuse this request (1-based); 0: never */
    int failed;   /* 1 once it refused */
} alloc_state;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    alloc_state *a = ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    if (nsize > osize || !ptr) { /* only growth can fail, as in Lua's own tests */
        a->count++;
        if (a->fail_at && a->count == a->fail_at) {
            a->failed = 1;
            return NULL;
        }
    }
    return realloc(ptr, nsize);
}

static int open_core(lua_State *L)
{
    return luaopen_retrace_core(L);
}

/* Run snippet in a fresh state refusing request fail_at; returns the requests made. */
static long run_once(const char *name, const char *snippet, long fail_at, int *ok)
{
    alloc_state a = {0, fail_at, 0};
    lua_State *L = lua_newstate(failing_alloc, &a);
    if (!L) {
        *ok = 0;
        return a.count;
    }
    /* the libraries and the module are opened under protection: they may fail too */
    luaL_openlibs(L);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, open_core);
    lua_setfield(L, -2, "retrace.core");
    lua_pop(L, 1);
    int st = luaL_loadbuffer(L, snippet, strlen(snippet), name);
    if (st == LUA_OK)
        st = lua_pcall(L, 0, 0, 0);
    *ok = st == LUA_OK;
    if (st != LUA_OK && !a.failed) {
        /* an error with memory to spare is the snippet's own bug */
        fprintf(stderr, "%s: %s\n", name, lua_tostring(L, -1));
        fail_msg("%s failed without an allocation failure", name);
    }
    lua_close(L);
    return a.count;
}

static long base_count(void)
{
    int ok;
    return run_once("empty", "local core = require('retrace.core')", 0, &ok);
}

static void sweep(const char *name, const char *snippet)
{
    int ok;
    long total = run_once(name, snippet, 0, &ok);
    assert_true(ok);
    /* the snippet must ask for memory of its own beyond opening the libraries */
    assert_true(total > base_count());
    long runs = 0;
    for (long n = 1; n <= total; n += n < 400 ? 1 : n / 200, runs++) {
        run_once(name, snippet, n, &ok);
    }
    printf("%s: %ld allocations, %ld runs with one refused\n", name, total, runs);
}

static char *fixture(const char *rel)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", RETRACE_FIXTURES, rel);
    return buf[k];
}

static void test_canvas(void **state)
{
    (void)state;
    sweep("canvas",
          "local c = require('retrace.core').canvas\n"
          "local cv = c.image(64, 48)\n"
          "cv:set_rgba(1, 0, 0, 1); cv:rectangle(2, 2, 20, 10); cv:fill()\n"
          "cv:set_font('DejaVu Sans', 9); cv:show_text(4, 30, 'retrace')\n"
          "local r = c.recording(64, 48); r:rectangle(0, 0, 8, 8); r:fill(); cv:replay(r); r:finish()\n"
          "local px = cv:get_pixel(5, 5); cv:finish()\n");
}

static void test_cache(void **state)
{
    (void)state;
    char snippet[2048];
    snprintf(snippet, sizeof snippet,
             "local cache = require('retrace.core').cache\n"
             "local c = cache.new{size = 1024, line = 32, ways = 4, policy = 'lru'}\n"
             "for i = 0, 300 do c:access(i * 48, i %% 3 == 0) end\n"
             "local s = c:stats(); c:close()\n"
             "local r = cache.run('%s', {format = 'din', size = 512, line = 16, ways = 2, classify = true})\n",
             fixture("info/refs.din"));
    sweep("cache", snippet);
}

static void test_replay(void **state)
{
    (void)state;
    char snippet[2048];
    snprintf(snippet, sizeof snippet,
             "local replay = require('retrace.core').replay\n"
             "local rp = assert(replay.open('%s', {critical_path = true}))\n"
             "rp:run()\n"
             "local t = rp:totals(); local cp = rp:critical_path(); local w = rp:warnings()\n"
             "local d = rp:defs(); local p = rp:proc(0)\n"
             "local path = assert(rp:critical_path_walk()); local i = path:info()\n"
             "local sg, ms = path:read(1, 100); path:close()\n",
             fixture("paragraph/pg4.trf"));
    sweep("replay", snippet);
}

/* The profiles read in batches: the cursor is held across the calls of the function. */
static void test_medea_profiles(void **state)
{
    (void)state;
    char snippet[2048];
    snprintf(snippet, sizeof snippet,
             "local acc = require('retrace.core').medea.new(true)\n"
             "assert(acc:feed('%s'))\n"
             "local n = 0\n"
             "acc:profile_batches('comp', 3, function(t, c) n = n + #t end)\n"
             "local t, c = acc:profile('comm'); acc:close()\n",
             fixture("medea/table5.trf"));
    sweep("medea_profiles", snippet);
}

static void test_seq(void **state)
{
    (void)state;
    char snippet[2048];
    snprintf(snippet, sizeof snippet,
             "local seq = require('retrace.core').seq\n"
             "local s = seq.new()\n"
             "assert(s:load('%s'))\n"
             "local ch = s:chain(); local t = s:totals()\n"
             "s:clip(1, 20); s:undo()\n",
             fixture("chitra/philosophers2.pes"));
    sweep("seq", snippet);
}

static void test_shmap(void **state)
{
    (void)state;
    char snippet[2048];
    snprintf(snippet, sizeof snippet,
             "local shmap = require('retrace.core').shmap\n"
             "local tr = assert(shmap.open('%s'))\n"
             "local sim = assert(shmap.new_sim(tr, {pes = 2, caches = 1, cache_size = 64, line = 4}))\n"
             "sim:run(); local st = sim:stats(); sim:close()\n",
             fixture("shmap/machine.shm"));
    sweep("shmap", snippet);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canvas),
        cmocka_unit_test(test_cache),
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_medea_profiles),
        cmocka_unit_test(test_seq),
        cmocka_unit_test(test_shmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
