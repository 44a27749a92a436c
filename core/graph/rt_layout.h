/*
 * rt_layout.h - lay out a small directed graph with Graphviz and hand back plain
 * numbers: node centres, edge splines and edge-label positions.
 *
 * Shaped for the pictures retrace draws itself (Chitra chains, later any graph
 * display): tens to a few hundred nodes, drawn through our own canvas so PNG, PDF
 * and SVG keep the house colours and fonts. Graphviz only places things; nothing
 * of it leaks past this module (the caller never sees a Graphviz type).
 *
 * Coordinates are in points (1/72 inch) with the origin at the top-left corner of
 * the layout's bounding box and y growing downwards, as on a canvas.
 */
#ifndef RT_LAYOUT_H
#define RT_LAYOUT_H

#include <stddef.h>

#include "rt_error.h"

/* One node to place: a box of w x h points. */
typedef struct rt_gnode {
    double w, h;
} rt_gnode;

/* One directed edge between node indices (0-based, from == to is a self-loop). */
typedef struct rt_gedge {
    size_t from, to;
    double weight;   /* > 0: how strongly Graphviz keeps it short and straight */
    double label_w;  /* size of the label box in points; 0 x 0: no label */
    double label_h;
} rt_gedge;

/* A laid-out edge. */
typedef struct rt_gedge_out {
    size_t npts;      /* points of a piecewise cubic Bezier: 1 + 3k of them */
    double *pts;      /* x0, y0, x1, y1, ... (2 * npts numbers) */
    int has_head;     /* the curve stops short of the head node: arrow tip at head_x/y */
    double head_x, head_y;
    int has_label;    /* the label's centre (only when the edge has a label) */
    double label_x, label_y;
} rt_gedge_out;

/* The result of rt_layout_run; free it with rt_layout_free. */
typedef struct rt_layout {
    double width, height;  /* the bounding box, points */
    size_t nnodes, nedges;
    double *node_xy;       /* centre of node i at node_xy[2i], node_xy[2i + 1] */
    rt_gedge_out *edges;   /* in input order */
} rt_layout;

/* Layout engines. RT_LAYOUT_DOT ranks the nodes along the main direction of the
 * edges (good for chains that mostly flow one way, back arcs routed around);
 * RT_LAYOUT_NEATO places them by a spring model. */
typedef enum rt_layout_engine { RT_LAYOUT_DOT, RT_LAYOUT_NEATO } rt_layout_engine;

/*
 * Lay out nnodes boxes and nedges edges with the given engine. On success *out
 * holds a freshly allocated layout (the caller frees it with rt_layout_free) and 0
 * is returned; on failure *out is NULL and err says why (RT_EINVAL for an edge
 * naming a node that does not exist or a non-positive size, RT_ENOMEM, RT_ESTATE
 * when Graphviz itself fails).
 */
int rt_layout_run(const rt_gnode *nodes, size_t nnodes, const rt_gedge *edges, size_t nedges,
                  rt_layout_engine engine, rt_layout **out, rt_err *err);

/* Free a layout; NULL is allowed. */
void rt_layout_free(rt_layout *l);

#endif
