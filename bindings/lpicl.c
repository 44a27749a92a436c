/*
 * lpicl.c - Lua face of the PICL readers (core/trace/rt_picl.h).
 *
 *   local t = picl.open(path [, {format = "old"|"new", strict = bool}])  -- or nil, message
 *   for rec in t:records() do ... end        -- records as tables, fields by name
 *   t:next() -> record | nil (end) ; raises on a strict reader's malformed line
 *   t:format() -> "old" | "new"; t:skipped() -> n, {first messages}; t:count(); t:close()
 *   picl.convert(old_path, new_path [, opts]) -> records written | nil, message
 *   picl.parse_line(format, line) -> record | false | nil, why
 *   picl.event_words(type), picl.event_family(type), picl.event_waits(type)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "rt_out.h"
#include "lpicl.h"
#include "rt_file.h"

typedef struct {
    rt_picl *r;          /* NULL once closed */
    rt_picl_skips skips; /* skipped lines */
    int busy;            /* a replay is reading it (its callbacks may run): reading, rewinding and closing are refused */
} picl_box;

static picl_box *check_box(lua_State *L, int i)
{
    picl_box *b = luaL_checkudata(L, i, PICL_T);
    if (!b->r)
        luaL_argerror(L, i, "PICL trace is closed");
    return b;
}

rt_picl *rt_lpicl_check(lua_State *L, int i) { return check_box(L, i)->r; }

void rt_lpicl_set_busy(lua_State *L, int i, int busy)
{
    ((picl_box *)luaL_checkudata(L, i, PICL_T))->busy = busy;
}

/* check_box for the calls that move or free the reader: not while a replay reads it */
static picl_box *check_idle(lua_State *L, int i, const char *what)
{
    picl_box *b = check_box(L, i);
    if (b->busy)
        luaL_error(L, "cannot %s a PICL trace while a replay reads it", what);
    return b;
}

static int picl_close(lua_State *L)
{
    picl_box *b = luaL_checkudata(L, 1, PICL_T);
    if (b->busy)
        return luaL_error(L, "cannot close a PICL trace while a replay reads it");
    rt_picl_free(b->r);
    b->r = NULL;
    rt_picl_skips_free(&b->skips);
    return 0;
}

/* t[k] = v like rt_set_num, but a whole v (a count read as a number) as an integer. */
static void setnum(lua_State *L, const char *k, double v)
{
    if (v == (double)(lua_Integer)v && v > -9e15 && v < 9e15)
        lua_pushinteger(L, (lua_Integer)v);
    else
        lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

void rt_lpicl_push_record(lua_State *L, const rt_picl_record *rec)
{
    char buf[64];
    lua_createtable(L, 0, 16);
    rt_set_str(L, "format", rec->format == RT_PICL_OLD ? "old" : "new");
    rt_set_int(L, "line", (lua_Integer)rec->line);
    rt_set_num(L, "time", rec->time);
    rt_set_int(L, "proc", rec->proc);
    rt_set_int(L, "task", rec->task);
    lua_createtable(L, rec->ndata, 0);
    for (int i = 0; i < rec->ndata; i++) {
        double v = rec->data[i];
        if (v == (double)(lua_Integer)v && v > -9e15 && v < 9e15)
            lua_pushinteger(L, (lua_Integer)v);
        else
            lua_pushnumber(L, v);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "data");
    if (rec->truncated) {
        rt_set_bool(L, "truncated", 1);
    }
    const double *d = rec->data;
    if (rec->format == RT_PICL_NEW) {
        rt_set_int(L, "rectype", rec->rectype);
        rt_set_int(L, "event", rec->event);
        rt_set_str(L, "kind", rt_picl_rectype_kind(rec->rectype));
        rt_set_int(L, "ndata", rec->ndata_field);
        if (rec->text && rec->textlen > 0 && (rec->rectype == RT_PICL_LABEL || rec->rectype == RT_PICL_DATADESC)) {
            lua_pushlstring(L, rec->text, rec->textlen);
            lua_setfield(L, -2, "text");
        }
        if (rec->fmt[0])
            rt_set_str(L, "fmt", rec->fmt);
        else
            rt_set_int(L, "desc", rec->desc);
        if (rec->rectype == RT_PICL_ENTRY || rec->rectype == RT_PICL_EXIT || rec->rectype == RT_PICL_MARK) {
            rt_set_str(L, "name", rt_picl_event_words(rec->event, buf, sizeof buf));
            rt_set_str(L, "family", rt_picl_family_name(rt_picl_event_family(rec->event)));
        }
        double bytes;
        long tag, peer;
        int m = rt_picl_message_fields(rec, &bytes, &tag, &peer);
        if (m) {
            setnum(L, "bytes", bytes);
            rt_set_int(L, "tag", tag);
            rt_set_int(L, m == 1 ? "dest" : "src", peer);
        }
    } else {
        rt_set_int(L, "code", rec->rectype);
        rt_set_str(L, "kind", rt_picl_oldcode_words(rec->rectype, buf, sizeof buf));
        switch (rec->rectype) {
        case RT_PICL_OLD_SEND:
            setnum(L, "to", d[0]);
            setnum(L, "type", d[1]);
            setnum(L, "length", d[2]);
            break;
        case RT_PICL_OLD_RECV:
        case RT_PICL_OLD_RECV_WAKING:
            setnum(L, "from", d[0]);
            setnum(L, "type", d[1]);
            setnum(L, "length", d[2]);
            break;
        case RT_PICL_OLD_BLOCK_BEGIN:
        case RT_PICL_OLD_BLOCK_END:
            setnum(L, "block", d[0]);
            break;
        default:
            break;
        }
    }
}

static int parse_format_opt(lua_State *L, int idx)
{
    const char *f = luaL_optstring(L, idx, "auto");
    if (strcmp(f, "old") == 0)
        return RT_PICL_OLD;
    if (strcmp(f, "new") == 0)
        return RT_PICL_NEW;
    if (strcmp(f, "auto") == 0)
        return RT_PICL_AUTO;
    return luaL_error(L, "format: '%s' is not one of old, new, auto", f);
}

/* Reads {format=, strict=} from the table at idx (or nothing) into o. */
static void read_opts(lua_State *L, int idx, rt_picl_opts *o)
{
    memset(o, 0, sizeof *o);
    if (lua_isnoneornil(L, idx))
        return;
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_getfield(L, idx, "format");
    o->format = parse_format_opt(L, lua_gettop(L));
    lua_pop(L, 1);
    o->strict = rt_opt_bool(L, idx, "strict", 0);
}

static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    rt_picl_opts o;
    read_opts(L, 2, &o);
    picl_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b); /* safe empty state before allocating */
    luaL_setmetatable(L, PICL_T);
    o.on_skip = rt_picl_skips_add;
    o.ud = &b->skips;
    rt_err err;
    b->r = rt_picl_open(path, &o, &err);
    if (!b->r)
        return rt_push_fail(L, &err);
    return 1;
}

