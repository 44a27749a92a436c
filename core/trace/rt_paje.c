/*
 * rt_paje.c - the Pajé reader (see rt_paje.h for the mapping onto the neutral
 * event stream).
 *
 * Shaped for SimGrid and akypuera traces of 10^8 lines: one pass over the text,
 * one hash lookup per identifier in a line (container, type, value), numbers
 * parsed by a fast exact path before falling back to strtod. What is kept
 * grows with the definitions (types, containers, values) and with the links
 * in flight, not with the trace: a SEND waits in a small queue only until the
 * end of its link is read, because the Pajé start line does not name the
 * receiver.
 */
#include "rt_paje.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_chanmap.h"
#include "rt_field.h"
#include "rt_lines.h"
#include "rt_mem.h"
#include "rt_paje_fmt.h"
#include "rt_strmap.h"

/* ---- the simulated trace ---- */

typedef struct pj_type {
    int kind;        /* K_CTYPE, K_STYPE, K_ETYPE, K_VTYPE or K_LTYPE */
    int parent;      /* the container type it lives in */
    char *name;
} pj_type;

/* The states open for one state type on one container, outermost first. */
typedef struct pj_stack {
    int stype;
    int n, cap;
    int *reg;
} pj_stack;

typedef struct pj_cont {
    char *name;
    int parent, type;
    int proc;             /* processor index, -1 until it holds something */
    int child, sibling;   /* first sub-container; next container of the same parent */
    int destroyed;
    pj_stack *st;         /* one per state type used on it */
    int nst;
} pj_cont;

/* A value of a state, event or link type. */
typedef struct pj_val {
    int region;           /* state / event values: region id; link values: -1 */
    double bytes;         /* link values: the name as a number, else 0 */
} pj_val;

/* A link whose one end has been read. */
typedef struct pj_plink {
    uint64_t seq;         /* queue position of that end's event */
    int64_t tag;
    int proc;             /* the processor of that end */
} pj_plink;

/* A variable's value on a container (key: container, variable type). */
typedef struct pj_var {
    rt_chankey key;
    double value;
} pj_var;

typedef struct pj_qent {
    rt_tevent ev;
    int waiting;          /* a link end whose peer is not read yet */
} pj_qent;

typedef struct pj {
    rt_tsource base;      /* first: the reader is handed out as an rt_tsource */
    rt_lines *lines;
    const char *file;     /* = base.path, for messages */
    rt_err stuck;         /* a failure, returned again by every later call */

    rt_pjfmt fmt;         /* the %EventDef definitions */

    pj_type *types;
    size_t ntypes, captypes;
    pj_cont *conts;
    size_t nconts, capconts;
    pj_val *vals;
    size_t nvals, capvals;
    pj_plink *plinks;     /* pool; free slots chained through proc */
    size_t nplinks, capplinks;
    int plink_free;
    rt_strmap *tnames;    /* scope 0: type identifiers -> index */
    rt_strmap *cnames;    /* scope 0: container identifiers -> index */
    rt_strmap *vnames;    /* scope = type: value identifiers -> index into vals */
    rt_strmap *links;     /* scope = link type: container + key -> index into plinks */
    rt_chanmap vars;      /* pj_var: the variables' values */
    char *keybuf;
    size_t capkey;

    int nprocs, nregions;
    int64_t ntags;
    double last;          /* the largest time read */
    int have_time, order_warned, late_warned, finished;

    pj_qent *q;           /* look-ahead ring, capacity qmask + 1 */
    size_t qmask;
    uint64_t qhead, qtail;

    rt_paje_stats stats;
} pj;

static const rt_tsource_ops paje_ops;

/* ---- small helpers ---- */

static int oom(pj *r, rt_err *err)
{
    return rt_err_set(err, RT_ENOMEM, "%s: out of memory", r->file);
}

/* ---- the look-ahead queue ---- */

