/*
 * lcanvas.c - Lua face of the Cairo canvas: surfaces, primitives, text, and the
 * bulk paths that draw from C-owned buffers (grids, packed arrays, palettes).
 *
 * Low level on purpose: colours are numbers (0..1 components), alignments are
 * fractions. lua/retrace/canvas.lua adds names, tables and conveniences on top
 * by extending the method table (core.canvas.methods).
 *
 *   canvas.image(w, h) / canvas.pdf(path, w, h) / canvas.svg(path, w, h)
 *   canvas.recording(w, h)                      -- replayed onto others with cv:replay
 *   canvas.load_png(path)                       -- an image canvas, or nil, message
 *
 * Shaped for animation: a display redraws a 1920x1080 frame hundreds of times a
 * second, so the grid path writes cells straight into the image's pixels when
 * the transformation allows, and the packed-array paths make one Cairo path per
 * run of equal colour.
 *   canvas.grid(...), canvas.pack(...), canvas.palette(...), ... (canvas_buffers.c)
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include "bind.h"
#include "canvas_buffers.h"
#include "lcanvas.h"
#include "rt_out.h"
#include "rt_raster.h"

#if defined(__SANITIZE_ADDRESS__)
#include <fontconfig/fontconfig.h>
#endif

#define CANVAS_T "retrace.Canvas"

#define MAX_SIDE 32767 /* Cairo's limit for image surfaces */

enum { K_IMAGE, K_PDF, K_SVG, K_RECORDING };
static const char *const kind_names[] = {"image", "pdf", "svg", "recording"};

typedef struct {
    cairo_surface_t *s; /* NULL once closed */
    cairo_t *cr;
    rt_out *out;        /* the output of a PDF / SVG canvas: committed at finish, dropped
                         * when the canvas is collected unfinished (an interrupted run) */
    int kind;           /* K_IMAGE, K_PDF, K_SVG */
    int w, h;           /* size in pixels (image) or points (PDF, SVG) */
    int write_error;    /* errno of a failed write to out, 0 if none */
    uint64_t primitives; /* marks drawn so far: fills, strokes, texts, pixels, grid and pack items */
} canvas_box;

/* ---- helpers ---------------------------------------------------------------- */

static canvas_box *check_canvas(lua_State *L, int i)
{
    canvas_box *b = luaL_checkudata(L, i, CANVAS_T);
    if (!b->s)
        luaL_argerror(L, i, "canvas is closed");
    return b;
}

static canvas_box *check_image(lua_State *L, int i)
{
    canvas_box *b = check_canvas(L, i);
    if (b->kind != K_IMAGE)
        luaL_argerror(L, i, "not an image canvas");
    return b;
}

cairo_t *rt_lcanvas_check_cairo(lua_State *L, int i)
{
    return check_canvas(L, i)->cr;
}

static int check_side(lua_State *L, int w, int h)
{
    if (w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE)
        return luaL_error(L, "canvas size: %d x %d, width and height must be 1 to %d", w, h,
                          MAX_SIDE);
    return 0;
}

/* ---- canvas: creation and output -------------------------------------------- */

