/* Tests of core/graph: Graphviz layout of a small chain (node boxes apart, every
 * edge starting on its tail's box and its arrow tip on its head's box, labels
 * placed), with the engines, and the errors for bad input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rt_layout.h"

/* Distance from (x, y) to the outline of the box centred at (cx, cy), w x h. */
static double box_distance(double x, double y, double cx, double cy, double w, double h)
{
    double dx = fabs(x - cx) - w / 2, dy = fabs(y - cy) - h / 2;
    if (dx > 0 || dy > 0)
        return sqrt((dx > 0 ? dx * dx : 0) + (dy > 0 ? dy * dy : 0));
    return -(dx > dy ? dx : dy);
}

/* A -> B -> C -> A, B -> A (a back arc) and B -> B (a self-loop). */
static void check_chain(rt_layout_engine engine)
{
    const rt_gnode nodes[] = {{60, 30}, {80, 40}, {50, 30}};
    const rt_gedge edges[] = {
        {0, 1, 5, 30, 12}, {1, 2, 1, 30, 12}, {2, 0, 1, 0, 0}, {1, 0, 1, 24, 12}, {1, 1, 1, 24, 12},
    };
    rt_layout *l = NULL;
    rt_err err;
    assert_int_equal(rt_layout_run(nodes, 3, edges, 5, engine, &l, &err), RT_OK);
    assert_non_null(l);
    assert_int_equal(l->nnodes, 3);
    assert_int_equal(l->nedges, 5);
    for (size_t i = 0; i < 3; i++) {
        double x = l->node_xy[2 * i], y = l->node_xy[2 * i + 1];
        /* inside the bounding box */
        assert_true(x - nodes[i].w / 2 >= -0.5 && x + nodes[i].w / 2 <= l->width + 0.5);
        assert_true(y - nodes[i].h / 2 >= -0.5 && y + nodes[i].h / 2 <= l->height + 0.5);
        for (size_t j = 0; j < i; j++) { /* boxes do not overlap */
            double dx = fabs(x - l->node_xy[2 * j]), dy = fabs(y - l->node_xy[2 * j + 1]);
            assert_true(dx >= (nodes[i].w + nodes[j].w) / 2 || dy >= (nodes[i].h + nodes[j].h) / 2);
        }
    }
    for (size_t e = 0; e < 5; e++) {
        const rt_gedge_out *o = &l->edges[e];
        size_t a = edges[e].from, b = edges[e].to;
        assert_true(o->npts >= 4 && (o->npts - 1) % 3 == 0);
        double d0 = box_distance(o->pts[0], o->pts[1], l->node_xy[2 * a], l->node_xy[2 * a + 1],
                                 nodes[a].w, nodes[a].h);
        assert_true(fabs(d0) < 2);
        assert_true(o->has_head);
        double d1 = box_distance(o->head_x, o->head_y, l->node_xy[2 * b], l->node_xy[2 * b + 1],
                                 nodes[b].w, nodes[b].h);
        assert_true(fabs(d1) < 2);
        assert_int_equal(o->has_label, edges[e].label_w > 0);
    }
    rt_layout_free(l);
}

static void test_dot_layout_of_a_chain(void **state)
{
    (void)state;
    check_chain(RT_LAYOUT_DOT);
}

static void test_neato_layout_of_a_chain(void **state)
{
    (void)state;
    check_chain(RT_LAYOUT_NEATO);
}

static void test_bad_input(void **state)
{
    (void)state;
    const rt_gnode nodes[] = {{60, 30}, {0, 30}};
    const rt_gedge edges[] = {{0, 5, 1, 0, 0}};
    rt_layout *l = (rt_layout *)1;
    rt_err err;
    assert_int_equal(rt_layout_run(nodes, 1, edges, 1, RT_LAYOUT_DOT, &l, &err), RT_EINVAL);
    assert_null(l);
    assert_string_equal(err.msg, "layout: edge 1: no node 6");
    assert_int_equal(rt_layout_run(nodes, 2, NULL, 0, RT_LAYOUT_DOT, &l, &err), RT_EINVAL);
    assert_string_equal(err.msg, "layout: node 2: width and height must be positive");
    /* an empty graph lays out to nothing */
    assert_int_equal(rt_layout_run(NULL, 0, NULL, 0, RT_LAYOUT_DOT, &l, &err), RT_OK);
    assert_int_equal(l->nnodes, 0);
    rt_layout_free(l);
    rt_layout_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dot_layout_of_a_chain),
        cmocka_unit_test(test_neato_layout_of_a_chain),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