static pj_qent *q_push(pj *r, int kind, int proc, double time, rt_err *err)
{
    if (r->qtail - r->qhead > r->qmask) {
        size_t cap = (r->qmask + 1) * 2;
        pj_qent *nq = malloc(cap * sizeof *nq);
        if (!nq) {
            oom(r, err);
            return NULL;
        }
        for (uint64_t s = r->qhead; s < r->qtail; s++)
            nq[s & (cap - 1)] = r->q[s & r->qmask];
        free(r->q);
        r->q = nq;
        r->qmask = cap - 1;
    }
    pj_qent *e = &r->q[r->qtail++ & r->qmask];
    rt_tevent_clear(&e->ev);
    e->ev.kind = kind;
    e->ev.proc = proc;
    e->ev.time = time;
    e->ev.line = rt_lines_lineno(r->lines);
    e->waiting = 0;
    return e;
}

/* ---- tables ---- */

static int type_find(pj *r, rt_span s)
{
    int64_t *v = rt_strmap_get(r->tnames, 0, s.p, s.n);
    return v ? (int)*v : -1;
}

static int cont_find(pj *r, rt_span s)
{
    int64_t *v = rt_strmap_get(r->cnames, 0, s.p, s.n);
    return v ? (int)*v : -1;
}

/* The container named by field f of a line, or an error naming that field. */
static int cont_field(pj *r, const char *field, rt_span s, int *ci, rt_err *err)
{
    if ((*ci = cont_find(r, s)) < 0)
        return rt_err_at(err, RT_EFORMAT, r->file, rt_lines_lineno(r->lines),
                         "%s: unknown container '%.*s'", field, (int)s.n, s.p);
    return RT_OK;
}

/* The type named by s, which must be of kind want. */
static int type_field(pj *r, rt_span s, int want, int *ti, rt_err *err)
{
    static const char *const what[] = {"container", "state", "event", "variable", "link"};
    if ((*ti = type_find(r, s)) < 0)
        return rt_err_at(err, RT_EFORMAT, r->file, rt_lines_lineno(r->lines),
                         "Type: unknown type '%.*s'", (int)s.n, s.p);
    if (r->types[*ti].kind != want)
        return rt_err_at(err, RT_EFORMAT, r->file, rt_lines_lineno(r->lines),
                         "Type: '%.*s' is not a %s type", (int)s.n, s.p, what[want - K_CTYPE]);
    return RT_OK;
}

/*
 * File an object under its identifier (the alias, else the name) and, when it
 * has an alias, also under its name unless another holds it: PajeNG keeps both
 * maps, and traces refer to either.
 */
static int name_it(pj *r, rt_strmap *m, int64_t scope, rt_span name, rt_span alias, int64_t idx,
                   rt_err *err)
{
    rt_span id = alias.n ? alias : name;
    int64_t *v = rt_strmap_put(m, scope, id.p, id.n, NULL);
    if (!v)
        return oom(r, err);
    *v = idx;
    int created;
    if (alias.n && (v = rt_strmap_put(m, scope, name.p, name.n, &created)) && created)
        *v = idx;
    return RT_OK;
}

static int type_add(pj *r, int kind, int parent, rt_span name, rt_span alias, rt_err *err)
{
    unsigned long line = rt_lines_lineno(r->lines);
    rt_span id = alias.n ? alias : name;
    if (type_find(r, id) >= 0)
        return rt_err_at(err, RT_EFORMAT, r->file, line, "%s: type '%.*s' already defined",
                         alias.n ? "Alias" : "Name", (int)id.n, id.p);
    if (rt_grow((void **)&r->types, &r->captypes, r->ntypes + 1, sizeof *r->types) != RT_OK)
        return oom(r, err);
    pj_type *t = &r->types[r->ntypes];
    if (!(t->name = rt_pj_span_dup(name)))
        return oom(r, err);
    t->kind = kind;
    t->parent = parent;
    r->ntypes++;
    return name_it(r, r->tnames, 0, name, alias, (int64_t)r->ntypes - 1, err);
}

