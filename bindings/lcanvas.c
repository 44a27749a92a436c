/*
 * lcanvas.c - Lua face of the Cairo canvas: surfaces, primitives, text, and the
 * bulk paths that draw from C-owned buffers (grids, packed arrays, palettes).
 *
 * Low level on purpose: colours are numbers (0..1 components), alignments are
 * fractions. lua/retrace/canvas.lua adds names, tables and conveniences on top
 * by extending the method table (core.canvas.methods).
 *
 *   canvas.image(w, h) / canvas.pdf(path, w, h) / canvas.svg(path, w, h)
 *   canvas.load_png(path)                       -- an image canvas, or nil, message
 *   canvas.grid(w, h [, fill]) / canvas.pack(stride) / canvas.palette(n)
 *   canvas.processor_palette(n, shades, decay, gray)
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
#include "lcanvas.h"

#define CANVAS_T "retrace.Canvas"
#define GRID_T "retrace.Grid"
#define PACK_T "retrace.Pack"
#define PALETTE_T "retrace.Palette"

#define MAX_SIDE 32767 /* Cairo's limit for image surfaces */

enum { K_IMAGE, K_PDF, K_SVG };
static const char *const kind_names[] = {"image", "pdf", "svg"};

typedef struct {
    cairo_surface_t *s; /* NULL once closed */
    cairo_t *cr;
    FILE *fp;           /* the output of a PDF / SVG canvas, closed at finish */
    int kind;           /* K_IMAGE, K_PDF, K_SVG */
    int w, h;           /* size in pixels (image) or points (PDF, SVG) */
    int write_error;    /* errno of a failed write to fp, 0 if none */
} canvas_box;

typedef struct {
    rt_grid *g; /* NULL once closed */
} grid_box;

typedef struct {
    rt_pack *p; /* NULL once closed */
} pack_box;

typedef struct {
    rt_palette *p; /* NULL once closed */
} palette_box;

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

rt_grid *rt_lcanvas_check_grid(lua_State *L, int i)
{
    grid_box *b = luaL_checkudata(L, i, GRID_T);
    if (!b->g)
        luaL_argerror(L, i, "grid is closed");
    return b->g;
}

rt_pack *rt_lcanvas_check_pack(lua_State *L, int i)
{
    pack_box *b = luaL_checkudata(L, i, PACK_T);
    if (!b->p)
        luaL_argerror(L, i, "packed array is closed");
    return b->p;
}