static int picl_next(lua_State *L)
{
    picl_box *b = check_idle(L, 1, "read");
    rt_picl_record rec;
    rt_err err;
    int st = rt_picl_next(b->r, &rec, &err);
    if (st == RT_EEOF)
        return 0;
    if (st != RT_OK) {
        lua_pushstring(L, err.msg); /* an input error: no code position in front */
        return lua_error(L);
    }
    rt_lpicl_push_record(L, &rec);
    return 1;
}

/* iterator step: (box, _) -> record | nil */
static int records_step(lua_State *L)
{
    return picl_next(L);
}

static int picl_records(lua_State *L)
{
    check_idle(L, 1, "read");
    lua_pushcfunction(L, records_step);
    lua_pushvalue(L, 1); /* state */
    lua_pushnil(L);      /* control */
    lua_pushnil(L);      /* closing value: the trace stays open after the loop */
    return 4;
}

static int picl_format(lua_State *L)
{
    picl_box *b = check_box(L, 1);
    lua_pushstring(L, rt_picl_format(b->r) == RT_PICL_OLD ? "old" : "new");
    return 1;
}

static int picl_skipped(lua_State *L)
{
    picl_box *b = check_box(L, 1);
    lua_pushinteger(L, (lua_Integer)b->skips.n);
    lua_createtable(L, b->skips.nkept, 0);
    for (int i = 0; i < b->skips.nkept; i++) {
        lua_pushstring(L, b->skips.kept[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 2;
}

static int picl_count(lua_State *L)
{
    picl_box *b = check_box(L, 1);
    lua_pushinteger(L, (lua_Integer)rt_picl_count(b->r));
    return 1;
}

static int picl_progress(lua_State *L)
{
    picl_box *b = check_box(L, 1);
    lua_pushinteger(L, (lua_Integer)rt_picl_offset(b->r));
    lua_pushinteger(L, (lua_Integer)rt_picl_size(b->r));
    return 2;
}

static int picl_name(lua_State *L)
{
    picl_box *b = check_box(L, 1);
    lua_pushstring(L, rt_picl_name(b->r));
    return 1;
}

static int picl_rewind(lua_State *L)
{
    picl_box *b = check_idle(L, 1, "rewind");
    rt_err err;
    if (rt_picl_rewind(b->r, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* convert(old, new [, opts]) -> records written | nil, message */
static int l_convert(lua_State *L)
{
    const char *in = luaL_checkstring(L, 1);
    const char *out = luaL_checkstring(L, 2);
    rt_picl_opts o;
    read_opts(L, 3, &o);
    rt_err err;
    rt_picl *r = rt_picl_open(in, &o, &err);
    if (!r)
        return rt_push_fail(L, &err);
    if (rt_picl_format(r) != RT_PICL_OLD) {
        rt_picl_free(r);
        rt_err_at(&err, RT_EFORMAT, in, 0, "already in the new PICL format (nothing to convert)");
        return rt_push_fail(L, &err);
    }
    if (rt_same_file(in, out)) {
        rt_picl_free(r);
        rt_err_at(&err, RT_EINVAL, out, 0, "is the input trace (it would be overwritten while read)");
        return rt_push_fail(L, &err);
    }
    rt_picl_xlate *x = rt_picl_xlate_new();
    rt_out *dst = x ? rt_out_open(out, &err) : NULL;
    FILE *fp = dst ? rt_out_fp(dst) : NULL;
    if (!dst) {
        if (!x)
            rt_err_at(&err, RT_ENOMEM, out, 0, "out of memory");
        goto fail;
    }
    rt_picl_record rec, tr[2];
    char line[4096];
    lua_Integer written = 0;
    int st;
    while ((st = rt_picl_next(r, &rec, &err)) == RT_OK) {
        int n = 1;
        if (rec.format == RT_PICL_OLD) {
            if (rt_picl_xlate_record(x, &rec, tr, &n) != RT_OK) {
                rt_err_set(&err, RT_ENOMEM, "out of memory");
                goto fail;
            }
        } else {
            tr[0] = rec;
        }
        for (int i = 0; i < n; i++) {
            int len = rt_picl_format_new(&tr[i], line, sizeof line);
            if (len >= (int)sizeof line || fputs(line, fp) == EOF) {
                rt_err_at(&err, RT_EIO, out, 0, "write failed: %s", strerror(errno));
                goto fail;
            }
            written++;
        }
    }
    if (st != RT_EEOF)
        goto fail;
    st = rt_out_commit(dst, &err);
    dst = NULL;
    if (st != RT_OK)
        goto fail;
    rt_picl_xlate_free(x);
    lua_pushinteger(L, written);
    lua_pushinteger(L, (lua_Integer)rt_picl_skipped(r));
    rt_picl_free(r);
    return 2;
fail:
    rt_out_abort(dst);
    rt_picl_xlate_free(x);
    rt_picl_free(r);
    return rt_push_fail(L, &err);
}

/* parse_line(format, line) -> record | false (blank/comment) | nil, why */
static int l_parse_line(lua_State *L)
{
    int fmt = parse_format_opt(L, 1);
    size_t len;
    const char *line = luaL_checklstring(L, 2, &len);
    if (fmt == RT_PICL_AUTO)
        fmt = rt_picl_guess_format(line, len);
    if (!fmt) {
        lua_pushnil(L);
        lua_pushstring(L, "fits neither PICL format");
        return 2;
    }
    rt_picl_record rec;
    char why[256];
    int r = rt_picl_parse_line(fmt, line, len, &rec, why, sizeof why);
    if (r < 0) {
        lua_pushnil(L);
        lua_pushstring(L, why);
        return 2;
    }
    if (r == 0) {
        lua_pushboolean(L, 0);
        return 1;
    }
    rt_lpicl_push_record(L, &rec);
    return 1;
}

static int l_event_words(lua_State *L)
{
    char buf[64];
    lua_pushstring(L, rt_picl_event_words((int)luaL_checkinteger(L, 1), buf, sizeof buf));
    return 1;
}

static int l_event_family(lua_State *L)
{
    lua_pushstring(L, rt_picl_family_name(rt_picl_event_family((int)luaL_checkinteger(L, 1))));
    return 1;
}

static int l_event_waits(lua_State *L)
{
    lua_pushboolean(L, rt_picl_event_waits((int)luaL_checkinteger(L, 1)));
    return 1;
}

/* "retrace.PiclTrace: ring4.trf, 40 records read" */
static int picl_tostring(lua_State *L)
{
    picl_box *b = luaL_checkudata(L, 1, PICL_T);
    if (!b->r) {
        lua_pushstring(L, PICL_T " (closed)");
        return 1;
    }
    lua_pushfstring(L, PICL_T ": %s, %I records read", rt_picl_name(b->r), (lua_Integer)rt_picl_count(b->r));
    return 1;
}

static const luaL_Reg methods[] = {
    {"__tostring", picl_tostring},
    {"next", picl_next},       {"records", picl_records}, {"format", picl_format},
    {"skipped", picl_skipped}, {"count", picl_count},     {"progress", picl_progress},
    {"name", picl_name},       {"rewind", picl_rewind},   {"close", picl_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"open", l_open},
    {"convert", l_convert},
    {"parse_line", l_parse_line},
    {"event_words", l_event_words},
    {"event_family", l_event_family},
    {"event_waits", l_event_waits},
    {NULL, NULL},
};

int rt_lopen_picl(lua_State *L)
{
    rt_new_class(L, PICL_T, methods, picl_close);
    luaL_newlib(L, funcs);
    return 1;
}