static int cont_add(pj *r, int parent, int type, rt_span name, rt_span alias, rt_err *err)
{
    rt_span id = alias.n ? alias : name;
    if (cont_find(r, id) >= 0)
        return rt_err_at(err, RT_EFORMAT, r->file, rt_lines_lineno(r->lines),
                         "%s: container '%.*s' already exists", alias.n ? "Alias" : "Name",
                         (int)id.n, id.p);
    if (rt_grow((void **)&r->conts, &r->capconts, r->nconts + 1, sizeof *r->conts) != RT_OK)
        return oom(r, err);
    int ci = (int)r->nconts;
    pj_cont *c = &r->conts[ci];
    memset(c, 0, sizeof *c);
    if (!(c->name = rt_pj_span_dup(name)))
        return oom(r, err);
    c->parent = parent;
    c->type = type;
    c->proc = -1;
    c->child = -1;
    c->sibling = -1;
    if (parent >= 0) {
        c->sibling = r->conts[parent].child;
        r->conts[parent].child = ci;
    }
    r->nconts++;
    return name_it(r, r->cnames, 0, name, alias, ci, err);
}

/* The processor of container ci, made on first use: name, and the path of names from the top. */
static int cont_proc(pj *r, int ci, int *proc, rt_err *err)
{
    pj_cont *c = &r->conts[ci];
    if (c->proc >= 0) {
        *proc = c->proc;
        return RT_OK;
    }
    size_t len = 0;
    for (int a = ci; a > 0; a = r->conts[a].parent)
        len += strlen(r->conts[a].name) + 1;
    char *path = malloc(len + 1);
    if (!path)
        return oom(r, err);
    size_t end = len ? len - 1 : 0;
    path[end] = '\0';
    for (int a = ci; a > 0; a = r->conts[a].parent) {
        size_t n = strlen(r->conts[a].name);
        end -= n;
        memcpy(path + end, r->conts[a].name, n);
        if (end > 0)
            path[--end] = '/';
    }
    int st = rt_tdefs_set_proc(r->base.defs, r->nprocs, c->name, path);
    free(path);
    if (st != RT_OK)
        return st == RT_ENOMEM ? oom(r, err)
                               : rt_err_at(err, st, r->file, rt_lines_lineno(r->lines),
                                           "Container: more than %d processors", RT_TE_MAXPROC);
    *proc = c->proc = r->nprocs++;
    return RT_OK;
}

/*
 * The value s of type ti (a state, event or link type), defined on first use
 * as PajeNG does; name is its name (s itself unless defined with an alias).
 */
static int value_get(pj *r, int ti, rt_span s, rt_span name, pj_val **out, rt_err *err)
{
    int created;
    int64_t *v = rt_strmap_put(r->vnames, ti, s.p, s.n, &created);
    if (!v)
        return oom(r, err);
    if (!created) {
        *out = &r->vals[*v];
        return RT_OK;
    }
    *v = (int64_t)r->nvals;
    if (rt_grow((void **)&r->vals, &r->capvals, r->nvals + 1, sizeof *r->vals) != RT_OK)
        return oom(r, err);
    pj_val *val = &r->vals[r->nvals++];
    val->region = -1;
    val->bytes = 0;
    if (r->types[ti].kind == K_LTYPE) {
        double b;
        if (rt_pj_number(name, &b))
            val->bytes = b;
    } else {
        char *nm = rt_pj_span_dup(name);
        if (!nm)
            return oom(r, err);
        val->region = r->nregions++;
        int st = rt_tdefs_add_region(r->base.defs, val->region, nm, r->types[ti].name,
                                     rt_tclass_guess(nm));
        free(nm);
        if (st != RT_OK)
            return oom(r, err);
    }
    *out = val;
    return RT_OK;
}

