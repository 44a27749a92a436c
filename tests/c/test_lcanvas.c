/* Tests of the canvas binding's C face (bindings/lcanvas.h): a core-owned grid
 * and packed array handed to Lua as views, drawn there, and released in either
 * order; plus the PNG encoder pool against synchronous writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <lauxlib.h>
#include <lualib.h>

#include "rt_test.h"

#include "bind.h"
#include "lcanvas.h"
#include "rt_pngpool.h"

static lua_State *new_state(void)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaopen_retrace_core(L);
    lua_setglobal(L, "core");
    return L;
}

static void run(lua_State *L, const char *code, int nargs, int nres)
{
    if (luaL_loadstring(L, code) != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
    lua_insert(L, -nargs - 1);
    if (rt_docall(L, nargs, nres) != LUA_OK)
        fail_msg("%s", lua_tostring(L, -1));
}

static void test_grid_view_draws_engine_cells(void **state)
{
    (void)state;
    lua_State *L = new_state();
    rt_grid *g;
    rt_err err;
    assert_int_equal(rt_grid_new(2, 2, -1, &g, &err), RT_OK);
    g->cells[0] = 1; /* (0, 0) red */
    g->cells[3] = 0; /* (1, 1) blue */

    lua_newtable(L); /* the "engine" object that owns g */
    int owner = lua_gettop(L);
    rt_lcanvas_push_grid(L, g, owner);
    assert_int_equal(g->refs, 2);
    lua_remove(L, owner); /* only the view holds the owner now */

    run(L,
        "local view = ...\n"
        "local c = core.canvas\n"
        "local pal = c.palette(2); pal:set(0, 0, 0, 255); pal:set(1, 255, 0, 0)\n"
        "local cv = c.image(20, 20); cv:clear(1, 1, 1)\n"
        "cv:draw_grid(view, pal, 0, 0, 20, 20)\n"
        "local r1, g1, b1 = cv:get_pixel(5, 5)\n"
        "local r2, g2, b2 = cv:get_pixel(15, 15)\n"
        "local r3, g3, b3 = cv:get_pixel(15, 5)\n"
        "return r1 * 65536 + g1 * 256 + b1, r2 * 65536 + g2 * 256 + b2, r3 * 65536 + g3 * 256 + b3",
        1, 3);
    assert_int_equal(lua_tointeger(L, -3), 0xff0000);
    assert_int_equal(lua_tointeger(L, -2), 0x0000ff);
    assert_int_equal(lua_tointeger(L, -1), 0xffffff); /* empty cell: background */
    lua_pop(L, 3);

    /* the engine changes a cell in place; the next draw shows it */
    g->cells[1] = 0;
    rt_lcanvas_push_grid(L, g, 0);
    run(L,
        "local view = ...\n"
        "local pal = core.canvas.palette(1); pal:set(0, 0, 255, 0)\n"
        "local cv = core.canvas.image(2, 2)\n"
        "cv:draw_grid(view, pal, 0, 0, 2, 2)\n"
        "local _, gr = cv:get_pixel(1, 0)\n"
        "return gr, view:get(1, 0)",
        1, 2);
    assert_int_equal(lua_tointeger(L, -2), 255);
    assert_int_equal(lua_tointeger(L, -1), 0);
    lua_pop(L, 2);

    lua_gc(L, LUA_GCCOLLECT);
    assert_int_equal(g->refs, 1); /* the views are gone, the engine's reference stays */
    rt_grid_free(g);
    lua_close(L);
}