static cairo_status_t write_fp(void *closure, const unsigned char *data, unsigned int len)
{
    canvas_box *b = closure;
    if (b->write_error)
        return CAIRO_STATUS_WRITE_ERROR;
    if (fwrite(data, 1, len, rt_out_fp(b->out)) != len) {
        b->write_error = errno ? errno : EIO;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static canvas_box *new_canvas_box(lua_State *L)
{
    /* user value 1: the output path of a PDF / SVG canvas, for messages */
    canvas_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    memset(b, 0, sizeof *b); /* safe empty state */
    luaL_setmetatable(L, CANVAS_T);
    return b;
}

static int start_drawing(lua_State *L, canvas_box *b)
{
    if (cairo_surface_status(b->s) != CAIRO_STATUS_SUCCESS)
        return luaL_error(L, "canvas: %s", cairo_status_to_string(cairo_surface_status(b->s)));
    b->cr = cairo_create(b->s);
    if (cairo_status(b->cr) != CAIRO_STATUS_SUCCESS)
        return luaL_error(L, "canvas: %s", cairo_status_to_string(cairo_status(b->cr)));
    cairo_select_font_face(b->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(b->cr, 12);
    return 1;
}

/* canvas.image(w, h) -> canvas (transparent) */
static int l_image(lua_State *L)
{
    int w = (int)luaL_checkinteger(L, 1), h = (int)luaL_checkinteger(L, 2);
    check_side(L, w, h);
    canvas_box *b = new_canvas_box(L);
    b->kind = K_IMAGE;
    b->w = w;
    b->h = h;
    b->s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    return start_drawing(L, b);
}

/* canvas.pdf(path, w, h) / canvas.svg(path, w, h) -> canvas, or nil, message */
static int open_vector(lua_State *L, int kind)
{
    const char *path = luaL_checkstring(L, 1);
    int w = (int)luaL_checkinteger(L, 2), h = (int)luaL_checkinteger(L, 3);
    check_side(L, w, h);
    canvas_box *b = new_canvas_box(L);
    b->kind = kind;
    b->w = w;
    b->h = h;
    rt_err err;
    b->out = rt_out_open(path, &err);
    if (!b->out)
        return rt_push_fail(L, &err);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    if (kind == K_PDF)
        b->s = cairo_pdf_surface_create_for_stream(write_fp, b, w, h);
    else
        b->s = cairo_svg_surface_create_for_stream(write_fp, b, w, h);
    return start_drawing(L, b);
}

/*
 * canvas.recording(w, h) -> canvas that keeps the drawing calls, to be played
 * onto other canvases with cv:replay (one drawing, several outputs).
 */
static int l_recording(lua_State *L)
{
    int w = (int)luaL_checkinteger(L, 1), h = (int)luaL_checkinteger(L, 2);
    check_side(L, w, h);
    canvas_box *b = new_canvas_box(L);
    b->kind = K_RECORDING;
    b->w = w;
    b->h = h;
    cairo_rectangle_t extents = {0, 0, w, h};
    b->s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &extents);
    return start_drawing(L, b);
}

/* cv:replay(recording): draw what a recording canvas holds, at the origin */
static int c_replay(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    canvas_box *src = check_canvas(L, 2);
    if (src->kind != K_RECORDING)
        return luaL_argerror(L, 2, "not a recording canvas");
    cairo_save(cr);
    cairo_set_source_surface(cr, src->s, 0, 0);
    cairo_paint(cr);
    cairo_restore(cr);
    return 0;
}

static int l_pdf(lua_State *L) { return open_vector(L, K_PDF); }
static int l_svg(lua_State *L) { return open_vector(L, K_SVG); }

static cairo_status_t read_fp(void *closure, unsigned char *data, unsigned int len)
{
    return fread(data, 1, len, (FILE *)closure) == len ? CAIRO_STATUS_SUCCESS
                                                        : CAIRO_STATUS_READ_ERROR;
}

/* canvas.load_png(path) -> image canvas, or nil, message */
static int l_load_png(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    canvas_box *b = new_canvas_box(L);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    cairo_surface_t *png = cairo_image_surface_create_from_png_stream(read_fp, fp);
    fclose(fp);
    if (cairo_surface_status(png) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(png);
        lua_pushnil(L);
        lua_pushfstring(L, "%s: not a readable PNG file", path);
        return 2;
    }
    /* convert whatever format it has into ARGB32 */
    b->kind = K_IMAGE;
    b->w = cairo_image_surface_get_width(png);
    b->h = cairo_image_surface_get_height(png);
    b->s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, b->w, b->h);
    start_drawing(L, b);
    cairo_set_source_surface(b->cr, png, 0, 0);
    cairo_set_operator(b->cr, CAIRO_OPERATOR_SOURCE);
    cairo_paint(b->cr);
    cairo_set_operator(b->cr, CAIRO_OPERATOR_OVER);
    cairo_surface_destroy(png);
    return 1;
}

/*
 * Finish the surface and the output: commit it (keep is 1: RT_OK, or RT_EIO with err
 * naming the file) or drop it (keep is 0: a canvas collected before cv:finish, so an
 * interrupted run leaves no complete-looking PDF).
 */
static int canvas_finish(canvas_box *b, int keep, rt_err *err)
{
    if (!b->s)
        return RT_OK;
    cairo_destroy(b->cr);
    if (!keep && b->out) {
        /* no more bytes: Cairo's closing writes go nowhere */
        b->write_error = ECANCELED;
    }
    cairo_surface_finish(b->s);
    cairo_surface_destroy(b->s);
    b->s = NULL;
    b->cr = NULL;
    rt_out *out = b->out;
    b->out = NULL;
    if (!out)
        return RT_OK;
    if (!keep) {
        rt_out_abort(out);
        return RT_OK;
    }
    if (b->write_error)
        rt_out_fail(out, b->write_error);
    return rt_out_commit(out, err);
}

static int canvas_gc(lua_State *L)
{
    canvas_finish(luaL_checkudata(L, 1, CANVAS_T), 0, NULL);
    return 0;
}

/* cv:finish() -> true, or nil, message when the PDF / SVG could not be written */
static int c_finish(lua_State *L)
{
    canvas_box *b = luaL_checkudata(L, 1, CANVAS_T);
    rt_err err;
    if (canvas_finish(b, 1, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

static cairo_status_t write_out(void *closure, const unsigned char *data, unsigned int len)
{
    rt_out *o = closure;
    if (fwrite(data, 1, len, rt_out_fp(o)) != len) {
        rt_out_fail(o, errno);
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

/* cv:write_png(path) -> true, or nil, message */
static int c_write_png(lua_State *L)
{
    canvas_box *b = check_image(L, 1);
    const char *path = luaL_checkstring(L, 2);
    rt_err err;
    rt_out *o = rt_out_open(path, &err);
    if (!o)
        return rt_push_fail(L, &err);
    cairo_surface_flush(b->s);
    cairo_status_t st = cairo_surface_write_to_png_stream(b->s, write_out, o);
    if (st != CAIRO_STATUS_SUCCESS && st != CAIRO_STATUS_WRITE_ERROR) {
        rt_out_abort(o);
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, cairo_status_to_string(st));
        return 2;
    }
    if (rt_out_commit(o, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* cv:show_page(): start a new page (PDF); an image or SVG canvas is unchanged */
static int c_show_page(lua_State *L)
{
    canvas_box *b = check_canvas(L, 1);
    if (b->kind == K_PDF)
        cairo_show_page(b->cr);
    return 0;
}

static int c_size(lua_State *L)
{
    canvas_box *b = check_canvas(L, 1);
    lua_pushinteger(L, b->w);
    lua_pushinteger(L, b->h);
    return 2;
}

static int c_kind(lua_State *L)
{
    canvas_box *b = luaL_checkudata(L, 1, CANVAS_T);
    lua_pushstring(L, b->s ? kind_names[b->kind] : "closed");
    return 1;
}

/* cv:status() -> nil, or Cairo's message when drawing went wrong */
static int c_status(lua_State *L)
{
    canvas_box *b = check_canvas(L, 1);
    cairo_status_t st = cairo_status(b->cr);
    if (st == CAIRO_STATUS_SUCCESS)
        return 0;
    lua_pushstring(L, cairo_status_to_string(st));
    return 1;
}

/* ---- state, paths, painting ------------------------------------------------- */

static double num(lua_State *L, int i) { return luaL_checknumber(L, i); }

/* cv:set_rgba(r, g, b [, a]) with components 0..1 */
static int c_set_rgba(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    cairo_set_source_rgba(cr, num(L, 2), num(L, 3), num(L, 4), luaL_optnumber(L, 5, 1.0));
    return 0;
}

/* cv:clear(r, g, b [, a]): replace every pixel (inside the clip) with the colour */
static int c_clear(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    cairo_save(cr);
    cairo_set_source_rgba(cr, num(L, 2), num(L, 3), num(L, 4), luaL_optnumber(L, 5, 1.0));
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_paint(cr);
    cairo_restore(cr);
    return 0;
}

#define CR0(name, call)                          \
    static int name(lua_State *L)                \
    {                                            \
        cairo_t *cr = check_canvas(L, 1)->cr;    \
        call;                                    \
        return 0;                                \
    }

CR0(c_save, cairo_save(cr))
CR0(c_restore, cairo_restore(cr))
CR0(c_new_path, cairo_new_path(cr))
CR0(c_new_sub_path, cairo_new_sub_path(cr))
CR0(c_close_path, cairo_close_path(cr))
CR0(c_reset_clip, cairo_reset_clip(cr))
CR0(c_identity, cairo_identity_matrix(cr))
CR0(c_translate, cairo_translate(cr, num(L, 2), num(L, 3)))
CR0(c_scale, cairo_scale(cr, num(L, 2), num(L, 3)))
CR0(c_rotate, cairo_rotate(cr, num(L, 2)))
CR0(c_move_to, cairo_move_to(cr, num(L, 2), num(L, 3)))
CR0(c_line_to, cairo_line_to(cr, num(L, 2), num(L, 3)))
CR0(c_curve_to, cairo_curve_to(cr, num(L, 2), num(L, 3), num(L, 4), num(L, 5), num(L, 6), num(L, 7)))
CR0(c_rectangle, cairo_rectangle(cr, num(L, 2), num(L, 3), num(L, 4), num(L, 5)))
CR0(c_arc, cairo_arc(cr, num(L, 2), num(L, 3), num(L, 4), num(L, 5), num(L, 6)))
CR0(c_arc_negative, cairo_arc_negative(cr, num(L, 2), num(L, 3), num(L, 4), num(L, 5), num(L, 6)))
CR0(c_line_width, cairo_set_line_width(cr, num(L, 2)))

/* cv:paint() */
static int c_paint(lua_State *L)
{
    canvas_box *b = check_canvas(L, 1);
    b->primitives++;
    cairo_paint(b->cr);
    return 0;
}

/* cv:primitives() -> marks drawn on this canvas so far (a frame's cost: compare with its pixels) */
static int c_primitives(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_canvas(L, 1)->primitives);
    return 1;
}

/* cv:fill([preserve]) / cv:stroke([preserve]) / cv:clip([preserve]) */
static int c_fill(lua_State *L)
{
    canvas_box *b = check_canvas(L, 1);
    cairo_t *cr = b->cr;
    b->primitives++;
    if (lua_toboolean(L, 2))
        cairo_fill_preserve(cr);
    else
        cairo_fill(cr);
    return 0;
}

static int c_stroke(lua_State *L)
{
    canvas_box *b = check_canvas(L, 1);
    cairo_t *cr = b->cr;
    b->primitives++;
    if (lua_toboolean(L, 2))
        cairo_stroke_preserve(cr);
    else
        cairo_stroke(cr);
    return 0;
}

static int c_clip(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    if (lua_toboolean(L, 2))
        cairo_clip_preserve(cr);
    else
        cairo_clip(cr);
    return 0;
}

/* cv:dash({on, off, ...} [, offset]); an empty table or nil turns dashing off */
static int c_dash(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    if (lua_isnoneornil(L, 2)) {
        cairo_set_dash(cr, NULL, 0, 0);
        return 0;
    }
    luaL_checktype(L, 2, LUA_TTABLE);
    double d[16];
    int n = (int)luaL_len(L, 2);
    if (n > 16)
        return luaL_argerror(L, 2, "at most 16 dash lengths");
    for (int i = 0; i < n; i++) {
        lua_geti(L, 2, i + 1);
        d[i] = luaL_checknumber(L, -1);
        if (d[i] < 0)
            return luaL_argerror(L, 2, "dash lengths must not be negative");
        lua_pop(L, 1);
    }
    cairo_set_dash(cr, d, n, luaL_optnumber(L, 3, 0));
    return 0;
}

/* cv:line_cap("butt" | "round" | "square"), cv:line_join("miter" | "round" | "bevel") */
static int c_line_cap(lua_State *L)
{
    static const char *const names[] = {"butt", "round", "square", NULL};
    static const cairo_line_cap_t v[] = {CAIRO_LINE_CAP_BUTT, CAIRO_LINE_CAP_ROUND,
                                         CAIRO_LINE_CAP_SQUARE};
    cairo_set_line_cap(check_canvas(L, 1)->cr, v[luaL_checkoption(L, 2, NULL, names)]);
    return 0;
}

static int c_line_join(lua_State *L)
{
    static const char *const names[] = {"miter", "round", "bevel", NULL};
    static const cairo_line_join_t v[] = {CAIRO_LINE_JOIN_MITER, CAIRO_LINE_JOIN_ROUND,
                                          CAIRO_LINE_JOIN_BEVEL};
    cairo_set_line_join(check_canvas(L, 1)->cr, v[luaL_checkoption(L, 2, NULL, names)]);
    return 0;
}

/* cv:antialias(boolean) */
static int c_antialias(lua_State *L)
{
    cairo_set_antialias(check_canvas(L, 1)->cr,
                        lua_toboolean(L, 2) ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE);
    return 0;
}

/* cv:user_to_device(x, y) -> dx, dy */
static int c_user_to_device(lua_State *L)
{
    double x = num(L, 2), y = num(L, 3);
    cairo_user_to_device(check_canvas(L, 1)->cr, &x, &y);
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    return 2;
}

/* ---- text ------------------------------------------------------------------- */

/* cv:set_font(family, size [, bold [, italic]]) */
static int c_set_font(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    const char *family = luaL_checkstring(L, 2);
    double size = num(L, 3);
    if (!(size > 0))
        return luaL_argerror(L, 3, "font size must be positive");
    cairo_select_font_face(cr, family,
                           lua_toboolean(L, 5) ? CAIRO_FONT_SLANT_ITALIC : CAIRO_FONT_SLANT_NORMAL,
                           lua_toboolean(L, 4) ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
    return 0;
}

/* cv:text_size(s [, size]) -> advance width, line height (ascent + descent), ascent
 * (in the current font, at `size` points when given) */
static int c_text_size(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    const char *s = luaL_checkstring(L, 2);
    int sized = !lua_isnoneornil(L, 3);
    double size = sized ? luaL_checknumber(L, 3) : 0;
    if (sized && !(size > 0))
        return luaL_argerror(L, 3, "font size must be positive");
    cairo_text_extents_t te;
    cairo_font_extents_t fe;
    if (sized) {
        cairo_save(cr);
        cairo_set_font_size(cr, size);
    }
    cairo_text_extents(cr, s, &te);
    cairo_font_extents(cr, &fe);
    if (sized)
        cairo_restore(cr);
    lua_pushnumber(L, te.x_advance);
    lua_pushnumber(L, fe.ascent + fe.descent);
    lua_pushnumber(L, fe.ascent);
    return 3;
}

/*
 * cv:show_text(x, y, s [, ax [, ay [, angle]]]) -> width, height
 * Draws s with its box anchored at (x, y): ax is the fraction of the width left
 * of the anchor (0 left, 0.5 centre, 1 right), ay the fraction of the line height
 * above it (0 top, 0.5 middle, 1 bottom); a negative ay puts the baseline at y.
 * angle (radians, clockwise on screen) turns the text about the anchor.
 */
static int c_show_text(lua_State *L)
{
    canvas_box *cb = check_canvas(L, 1);
    cairo_t *cr = cb->cr;
    cb->primitives++;
    double x = num(L, 2), y = num(L, 3);
    const char *s = luaL_checkstring(L, 4);
    double ax = luaL_optnumber(L, 5, 0), ay = luaL_optnumber(L, 6, -1);
    double angle = luaL_optnumber(L, 7, 0);
    cairo_text_extents_t te;
    cairo_font_extents_t fe;
    cairo_text_extents(cr, s, &te);
    cairo_font_extents(cr, &fe);
    double hgt = fe.ascent + fe.descent;
    double dy = ay < 0 ? 0 : fe.ascent - ay * hgt;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    if (angle != 0)
        cairo_rotate(cr, angle);
    cairo_move_to(cr, -ax * te.x_advance, dy);
    cairo_show_text(cr, s);
    cairo_new_path(cr);
    cairo_restore(cr);
    lua_pushnumber(L, te.x_advance);
    lua_pushnumber(L, hgt);
    return 2;
}

/* ---- direct pixels ---------------------------------------------------------- */

static void pixel_addr(lua_State *L, canvas_box *b, int x, int y, uint32_t **px)
{
    if (x < 0 || y < 0 || x >= b->w || y >= b->h)
        luaL_error(L, "pixel (%d, %d) outside the %d x %d canvas", x, y, b->w, b->h);
    unsigned char *data = cairo_image_surface_get_data(b->s);
    int stride = cairo_image_surface_get_stride(b->s);
    *px = (uint32_t *)(data + (size_t)y * (size_t)stride) + x;
}

/* cv:get_pixel(x, y) -> r, g, b, a (0..255, not premultiplied), device pixels */
static int c_get_pixel(lua_State *L)
{
    canvas_box *b = check_image(L, 1);
    uint32_t *px;
    cairo_surface_flush(b->s);
    pixel_addr(L, b, (int)luaL_checkinteger(L, 2), (int)luaL_checkinteger(L, 3), &px);
    rt_rgba c = rt_rgba_unpremultiply(*px);
    lua_pushinteger(L, RT_RGBA_R(c));
    lua_pushinteger(L, RT_RGBA_G(c));
    lua_pushinteger(L, RT_RGBA_B(c));
    lua_pushinteger(L, RT_RGBA_A(c));
    return 4;
}

/* cv:set_pixel(x, y, r, g, b [, a]) with components 0..255, device pixels */
static int c_set_pixel(lua_State *L)
{
    canvas_box *b = check_image(L, 1);
    b->primitives++;
    uint32_t *px;
    int x = (int)luaL_checkinteger(L, 2), y = (int)luaL_checkinteger(L, 3);
    pixel_addr(L, b, x, y, &px);
    int c[4];
    for (int k = 0; k < 4; k++) {
        lua_Integer v = k < 3 ? luaL_checkinteger(L, 4 + k) : luaL_optinteger(L, 7, 255);
        c[k] = v < 0 ? 0 : v > 255 ? 255 : (int)v;
    }
    cairo_surface_flush(b->s);
    *px = rt_rgba_premultiply(RT_RGBA(c[0], c[1], c[2], c[3]));
    cairo_surface_mark_dirty_rectangle(b->s, x, y, 1, 1);
    return 0;
}

/* ---- bulk: grids ------------------------------------------------------------ */

/* The pixel loops are core/render/rt_raster.c; here: where the cells land on a Cairo surface. */

/*
 * The fast path: the target is an image surface, the transformation only
 * scales and translates, the clip is one rectangle and the palette is opaque.
 * Cell edges are rounded to whole pixels so cells tile without seams. Returns
 * 1 when drawn, 0 when the general path must be used.
 */
static int grid_direct(canvas_box *b, const rt_grid *g, const rt_cellmap *m, rt_cellrect r,
                       double x, double y, double w, double h, int gap)
{
    cairo_t *cr = b->cr;
    if (w == 0 || h == 0)
        return 1; /* nothing to draw */
    if (b->kind != K_IMAGE || !m->opaque || w < 0 || h < 0)
        return 0; /* flipped boxes go through the general path too */
    cairo_matrix_t mt;
    cairo_get_matrix(cr, &mt);
    if (mt.xy != 0 || mt.yx != 0 || mt.xx <= 0 || mt.yy <= 0)
        return 0;
    cairo_rectangle_list_t *cl = cairo_copy_clip_rectangle_list(cr);
    if (cl->status != CAIRO_STATUS_SUCCESS || cl->num_rectangles > 1) {
        cairo_rectangle_list_destroy(cl);
        return 0;
    }
    double cx0 = 0, cy0 = 0, cx1 = b->w, cy1 = b->h;
    if (cl->num_rectangles == 1) {
        cairo_rectangle_t c = cl->rectangles[0];
        double ax = c.x, ay = c.y, bx = c.x + c.width, by = c.y + c.height;
        cairo_user_to_device(cr, &ax, &ay);
        cairo_user_to_device(cr, &bx, &by);
        cx0 = fmax(cx0, ax);
        cy0 = fmax(cy0, ay);
        cx1 = fmin(cx1, bx);
        cy1 = fmin(cy1, by);
    } else {
        cx1 = cx0; /* empty clip: nothing to draw */
    }
    cairo_rectangle_list_destroy(cl);
    int clx0 = (int)lround(cx0), cly0 = (int)lround(cy0);
    int clx1 = (int)lround(cx1), cly1 = (int)lround(cy1);
    if (clx1 <= clx0 || cly1 <= cly0)
        return 1;

    double X0 = x, Y0 = y;
    cairo_user_to_device(cr, &X0, &Y0);
    cairo_surface_flush(b->s);
    int box[4];
    if (rt_raster_grid(cairo_image_surface_get_data(b->s), (size_t)cairo_image_surface_get_stride(b->s),
                       clx0, cly0, clx1, cly1, g, m, r, X0, Y0, w * mt.xx / r.sw, h * mt.yy / r.sh,
                       gap, box) != RT_OK)
        return 0; /* out of memory: the general path may still manage */
    cairo_surface_mark_dirty_rectangle(b->s, box[0], box[1], box[2] - box[0], box[3] - box[1]);
    return 1;
}

/* The general path: one pixel per cell in a temporary image, scaled up without smoothing. */
/* Cells as separate rectangles, gap device pixels apart (general path with a gap). */
static void grid_cells(canvas_box *b, const rt_grid *g, const rt_cellmap *m, rt_cellrect r, double x,
                       double y, double w, double h, int gap)
{
    cairo_t *cr = b->cr;
    double cw = w / r.sw, ch = h / r.sh;
    double gx = gap, gy = gap;
    cairo_device_to_user_distance(cr, &gx, &gy);
    gx = fabs(gx) < fabs(cw) ? copysign(fabs(gx), cw) : 0;
    gy = fabs(gy) < fabs(ch) ? copysign(fabs(gy), ch) : 0;
    cairo_save(cr);
    uint32_t cur = 0;
    int have = 0;
    for (int j = 0; j < r.sh; j++) {
        const int32_t *row = g->cells + (size_t)(r.sy + j) * (size_t)g->w + r.sx;
        for (int i = 0; i < r.sw; i++) {
            uint32_t c;
            if (!rt_cell_color(m, row[i], &c))
                continue;
            if (!have || c != cur) {
                if (have)
                    cairo_fill(cr);
                uint32_t a = c >> 24; /* c is premultiplied */
                double k = a ? 1.0 / a : 0;
                cairo_set_source_rgba(cr, ((c >> 16) & 255) * k, ((c >> 8) & 255) * k,
                                      (c & 255) * k, a / 255.0);
                cur = c;
                have = 1;
            }
            cairo_rectangle(cr, x + i * cw, y + j * ch, cw - gx, ch - gy);
        }
    }
    if (have)
        cairo_fill(cr);
    cairo_restore(cr);
}

static int grid_general(canvas_box *b, const rt_grid *g, const rt_cellmap *m, rt_cellrect r,
                        double x, double y, double w, double h)
{
    /*
     * SVG viewers smooth scaled images whatever the filter says, so for SVG each
     * cell becomes k x k pixels, enough to cover the box at its device size
     * (at most 2048 pixels a side); elsewhere one pixel per cell is enough.
     */
    int k = 1;
    if (b->kind == K_SVG) {
        double dw = fabs(w), dh = fabs(h);
        cairo_user_to_device_distance(b->cr, &dw, &dh);
        double need = fmax(fabs(dw) / r.sw, fabs(dh) / r.sh);
        int cap = 2048 / (r.sw > r.sh ? r.sw : r.sh);
        k = (int)ceil(need);
        k = k > cap ? cap : k;
        k = k < 1 ? 1 : k;
    }
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, r.sw * k, r.sh * k);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return 0;
    }
    rt_raster_cells(cairo_image_surface_get_data(img), (size_t)cairo_image_surface_get_stride(img), g,
                    m, r, k);
    cairo_surface_mark_dirty(img);
    cairo_t *cr = b->cr;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, w / (r.sw * k), h / (r.sh * k));
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, 0, 0, r.sw * k, r.sh * k);
    cairo_fill(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    return 1;
}

/*
 * cv:draw_grid(grid, palette, x, y, w, h [, sx, sy, sw, sh [, lo, hi]])
 * Fill the box (x, y, w, h) (user units) with the cells sx..sx+sw-1 x
 * sy..sy+sh-1 of grid (0-based; default: all), each cell coloured by its value
 * through palette: as an index, or, with lo < hi, mapped linearly from [lo, hi]
 * onto the palette (values below lo are empty, at or above hi the last colour).
 * Empty cells (negative or past the palette) leave the canvas as it was. gap
 * (argument 14, device pixels) leaves that much of every cell's right and bottom
 * edge undrawn, for cells drawn as separate squares.
 */
static int c_draw_grid(lua_State *L)
{
    canvas_box *b = check_canvas(L, 1);
    b->primitives++;
    rt_grid *g = rt_lcanvas_check_grid(L, 2);
    rt_palette *pal = rt_lcanvas_check_palette(L, 3);
    double x = num(L, 4), y = num(L, 5), w = num(L, 6), h = num(L, 7);
    rt_cellrect r;
    r.sx = (int)luaL_optinteger(L, 8, 0);
    r.sy = (int)luaL_optinteger(L, 9, 0);
    r.sw = (int)luaL_optinteger(L, 10, g->w - r.sx);
    r.sh = (int)luaL_optinteger(L, 11, g->h - r.sy);
    if (r.sx < 0 || r.sy < 0 || r.sw < 1 || r.sh < 1 || r.sx + r.sw > g->w || r.sy + r.sh > g->h)
        return luaL_error(L, "grid region %d,%d %d x %d outside the %d x %d grid", r.sx, r.sy,
                          r.sw, r.sh, g->w, g->h);
    int ranged = !lua_isnoneornil(L, 12);
    double lo = ranged ? num(L, 12) : 0, hi = ranged ? num(L, 13) : 0;
    if (ranged && !(hi > lo))
        return luaL_error(L, "grid value range [%f, %f] is empty", lo, hi);
    int gap = (int)luaL_optinteger(L, 14, 0);
    if (gap < 0)
        return luaL_argerror(L, 14, "gap must not be negative");
    lua_settop(L, 14);
    /* the premultiplied palette lives in a userdata, so an error cannot leak it */
    uint32_t *lut = lua_newuserdatauv(L, (size_t)pal->n * sizeof(uint32_t), 0);
    rt_cellmap m;
    rt_cellmap_init(&m, pal, lut, ranged, lo, hi);
    if (grid_direct(b, g, &m, r, x, y, w, h, gap))
        return 0;
    if (gap > 0)
        grid_cells(b, g, &m, r, x, y, w, h, gap);
    else if (!grid_general(b, g, &m, r, x, y, w, h))
        return luaL_error(L, "grid: out of memory");
    return 0;
}

/* ---- bulk: packed rectangles, segments, points -------------------------------- */

/* Set the source to palette entry v, unless it is the one already set. */
static int set_indexed(cairo_t *cr, const rt_palette *pal, double v, long *cur)
{
    long i = (long)v;
    if (i < 0 || i >= pal->n)
        return 0;
    if (i != *cur) {
        rt_rgba c = pal->c[i];
        cairo_set_source_rgba(cr, RT_RGBA_R(c) / 255.0, RT_RGBA_G(c) / 255.0,
                              RT_RGBA_B(c) / 255.0, RT_RGBA_A(c) / 255.0);
        *cur = i;
    }
    return 1;
}

enum { B_RECTS, B_SEGMENTS, B_POINTS };

/*
 * Draw every item of a packed array. Items carry a palette index in the field
 * after their coordinates when a palette is given (else the current source is
 * used); runs of equal colour become one path. mode: 0 fill, 1 stroke.
 */
static int draw_bulk(lua_State *L, int what)
{
    canvas_box *b = check_canvas(L, 1);
    rt_pack *p = rt_lcanvas_check_pack(L, 2);
    rt_palette *pal = lua_isnoneornil(L, 3) ? NULL : rt_lcanvas_check_palette(L, 3);
    int need = what == B_POINTS ? 2 : 4;
    int ci = need; /* index of the colour field */
    if (p->stride < need + (pal ? 1 : 0))
        return luaL_error(L, "packed array of stride %d: need %d values per item%s", p->stride,
                          need + (pal ? 1 : 0), pal ? " (with a palette index)" : "");
    int stroke = what == B_SEGMENTS || (what == B_RECTS && lua_toboolean(L, 4));
    double radius = what == B_POINTS ? luaL_optnumber(L, 4, 1) : 0;
    int round = what == B_POINTS && lua_toboolean(L, 5);
    cairo_t *cr = b->cr;
    cairo_save(cr);
    cairo_new_path(cr);
    long cur = -1;
    size_t pending = 0;
    b->primitives += p->n;
    for (size_t k = 0; k < p->n; k++) {
        const double *v = p->v + k * (size_t)p->stride;
        if (pal) {
            long i = (long)v[ci];
            if (i < 0 || i >= pal->n)
                continue;
            if (i != cur && pending) {
                if (stroke)
                    cairo_stroke(cr);
                else
                    cairo_fill(cr);
                pending = 0;
            }
            set_indexed(cr, pal, v[ci], &cur);
        }
        switch (what) {
        case B_RECTS:
            cairo_rectangle(cr, v[0], v[1], v[2], v[3]);
            break;
        case B_SEGMENTS:
            cairo_move_to(cr, v[0], v[1]);
            cairo_line_to(cr, v[2], v[3]);
            break;
        default:
            if (round) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, v[0], v[1], radius, 0, 2 * M_PI);
            } else {
                cairo_rectangle(cr, v[0] - radius, v[1] - radius, 2 * radius, 2 * radius);
            }
        }
        pending++;
    }
    if (pending) {
        if (stroke)
            cairo_stroke(cr);
        else
            cairo_fill(cr);
    }
    cairo_restore(cr);
    return 0;
}

/*
 * cv:draw_path(pack [, close [, fill]]) makes one path through the items x, y
 * (a long time series, an outline) and strokes it with the current source, or
 * fills it (closed) when fill is true.
 */
static int c_draw_path(lua_State *L)
{
    canvas_box *cb = check_canvas(L, 1);
    cairo_t *cr = cb->cr;
    cb->primitives++;
    rt_pack *p = rt_lcanvas_check_pack(L, 2);
    if (p->stride < 2)
        return luaL_error(L, "packed array of stride %d: need 2 values per item", p->stride);
    int close = lua_toboolean(L, 3), fill = lua_toboolean(L, 4);
    cairo_new_path(cr);
    for (size_t k = 0; k < p->n; k++) {
        const double *v = p->v + k * (size_t)p->stride;
        if (k == 0)
            cairo_move_to(cr, v[0], v[1]);
        else
            cairo_line_to(cr, v[0], v[1]);
    }
    if (close || fill)
        cairo_close_path(cr);
    if (fill)
        cairo_fill(cr);
    else
        cairo_stroke(cr);
    return 0;
}

/* cv:draw_rects(pack [, palette [, stroke]]) items x, y, w, h [, index] */
static int c_draw_rects(lua_State *L) { return draw_bulk(L, B_RECTS); }
/* cv:draw_segments(pack [, palette]) items x1, y1, x2, y2 [, index] */
static int c_draw_segments(lua_State *L) { return draw_bulk(L, B_SEGMENTS); }
/* cv:draw_points(pack [, palette [, radius [, round]]]) items x, y [, index] */
static int c_draw_points(lua_State *L) { return draw_bulk(L, B_POINTS); }

/*
 * cv:draw_image(src, x, y [, w, h]): paint the image canvas src with its top-left
 * corner at (x, y), scaled to w x h when given (smoothly).
 */
static int c_draw_image(lua_State *L)
{
    canvas_box *cb = check_canvas(L, 1);
    cairo_t *cr = cb->cr;
    cb->primitives++;
    canvas_box *src = check_image(L, 2);
    double x = num(L, 3), y = num(L, 4);
    double w = luaL_optnumber(L, 5, src->w), h = luaL_optnumber(L, 6, src->h);
    cairo_surface_flush(src->s);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, w / src->w, h / src->h);
    cairo_set_source_surface(cr, src->s, 0, 0);
    cairo_rectangle(cr, 0, 0, src->w, src->h);
    cairo_fill(cr);
    cairo_restore(cr);
    return 0;
}

/* ---- registration ------------------------------------------------------------- */

/* "retrace.Canvas: image 800 x 600", "retrace.Canvas: pdf 595 x 842 pt" */
static int c_tostring(lua_State *L)
{
    canvas_box *b = luaL_checkudata(L, 1, CANVAS_T);
    if (!b->s)
        lua_pushfstring(L, CANVAS_T " (%s, finished)", kind_names[b->kind]);
    else
        lua_pushfstring(L, CANVAS_T ": %s %d x %d%s", kind_names[b->kind], b->w, b->h,
                        b->kind == K_PDF || b->kind == K_SVG ? " pt" : "");
    return 1;
}

static const luaL_Reg canvas_methods[] = {
    {"__tostring", c_tostring},
    {"finish", c_finish},
    {"close", c_finish},
    {"write_png", c_write_png},
    {"show_page", c_show_page},
    {"size", c_size},
    {"kind", c_kind},
    {"status", c_status},
    {"set_rgba", c_set_rgba},
    {"clear", c_clear},
    {"save", c_save},
    {"restore", c_restore},
    {"new_path", c_new_path},
    {"new_sub_path", c_new_sub_path},
    {"close_path", c_close_path},
    {"paint", c_paint},
    {"primitives", c_primitives},
    {"reset_clip", c_reset_clip},
    {"identity", c_identity},
    {"translate", c_translate},
    {"scale", c_scale},
    {"rotate", c_rotate},
    {"move_to", c_move_to},
    {"line_to", c_line_to},
    {"curve_to", c_curve_to},
    {"rectangle", c_rectangle},
    {"arc", c_arc},
    {"arc_negative", c_arc_negative},
    {"line_width", c_line_width},
    {"fill", c_fill},
    {"stroke", c_stroke},
    {"clip", c_clip},
    {"dash", c_dash},
    {"line_cap", c_line_cap},
    {"line_join", c_line_join},
    {"antialias", c_antialias},
    {"user_to_device", c_user_to_device},
    {"set_font", c_set_font},
    {"text_size", c_text_size},
    {"show_text", c_show_text},
    {"get_pixel", c_get_pixel},
    {"set_pixel", c_set_pixel},
    {"draw_grid", c_draw_grid},
    {"draw_rects", c_draw_rects},
    {"draw_segments", c_draw_segments},
    {"draw_points", c_draw_points},
    {"draw_image", c_draw_image},
    {"draw_path", c_draw_path},
    {"replay", c_replay},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"image", l_image},
    {"pdf", l_pdf},
    {"svg", l_svg},
    {"recording", l_recording},
    {"load_png", l_load_png},
    {NULL, NULL},
};

#if defined(__SANITIZE_ADDRESS__)
/*
 * Sanitizer builds only: when the Lua state closes, give back the font caches
 * Cairo and fontconfig keep for the life of the process, so LeakSanitizer
 * sees only real leaks. The sentinel is made when the module opens, so every
 * canvas (made later) is finalized before it, and the module is still loaded.
 */
static int release_static(lua_State *L)
{
    (void)L;
    cairo_debug_reset_static_data();
    FcFini();
    return 0;
}

static void add_release_sentinel(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, "retrace.canvas.sentinel") != LUA_TNIL) {
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    lua_newuserdatauv(L, 1, 0);
    lua_newtable(L);
    lua_pushcfunction(L, release_static);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, "retrace.canvas.sentinel");
}
#endif

int rt_lopen_canvas(lua_State *L)
{
#if defined(__SANITIZE_ADDRESS__)
    add_release_sentinel(L);
#endif
    rt_new_class(L, CANVAS_T, canvas_methods, canvas_gc);
    luaL_newlib(L, funcs);
    /* the method table, for lua/retrace/canvas.lua to extend */
    luaL_getmetatable(L, CANVAS_T);
    lua_getfield(L, -1, "__index");
    lua_setfield(L, -3, "methods");
    lua_pop(L, 1);
    rt_canvas_open_buffers(L); /* grids, packed arrays, palettes */
    return 1;
}