static pj_stack *stack_of(pj *r, pj_cont *c, int stype, rt_err *err)
{
    for (int i = 0; i < c->nst; i++)
        if (c->st[i].stype == stype)
            return &c->st[i];
    pj_stack *ns = realloc(c->st, (size_t)(c->nst + 1) * sizeof *ns);
    if (!ns) {
        oom(r, err);
        return NULL;
    }
    c->st = ns;
    pj_stack *s = &c->st[c->nst++];
    memset(s, 0, sizeof *s);
    s->stype = stype;
    return s;
}

/* LEAVE the innermost n states of stack s on processor proc at time t. */
static int leave(pj *r, pj_stack *s, int n, int proc, double t, rt_err *err)
{
    for (; n > 0 && s->n > 0; n--) {
        pj_qent *e = q_push(r, RT_TE_LEAVE, proc, t, err);
        if (!e)
            return RT_ENOMEM;
        e->ev.region = s->reg[--s->n];
    }
    return RT_OK;
}

/* Leave every state open on container ci and, when deep, on its sub-containers. */
static int close_all(pj *r, int ci, double t, int deep, rt_err *err)
{
    pj_cont *c = &r->conts[ci];
    if (c->destroyed)
        return RT_OK;
    for (int i = 0; i < c->nst; i++) {
        if (c->st[i].n == 0)
            continue;
        int st = leave(r, &c->st[i], c->st[i].n, c->proc, t, err);
        if (st != RT_OK)
            return st;
    }
    for (int k = deep ? c->child : -1; k >= 0; k = r->conts[k].sibling) {
        int st = close_all(r, k, t, 1, err);
        if (st != RT_OK)
            return st;
        r->conts[k].destroyed = 1;
    }
    return RT_OK;
}

/* ---- event lines ---- */

static void saw_time(pj *r, double t)
{
    if (r->have_time && t < r->last) {
        if (!r->order_warned) {
            r->order_warned = 1;
            rt_tsource_warn(&r->base, "%s:%lu: Time: %.17g is before %.17g read earlier; events stay in file order",
                            r->file, rt_lines_lineno(r->lines), t, r->last);
        }
        return;
    }
    r->last = t;
    r->have_time = 1;
}

/* A link end: the SEND (start) or RECV (end) of the link keyed by (type, container, key). */
static int link_end(pj *r, int kind, int ti, int ci, int end_ci, rt_span key, double t,
                    double bytes, rt_err *err)
{
    int proc;
    int st = cont_proc(r, end_ci, &proc, err);
    if (st != RT_OK)
        return st;
    size_t need = sizeof ci + key.n;
    if (need > r->capkey) {
        char *nb = realloc(r->keybuf, need * 2);
        if (!nb)
            return oom(r, err);
        r->keybuf = nb;
        r->capkey = need * 2;
    }
    memcpy(r->keybuf, &ci, sizeof ci);
    memcpy(r->keybuf + sizeof ci, key.p, key.n);
    pj_qent *e = q_push(r, kind, proc, t, err);
    if (!e)
        return RT_ENOMEM;
    e->ev.bytes = bytes;
    int created;
    int64_t *v = rt_strmap_put(r->links, ti, r->keybuf, need, &created);
    if (!v)
        return oom(r, err);
    if (created) {
        /* the first end read: wait for the other to learn the peer */
        if (r->plink_free >= 0) {
            *v = r->plink_free;
            r->plink_free = r->plinks[r->plink_free].proc;
        } else {
            if (rt_grow((void **)&r->plinks, &r->capplinks, r->nplinks + 1, sizeof *r->plinks) != RT_OK) {
                rt_strmap_remove(r->links, ti, r->keybuf, need);
                return oom(r, err);
            }
            *v = (int64_t)r->nplinks++;
        }
        pj_plink *l = &r->plinks[*v];
        l->seq = r->qtail - 1;
        l->tag = r->ntags++;
        l->proc = proc;
        e->ev.tag = l->tag;
        e->waiting = 1;
        return RT_OK;
    }
    int li = (int)*v;
    pj_plink *l = &r->plinks[li];
    e->ev.peer = l->proc;
    e->ev.tag = l->tag;
    if (l->seq >= r->qhead) {
        pj_qent *other = &r->q[l->seq & r->qmask];
        other->ev.peer = proc;
        other->waiting = 0;
    }
    r->stats.links++;
    l->proc = r->plink_free;
    r->plink_free = li;
    rt_strmap_remove(r->links, ti, r->keybuf, need);
    return RT_OK;
}

