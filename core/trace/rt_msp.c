/*
 * rt_msp.c - the `.msp` reader (see rt_msp.h): a line reader, the tokenizer
 * and strict number parsers, every field checked with FILE:LINE: FIELD errors.
 */
#include "rt_field.h"
#include "rt_msp.h"

#include <stdlib.h>
#include <string.h>

#include "rt_lines.h"

struct rt_msp {
    rt_lines *lines;
    char name[RT_MSP_NAME_MAX];
    char site[RT_MSP_NAME_MAX];
};

#define MAX_PROC 1000000L

static int bad(rt_msp *r, rt_err *err, const char *field, rt_span tok, const char *what)
{
    char ex[RT_EXCERPT_CAP];
    return rt_err_at(err, RT_EFORMAT, rt_lines_name(r->lines), rt_lines_lineno(r->lines),
                     "%s: '%s' %s", field, rt_excerpt(tok.p, tok.n, 1, ex, sizeof ex), what);
}

static int missing(rt_msp *r, rt_err *err, const char *field, char kind)
{
    return rt_err_at(err, RT_EFORMAT, rt_lines_name(r->lines), rt_lines_lineno(r->lines),
                     "%s: missing in a %c record", field, kind);
}

static int copy_name(rt_msp *r, rt_err *err, const char *field, rt_span tok, char *dst)
{
    if (tok.n >= RT_MSP_NAME_MAX)
        return rt_err_at(err, RT_EFORMAT, rt_lines_name(r->lines), rt_lines_lineno(r->lines),
                         "%s: longer than %d bytes", field, RT_MSP_NAME_MAX - 1);
    int st = rt_field_name(tok.p, tok.n, rt_lines_name(r->lines), rt_lines_lineno(r->lines), field, err);
    if (st != RT_OK)
        return st;
    memcpy(dst, tok.p, tok.n);
    dst[tok.n] = '\0';
    return RT_OK;
}

/* next line that is not blank or a comment; RT_EEOF at the end */
static int next_line(rt_msp *r, const char **cur, const char **end, rt_err *err)
{
    for (;;) {
        const char *line;
        size_t len;
        int st = rt_lines_next(r->lines, &line, &len, err);
        if (st != RT_OK)
            return st;
        const char *p = line, *e = line + len;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p == e || *p == '#')
            continue;
        *cur = p;
        *end = e;
        return RT_OK;
    }
}

rt_msp *rt_msp_open(const char *path, rt_err *err)
{
    rt_msp *r = calloc(1, sizeof *r);
    if (!r) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    r->lines = rt_lines_open(path, err);
    if (!r->lines) {
        free(r);
        return NULL;
    }
    const char *cur, *end;
    int st = next_line(r, &cur, &end, err);
    rt_span a = {0}, b = {0};
    if (st == RT_EEOF) {
        rt_err_at(err, RT_EFORMAT, path, 0, "magic: empty file, expected 'msp 1'");
    } else if (st == RT_OK) {
        if (!rt_tok_next(&cur, end, &a) || a.n != 3 || memcmp(a.p, "msp", 3) != 0) {
            bad(r, err, "magic", a, "is not 'msp' (the first record of a .msp trace is 'msp 1')");
            st = RT_EFORMAT;
        } else if (!rt_tok_next(&cur, end, &b) || b.n != 1 || b.p[0] != '1') {
            if (b.n)
                bad(r, err, "version", b, "is not 1");
            else
                rt_err_at(err, RT_EFORMAT, path, rt_lines_lineno(r->lines),
                          "version: missing after 'msp'");
            st = RT_EFORMAT;
        }
    }
    if (st != RT_OK) {
        rt_msp_free(r);
        return NULL;
    }
    return r;
}

void rt_msp_free(rt_msp *r)
{
    if (!r)
        return;
    rt_lines_free(r->lines);
    free(r);
}

static int get_proc(rt_msp *r, rt_err *err, const char **cur, const char *end, char kind, int *out)
{
    rt_span t;
    long v;
    if (!rt_tok_next(cur, end, &t))
        return missing(r, err, "processor", kind);
    if (!rt_span_long(t, &v) || v < 0 || v > MAX_PROC)
        return bad(r, err, "processor", t, "is not a processor number");
    *out = (int)v;
    return RT_OK;
}

static int get_hex(rt_msp *r, rt_err *err, const char **cur, const char *end, char kind,
                   const char *field, uint64_t *out)
{
    rt_span t;
    if (!rt_tok_next(cur, end, &t))
        return missing(r, err, field, kind);
    if (!rt_span_hex(t, out))
        return bad(r, err, field, t, "is not a hexadecimal number");
    return RT_OK;
}

static int get_count(rt_msp *r, rt_err *err, rt_span t, const char *field, int positive,
                     uint64_t *out)
{
    long v;
    if (!rt_span_long(t, &v) || v < (positive ? 1 : 0))
        return bad(r, err, field, t, positive ? "is not a positive integer" : "is not a count");
    *out = (uint64_t)v;
    return RT_OK;
}

