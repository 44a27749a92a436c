/* rt_shmap.c - SHMAP trace reader: first pass, validation, streaming (see rt_shmap.h). */
#include "rt_shmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_field.h"
#include "rt_lines.h"
#include "rt_mem.h"

struct rt_shmap {
    rt_lines *in;
    int scanning;               /* first pass: definitions are recorded and checked */
    const char *cur, *end;      /* unread part of the current line */
    int have_line;              /* cur/end point into a line */
    rt_shmap_matrix *mat;       /* definitions; sorted by ID after the first pass */
    int nmat;
    size_t capmat;
    int *slot;                  /* open-addressing table ID -> matrix index (-1 empty) */
    int nslot;                  /* power of two, > 2 * nmat */
    char *text;                 /* copy of the current record's text (NUL-terminated) */
    size_t captext;
    int in_section, in_group;   /* nesting while scanning */
    unsigned long section_line, group_line;
    int have_time;
    double last_time;
    rt_shmap_info info;
};

static const char *op_name(int op)
{
    switch (op) {
    case RT_SHM_DEFINE: return "define";
    case RT_SHM_LOAD: return "load";
    case RT_SHM_STORE: return "store";
    case RT_SHM_INFO: return "info";
    case RT_SHM_FLOPS: return "flops";
    case RT_SHM_PAR_START: return "parallel start";
    case RT_SHM_PAR_END: return "parallel end";
    case RT_SHM_GROUP_START: return "group start";
    default: return "group end";
    }
}

/* ---- ID table ---- */

static unsigned hash_id(long id) { return (unsigned)((unsigned long)id * 2654435761u); }

static int slot_find(const rt_shmap *r, long id)
{
    if (!r->nslot)
        return -1;
    unsigned m = (unsigned)r->nslot - 1;
    for (unsigned h = hash_id(id) & m;; h = (h + 1) & m) {
        int i = r->slot[h];
        if (i < 0)
            return -1;
        if (r->mat[i].id == id)
            return i;
    }
}

static int slot_rebuild(rt_shmap *r, int want)
{
    int n = 16;
    while (n <= 2 * want)
        n *= 2;
    int *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return RT_ENOMEM;
    for (int i = 0; i < n; i++)
        s[i] = -1;
    free(r->slot);
    r->slot = s;
    r->nslot = n;
    for (int i = 0; i < r->nmat; i++) {
        unsigned m = (unsigned)n - 1, h = hash_id(r->mat[i].id) & m;
        while (s[h] >= 0)
            h = (h + 1) & m;
        s[h] = i;
    }
    return RT_OK;
}

static int add_matrix(rt_shmap *r, long id, long rows, long cols, unsigned long line)
{
    if (rt_grow((void **)&r->mat, &r->capmat, (size_t)r->nmat + 1, sizeof *r->mat) != RT_OK)
        return RT_ENOMEM;
    r->mat[r->nmat++] = (rt_shmap_matrix){(int)id, (int)rows, (int)cols, line};
    if (2 * r->nmat >= r->nslot)
        return slot_rebuild(r, r->nmat);
    unsigned m = (unsigned)r->nslot - 1, h = hash_id(id) & m;
    while (r->slot[h] >= 0)
        h = (h + 1) & m;
    r->slot[h] = r->nmat - 1;
    return RT_OK;
}

static int cmp_id(const void *a, const void *b)
{
    int x = ((const rt_shmap_matrix *)a)->id, y = ((const rt_shmap_matrix *)b)->id;
    return (x > y) - (x < y);
}

/* ---- tokens across lines ---- */

/* Next token, reading lines as needed. RT_OK, RT_EEOF, or an I/O error. */
static int next_tok(rt_shmap *r, rt_span *tok, rt_err *err)
{
    for (;;) {
        if (r->have_line && rt_tok_next(&r->cur, r->end, tok))
            return RT_OK;
        const char *line;
        size_t len;
        int st = rt_lines_next(r->in, &line, &len, err);
        if (st != RT_OK) {
            r->have_line = 0;
            return st;
        }
        r->cur = line;
        r->end = line + len;
        r->have_line = 1;
    }
}