/*
 * PajeSetVariable / AddVariable / SubVariable of type ti on container ci: the variable's new
 * value (0 before its first line) goes out as a COUNTER sample when the container is a
 * processor; on any other container it is kept (for later Add / Sub) and the line skipped.
 */
static int variable_sample(pj *r, int kind, int ti, int ci, double num, double t, rt_err *err)
{
    pj_var *v = rt_chanmap_get(&r->vars, ci, ti, 0, 0);
    if (!v)
        return oom(r, err);
    v->value = kind == K_SETVAR ? num : kind == K_ADDVAR ? v->value + num : v->value - num;
    int pi = r->conts[ci].proc;
    if (pi < 0) {
        r->base.skipped++;
        return RT_OK;
    }
    int counter = rt_tdefs_add_counter(r->base.defs, ti, r->types[ti].name, NULL);
    pj_qent *qe = counter < 0 ? NULL : q_push(r, RT_TE_COUNTER, pi, t, err);
    if (!qe)
        return counter < 0 ? oom(r, err) : RT_ENOMEM;
    qe->ev.region = counter;
    qe->ev.ndata = 1;
    qe->ev.data[0] = v->value;
    return RT_OK;
}

static int event_line(pj *r, const char *p, const char *e, rt_err *err)
{
    unsigned long line = rt_lines_lineno(r->lines);
    const rt_pjdef *d;
    rt_span f[RT_PJ_MAXFIELDS];
    double t, num;
    int st = rt_pj_decode(&r->fmt, r->file, line, p, e, &d, f, &t, err);
    if (st != RT_OK)
        return st;
    if (d->kind == K_UNKNOWN) {
        r->stats.unknown++;
        r->base.skipped++;
        return RT_OK;
    }
    static const rt_span none = {"", 0};
#define FIELD(x) (d->pos[x] >= 0 ? f[d->pos[x]] : none)
    if (d->pos[F_TIME] >= 0)
        saw_time(r, t);
    int ti, ci, pi;
    switch (d->kind) {
    case K_CTYPE:
    case K_STYPE:
    case K_ETYPE:
    case K_VTYPE:
    case K_LTYPE:
        if ((st = type_field(r, FIELD(F_TYPE), K_CTYPE, &ti, err)) != RT_OK)
            return st;
        if (d->kind == K_LTYPE) {
            int a, b;
            if ((a = type_find(r, FIELD(F_STARTCT))) < 0 || (b = type_find(r, FIELD(F_ENDCT))) < 0)
                return rt_err_at(err, RT_EFORMAT, r->file, line, "%s: unknown container type '%.*s'",
                                 a < 0 ? "StartContainerType" : "EndContainerType",
                                 (int)FIELD(a < 0 ? F_STARTCT : F_ENDCT).n,
                                 FIELD(a < 0 ? F_STARTCT : F_ENDCT).p);
        }
        return type_add(r, d->kind, ti, FIELD(F_NAME), FIELD(F_ALIAS), err);
    case K_VALUE: {
        rt_span ts = FIELD(F_TYPE), alias = FIELD(F_ALIAS), name = FIELD(F_NAME);
        if ((ti = type_find(r, ts)) < 0)
            return rt_err_at(err, RT_EFORMAT, r->file, line, "Type: unknown type '%.*s'", (int)ts.n, ts.p);
        int k = r->types[ti].kind;
        if (k != K_STYPE && k != K_ETYPE && k != K_LTYPE)
            return rt_err_at(err, RT_EFORMAT, r->file, line,
                             "Type: '%.*s' is not a state, event or link type", (int)ts.n, ts.p);
        rt_span idn = alias.n ? alias : name;
        if (rt_strmap_get(r->vnames, ti, idn.p, idn.n))
            return rt_err_at(err, RT_EFORMAT, r->file, line, "%s: value '%.*s' already defined",
                             alias.n ? "Alias" : "Name", (int)idn.n, idn.p);
        pj_val *val;
        if ((st = value_get(r, ti, idn, name, &val, err)) != RT_OK)
            return st;
        return name_it(r, r->vnames, ti, name, alias, val - r->vals, err);
    }
    case K_CREATE:
        if ((st = type_field(r, FIELD(F_TYPE), K_CTYPE, &ti, err)) != RT_OK ||
            (st = cont_field(r, "Container", FIELD(F_CONTAINER), &ci, err)) != RT_OK)
            return st;
        r->stats.containers++;
        return cont_add(r, ci, ti, FIELD(F_NAME), FIELD(F_ALIAS), err);
    case K_DESTROY:
        if ((st = cont_field(r, "Name", FIELD(F_NAME), &ci, err)) != RT_OK)
            return st;
        if ((st = close_all(r, ci, t, 1, err)) != RT_OK)
            return st;
        r->conts[ci].destroyed = 1;
        return RT_OK;
    case K_SETVAR:
    case K_ADDVAR:
    case K_SUBVAR:
        if ((st = type_field(r, FIELD(F_TYPE), K_VTYPE, &ti, err)) != RT_OK ||
            (st = cont_field(r, "Container", FIELD(F_CONTAINER), &ci, err)) != RT_OK)
            return st;
        if (!rt_pj_number(FIELD(F_VALUE), &num))
            return rt_err_at(err, RT_EFORMAT, r->file, line, "Value: bad number '%.*s'",
                             (int)FIELD(F_VALUE).n, FIELD(F_VALUE).p);
        r->stats.variables++;
        return variable_sample(r, d->kind, ti, ci, num, t, err);
    case K_START:
    case K_END: {
        if ((st = type_field(r, FIELD(F_TYPE), K_LTYPE, &ti, err)) != RT_OK ||
            (st = cont_field(r, "Container", FIELD(F_CONTAINER), &ci, err)) != RT_OK)
            return st;
        int endf = d->kind == K_START ? F_START : F_END, eci;
        if ((st = cont_field(r, d->kind == K_START ? "StartContainer" : "EndContainer", FIELD(endf),
                             &eci, err)) != RT_OK)
            return st;
        pj_val *val;
        if ((st = value_get(r, ti, FIELD(F_VALUE), FIELD(F_VALUE), &val, err)) != RT_OK)
            return st;
        double bytes = val->bytes, sz;
        const char *from = "Value";
        if (bytes == 0 && d->pos[F_SIZE] >= 0 && rt_pj_number(FIELD(F_SIZE), &sz)) {
            bytes = sz;
            from = "Size";
        }
        if ((st = rt_field_count(bytes, r->file, line, from, err)) != RT_OK)
            return st;
        return link_end(r, d->kind == K_START ? RT_TE_SEND : RT_TE_RECV, ti, ci, eci, FIELD(F_KEY),
                        t, bytes, err);
    }
    default:
        break;
    }
    /* states and events: a state or event type on a container that becomes a processor */
    int want = d->kind == K_EVENT ? K_ETYPE : K_STYPE;
    if ((st = type_field(r, FIELD(F_TYPE), want, &ti, err)) != RT_OK ||
        (st = cont_field(r, "Container", FIELD(F_CONTAINER), &ci, err)) != RT_OK ||
        (st = cont_proc(r, ci, &pi, err)) != RT_OK)
        return st;
    pj_val *val = NULL;
    if (d->kind == K_SET || d->kind == K_PUSH || d->kind == K_EVENT)
        if ((st = value_get(r, ti, FIELD(F_VALUE), FIELD(F_VALUE), &val, err)) != RT_OK)
            return st;
    if (d->kind == K_EVENT) {
        r->stats.events++;
        pj_qent *qe = q_push(r, RT_TE_MARKER, pi, t, err);
        if (!qe)
            return RT_ENOMEM;
        qe->ev.region = val->region;
        return RT_OK;
    }
    r->stats.states++;
    pj_stack *s = stack_of(r, &r->conts[ci], ti, err);
    if (!s)
        return RT_ENOMEM;
    if (d->kind == K_POP && s->n == 0) {
        rt_tsource_warn(&r->base, "%s:%lu: PajePopState: no state of type %s open on %s; ignored",
                        r->file, line, r->types[ti].name, r->conts[ci].name);
        return RT_OK;
    }
    int nleave = d->kind == K_PUSH ? 0 : d->kind == K_POP ? 1 : s->n;
    if ((st = leave(r, s, nleave, pi, t, err)) != RT_OK)
        return st;
    if (d->kind == K_SET || d->kind == K_PUSH) {
        if (s->n == s->cap) {
            int cap = s->cap ? s->cap * 2 : 4;
            int *nr = realloc(s->reg, (size_t)cap * sizeof *nr);
            if (!nr)
                return oom(r, err);
            s->reg = nr;
            s->cap = cap;
        }
        s->reg[s->n++] = val->region;
        pj_qent *qe = q_push(r, RT_TE_ENTER, pi, t, err);
        if (!qe)
            return RT_ENOMEM;
        qe->ev.region = val->region;
    }
    return RT_OK;
#undef FIELD
}