int rt_msp_next(rt_msp *r, rt_msp_rec *rec, rt_err *err)
{
    const char *cur, *end;
    int st = next_line(r, &cur, &end, err);
    if (st != RT_OK)
        return st;
    rt_span k, t;
    rt_tok_next(&cur, end, &k);
    memset(rec, 0, sizeof *rec);
    rec->proc = -1;
    if (k.n >= 1 && k.p[0] == '@') {
        rt_span num = {k.p + 1, k.n - 1};
        long v;
        if (!rt_span_long(num, &v) || v < 0)
            return bad(r, err, "stamp", k, "is not @ and a reference number");
        rec->has_seq = 1;
        rec->seq = (uint64_t)v;
        if (!rt_tok_next(&cur, end, &k))
            return missing(r, err, "record", '@');
    }
    if (k.n != 1 || !strchr("EXAFNCRWBS", k.p[0]))
        return bad(r, err, "record", k, "is not one of E X A F N C R W B S");
    char kind = rec->kind = k.p[0];
    switch (kind) {
    case 'E':
    case 'X':
        if ((st = get_proc(r, err, &cur, end, kind, &rec->proc)) != RT_OK)
            return st;
        if (rt_tok_next(&cur, end, &t)) {
            if ((st = copy_name(r, err, "name", t, r->name)) != RT_OK)
                return st;
            rec->name = r->name;
        } else if (kind == 'E') {
            return missing(r, err, "name", kind);
        }
        if (kind == 'E' && rt_tok_next(&cur, end, &t)) {
            if ((st = copy_name(r, err, "site", t, r->site)) != RT_OK)
                return st;
            rec->site = r->site;
        }
        break;
    case 'A':
    case 'N':
    case 'C':
        if (kind == 'A' && (st = get_proc(r, err, &cur, end, kind, &rec->proc)) != RT_OK)
            return st;
        if ((st = get_hex(r, err, &cur, end, kind, "address", &rec->addr)) != RT_OK)
            return st;
        if (!rt_tok_next(&cur, end, &t))
            return missing(r, err, "size", kind);
        if ((st = get_count(r, err, t, "size", 1, &rec->size)) != RT_OK)
            return st;
        if (!rt_tok_next(&cur, end, &t))
            return missing(r, err, kind == 'A' ? "type.variable" : "name", kind);
        if ((st = copy_name(r, err, "name", t, r->name)) != RT_OK)
            return st;
        rec->name = r->name;
        if (kind == 'A' && rt_tok_next(&cur, end, &t)) {
            if ((st = copy_name(r, err, "site", t, r->site)) != RT_OK)
                return st;
            rec->site = r->site;
        }
        break;
    case 'F':
        if ((st = get_proc(r, err, &cur, end, kind, &rec->proc)) != RT_OK)
            return st;
        if ((st = get_hex(r, err, &cur, end, kind, "address", &rec->addr)) != RT_OK)
            return st;
        break;
    case 'R':
    case 'W':
        if ((st = get_proc(r, err, &cur, end, kind, &rec->proc)) != RT_OK)
            return st;
        if ((st = get_hex(r, err, &cur, end, kind, "address", &rec->addr)) != RT_OK)
            return st;
        rec->size = 8;
        if (rt_tok_next(&cur, end, &t)) {
            if ((st = get_count(r, err, t, "size", 1, &rec->size)) != RT_OK)
                return st;
            if (rec->size > (1u << 24))
                return bad(r, err, "size", t, "is more than 16 MiB in one reference");
            if (rt_tok_next(&cur, end, &t)) {
                if (!rt_span_hex(t, &rec->pc))
                    return bad(r, err, "pc", t, "is not a hexadecimal number");
                rec->has_pc = 1;
            }
        }
        break;
    case 'S':
        if ((st = get_proc(r, err, &cur, end, kind, &rec->proc)) != RT_OK)
            return st;
        break;
    case 'B':
        if ((st = get_proc(r, err, &cur, end, kind, &rec->proc)) != RT_OK)
            return st;
        if (!rt_tok_next(&cur, end, &t))
            return missing(r, err, "cycles", kind);
        if ((st = get_count(r, err, t, "cycles", 0, &rec->size)) != RT_OK)
            return st;
        break;
    }
    if (rt_tok_next(&cur, end, &t))
        return bad(r, err, "record", t, "is one field too many");
    return RT_OK;
}

unsigned long rt_msp_lineno(const rt_msp *r) { return rt_lines_lineno(r->lines); }
const char *rt_msp_name(const rt_msp *r) { return rt_lines_name(r->lines); }
uint64_t rt_msp_offset(const rt_msp *r) { return rt_lines_offset(r->lines); }
uint64_t rt_msp_size(const rt_msp *r) { return rt_lines_size(r->lines); }
