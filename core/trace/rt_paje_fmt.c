/*
 * rt_paje_fmt.c - %EventDef definitions and event-line decoding for the Pajé
 * reader (see rt_paje_fmt.h), and the sniffer that recognises the format.
 *
 * The hot path is rt_pj_decode, once per line of a trace of up to 10^8 lines:
 * one pass splitting the fields, a table lookup for the definition, and the
 * numbers parsed by a short exact path before strtod.
 */
#include "rt_paje_fmt.h"
#include "rt_paje.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_field.h"

static const char *const kind_names[K_UNKNOWN] = {
    "PajeDefineContainerType", "PajeDefineStateType", "PajeDefineEventType",
    "PajeDefineVariableType", "PajeDefineLinkType", "PajeDefineEntityValue",
    "PajeCreateContainer", "PajeDestroyContainer", "PajeSetState", "PajePushState",
    "PajePopState", "PajeResetState", "PajeNewEvent", "PajeSetVariable", "PajeAddVariable",
    "PajeSubVariable", "PajeStartLink", "PajeEndLink"};

static const struct {
    const char *name;
    int field;
} field_names[] = {
    {"Time", F_TIME}, {"Name", F_NAME}, {"Type", F_TYPE}, {"Container", F_CONTAINER},
    {"StartContainerType", F_STARTCT}, {"EndContainerType", F_ENDCT},
    {"StartContainer", F_START}, {"EndContainer", F_END}, {"Value", F_VALUE}, {"Key", F_KEY},
    {"Alias", F_ALIAS}, {"Color", F_COLOR},
    /* not in the format's list; SimGrid-style message sizes, used for bytes when present */
    {"Size", F_SIZE},
    /* the old names PajeNG still accepts with --no-strict */
    {"ContainerType", F_TYPE}, {"EntityType", F_TYPE}, {"SourceContainerType", F_STARTCT},
    {"DestContainerType", F_ENDCT}, {"SourceContainer", F_START}, {"DestContainer", F_END}};

#define B(f) (1u << (f))
/* The fields a definition of each kind must have (as PajeNG requires). */
static const unsigned required[K_UNKNOWN] = {
    B(F_NAME) | B(F_TYPE), B(F_NAME) | B(F_TYPE), B(F_NAME) | B(F_TYPE), B(F_NAME) | B(F_TYPE),
    B(F_NAME) | B(F_TYPE) | B(F_STARTCT) | B(F_ENDCT), B(F_NAME) | B(F_TYPE),
    B(F_TIME) | B(F_NAME) | B(F_TYPE) | B(F_CONTAINER), B(F_TIME) | B(F_NAME) | B(F_TYPE),
    B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE), B(F_TIME) | B(F_TYPE) | B(F_CONTAINER),
    B(F_TIME) | B(F_TYPE) | B(F_CONTAINER), B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE),
    B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE) | B(F_START) | B(F_KEY),
    B(F_TIME) | B(F_TYPE) | B(F_CONTAINER) | B(F_VALUE) | B(F_END) | B(F_KEY)};

char *rt_pj_span_dup(rt_span s)
{
    char *c = malloc(s.n + 1);
    if (c) {
        memcpy(c, s.p, s.n);
        c[s.n] = '\0';
    }
    return c;
}

int rt_pj_span_is(rt_span s, const char *lit)
{
    return strlen(lit) == s.n && memcmp(s.p, lit, s.n) == 0;
}

static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                     1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                     1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/*
 * A decimal number. Plain [-]digits[.digits] with at most 15 digits is
 * converted as mantissa / 10^k: both exact doubles, so the one division rounds
 * exactly as strtod does; anything else (exponents, long mantissas) goes
 * through the strict strtod-based parser.
 */
int rt_pj_number(rt_span s, double *out)
{
    const char *p = s.p, *e = s.p + s.n;
    int neg = 0, nd = 0, frac = 0;
    uint64_t m = 0;
    if (p < e && (*p == '-' || *p == '+'))
        neg = *p++ == '-';
    for (; p < e && (unsigned)(*p - '0') < 10; p++, nd++)
        m = m * 10 + (unsigned)(*p - '0');
    if (p < e && *p == '.')
        for (p++; p < e && (unsigned)(*p - '0') < 10; p++, nd++, frac++)
            m = m * 10 + (unsigned)(*p - '0');
    if (p == e && nd > 0 && nd <= 15) {
        double v = (double)m / pow10_exact[frac];
        *out = neg ? -v : v;
        return 1;
    }
    return rt_span_double(s, out);
}

/*
 * Split an event line into fields: blanks separate them, a field starting with
 * '"' runs to the next '"' (blanks included, quotes dropped), '#' outside a
 * string starts a comment. At most max fields are stored; *nf counts them all.
 */
