/*
 * rt_layout.c - Graphviz layout of a small directed graph (see rt_layout.h).
 *
 * Each call builds a throw-away cgraph graph, runs one layout engine and copies
 * what it needs out of Graphviz's records before the graph and its layout are
 * freed again, so nothing of a layout outlives the call. The GVC context (the
 * plugin registry) is made once per process and kept: Graphviz 2.43 leaks its
 * configuration text on every gvContext(), and the registry is the same for
 * every call. Not thread-safe (neither is Graphviz).
 */
#include "rt_layout.h"

#include <assert.h>
#include <gvc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Graphviz reports warnings on stderr by default; a layout library must not
 * write to the user's terminal, so its messages go nowhere while we run. */
static int quiet(char *msg)
{
    (void)msg;
    return 0;
}

/* The process's GVC context, made on first use; NULL when out of memory. */
static GVC_t *context(void)
{
    static GVC_t *gvc;
    if (!gvc)
        gvc = gvContext();
    return gvc;
}

void rt_layout_free(rt_layout *l)
{
    if (!l)
        return;
    for (size_t i = 0; l->edges && i < l->nedges; i++)
        free(l->edges[i].pts);
    free(l->edges);
    free(l->node_xy);
    free(l);
}

static void set(void *obj, const char *name, const char *value)
{
    /* agsafeset declares the attribute with a default when it is new; cgraph takes
     * char * although it copies the strings, hence the casts */
    agsafeset(obj, (char *)name, (char *)value, "");
}

static void set_num(void *obj, const char *name, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.6g", v);
    set(obj, name, buf);
}

/* An edge label of exactly w x h points: an empty HTML table of fixed size, so the
 * space Graphviz reserves is the space our own text will take, whatever fonts
 * Graphviz believes it has. */
static int set_label_box(Agraph_t *g, Agedge_t *e, double w, double h)
{
    char buf[256];
    snprintf(buf, sizeof buf,
             "<TABLE FIXEDSIZE=\"TRUE\" WIDTH=\"%d\" HEIGHT=\"%d\" BORDER=\"0\" CELLBORDER=\"0\""
             " CELLSPACING=\"0\" CELLPADDING=\"0\"><TR><TD></TD></TR></TABLE>",
             (int)ceil(w), (int)ceil(h));
    char *html = agstrdup_html(g, buf);
    if (!html)
        return -1;
    /* agxset keeps the HTML mark of the value it is given */
    agsafeset(e, "label", html, "");
    agstrfree(g, html);
    return 0;
}

static int copy_edge(Agedge_t *e, double top, rt_gedge_out *o)
{
    splines *spl = ED_spl(e);
    size_t n = 0;
    for (int i = 0; spl && i < spl->size; i++)
        n += (size_t)spl->list[i].size;
    if (n > 0) {
        o->pts = malloc(2 * n * sizeof *o->pts);
        if (!o->pts)
            return -1;
    }
    /* Several Bezier pieces (rare: only around cluster boundaries) are joined in
     * order; each piece is itself 1 + 3k points. */
    for (int i = 0; spl && i < spl->size; i++) {
        const bezier *bz = &spl->list[i];
        for (int j = 0; j < bz->size; j++) {
            o->pts[2 * o->npts] = bz->list[j].x;
            o->pts[2 * o->npts + 1] = top - bz->list[j].y;
            o->npts++;
        }
        if (bz->eflag) {
            o->has_head = 1;
            o->head_x = bz->ep.x;
            o->head_y = top - bz->ep.y;
        }
    }
    textlabel_t *lab = ED_label(e);
    if (lab && lab->set) {
        o->has_label = 1;
        o->label_x = lab->pos.x;
        o->label_y = top - lab->pos.y;
    }
    return 0;
}