/* End of the file: leave every open state at the last time, as PajeNG closes its containers. */
static int finish(pj *r, rt_err *err)
{
    unsigned long line = rt_lines_lineno(r->lines);
    int st = rt_pj_fmt_end(&r->fmt, r->file, line, err);
    if (st != RT_OK)
        return st;
    for (size_t ci = 0; ci < r->nconts; ci++) {
        st = close_all(r, (int)ci, r->last, 0, err);
        if (st != RT_OK)
            return st;
    }
    size_t open = rt_strmap_count(r->links);
    if (open)
        rt_tsource_warn(&r->base, "%s: %zu link%s with one end only; sent with peer -1", r->file,
                        open, open == 1 ? "" : "s");
    r->finished = 1;
    return RT_OK;
}

/*
 * Read lines until the queue's head can go out (or the file ends); with
 * ready 0, only until the queue holds an event (open reads the header and
 * stops at the first event, whether or not it waits for a link's end).
 */
static int fill(pj *r, int ready, rt_err *err)
{
    while (!r->finished &&
           (r->qhead == r->qtail || (ready && r->q[r->qhead & r->qmask].waiting))) {
        if (r->qtail - r->qhead >= RT_PAJE_LOOKAHEAD) {
            if (!r->late_warned) {
                r->late_warned = 1;
                rt_tsource_warn(&r->base, "%s:%lu: a link stays open for more than %u events; its first end goes out with peer -1",
                                r->file, r->q[r->qhead & r->qmask].ev.line, RT_PAJE_LOOKAHEAD);
            }
            break;
        }
        const char *line;
        size_t len;
        int st = rt_lines_next(r->lines, &line, &len, err);
        if (st == RT_EEOF)
            return finish(r, err);
        if (st != RT_OK)
            return st;
        r->stats.lines++;
        const char *p = line, *e = line + len;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p == e || *p == '#' || *p == '\r')
            continue;
        st = *p == '%' ? rt_pj_header_line(&r->fmt, r->file, rt_lines_lineno(r->lines), p, e, err)
                        : event_line(r, p, e, err);
        if (st != RT_OK)
            return st;
    }
    return RT_OK;
}