static int split(const char *file, unsigned long line, const char *p, const char *e, rt_span *f, int max,
                 int *nf, rt_err *err)
{
    int n = 0;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p == e || *p == '#')
            break;
        rt_span s;
        if (*p == '"') {
            const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));
            if (!q)
                return rt_err_at(err, RT_EFORMAT, file, line,
                                 "field %d: unterminated quoted string", n);
            s.p = p + 1;
            s.n = (size_t)(q - p - 1);
            p = q + 1;
            if (p < e && *p != ' ' && *p != '\t' && *p != '\r')
                return rt_err_at(err, RT_EFORMAT, file, line,
                                 "field %d: text right after the closing quote", n);
        } else {
            s.p = p;
            while (p < e && *p != ' ' && *p != '\t' && *p != '\r')
                p++;
            s.n = (size_t)(p - s.p);
        }
        if (n < max)
            f[n] = s;
        n++;
    }
    *nf = n;
    return RT_OK;
}

int rt_pj_header_line(rt_pjfmt *r, const char *file, unsigned long line, const char *p,
                      const char *e, rt_err *err)
{
    rt_span w[4];
    int n = 0;
    p++; /* the '%' */
    const char *cur = p;
    rt_span t;
    while (n < 4 && rt_tok_next(&cur, e, &t))
        w[n++] = t;
    rt_pjdef *d = r->open;
    if (!d) {
        if (n != 3 || !rt_pj_span_is(w[0], "EventDef"))
            return rt_err_at(err, RT_EFORMAT, file, line,
                             "header: expected '%%EventDef NAME ID'");
        long id;
        if (!rt_span_long(w[2], &id) || id < 0 || id >= RT_PJ_MAXID)
            return rt_err_at(err, RT_EFORMAT, file, line,
                             "%%EventDef %.*s: id '%.*s' is not a number from 0 to %d",
                             (int)w[1].n, w[1].p, (int)w[2].n, w[2].p, RT_PJ_MAXID - 1);
        if ((size_t)id < r->ndefs && r->defs[id])
            return rt_err_at(err, RT_EFORMAT, file, line,
                             "%%EventDef %.*s: id %ld already defined at line %lu", (int)w[1].n,
                             w[1].p, id, r->defs[id]->line);
        if ((size_t)id >= r->ndefs) {
            rt_pjdef **nd = realloc(r->defs, ((size_t)id + 1) * sizeof *nd);
            if (!nd)
                return rt_err_set(err, RT_ENOMEM, "%s: out of memory", file);
            memset(nd + r->ndefs, 0, ((size_t)id + 1 - r->ndefs) * sizeof *nd);
            r->defs = nd;
            r->ndefs = (size_t)id + 1;
        }
        if (!(d = calloc(1, sizeof *d)) || !(d->name = rt_pj_span_dup(w[1]))) {
            free(d);
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", file);
        }
        d->kind = K_UNKNOWN;
        for (int k = 0; k < K_UNKNOWN; k++)
            if (rt_pj_span_is(w[1], kind_names[k]))
                d->kind = k;
        d->line = line;
        memset(d->pos, -1, sizeof d->pos);
        r->defs[id] = d;
        r->open = d;
        return RT_OK;
    }
    if (n >= 1 && rt_pj_span_is(w[0], "EndEventDef")) {
        for (int f = 0; d->kind < K_UNKNOWN && f < F_COUNT; f++)
            if ((required[d->kind] & B(f)) && d->pos[f] < 0)
                return rt_err_at(err, RT_EFORMAT, file, line, "%%EventDef %s (line %lu): no %s field",
                                 d->name, d->line, field_names[f].name);
        r->open = NULL;
        return RT_OK;
    }
    if (n != 2)
        return rt_err_at(err, RT_EFORMAT, file, line,
                         "%%EventDef %s (line %lu): expected '%% FIELD TYPE' or '%%EndEventDef'",
                         d->name, d->line);
    if (d->nfields >= RT_PJ_MAXFIELDS)
        return rt_err_at(err, RT_EFORMAT, file, line, "%%EventDef %s: more than %d fields",
                         d->name, RT_PJ_MAXFIELDS);
    int type;
    if (rt_pj_span_is(w[1], "string") || rt_pj_span_is(w[1], "color"))
        type = T_STRING;
    else if (rt_pj_span_is(w[1], "date") || rt_pj_span_is(w[1], "double") || rt_pj_span_is(w[1], "float"))
        type = T_NUMBER;
    else if (rt_pj_span_is(w[1], "int"))
        type = T_INT;
    else if (rt_pj_span_is(w[1], "hex"))
        type = T_HEX;
    else
        return rt_err_at(err, RT_EFORMAT, file, line, "%%EventDef %s: field %.*s: unknown type '%.*s'",
                         d->name, (int)w[0].n, w[0].p, (int)w[1].n, w[1].p);
    for (size_t k = 0; k < sizeof field_names / sizeof *field_names; k++) {
        if (!rt_pj_span_is(w[0], field_names[k].name))
            continue;
        int f = field_names[k].field;
        if (d->pos[f] >= 0)
            return rt_err_at(err, RT_EFORMAT, file, line, "%%EventDef %s: field %.*s defined twice",
                             d->name, (int)w[0].n, w[0].p);
        d->pos[f] = (signed char)d->nfields;
    }
    d->type[d->nfields++] = (unsigned char)type;
    return RT_OK;
}