/* r->text = the n characters at p (NUL-terminated). RT_OK or RT_ENOMEM. */
static unsigned long lineno(const rt_shmap *r);

/* Copy a text field (a label, a name) into r->text; a NUL byte in it is refused
 * (field names it), memory failures are RT_ENOMEM with err filled. */
static int set_text(rt_shmap *r, const char *p, size_t n, const char *field, rt_err *err)
{
    int st = rt_field_name(p, n, rt_lines_name(r->in), lineno(r), field, err);
    if (st != RT_OK)
        return st;
    if (rt_grow((void **)&r->text, &r->captext, n + 1, 1) != RT_OK)
        return rt_err_at(err, RT_ENOMEM, rt_lines_name(r->in), lineno(r), "out of memory");
    memcpy(r->text, p, n);
    r->text[n] = '\0';
    return RT_OK;
}

/* The rest of the current line, trimmed, copied into r->text. */
static int rest_of_line(rt_shmap *r, const char *field, rt_err *err)
{
    const char *p = r->have_line ? r->cur : "", *e = r->have_line ? r->end : p;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    int st = set_text(r, p, (size_t)(e - p), field, err);
    if (st != RT_OK)
        return st;
    if (r->have_line)
        r->cur = r->end;
    return RT_OK;
}

static unsigned long lineno(const rt_shmap *r) { return rt_lines_lineno(r->in); }

static int fail(rt_shmap *r, rt_err *err, unsigned long line, const char *fmt, const char *a,
                const char *b)
{
    char what[300];
    snprintf(what, sizeof what, fmt, a, b);
    return rt_err_at(err, RT_EFORMAT, rt_lines_name(r->in), line, "%s", what);
}

/* Read one field: a token that must be an integer (or a number when real). */
static int field(rt_shmap *r, int op, const char *name, int real, long *iv, double *dv,
                 rt_err *err)
{
    rt_span t;
    int st = next_tok(r, &t, err);
    if (st == RT_EEOF)
        return fail(r, err, lineno(r), "%s event: missing field %s", op_name(op), name);
    if (st != RT_OK)
        return st;
    int ok;
    long whole;
    if (real && t.n <= 15 && rt_span_long(t, &whole)) { /* an integer time stamp: exact, no strtod */
        *dv = (double)whole;
        ok = 1;
    } else {
        ok = real ? rt_span_double(t, dv) : rt_span_long(t, iv);
    }
    if (!ok) {
        char tokbuf[RT_EXCERPT_CAP];
        char what[300];
        snprintf(what, sizeof what, "%s event: field %s: not %s '%s'", op_name(op), name,
                 real ? "a number" : "an integer", rt_excerpt(t.p, t.n, 0, tokbuf, sizeof tokbuf));
        return rt_err_at(err, RT_EFORMAT, rt_lines_name(r->in), lineno(r), "%s", what);
    }
    return RT_OK;
}

#define FIELD_INT(name, var)                                           \
    do {                                                               \
        st = field(r, op, name, 0, &(var), NULL, err);                 \
        if (st != RT_OK)                                               \
            return st;                                                 \
    } while (0)

/* The matrix of an event: ID must be defined (before use). */
static int matrix_ref(rt_shmap *r, int op, long id, int *idx, rt_err *err)
{
    int i = slot_find(r, id);
    if (i < 0) {
        return rt_err_at(err, RT_EFORMAT, rt_lines_name(r->in), lineno(r),
                         "%s event: field ID: matrix %ld is not defined", op_name(op), id);
    }
    *idx = i;
    return RT_OK;
}