/* ---- the source ---- */

static void state_free(pj *r)
{
    rt_pj_fmt_free(&r->fmt);
    for (size_t i = 0; i < r->ntypes; i++)
        free(r->types[i].name);
    free(r->types);
    for (size_t i = 0; i < r->nconts; i++) {
        free(r->conts[i].name);
        for (int k = 0; k < r->conts[i].nst; k++)
            free(r->conts[i].st[k].reg);
        free(r->conts[i].st);
    }
    free(r->conts);
    free(r->vals);
    free(r->plinks);
    free(r->keybuf);
    free(r->q);
    rt_strmap_free(r->tnames);
    rt_strmap_free(r->cnames);
    rt_strmap_free(r->vnames);
    rt_strmap_free(r->links);
    rt_chanmap_free(&r->vars);
}

/* Empty tables holding the root type and container "0". */
static int state_init(pj *r, rt_err *err)
{
    size_t off = offsetof(pj, stuck);
    memset((char *)r + off, 0, sizeof *r - off);
    r->plink_free = -1;
    r->tnames = rt_strmap_new();
    r->cnames = rt_strmap_new();
    r->vnames = rt_strmap_new();
    r->links = rt_strmap_new();
    rt_chanmap_init(&r->vars, sizeof(pj_var));
    r->q = malloc(64 * sizeof *r->q);
    r->qmask = 63;
    if (!r->tnames || !r->cnames || !r->vnames || !r->links || !r->q)
        return oom(r, err);
    rt_span root = {"0", 1}, none = {"", 0};
    int st = type_add(r, K_CTYPE, -1, root, none, err);
    if (st == RT_OK)
        st = cont_add(r, -1, 0, root, none, err);
    return st;
}