int rt_pj_fmt_end(const rt_pjfmt *r, const char *file, unsigned long line, rt_err *err)
{
    if (r->open)
        return rt_err_at(err, RT_EFORMAT, file, line,
                         "%%EventDef %s (line %lu): no %%EndEventDef before the end of the file",
                         r->open->name, r->open->line);
    return RT_OK;
}

void rt_pj_fmt_free(rt_pjfmt *r)
{
    for (size_t i = 0; i < r->ndefs; i++)
        if (r->defs[i]) {
            free(r->defs[i]->name);
            free(r->defs[i]);
        }
    free(r->defs);
    memset(r, 0, sizeof *r);
}

/* The name of a definition's i-th field, for messages. */
static const char *field_name(const rt_pjdef *d, int i)
{
    for (size_t k = 0; k < sizeof field_names / sizeof *field_names; k++)
        if (d->pos[field_names[k].field] == i)
            return field_names[k].name;
    return "field";
}

int rt_pj_decode(const rt_pjfmt *r, const char *file, unsigned long line, const char *p,
                 const char *e, const rt_pjdef **def, rt_span *fld, double *time, rt_err *err)
{
    const char *q = p;
    while (q < e && *q != ' ' && *q != '\t' && *q != '\r' && *q != '#')
        q++;
    rt_span ids = {p, (size_t)(q - p)};
    long id;
    if (!rt_span_long(ids, &id))
        return rt_err_at(err, RT_EFORMAT, file, line, "event id '%.*s': not a number", (int)ids.n,
                         ids.p);
    if (r->open)
        return rt_err_at(err, RT_EFORMAT, file, line, "%%EventDef %s (line %lu): no %%EndEventDef",
                         r->open->name, r->open->line);
    if (id < 0 || (size_t)id >= r->ndefs || !r->defs[id])
        return rt_err_at(err, RT_EFORMAT, file, line, "event id %ld: not defined", id);
    const rt_pjdef *d = *def = r->defs[id];
    int nf, st;
    if ((st = split(file, line, q, e, fld, RT_PJ_MAXFIELDS, &nf, err)) != RT_OK)
        return st;
    if (nf != d->nfields)
        return rt_err_at(err, RT_EFORMAT, file, line,
                         "%s: %d fields after the event id, its %%EventDef (line %lu) has %d", d->name,
                         nf, d->line, d->nfields);
    /* every numeric field must be a number; keep the time */
    *time = 0;
    for (int i = 0; i < nf; i++) {
        double x = 0;
        long l;
        uint64_t h;
        int ok = d->type[i] == T_STRING   ? 1
                 : d->type[i] == T_NUMBER ? rt_pj_number(fld[i], &x)
                 : d->type[i] == T_INT    ? rt_span_long(fld[i], &l)
                                          : rt_span_hex(fld[i], &h);
        /* a time declared as a string must still be a number */
        if (ok && i == d->pos[F_TIME] && d->type[i] != T_NUMBER)
            ok = rt_pj_number(fld[i], &x);
        if (!ok)
            return rt_err_at(err, RT_EFORMAT, file, line, "%s: bad number '%.*s' (field %d)",
                             field_name(d, i), (int)fld[i].n, fld[i].p, i + 1);
        if (i == d->pos[F_TIME])
            *time = x;
        if (d->type[i] == T_STRING && memchr(fld[i].p, '\0', fld[i].n)) {
            /* names: C strings downstream would cut them at a NUL (the message made only then) */
            char what[160];
            snprintf(what, sizeof what, "%s: %s", d->name, field_name(d, i));
            if ((st = rt_field_name(fld[i].p, fld[i].n, file, line, what, err)) != RT_OK)
                return st;
        }
    }
    return RT_OK;
}

int rt_paje_sniff(const char *path, const unsigned char *head, size_t n)
{
    (void)path;
    const char *p = (const char *)head, *e = p + n;
    while (head && p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        const char *le = nl ? nl : e;
        const char *cur = p;
        rt_span w[3];
        int k = 0;
        while (cur < le && (*cur == ' ' || *cur == '\t' || *cur == '\r'))
            cur++;
        if (cur < le && *cur != '#') {
            if (*cur++ != '%')
                return 0;
            while (k < 3 && rt_tok_next(&cur, le, &w[k]))
                k++;
            long id;
            return k == 3 && rt_pj_span_is(w[0], "EventDef") && rt_span_long(w[2], &id) && id >= 0;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}