static int check_span(rt_shmap *r, int op, const char *what, long a, long b, int limit,
                      const rt_shmap_matrix *m, rt_err *err)
{
    const char *name = rt_lines_name(r->in);
    if (a < 1 || a > limit || b < 1 || b > limit) {
        long bad = (a < 1 || a > limit) ? a : b;
        return rt_err_at(err, RT_EFORMAT, name, lineno(r),
                         "%s event: %s %ld outside matrix %d (%d x %d)", op_name(op), what, bad,
                         m->id, m->rows, m->cols);
    }
    if (a > b)
        return rt_err_at(err, RT_EFORMAT, name, lineno(r), "%s event: %ss %ld..%ld reversed",
                         op_name(op), what, a, b);
    return RT_OK;
}

/* Parse the record after its opcode token. */
static int parse_record(rt_shmap *r, int op, rt_shmap_event *ev, rt_err *err)
{
    int st;
    long id, a, b, c, d;
    const char *name = rt_lines_name(r->in);
    ev->matrix = -1;
    ev->text = "";
    switch (op) {
    case RT_SHM_DEFINE: {
        long rows, cols;
        FIELD_INT("ID", id);
        FIELD_INT("ROWS", rows);
        FIELD_INT("COLS", cols);
        if (id < 1 || id > 0x7fffffff)
            return rt_err_at(err, RT_EFORMAT, name, lineno(r),
                             "define event: field ID: %ld is not a positive integer", id);
        if (rows < 1 || rows > 0x7fffffff)
            return rt_err_at(err, RT_EFORMAT, name, lineno(r),
                             "define event: field ROWS: %ld is not positive", rows);
        if (cols < 1 || cols > 0x7fffffff)
            return rt_err_at(err, RT_EFORMAT, name, lineno(r),
                             "define event: field COLS: %ld is not positive", cols);
        int i = slot_find(r, id);
        if (r->scanning) {
            if (i >= 0)
                return rt_err_at(err, RT_EFORMAT, name, lineno(r),
                                 "define event: matrix %ld redefined (first defined at line %lu)",
                                 id, r->mat[i].line);
            if ((uint64_t)rows * (uint64_t)cols > (1ull << 40))
                return rt_err_at(err, RT_EFORMAT, name, lineno(r),
                                 "define event: matrix %ld: %ld x %ld is too large", id, rows,
                                 cols);
            if (add_matrix(r, id, rows, cols, lineno(r)) != RT_OK)
                return rt_err_at(err, RT_ENOMEM, name, lineno(r), "out of memory");
            i = slot_find(r, id);
        }
        ev->matrix = i;
        ev->r1 = ev->c1 = 1;
        ev->r2 = (int)rows;
        ev->c2 = (int)cols;
        return RT_OK;
    }
    case RT_SHM_LOAD:
    case RT_SHM_STORE: {
        double t;
        int i;
        FIELD_INT("ID", id);
        if ((st = matrix_ref(r, op, id, &i, err)) != RT_OK)
            return st;
        FIELD_INT("R1", a);
        FIELD_INT("R2", b);
        FIELD_INT("C1", c);
        FIELD_INT("C2", d);
        if ((st = field(r, op, "TIME", 1, NULL, &t, err)) != RT_OK)
            return st;
        const rt_shmap_matrix *m = &r->mat[i];
        if ((st = check_span(r, op, "row", a, b, m->rows, m, err)) != RT_OK)
            return st;
        if ((st = check_span(r, op, "column", c, d, m->cols, m, err)) != RT_OK)
            return st;
        ev->matrix = i;
        ev->r1 = (int)a;
        ev->r2 = (int)b;
        ev->c1 = (int)c;
        ev->c2 = (int)d;
        ev->time = t;
        return RT_OK;
    }
    case RT_SHM_INFO: {
        int i;
        FIELD_INT("ID", id);
        if ((st = matrix_ref(r, op, id, &i, err)) != RT_OK)
            return st;
        if ((st = rest_of_line(r, "info event: field TEXT", err)) != RT_OK)
            return st;
        ev->matrix = i;
        ev->text = r->text;
        return RT_OK;
    }
    case RT_SHM_FLOPS: {
        int i;
        long flops;
        rt_span t;
        FIELD_INT("ID", id);
        if ((st = matrix_ref(r, op, id, &i, err)) != RT_OK)
            return st;
        FIELD_INT("FLOPS", flops);
        if (flops < 0)
            return rt_err_at(err, RT_EFORMAT, name, lineno(r),
                             "flops event: field FLOPS: %ld is negative", flops);
        st = next_tok(r, &t, err);
        if (st == RT_EEOF)
            return rt_err_at(err, RT_EFORMAT, name, lineno(r), "flops event: missing field NAME");
        if (st != RT_OK)
            return st;
        if ((st = set_text(r, t.p, t.n, "flops event: field NAME", err)) != RT_OK)
            return st;
        ev->matrix = i;
        ev->flops = flops;
        ev->text = r->text;
        return RT_OK;
    }
    default: /* markers: a label to the end of the line */
        if ((st = rest_of_line(r, "marker: field LABEL", err)) != RT_OK)
            return st;
        ev->text = r->text;
        return RT_OK;
    }
}