static int paje_next(rt_tsource *s, rt_tevent *ev, rt_err *err)
{
    pj *r = (pj *)s;
    if (r->stuck.status != RT_OK) {
        if (err)
            *err = r->stuck;
        return r->stuck.status;
    }
    int st = fill(r, 1, &r->stuck);
    if (st != RT_OK) {
        if (err)
            *err = r->stuck;
        return st;
    }
    if (r->qhead == r->qtail)
        return RT_EEOF;
    pj_qent *e = &r->q[r->qhead++ & r->qmask];
    if (e->waiting)
        r->stats.unmatched++; /* forced out: end of file or look-ahead full */
    *ev = e->ev;
    return RT_OK;
}

static int paje_rewind(rt_tsource *s, rt_err *err)
{
    pj *r = (pj *)s;
    int st = rt_lines_rewind(r->lines, err);
    if (st != RT_OK)
        return st;
    state_free(r);
    return state_init(r, err);
}

static uint64_t paje_offset(const rt_tsource *s)
{
    return rt_lines_offset(((const pj *)s)->lines);
}

static uint64_t paje_size(const rt_tsource *s)
{
    return rt_lines_size(((const pj *)s)->lines);
}

static void paje_free(rt_tsource *s)
{
    pj *r = (pj *)s;
    state_free(r);
    rt_lines_free(r->lines);
    free(r);
}

static const rt_tsource_ops paje_ops = {"paje", paje_next, paje_rewind, paje_offset, paje_size, paje_free};

rt_tsource *rt_paje_open(const char *path, rt_err *err)
{
    pj *r = calloc(1, sizeof *r);
    if (!r) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (rt_tsource_init(&r->base, &paje_ops, path, err) != RT_OK) {
        free(r);
        return NULL;
    }
    r->file = r->base.path;
    if (!(r->lines = rt_lines_open(path, err)) || state_init(r, err) != RT_OK ||
        fill(r, 0, err) != RT_OK) {
        rt_tsource_free(&r->base);
        return NULL;
    }
    return &r->base;
}

int rt_paje_stats_get(const rt_tsource *s, rt_paje_stats *out)
{
    if (!s || s->ops != &paje_ops)
        return RT_EINVAL;
    *out = ((const pj *)s)->stats;
    return RT_OK;
}