rt_palette *rt_lcanvas_check_palette(lua_State *L, int i)
{
    palette_box *b = luaL_checkudata(L, i, PALETTE_T);
    if (!b->p)
        luaL_argerror(L, i, "palette is closed");
    return b->p;
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
    if (fwrite(data, 1, len, b->fp) != len) {
        b->write_error = errno ? errno : EIO;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static canvas_box *new_canvas_box(lua_State *L)
{
    canvas_box *b = lua_newuserdatauv(L, sizeof *b, 0);
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
    b->fp = fopen(path, "wb");
    if (!b->fp) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    if (kind == K_PDF)
        b->s = cairo_pdf_surface_create_for_stream(write_fp, b, w, h);
    else
        b->s = cairo_svg_surface_create_for_stream(write_fp, b, w, h);
    return start_drawing(L, b);
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

/* Finish the surface, close the output; returns 0 or the errno of a write failure. */
static int canvas_finish(canvas_box *b)
{
    if (!b->s)
        return 0;
    cairo_destroy(b->cr);
    cairo_surface_finish(b->s);
    cairo_surface_destroy(b->s);
    b->s = NULL;
    b->cr = NULL;
    int e = b->write_error;
    if (b->fp) {
        if (fclose(b->fp) != 0 && !e)
            e = errno ? errno : EIO;
        b->fp = NULL;
    }
    return e;
}

static int canvas_gc(lua_State *L)
{
    canvas_finish(luaL_checkudata(L, 1, CANVAS_T));
    return 0;
}

/* cv:finish() -> true, or nil, message when the PDF / SVG could not be written */
static int c_finish(lua_State *L)
{
    canvas_box *b = luaL_checkudata(L, 1, CANVAS_T);
    int e = canvas_finish(b);
    if (e) {
        lua_pushnil(L);
        lua_pushfstring(L, "canvas output: %s", strerror(e));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static cairo_status_t write_file(void *closure, const unsigned char *data, unsigned int len)
{
    return fwrite(data, 1, len, (FILE *)closure) == len ? CAIRO_STATUS_SUCCESS
                                                         : CAIRO_STATUS_WRITE_ERROR;
}

/* cv:write_png(path) -> true, or nil, message */
static int c_write_png(lua_State *L)
{
    canvas_box *b = check_image(L, 1);
    const char *path = luaL_checkstring(L, 2);
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, strerror(errno));
        return 2;
    }
    cairo_surface_flush(b->s);
    cairo_status_t st = cairo_surface_write_to_png_stream(b->s, write_file, fp);
    int e = ferror(fp) ? errno : 0;
    if (fclose(fp) != 0 && !e)
        e = errno;
    if (st != CAIRO_STATUS_SUCCESS || e) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: %s", path, e ? strerror(e) : cairo_status_to_string(st));
        return 2;
    }
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
CR0(c_paint, cairo_paint(cr))
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

/* cv:fill([preserve]) / cv:stroke([preserve]) / cv:clip([preserve]) */
static int c_fill(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    if (lua_toboolean(L, 2))
        cairo_fill_preserve(cr);
    else
        cairo_fill(cr);
    return 0;
}

static int c_stroke(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
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

/* cv:text_size(s) -> advance width, line height (ascent + descent), ascent */
static int c_text_size(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
    const char *s = luaL_checkstring(L, 2);
    cairo_text_extents_t te;
    cairo_font_extents_t fe;
    cairo_text_extents(cr, s, &te);
    cairo_font_extents(cr, &fe);
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
    cairo_t *cr = check_canvas(L, 1)->cr;
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

static uint32_t premultiply(rt_rgba c)
{
    uint32_t a = RT_RGBA_A(c);
    if (a == 255)
        return c;
    uint32_t r = (RT_RGBA_R(c) * a + 127) / 255, g = (RT_RGBA_G(c) * a + 127) / 255,
             b = (RT_RGBA_B(c) * a + 127) / 255;
    return (a << 24) | (r << 16) | (g << 8) | b;
}

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
    uint32_t c = *px, a = c >> 24;
    uint32_t r = (c >> 16) & 255, g = (c >> 8) & 255, bl = c & 255;
    if (a && a < 255) {
        r = (r * 255 + a / 2) / a;
        g = (g * 255 + a / 2) / a;
        bl = (bl * 255 + a / 2) / a;
    }
    lua_pushinteger(L, r);
    lua_pushinteger(L, g);
    lua_pushinteger(L, bl);
    lua_pushinteger(L, a);
    return 4;
}

/* cv:set_pixel(x, y, r, g, b [, a]) with components 0..255, device pixels */
static int c_set_pixel(lua_State *L)
{
    canvas_box *b = check_image(L, 1);
    uint32_t *px;
    int x = (int)luaL_checkinteger(L, 2), y = (int)luaL_checkinteger(L, 3);
    pixel_addr(L, b, x, y, &px);
    int c[4];
    for (int k = 0; k < 4; k++) {
        lua_Integer v = k < 3 ? luaL_checkinteger(L, 4 + k) : luaL_optinteger(L, 7, 255);
        c[k] = v < 0 ? 0 : v > 255 ? 255 : (int)v;
    }
    cairo_surface_flush(b->s);
    *px = premultiply(RT_RGBA(c[0], c[1], c[2], c[3]));
    cairo_surface_mark_dirty_rectangle(b->s, x, y, 1, 1);
    return 0;
}

/* ---- bulk: grids ------------------------------------------------------------ */

/* How cell values become palette entries. */
typedef struct {
    const rt_palette *pal;
    int ranged;      /* 0: the value is the index; 1: map [lo, hi) linearly onto the palette */
    double lo, hi;
} cellmap;

/* Colour of a cell value, premultiplied; returns 0 when the cell is empty. */
static int cell_color(const cellmap *m, int32_t v, uint32_t *out)
{
    long i;
    if (m->ranged) {
        if (v < m->lo)
            return 0;
        double f = ((double)v - m->lo) / (m->hi - m->lo);
        i = f >= 1 ? m->pal->n - 1 : (long)(f * m->pal->n);
    } else {
        if (v < 0 || v >= m->pal->n)
            return 0;
        i = v;
    }
    *out = premultiply(m->pal->c[i]);
    return 1;
}

typedef struct {
    int sx, sy, sw, sh; /* source cells */
} cellrect;

/*
 * The fast path: the target is an image surface, the transformation only
 * scales and translates, the clip is one rectangle and the palette is opaque.
 * Cell edges are rounded to whole pixels so cells tile without seams. Returns
 * 1 when drawn, 0 when the general path must be used.
 */
static int grid_direct(canvas_box *b, const rt_grid *g, const cellmap *m, cellrect r,
                       double x, double y, double w, double h)
{
    cairo_t *cr = b->cr;
    if (b->kind != K_IMAGE || !rt_palette_opaque(m->pal))
        return 0;
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
    if (clx1 <= clx0 || cly1 <= cly0 || w <= 0 || h <= 0)
        return 1;

    double X0 = x, Y0 = y;
    cairo_user_to_device(cr, &X0, &Y0);
    double cw = w * mt.xx / r.sw, ch = h * mt.yy / r.sh;

    /* pixel edges of the columns and rows, clamped to the clip */
    int *xs = malloc(((size_t)r.sw + 1 + (size_t)r.sh + 1) * sizeof(int));
    if (!xs)
        return 0;
    int *ys = xs + r.sw + 1;
    for (int i = 0; i <= r.sw; i++) {
        long v = lround(X0 + i * cw);
        xs[i] = (int)(v < clx0 ? clx0 : v > clx1 ? clx1 : v);
    }
    for (int j = 0; j <= r.sh; j++) {
        long v = lround(Y0 + j * ch);
        ys[j] = (int)(v < cly0 ? cly0 : v > cly1 ? cly1 : v);
    }

    /*
     * One cell row at a time: its pixel row (line) and a mask of the pixels
     * that have a colour are made once, then every pixel row of the cell row
     * is a copy (no empty cells) or a masked blend, both simple loops over
     * whole rows that the compiler turns into vector code.
     */
    int lo = xs[0], hi = xs[r.sw], span = hi - lo;
    uint32_t *line = malloc((size_t)(span > 0 ? span : 1) * 2 * sizeof(uint32_t));
    if (!line) {
        free(xs);
        return 0;
    }
    uint32_t *mask = line + span;
    cairo_surface_flush(b->s);
    unsigned char *data = cairo_image_surface_get_data(b->s);
    size_t stride = (size_t)cairo_image_surface_get_stride(b->s);
    for (int j = 0; j < r.sh; j++) {
        int py0 = ys[j], py1 = ys[j + 1];
        if (py1 <= py0)
            continue;
        const int32_t *row = g->cells + (size_t)(r.sy + j) * (size_t)g->w + r.sx;
        int gaps = 0;
        for (int i = 0; i < r.sw; i++) {
            uint32_t c = 0, mk = 0xffffffffu;
            if (!cell_color(m, row[i], &c)) {
                mk = 0;
                gaps = 1;
            }
            for (int px = xs[i]; px < xs[i + 1]; px++) {
                line[px - lo] = c;
                mask[px - lo] = mk;
            }
        }
        for (int py = py0; py < py1; py++) {
            uint32_t *dst = (uint32_t *)(data + (size_t)py * stride) + lo;
            if (!gaps) {
                memcpy(dst, line, (size_t)span * sizeof(uint32_t));
                continue;
            }
            for (int k = 0; k < span; k++)
                dst[k] = (line[k] & mask[k]) | (dst[k] & ~mask[k]);
        }
    }
    free(line);
    cairo_surface_mark_dirty_rectangle(b->s, xs[0], ys[0], xs[r.sw] - xs[0], ys[r.sh] - ys[0]);
    free(xs);
    return 1;
}

/* The general path: one pixel per cell in a temporary image, scaled up without smoothing. */
static int grid_general(canvas_box *b, const rt_grid *g, const cellmap *m, cellrect r,
                        double x, double y, double w, double h)
{
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, r.sw, r.sh);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return 0;
    }
    unsigned char *data = cairo_image_surface_get_data(img);
    size_t stride = (size_t)cairo_image_surface_get_stride(img);
    for (int j = 0; j < r.sh; j++) {
        const int32_t *row = g->cells + (size_t)(r.sy + j) * (size_t)g->w + r.sx;
        uint32_t *dst = (uint32_t *)(data + (size_t)j * stride);
        for (int i = 0; i < r.sw; i++) {
            uint32_t c;
            dst[i] = cell_color(m, row[i], &c) ? c : 0;
        }
    }
    cairo_surface_mark_dirty(img);
    cairo_t *cr = b->cr;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_scale(cr, w / r.sw, h / r.sh);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, 0, 0, r.sw, r.sh);
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
 * Empty cells (negative or past the palette) leave the canvas as it was.
 */
static int c_draw_grid(lua_State *L)
{
    canvas_box *b = check_canvas(L, 1);
    rt_grid *g = rt_lcanvas_check_grid(L, 2);
    rt_palette *pal = rt_lcanvas_check_palette(L, 3);
    double x = num(L, 4), y = num(L, 5), w = num(L, 6), h = num(L, 7);
    cellrect r;
    r.sx = (int)luaL_optinteger(L, 8, 0);
    r.sy = (int)luaL_optinteger(L, 9, 0);
    r.sw = (int)luaL_optinteger(L, 10, g->w - r.sx);
    r.sh = (int)luaL_optinteger(L, 11, g->h - r.sy);
    if (r.sx < 0 || r.sy < 0 || r.sw < 1 || r.sh < 1 || r.sx + r.sw > g->w || r.sy + r.sh > g->h)
        return luaL_error(L, "grid region %d,%d %d x %d outside the %d x %d grid", r.sx, r.sy,
                          r.sw, r.sh, g->w, g->h);
    cellmap m = {pal, 0, 0, 0};
    if (!lua_isnoneornil(L, 12)) {
        m.ranged = 1;
        m.lo = num(L, 12);
        m.hi = num(L, 13);
        if (!(m.hi > m.lo))
            return luaL_error(L, "grid value range [%f, %f] is empty", m.lo, m.hi);
    }
    if (!grid_direct(b, g, &m, r, x, y, w, h) && !grid_general(b, g, &m, r, x, y, w, h))
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

/* cv:draw_rects(pack [, palette [, stroke]]) items x, y, w, h [, index] */
static int c_draw_rects(lua_State *L) { return draw_bulk(L, B_RECTS); }
/* cv:draw_segments(pack [, palette]) items x1, y1, x2, y2 [, index] */
static int c_draw_segments(lua_State *L) { return draw_bulk(L, B_SEGMENTS); }
/* cv:draw_points(pack [, palette [, radius [, round]]]) items x, y [, index] */
static int c_draw_points(lua_State *L) { return draw_bulk(L, B_POINTS); }

/* ---- grids, packs and palettes from Lua --------------------------------------- */

static grid_box *new_grid_box(lua_State *L)
{
    grid_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    b->g = NULL;
    luaL_setmetatable(L, GRID_T);
    return b;
}

void rt_lcanvas_push_grid(lua_State *L, rt_grid *g, int owner)
{
    if (owner)
        owner = lua_absindex(L, owner);
    grid_box *b = new_grid_box(L);
    b->g = rt_grid_retain(g);
    if (owner) {
        lua_pushvalue(L, owner);
        lua_setiuservalue(L, -2, 1);
    }
}

/* canvas.grid(w, h [, fill]) -> grid (cells default to -1: empty) */
static int l_grid(lua_State *L)
{
    int w = (int)luaL_checkinteger(L, 1), h = (int)luaL_checkinteger(L, 2);
    int32_t fill = (int32_t)luaL_optinteger(L, 3, -1);
    grid_box *b = new_grid_box(L);
    rt_err err;
    if (rt_grid_new(w, h, fill, &b->g, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int grid_close(lua_State *L)
{
    grid_box *b = luaL_checkudata(L, 1, GRID_T);
    rt_grid_free(b->g);
    b->g = NULL;
    return 0;
}

static size_t cell_index(lua_State *L, rt_grid *g, int xi)
{
    lua_Integer x = luaL_checkinteger(L, xi), y = luaL_checkinteger(L, xi + 1);
    if (x < 0 || y < 0 || x >= g->w || y >= g->h)
        luaL_error(L, "cell (%d, %d) outside the %d x %d grid", (int)x, (int)y, g->w, g->h);
    return (size_t)y * (size_t)g->w + (size_t)x;
}

/* g:get(x, y) / g:set(x, y, v) with 0-based cells */
static int grid_get(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    lua_pushinteger(L, g->cells[cell_index(L, g, 2)]);
    return 1;
}

static int grid_set(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    size_t i = cell_index(L, g, 2);
    g->cells[i] = (int32_t)luaL_checkinteger(L, 4);
    return 0;
}

static int grid_size(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    lua_pushinteger(L, g->w);
    lua_pushinteger(L, g->h);
    return 2;
}

static int grid_fill(lua_State *L)
{
    rt_grid_fill(rt_lcanvas_check_grid(L, 1), (int32_t)luaL_checkinteger(L, 2));
    return 0;
}

/*
 * g:load(s [, first]) copies cell values from a binary string of int32 in
 * native order (string.pack("i4", ...)) into the cells from index first (0-based,
 * row-major; default 0); g:dump() returns the whole grid as such a string.
 */
static int grid_load(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    size_t len;
    const char *s = luaL_checklstring(L, 2, &len);
    lua_Integer first = luaL_optinteger(L, 3, 0);
    size_t total = (size_t)g->w * (size_t)g->h;
    if (len % 4)
        return luaL_argerror(L, 2, "length is not a multiple of 4 bytes");
    if (first < 0 || (size_t)first + len / 4 > total)
        return luaL_error(L, "%d cells from %d do not fit in the %d x %d grid", (int)(len / 4),
                          (int)first, g->w, g->h);
    memcpy(g->cells + first, s, len);
    return 0;
}

static int grid_dump(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    lua_pushlstring(L, (const char *)g->cells, (size_t)g->w * (size_t)g->h * 4);
    return 1;
}

static pack_box *new_pack_box(lua_State *L)
{
    pack_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    b->p = NULL;
    luaL_setmetatable(L, PACK_T);
    return b;
}

void rt_lcanvas_push_pack(lua_State *L, rt_pack *p, int owner)
{
    if (owner)
        owner = lua_absindex(L, owner);
    pack_box *b = new_pack_box(L);
    b->p = rt_pack_retain(p);
    if (owner) {
        lua_pushvalue(L, owner);
        lua_setiuservalue(L, -2, 1);
    }
}

/* canvas.pack(stride) -> empty packed array */
static int l_pack(lua_State *L)
{
    int stride = (int)luaL_checkinteger(L, 1);
    pack_box *b = new_pack_box(L);
    rt_err err;
    if (rt_pack_new(stride, &b->p, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int pack_close(lua_State *L)
{
    pack_box *b = luaL_checkudata(L, 1, PACK_T);
    rt_pack_free(b->p);
    b->p = NULL;
    return 0;
}

/* p:push(v1, ..., v_stride) */
static int pack_push(lua_State *L)
{
    rt_pack *p = rt_lcanvas_check_pack(L, 1);
    double item[16];
    for (int k = 0; k < p->stride; k++)
        item[k] = luaL_checknumber(L, 2 + k);
    if (rt_pack_push(p, item) != RT_OK)
        return luaL_error(L, "packed array: out of memory");
    return 0;
}

/* p:load(s) appends items from a binary string of doubles (string.pack("d", ...)) */
static int pack_load(lua_State *L)
{
    rt_pack *p = rt_lcanvas_check_pack(L, 1);
    size_t len;
    const char *s = luaL_checklstring(L, 2, &len);
    size_t item = (size_t)p->stride * sizeof(double);
    if (len % item)
        return luaL_argerror(L, 2, "length is not a whole number of items");
    if (rt_pack_reserve(p, p->n + len / item) != RT_OK)
        return luaL_error(L, "packed array: out of memory");
    memcpy(p->v + p->n * (size_t)p->stride, s, len);
    p->n += len / item;
    return 0;
}

/* p:get(i) -> the values of item i (1-based) */
static int pack_get(lua_State *L)
{
    rt_pack *p = rt_lcanvas_check_pack(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (size_t)i > p->n)
        return luaL_error(L, "item %d outside the packed array of %d", (int)i, (int)p->n);
    for (int k = 0; k < p->stride; k++)
        lua_pushnumber(L, p->v[(size_t)(i - 1) * (size_t)p->stride + (size_t)k]);
    return p->stride;
}

static int pack_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rt_lcanvas_check_pack(L, 1)->n);
    return 1;
}

static int pack_clear(lua_State *L)
{
    rt_lcanvas_check_pack(L, 1)->n = 0;
    return 0;
}

static int pack_stride(lua_State *L)
{
    lua_pushinteger(L, rt_lcanvas_check_pack(L, 1)->stride);
    return 1;
}

static palette_box *new_palette_box(lua_State *L)
{
    palette_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->p = NULL;
    luaL_setmetatable(L, PALETTE_T);
    return b;
}

/* canvas.palette(n) -> palette of n transparent entries */
static int l_palette(lua_State *L)
{
    int n = (int)luaL_checkinteger(L, 1);
    palette_box *b = new_palette_box(L);
    rt_err err;
    if (rt_palette_new(n, &b->p, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

/* canvas.processor_palette(n [, shades [, decay [, gray]]]) -> palette (see rt_grid.h) */
static int l_processor_palette(lua_State *L)
{
    int n = (int)luaL_checkinteger(L, 1);
    int shades = (int)luaL_optinteger(L, 2, 8);
    int decay = (int)luaL_optinteger(L, 3, 0);
    int gray = lua_toboolean(L, 4);
    palette_box *b = new_palette_box(L);
    rt_err err;
    if (rt_palette_processors(n, shades, decay, gray, &b->p, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int palette_close(lua_State *L)
{
    palette_box *b = luaL_checkudata(L, 1, PALETTE_T);
    rt_palette_free(b->p);
    b->p = NULL;
    return 0;
}

static int palette_index(lua_State *L, rt_palette *p)
{
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 0 || i >= p->n)
        return luaL_error(L, "palette entry %d outside 0..%d", (int)i, p->n - 1);
    return (int)i;
}

/* pal:set(i, r, g, b [, a]) with 0-based i and components 0..255 */
static int palette_set(lua_State *L)
{
    rt_palette *p = rt_lcanvas_check_palette(L, 1);
    int i = palette_index(L, p);
    int c[4];
    for (int k = 0; k < 4; k++) {
        lua_Integer v = k < 3 ? luaL_checkinteger(L, 3 + k) : luaL_optinteger(L, 6, 255);
        c[k] = v < 0 ? 0 : v > 255 ? 255 : (int)v;
    }
    p->c[i] = RT_RGBA(c[0], c[1], c[2], c[3]);
    return 0;
}

/* pal:get(i) -> r, g, b, a (0..255) */
static int palette_get(lua_State *L)
{
    rt_palette *p = rt_lcanvas_check_palette(L, 1);
    rt_rgba c = p->c[palette_index(L, p)];
    lua_pushinteger(L, RT_RGBA_R(c));
    lua_pushinteger(L, RT_RGBA_G(c));
    lua_pushinteger(L, RT_RGBA_B(c));
    lua_pushinteger(L, RT_RGBA_A(c));
    return 4;
}

static int palette_len(lua_State *L)
{
    lua_pushinteger(L, rt_lcanvas_check_palette(L, 1)->n);
    return 1;
}

/*
 * cv:draw_image(src, x, y [, w, h]): paint the image canvas src with its top-left
 * corner at (x, y), scaled to w x h when given (smoothly).
 */
static int c_draw_image(lua_State *L)
{
    cairo_t *cr = check_canvas(L, 1)->cr;
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

static const luaL_Reg canvas_methods[] = {
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
    {NULL, NULL},
};

static const luaL_Reg grid_methods[] = {
    {"get", grid_get},   {"set", grid_set},   {"size", grid_size}, {"fill", grid_fill},
    {"load", grid_load}, {"dump", grid_dump}, {"close", grid_close}, {NULL, NULL},
};

static const luaL_Reg pack_methods[] = {
    {"push", pack_push}, {"load", pack_load},     {"get", pack_get},     {"len", pack_len},
    {"clear", pack_clear}, {"stride", pack_stride}, {"close", pack_close}, {NULL, NULL},
};

static const luaL_Reg palette_methods[] = {
    {"set", palette_set}, {"get", palette_get}, {"len", palette_len},
    {"close", palette_close}, {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"image", l_image},
    {"pdf", l_pdf},
    {"svg", l_svg},
    {"load_png", l_load_png},
    {"grid", l_grid},
    {"pack", l_pack},
    {"palette", l_palette},
    {"processor_palette", l_processor_palette},
    {NULL, NULL},
};

/* Add __len to a registered class (for #grid-like use). */
static void set_meta(lua_State *L, const char *tname, const char *field, lua_CFunction f)
{
    luaL_getmetatable(L, tname);
    lua_pushcfunction(L, f);
    lua_setfield(L, -2, field);
    lua_pop(L, 1);
}

int rt_lopen_canvas(lua_State *L)
{
    rt_new_class(L, CANVAS_T, canvas_methods, canvas_gc);
    rt_new_class(L, GRID_T, grid_methods, grid_close);
    rt_new_class(L, PACK_T, pack_methods, pack_close);
    rt_new_class(L, PALETTE_T, palette_methods, palette_close);
    set_meta(L, PACK_T, "__len", pack_len);
    set_meta(L, PALETTE_T, "__len", palette_len);
    luaL_newlib(L, funcs);
    /* the method tables, for lua/retrace/canvas.lua to extend */
    const char *classes[][2] = {{"methods", CANVAS_T}, {"grid_methods", GRID_T},
                                {"pack_methods", PACK_T}, {"palette_methods", PALETTE_T}};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        luaL_getmetatable(L, classes[i][1]);
        lua_getfield(L, -1, "__index");
        lua_setfield(L, -3, classes[i][0]);
        lua_pop(L, 1);
    }
    return 1;
}