static void test_pack_view_outlives_engine(void **state)
{
    (void)state;
    lua_State *L = new_state();
    rt_pack *p;
    rt_err err;
    assert_int_equal(rt_pack_new(4, &p, &err), RT_OK);
    double r[4] = {2, 2, 6, 6};
    assert_int_equal(rt_pack_push(p, r), RT_OK);
    rt_lcanvas_push_pack(L, p, 0);
    rt_pack_free(p); /* the engine lets go first; the view keeps the array */
    run(L,
        "local rects = ...\n"
        "local cv = core.canvas.image(10, 10)\n"
        "cv:set_rgba(1, 0, 0)\n"
        "cv:draw_rects(rects)\n"
        "local r = cv:get_pixel(4, 4)\n"
        "local r0 = cv:get_pixel(9, 9)\n"
        "return #rects, r, r0",
        1, 3);
    assert_int_equal(lua_tointeger(L, -3), 1);
    assert_int_equal(lua_tointeger(L, -2), 255);
    assert_int_equal(lua_tointeger(L, -1), 0);
    lua_close(L); /* frees the array through the view */
}

static void test_pool_matches_direct_write(void **state)
{
    (void)state;
    enum { W = 64, H = 48, N = 12 };
    uint32_t *px = malloc(W * H * 4);
    char dir[] = "/tmp/rt_test_pool_XXXXXX";
    assert_non_null(mkdtemp(dir));
    rt_pngpool *pool;
    rt_err err;
    assert_int_equal(rt_pngpool_new(2, 3, 1, &pool, &err), RT_OK);
    char path[256];
    for (int f = 0; f < N; f++) {
        for (int i = 0; i < W * H; i++)
            px[i] = 0xff000000u | (uint32_t)(i * 2654435761u + (unsigned)f * 40503u) >> 8;
        snprintf(path, sizeof path, "%s/pool_%02d.png", dir, f);
        assert_int_equal(rt_pngpool_submit(pool, (unsigned char *)px, W, H, W * 4, path, &err), RT_OK);
        snprintf(path, sizeof path, "%s/direct_%02d.png", dir, f);
        assert_int_equal(rt_png_write(path, (unsigned char *)px, W, H, W * 4, 1, &err), RT_OK);
    }
    assert_int_equal(rt_pngpool_wait(pool, &err), RT_OK);
    rt_pngpool_stats st;
    rt_pngpool_stats_get(pool, &st);
    assert_int_equal(st.threads, 2);
    assert_int_equal(st.frames, N);
    assert_int_equal(st.per_thread[0] + st.per_thread[1], N);
    rt_pngpool_free(pool);
    for (int f = 0; f < N; f++) { /* same bytes from the pool and from the direct call */
        char a[256], b[256];
        snprintf(a, sizeof a, "%s/pool_%02d.png", dir, f);
        snprintf(b, sizeof b, "%s/direct_%02d.png", dir, f);
        size_t na, nb;
        char *ta = rt_test_read_file(a, &na), *tb = rt_test_read_file(b, &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(ta, tb, na);
        free(ta);
        free(tb);
        remove(a);
        remove(b);
    }
    rmdir(dir);
    free(px);
}

static void test_pool_reports_write_errors(void **state)
{
    (void)state;
    uint32_t px[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    rt_pngpool *pool;
    rt_err err;
    assert_int_equal(rt_pngpool_new(1, 1, 1, &pool, &err), RT_OK);
    assert_int_equal(rt_pngpool_submit(pool, (unsigned char *)px, 2, 2, 8, "/nonexistent/a.png", &err), RT_OK);
    assert_int_equal(rt_pngpool_wait(pool, &err), RT_EIO);
    assert_string_equal(err.msg, "/nonexistent/a.png: No such file or directory");
    /* after an error nothing more is accepted, and the error is repeated */
    assert_int_equal(rt_pngpool_submit(pool, (unsigned char *)px, 2, 2, 8, "/tmp/x.png", &err), RT_EIO);
    assert_string_equal(err.msg, "/nonexistent/a.png: No such file or directory");
    rt_pngpool_free(pool);
    assert_int_equal(rt_pngpool_new(0, 0, 12, &pool, &err), RT_ERANGE);
    assert_string_equal(err.msg, "PNG compression level: 12, must be 0 to 9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_view_draws_engine_cells),
        cmocka_unit_test(test_pack_view_outlives_engine),
        cmocka_unit_test(test_pool_matches_direct_write),
        cmocka_unit_test(test_pool_reports_write_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
