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
#include "rt_paje_int.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_field.h"
#include "rt_mem.h"

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
    e->ev.line = r->cur;
    e->waiting = 0;
    return e;
}

/* ---- tables ---- */

/* The type named s at the line being read (one defined further on is not known yet). */
static int type_find(pj *r, rt_span s)
{
    int64_t *v = rt_strmap_get(r->tnames, 0, s.p, s.n);
    return v && r->types[*v].line <= r->cur ? (int)*v : -1;
}

static int cont_find(pj *r, rt_span s)
{
    int64_t *v = rt_strmap_get(r->cnames, 0, s.p, s.n);
    return v && r->conts[*v].line <= r->cur ? (int)*v : -1;
}

/* The container named by field f of a line, or an error naming that field. */
static int cont_field(pj *r, const char *field, rt_span s, int *ci, rt_err *err)
{
    if ((*ci = cont_find(r, s)) < 0)
        return rt_err_at(err, RT_EFORMAT, r->file, r->cur,
                         "%s: unknown container '%.*s'", field, (int)s.n, s.p);
    return RT_OK;
}

/* The type named by s, which must be of kind want. */
static int type_field(pj *r, rt_span s, int want, int *ti, rt_err *err)
{
    static const char *const what[] = {"container", "state", "event", "variable", "link"};
    if ((*ti = type_find(r, s)) < 0)
        return rt_err_at(err, RT_EFORMAT, r->file, r->cur,
                         "Type: unknown type '%.*s'", (int)s.n, s.p);
    if (r->types[*ti].kind != want)
        return rt_err_at(err, RT_EFORMAT, r->file, r->cur,
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
    unsigned long line = r->cur;
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
    t->line = r->cur;
    r->ntypes++;
    return name_it(r, r->tnames, 0, name, alias, (int64_t)r->ntypes - 1, err);
}

static int cont_add(pj *r, int parent, int type, rt_span name, rt_span alias, rt_err *err)
{
    rt_span id = alias.n ? alias : name;
    if (cont_find(r, id) >= 0)
        return rt_err_at(err, RT_EFORMAT, r->file, r->cur,
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
    c->line = r->cur;
    if (parent >= 0) {
        c->sibling = r->conts[parent].child;
        r->conts[parent].child = ci;
    }
    r->nconts++;
    return name_it(r, r->cnames, 0, name, alias, ci, err);
}

/* Define processor p as container ci: its name, and the path of names from the top. */
static int define_proc(pj *r, int ci, int p, rt_err *err)
{
    pj_cont *c = &r->conts[ci];
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
    int st = rt_tdefs_set_proc(r->base.defs, p, c->name, path);
    free(path);
    if (st != RT_OK)
        return st == RT_ENOMEM ? oom(r, err)
                               : rt_err_at(err, st, r->file, r->cur,
                                           "Container: more than %d processors", RT_TE_MAXPROC);
    return RT_OK;
}

/* The processor of container ci, made on first use (numbered beforehand when preset). */
static int cont_proc(pj *r, int ci, int *proc, rt_err *err)
{
    pj_cont *c = &r->conts[ci];
    if (c->proc < 0) {
        if (r->mode == RT_PJ_PRESET)
            return rt_err_at(err, RT_EINVAL, r->file, r->cur, "Container: '%s' has no processor number", c->name);
        int st = define_proc(r, ci, r->nprocs, err);
        if (st != RT_OK)
            return st;
        c->proc = r->nprocs++;
        c->first = r->cur;
    }
    *proc = c->proc;
    return RT_OK;
}

int rt_pj_set_proc(pj *r, int ci, int proc, unsigned long first, rt_err *err)
{
    int st = define_proc(r, ci, proc, err);
    if (st != RT_OK)
        return st;
    r->conts[ci].proc = proc;
    r->conts[ci].first = first;
    if (proc >= r->nprocs)
        r->nprocs = proc + 1;
    return RT_OK;
}

/*
 * The value s of type ti (a state, event or link type), defined on first use
 * as PajeNG does; name is its name (s itself unless defined with an alias).
 */
static int value_get(pj *r, int ti, rt_span s, rt_span name, pj_val **out, rt_err *err)
{
    if (r->mode == RT_PJ_PRESET) { /* every value was numbered beforehand */
        int64_t *v = rt_strmap_get(r->vnames, ti, s.p, s.n);
        if (!v)
            return rt_err_at(err, RT_EINVAL, r->file, r->cur, "Value: '%.*s' has no number", (int)s.n, s.p);
        *out = &r->vals[*v];
        return RT_OK;
    }
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
                            r->file, r->cur, t, r->last);
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
    if (r->mode == RT_PJ_PRESET) { /* paired beforehand: the line came with its peer and tag */
        pj_qent *e = q_push(r, kind, proc, t, err);
        if (!e)
            return RT_ENOMEM;
        e->ev.bytes = bytes;
        e->ev.peer = r->ann_peer;
        e->ev.tag = r->ann_tag;
        return RT_OK;
    }
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
        l->tag = (int64_t)r->cur; /* a link's tag: the line of its first end */
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
    if (pi < 0 || r->conts[ci].first >= r->cur) { /* (preset: a processor from a later line on) */
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

static const rt_span none = {"", 0};

/*
 * Decode the line being read (r->cur) and look its names up, in the order the
 * serial reader checks them; a line of definitions only decoded (a destroyed
 * container looked up). values 1: a link's value is looked up (made on first
 * use unless preset) and its bytes checked.
 */
static int resolve(pj *r, const char *p, const char *e, int values, const rt_pjdef **dp, rt_span *f,
                   rt_pjline *o, rt_err *err)
{
    unsigned long line = r->cur;
    const rt_pjdef *d;
    int st = rt_pj_decode(&r->fmt, r->file, line, p, e, &d, f, &o->time, err);
    if (st != RT_OK)
        return st;
    *dp = d;
    o->kind = d->kind;
    o->ti = o->ci = o->eci = -1;
    o->value = o->key = none;
    o->has_time = d->kind != K_UNKNOWN && d->pos[F_TIME] >= 0;
    o->bytes = 0;
    if (d->kind == K_UNKNOWN)
        return RT_OK;
#define FIELD(x) (d->pos[x] >= 0 ? f[d->pos[x]] : none)
    if (o->has_time && r->mode != RT_PJ_TABLES)
        saw_time(r, o->time);
    switch (d->kind) {
    case K_DESTROY:
        return cont_field(r, "Name", FIELD(F_NAME), &o->ci, err);
    case K_SETVAR:
    case K_ADDVAR:
    case K_SUBVAR:
        if ((st = type_field(r, FIELD(F_TYPE), K_VTYPE, &o->ti, err)) != RT_OK ||
            (st = cont_field(r, "Container", FIELD(F_CONTAINER), &o->ci, err)) != RT_OK)
            return st;
        if (!rt_pj_number(FIELD(F_VALUE), &o->bytes))
            return rt_err_at(err, RT_EFORMAT, r->file, line, "Value: bad number '%.*s'",
                             (int)FIELD(F_VALUE).n, FIELD(F_VALUE).p);
        return RT_OK;
    case K_START:
    case K_END: {
        if ((st = type_field(r, FIELD(F_TYPE), K_LTYPE, &o->ti, err)) != RT_OK ||
            (st = cont_field(r, "Container", FIELD(F_CONTAINER), &o->ci, err)) != RT_OK)
            return st;
        int endf = d->kind == K_START ? F_START : F_END;
        if ((st = cont_field(r, d->kind == K_START ? "StartContainer" : "EndContainer", FIELD(endf),
                             &o->eci, err)) != RT_OK)
            return st;
        o->value = FIELD(F_VALUE);
        o->key = FIELD(F_KEY);
        if (!values)
            return RT_OK;
        pj_val *val;
        if ((st = value_get(r, o->ti, o->value, o->value, &val, err)) != RT_OK)
            return st;
        double sz;
        const char *from = "Value";
        o->bytes = val->bytes;
        if (o->bytes == 0 && d->pos[F_SIZE] >= 0 && rt_pj_number(FIELD(F_SIZE), &sz)) {
            o->bytes = sz;
            from = "Size";
        }
        return rt_field_count(o->bytes, r->file, line, from, err);
    }
    case K_SET:
    case K_PUSH:
    case K_POP:
    case K_RESET:
    case K_EVENT:
        /* a state or event type on a container that becomes a processor */
        if ((st = type_field(r, FIELD(F_TYPE), d->kind == K_EVENT ? K_ETYPE : K_STYPE, &o->ti, err)) != RT_OK ||
            (st = cont_field(r, "Container", FIELD(F_CONTAINER), &o->ci, err)) != RT_OK)
            return st;
        if (d->kind == K_SET || d->kind == K_PUSH || d->kind == K_EVENT)
            o->value = FIELD(F_VALUE);
        return RT_OK;
    default: /* types, values, containers made: they define names (def_line) */
        return RT_OK;
    }
}

/* A PajeDefineEntityValue line, decoded into d / f. */
static int value_def(pj *r, const rt_pjdef *d, const rt_span *f, rt_err *err)
{
    unsigned long line = r->cur;
    rt_span ts = FIELD(F_TYPE), alias = FIELD(F_ALIAS), name = FIELD(F_NAME);
    int ti, st;
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

/* A line of types or containers (the definitions that name things), decoded into d / f. */
static int def_line(pj *r, const rt_pjdef *d, const rt_span *f, rt_err *err)
{
    unsigned long line = r->cur;
    int ti, ci, st;
    if (d->kind == K_CREATE) {
        if ((st = type_field(r, FIELD(F_TYPE), K_CTYPE, &ti, err)) != RT_OK ||
            (st = cont_field(r, "Container", FIELD(F_CONTAINER), &ci, err)) != RT_OK)
            return st;
        r->stats.containers++;
        return cont_add(r, ci, ti, FIELD(F_NAME), FIELD(F_ALIAS), err);
    }
    if ((st = type_field(r, FIELD(F_TYPE), K_CTYPE, &ti, err)) != RT_OK)
        return st;
    if (d->kind == K_LTYPE) {
        int a, b;
        if ((a = type_find(r, FIELD(F_STARTCT))) < 0 || (b = type_find(r, FIELD(F_ENDCT))) < 0)
            return rt_err_at(err, RT_EFORMAT, r->file, line, "%s: unknown container type '%.*s'",
                             a < 0 ? "StartContainerType" : "EndContainerType",
                             (int)FIELD(a < 0 ? F_STARTCT : F_ENDCT).n, FIELD(a < 0 ? F_STARTCT : F_ENDCT).p);
    }
    return type_add(r, d->kind, ti, FIELD(F_NAME), FIELD(F_ALIAS), err);
}

static int event_line(pj *r, const char *p, const char *e, rt_err *err)
{
    const rt_pjdef *d;
    rt_span f[RT_PJ_MAXFIELDS];
    rt_pjline o;
    int st = resolve(r, p, e, 1, &d, f, &o, err);
    if (st != RT_OK)
        return st;
    int ti = o.ti, ci = o.ci, pi;
    double t = o.time;
    switch (o.kind) {
    case K_UNKNOWN:
        r->stats.unknown++;
        r->base.skipped++;
        return RT_OK;
    case K_CTYPE:
    case K_STYPE:
    case K_ETYPE:
    case K_VTYPE:
    case K_LTYPE:
    case K_CREATE:
        return def_line(r, d, f, err);
    case K_VALUE:
        return r->mode == RT_PJ_TABLES ? RT_OK : value_def(r, d, f, err); /* tables: numbered later, in order */
    case K_DESTROY:
        if (r->mode == RT_PJ_TABLES)
            return RT_OK;
        if ((st = close_all(r, ci, t, 1, err)) != RT_OK)
            return st;
        r->conts[ci].destroyed = 1;
        return RT_OK;
    case K_SETVAR:
    case K_ADDVAR:
    case K_SUBVAR:
        r->stats.variables++;
        return variable_sample(r, o.kind, ti, ci, o.bytes, t, err);
    case K_START:
    case K_END:
        return link_end(r, o.kind == K_START ? RT_TE_SEND : RT_TE_RECV, ti, ci, o.eci, o.key, t, o.bytes, err);
    default:
        break;
    }
    if ((st = cont_proc(r, ci, &pi, err)) != RT_OK)
        return st;
    pj_val *val = NULL;
    if (o.kind == K_SET || o.kind == K_PUSH || o.kind == K_EVENT)
        if ((st = value_get(r, ti, o.value, o.value, &val, err)) != RT_OK)
            return st;
    if (o.kind == K_EVENT) {
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
    if (o.kind == K_POP && s->n == 0) {
        rt_tsource_warn(&r->base, "%s:%lu: PajePopState: no state of type %s open on %s; ignored",
                        r->file, r->cur, r->types[ti].name, r->conts[ci].name);
        return RT_OK;
    }
    int nleave = o.kind == K_PUSH ? 0 : o.kind == K_POP ? 1 : s->n;
    if ((st = leave(r, s, nleave, pi, t, err)) != RT_OK)
        return st;
    if (o.kind == K_SET || o.kind == K_PUSH) {
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
}
#undef FIELD

/* End of the file: leave every open state at the last time, as PajeNG closes its containers. */
static int finish(pj *r, rt_err *err)
{
    if (r->mode == RT_PJ_PRESET) { /* the file's end, not the end of this rank's lines */
        r->cur = r->eof_line;
        r->last = r->eof_time;
    }
    unsigned long line = r->cur;
    int st = rt_pj_fmt_end(&r->fmt, r->file, line, err);
    if (st != RT_OK)
        return st;
    for (size_t ci = 0; ci < r->nconts; ci++) {
        st = close_all(r, (int)ci, r->last, 0, err);
        if (st != RT_OK)
            return st;
    }
    size_t open = rt_strmap_count(r->links);
    if (open && r->mode == RT_PJ_SERIAL)
        rt_tsource_warn(&r->base, "%s: %zu link%s with one end only; sent with peer -1", r->file,
                        open, open == 1 ? "" : "s");
    r->finished = 1;
    return RT_OK;
}

/* RT_PJ_PRESET: a link line's "@PEER@TAG@" in front of it. */
static int annotation(pj *r, const char **p, const char *e, rt_err *err)
{
    const char *q = *p + 1;
    char *end;
    long peer = strtol(q, &end, 10);
    if (end == q || end >= e || *end != '@')
        return rt_err_at(err, RT_EFORMAT, r->file, r->cur, "a routed link line: bad peer");
    q = end + 1;
    long long tag = strtoll(q, &end, 10);
    if (end == q || end >= e || *end != '@')
        return rt_err_at(err, RT_EFORMAT, r->file, r->cur, "a routed link line: bad tag");
    r->ann_peer = (int)peer;
    r->ann_tag = (int64_t)tag;
    *p = end + 1;
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
        if (r->qhead != r->qtail && r->cur - r->q[r->qhead & r->qmask].ev.line >= RT_PAJE_LOOKAHEAD) {
            if (!r->late_warned) {
                r->late_warned = 1;
                rt_tsource_warn(&r->base, "%s:%lu: a link stays open for more than %u lines; its first end goes out with peer -1",
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
        r->cur = rt_lines_lineno(r->lines);
        r->stats.lines++;
        const char *p = line, *e = line + len;
        if (r->mode == RT_PJ_PRESET && *p == '@' && (st = annotation(r, &p, e, err)) != RT_OK)
            return st;
        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        if (p == e || *p == '#' || *p == '\r')
            continue;
        st = *p == '%' ? rt_pj_header_line(&r->fmt, r->file, r->cur, p, e, err)
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
    if (r->mode == RT_PJ_PRESET) { /* the tables stay: only what reading changed starts again */
        for (size_t ci = 0; ci < r->nconts; ci++) {
            r->conts[ci].destroyed = 0;
            for (int k = 0; k < r->conts[ci].nst; k++)
                r->conts[ci].st[k].n = 0;
        }
        rt_chanmap_free(&r->vars);
        rt_chanmap_init(&r->vars, sizeof(pj_var));
        r->qhead = r->qtail = 0;
        r->finished = r->have_time = 0;
        r->last = 0;
        r->cur = 0;
        memset(&r->stats, 0, sizeof r->stats);
        rt_err_clear(&r->stuck);
        return RT_OK;
    }
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

/* A reader in mode `mode` with empty tables and no input; NULL with err. */
static pj *pj_alloc(const char *path, int mode, rt_err *err)
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
    r->mode = mode;
    if (state_init(r, err) != RT_OK) {
        rt_tsource_free(&r->base);
        return NULL;
    }
    return r;
}

rt_tsource *rt_paje_open(const char *path, rt_err *err)
{
    pj *r = pj_alloc(path, RT_PJ_SERIAL, err);
    if (r && (!(r->lines = rt_lines_open(path, err)) || fill(r, 0, err) != RT_OK)) {
        rt_tsource_free(&r->base);
        return NULL;
    }
    return r ? &r->base : NULL;
}

int rt_paje_stats_get(const rt_tsource *s, rt_paje_stats *out)
{
    if (!s || s->ops != &paje_ops)
        return RT_EINVAL;
    *out = ((const pj *)s)->stats;
    return RT_OK;
}

/* ---- the pieces of a reading in byte ranges (rt_paje_int.h) ---- */

pj *rt_pj_new(const char *path, rt_err *err)
{
    return pj_alloc(path, RT_PJ_TABLES, err);
}

int rt_pj_header(pj *r, unsigned long line, const char *p, const char *e, rt_err *err)
{
    r->cur = line;
    return rt_pj_header_line(&r->fmt, r->file, line, p, e, err);
}

int rt_pj_kind_of(const pj *r, const char *p, const char *e)
{
    long id = 0;
    const char *q = p;
    while (q < e && *q >= '0' && *q <= '9' && id <= RT_PJ_MAXID)
        id = id * 10 + (*q++ - '0');
    if (q == p || (q < e && *q != ' ' && *q != '\t' && *q != '\r') || id >= (long)r->fmt.ndefs || !r->fmt.defs[id])
        return -1;
    return r->fmt.defs[id]->kind;
}

int rt_pj_def(pj *r, unsigned long line, const char *p, const char *e, rt_err *err)
{
    r->cur = line;
    return event_line(r, p, e, err);
}

int rt_pj_resolve(pj *r, unsigned long line, const char *p, const char *e, int values, rt_pjline *out,
                  rt_err *err)
{
    const rt_pjdef *d;
    rt_span f[RT_PJ_MAXFIELDS];
    r->cur = line;
    return resolve(r, p, e, values, &d, f, out, err);
}

int rt_pj_value_def(pj *r, unsigned long line, const char *p, const char *e, rt_err *err)
{
    const rt_pjdef *d;
    rt_span f[RT_PJ_MAXFIELDS];
    double t;
    r->cur = line;
    int st = rt_pj_decode(&r->fmt, r->file, line, p, e, &d, f, &t, err);
    return st != RT_OK ? st : value_def(r, d, f, err);
}

int rt_pj_value_use(pj *r, unsigned long line, int ti, rt_span s, rt_err *err)
{
    pj_val *val;
    r->cur = line;
    return value_get(r, ti, s, s, &val, err);
}

int rt_pj_preset_stream(pj *r, FILE *body, unsigned long eof_line, double eof_time, rt_err *err)
{
    if (!(r->lines = rt_lines_from_stream(body, r->file, err)))
        return err->status;
    rt_lines_numbered(r->lines, 1);
    r->mode = RT_PJ_PRESET;
    r->eof_line = eof_line;
    r->eof_time = eof_time;
    r->order_warned = 1; /* the time order is told by the caller, who sees every line */
    r->cur = 0;
    return RT_OK;
}