/* First-pass bookkeeping and structure checks for one record. */
static int account(rt_shmap *r, const rt_shmap_event *ev, rt_err *err)
{
    const char *name = rt_lines_name(r->in);
    rt_shmap_info *in = &r->info;
    in->records++;
    switch (ev->op) {
    case RT_SHM_PAR_START:
        if (r->in_group)
            return rt_err_at(err, RT_EFORMAT, name, ev->line,
                             "parallel start: inside the group opened at line %lu", r->group_line);
        if (r->in_section)
            return rt_err_at(err, RT_EFORMAT, name, ev->line,
                             "parallel start: inside the parallel section opened at line %lu",
                             r->section_line);
        r->in_section = 1;
        r->section_line = ev->line;
        in->sections++;
        return RT_OK;
    case RT_SHM_PAR_END:
        if (!r->in_section)
            return rt_err_at(err, RT_EFORMAT, name, ev->line,
                             "parallel end: no parallel section is open");
        if (r->in_group)
            return rt_err_at(err, RT_EFORMAT, name, ev->line,
                             "parallel end: the group opened at line %lu is still open",
                             r->group_line);
        r->in_section = 0;
        return RT_OK;
    case RT_SHM_GROUP_START:
        if (r->in_group)
            return rt_err_at(err, RT_EFORMAT, name, ev->line,
                             "group start: inside the group opened at line %lu", r->group_line);
        r->in_group = 1;
        r->group_line = ev->line;
        in->groups++;
        return RT_OK;
    case RT_SHM_GROUP_END:
        if (!r->in_group)
            return rt_err_at(err, RT_EFORMAT, name, ev->line, "group end: no group is open");
        r->in_group = 0;
        return RT_OK;
    case RT_SHM_LOAD:
    case RT_SHM_STORE: {
        uint64_t n = (uint64_t)(ev->r2 - ev->r1 + 1) * (uint64_t)(ev->c2 - ev->c1 + 1);
        if (ev->op == RT_SHM_LOAD) {
            in->loads++;
            in->load_elements += n;
        } else {
            in->stores++;
            in->store_elements += n;
        }
        if (!r->have_time) {
            in->time_first = in->time_last = ev->time;
            r->have_time = 1;
        } else {
            double step = ev->time - r->last_time;
            if (step < 0)
                step = -step;
            if (step > 0 && (in->min_step == 0 || step < in->min_step))
                in->min_step = step;
            if (ev->time > in->time_last)
                in->time_last = ev->time;
        }
        r->last_time = ev->time;
        break;
    }
    case RT_SHM_FLOPS:
        in->flops += ev->flops;
        break;
    case RT_SHM_DEFINE: /* taken here, not an event of the run */
        return RT_OK;
    default:
        break;
    }
    in->events++;
    return RT_OK;
}