int rt_layout_run(const rt_gnode *nodes, size_t nnodes, const rt_gedge *edges, size_t nedges,
                  rt_layout_engine engine, rt_layout **out, rt_err *err)
{
    assert(out);
    *out = NULL;
    for (size_t i = 0; i < nnodes; i++)
        if (!(nodes[i].w > 0) || !(nodes[i].h > 0))
            return rt_err_set(err, RT_EINVAL, "layout: node %zu: width and height must be positive", i + 1);
    for (size_t i = 0; i < nedges; i++) {
        if (edges[i].from >= nnodes || edges[i].to >= nnodes)
            return rt_err_set(err, RT_EINVAL, "layout: edge %zu: no node %zu", i + 1,
                              (edges[i].from >= nnodes ? edges[i].from : edges[i].to) + 1);
        if (edges[i].label_w < 0 || edges[i].label_h < 0)
            return rt_err_set(err, RT_EINVAL, "layout: edge %zu: negative label size", i + 1);
    }

    int status = RT_ENOMEM;
    GVC_t *gvc = NULL;
    Agraph_t *g = NULL;
    Agnode_t **gn = NULL;
    Agedge_t **ge = NULL;
    int laid = 0;
    rt_layout *l = calloc(1, sizeof *l);
    agusererrf prev = agseterrf(quiet);
    if (!l)
        goto fail;
    l->nnodes = nnodes;
    l->nedges = nedges;
    l->node_xy = calloc(2 * (nnodes ? nnodes : 1), sizeof *l->node_xy);
    l->edges = calloc(nedges ? nedges : 1, sizeof *l->edges);
    gn = calloc(nnodes ? nnodes : 1, sizeof *gn);
    ge = calloc(nedges ? nedges : 1, sizeof *ge);
    if (!l->node_xy || !l->edges || !gn || !ge)
        goto fail;

    gvc = context();
    g = gvc ? agopen("G", Agdirected, NULL) : NULL;
    if (!g)
        goto fail;
    set(g, "splines", "true");
    if (engine == RT_LAYOUT_DOT) {
        set(g, "nodesep", "0.35");
        set(g, "ranksep", "0.45");
    } else {
        set(g, "overlap", "false");
        set(g, "sep", "+12");
        set(g, "esep", "+6");
    }
    for (size_t i = 0; i < nnodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "n%zu", i);
        gn[i] = agnode(g, name, 1);
        if (!gn[i])
            goto fail;
        set(gn[i], "shape", "box");
        set(gn[i], "fixedsize", "true");
        set(gn[i], "label", "");
        set_num(gn[i], "width", nodes[i].w / 72.0);
        set_num(gn[i], "height", nodes[i].h / 72.0);
    }
    for (size_t i = 0; i < nedges; i++) {
        char name[32];
        snprintf(name, sizeof name, "e%zu", i);
        ge[i] = agedge(g, gn[edges[i].from], gn[edges[i].to], name, 1);
        if (!ge[i])
            goto fail;
        double w = edges[i].weight > 0 ? edges[i].weight : 1;
        /* dot wants whole weights; neato reads them as spring strengths >= 1 */
        set_num(ge[i], "weight", engine == RT_LAYOUT_DOT ? fmax(1, round(w)) : fmax(1, w));
        if (edges[i].label_w > 0 && edges[i].label_h > 0 &&
            set_label_box(g, ge[i], edges[i].label_w, edges[i].label_h))
            goto fail;
    }

    if (gvLayout(gvc, g, engine == RT_LAYOUT_DOT ? "dot" : "neato") != 0) {
        status = rt_err_set(err, RT_ESTATE, "layout: Graphviz could not lay out the graph");
        goto fail;
    }
    laid = 1;
    boxf bb = GD_bb(g);
    l->width = bb.UR.x - bb.LL.x;
    l->height = bb.UR.y - bb.LL.y;
    /* Graphviz puts y up from the lower-left corner; flip to a canvas's y down and
     * shift the box to the origin */
    double top = bb.UR.y;
    for (size_t i = 0; i < nnodes; i++) {
        l->node_xy[2 * i] = ND_coord(gn[i]).x - bb.LL.x;
        l->node_xy[2 * i + 1] = top - ND_coord(gn[i]).y;
    }
    for (size_t i = 0; i < nedges; i++) {
        rt_gedge_out *o = &l->edges[i];
        if (copy_edge(ge[i], top, o))
            goto fail;
        for (size_t j = 0; j < o->npts; j++)
            o->pts[2 * j] -= bb.LL.x;
        o->head_x -= bb.LL.x;
        o->label_x -= bb.LL.x;
    }
    gvFreeLayout(gvc, g);
    agclose(g);
    free(gn);
    free(ge);
    agseterrf(prev);
    *out = l;
    return 0;

fail:
    if (status == RT_ENOMEM)
        rt_err_set(err, RT_ENOMEM, "layout: out of memory");
    if (laid)
        gvFreeLayout(gvc, g);
    if (g)
        agclose(g);
    free(gn);
    free(ge);
    rt_layout_free(l);
    agseterrf(prev);
    return status;
}