int rt_shmap_next(rt_shmap *r, rt_shmap_event *ev, rt_err *err)
{
    rt_span t;
    int st = next_tok(r, &t, err);
    if (st != RT_OK)
        return st;
    long op;
    const char *name = rt_lines_name(r->in);
    if (!rt_span_long(t, &op)) {
        char tokbuf[RT_EXCERPT_CAP];
        return rt_err_at(err, RT_EFORMAT, name, lineno(r), "opcode: not an integer '%s'",
                         rt_excerpt(t.p, t.n, 0, tokbuf, sizeof tokbuf));
    }
    if (op < 0 || op > 9)
        return rt_err_at(err, RT_EFORMAT, name, lineno(r), "opcode: unknown value %ld", op);
    if (op == 4)
        op = RT_SHM_INFO;
    memset(ev, 0, sizeof *ev);
    ev->op = (int)op;
    ev->line = lineno(r);
    st = parse_record(r, (int)op, ev, err);
    if (st != RT_OK)
        return st;
    if (r->scanning)
        return account(r, ev, err);
    return RT_OK;
}

int rt_shmap_rewind(rt_shmap *r, rt_err *err)
{
    r->have_line = 0;
    return rt_lines_rewind(r->in, err);
}

static int first_pass(rt_shmap *r, rt_err *err)
{
    rt_shmap_event ev;
    int st;
    r->scanning = 1;
    while ((st = rt_shmap_next(r, &ev, err)) == RT_OK)
        ;
    if (st != RT_EEOF)
        return st;
    const char *name = rt_lines_name(r->in);
    if (r->in_group)
        return rt_err_at(err, RT_EFORMAT, name, r->group_line,
                         "group start: group never closed (end of file at line %lu)",
                         lineno(r));
    if (r->in_section)
        return rt_err_at(err, RT_EFORMAT, name, r->section_line,
                         "parallel start: parallel section never closed (end of file at line %lu)",
                         lineno(r));
    r->info.lines = lineno(r);
    r->scanning = 0;
    if (r->nmat > 1)
        qsort(r->mat, (size_t)r->nmat, sizeof *r->mat, cmp_id);
    if (slot_rebuild(r, r->nmat) != RT_OK)
        return rt_err_at(err, RT_ENOMEM, name, 0, "out of memory");
    return rt_shmap_rewind(r, err);
}

rt_shmap *rt_shmap_open(const char *path, rt_err *err)
{
    if (strcmp(path, "-") == 0) {
        rt_err_set(err, RT_EINVAL, "-: a SHMAP trace is read twice and cannot come from standard input");
        return NULL;
    }
    rt_shmap *r = calloc(1, sizeof *r);
    if (!r) {
        rt_err_at(err, RT_ENOMEM, path, 0, "out of memory");
        return NULL;
    }
    r->in = rt_lines_open(path, err);
    if (!r->in || slot_rebuild(r, 0) != RT_OK || first_pass(r, err) != RT_OK) {
        if (r->in && !r->slot)
            rt_err_at(err, RT_ENOMEM, path, 0, "out of memory");
        rt_shmap_free(r);
        return NULL;
    }
    return r;
}

void rt_shmap_free(rt_shmap *r)
{
    if (!r)
        return;
    rt_lines_free(r->in);
    free(r->mat);
    free(r->slot);
    free(r->text);
    free(r);
}

const rt_shmap_info *rt_shmap_get_info(const rt_shmap *r) { return &r->info; }
int rt_shmap_matrix_count(const rt_shmap *r) { return r->nmat; }
const rt_shmap_matrix *rt_shmap_matrix_at(const rt_shmap *r, int i) { return &r->mat[i]; }
int rt_shmap_matrix_index(const rt_shmap *r, long id) { return slot_find(r, id); }
const char *rt_shmap_name(const rt_shmap *r) { return rt_lines_name(r->in); }

uint64_t rt_shmap_layout(const rt_shmap *r, uint64_t line, uint64_t *base)
{
    uint64_t at = 0;
    if (line < 1)
        line = 1;
    for (int i = 0; i < r->nmat; i++) {
        at = (at + line - 1) / line * line;
        base[i] = at;
        at += (uint64_t)r->mat[i].rows * (uint64_t)r->mat[i].cols;
    }
    return at;
}
