/* Tests of the SHMAP reader (records, first pass, layout, every error) and of
 * the PE scheduler on hand-worked traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_test.h"

#include "rt_sched.h"
#include "rt_shmap.h"

static void test_records(void **state)
{
    (void)state;
    char *path = rt_test_write_text("0 2 3 2\n0 1 4 4\n3 1 LU of a 4 x 4   matrix \n"
                                    "4 2\n5 2 16 strsv\n6 Start parallel\n8 Start group\n"
                                    "1 1 1 4 2 3 0.5\n2 2 1 3 1 1\n 0.75\n9 End group\n7\n");
    rt_err e;
    rt_shmap *r = rt_shmap_open(path, &e);
    assert_non_null(r);
    const rt_shmap_info *in = rt_shmap_get_info(r);
    assert_int_equal(in->records, 11);
    /* 2 info, 1 flops, 1 load, 1 store; definitions and markers are not events */
    assert_int_equal(in->events, 5);
    assert_int_equal(in->loads, 1);
    assert_int_equal(in->stores, 1);
    assert_int_equal(in->load_elements, 8);
    assert_int_equal(in->store_elements, 3);
    assert_int_equal(in->flops, 16);
    assert_int_equal(in->sections, 1);
    assert_int_equal(in->groups, 1);
    assert_true(in->time_first == 0.5 && in->time_last == 0.75 && in->min_step == 0.25);
    assert_int_equal(in->lines, 12);
    /* matrices sorted by ID */
    assert_int_equal(rt_shmap_matrix_count(r), 2);
    assert_int_equal(rt_shmap_matrix_at(r, 0)->id, 1);
    assert_int_equal(rt_shmap_matrix_at(r, 0)->rows, 4);
    assert_int_equal(rt_shmap_matrix_at(r, 1)->id, 2);
    assert_int_equal(rt_shmap_matrix_at(r, 1)->line, 1);
    assert_int_equal(rt_shmap_matrix_index(r, 2), 1);
    assert_int_equal(rt_shmap_matrix_index(r, 7), -1);

    rt_shmap_event ev;
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_DEFINE);
    assert_int_equal(ev.matrix, 1);
    assert_int_equal(ev.r2, 3);
    assert_int_equal(ev.c2, 2);
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_INFO);
    assert_int_equal(ev.matrix, 0);
    assert_string_equal(ev.text, "LU of a 4 x 4   matrix");
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_INFO); /* opcode 4 reads as 3 */
    assert_string_equal(ev.text, "");
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_FLOPS);
    assert_int_equal(ev.flops, 16);
    assert_string_equal(ev.text, "strsv");
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_PAR_START);
    assert_string_equal(ev.text, "Start parallel");
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_LOAD);
    assert_int_equal(ev.r1, 1);
    assert_int_equal(ev.r2, 4);
    assert_int_equal(ev.c1, 2);
    assert_int_equal(ev.c2, 3);
    assert_true(ev.time == 0.5);
    assert_int_equal(ev.line, 8);
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_STORE); /* a record spanning two lines */
    assert_int_equal(ev.matrix, 1);
    assert_int_equal(ev.line, 9);
    assert_true(ev.time == 0.75);
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_GROUP_END);
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_PAR_END);
    assert_string_equal(ev.text, "");
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_EEOF);
    /* a second pass gives the same first record */
    assert_int_equal(rt_shmap_rewind(r, &e), RT_OK);
    assert_int_equal(rt_shmap_next(r, &ev, &e), RT_OK);
    assert_int_equal(ev.op, RT_SHM_DEFINE);
    assert_int_equal(ev.line, 1);
    rt_shmap_free(r);
    rt_test_remove(path);
}

static void test_layout(void **state)
{
    (void)state;
    /* matrices 5 (3x3 = 9 words), 2 (2x5 = 10), 9 (1x1): laid out by ID: 2, 5, 9 */
    char *path = rt_test_write_text("0 5 3 3\n0 2 2 5\n0 9 1 1\n");
    rt_err e;
    rt_shmap *r = rt_shmap_open(path, &e);
    assert_non_null(r);
    uint64_t base[3];
    assert_int_equal(rt_shmap_layout(r, 1, base), 20);
    assert_int_equal(base[0], 0);
    assert_int_equal(base[1], 10);
    assert_int_equal(base[2], 19);
    assert_int_equal(rt_shmap_layout(r, 4, base), 25); /* 0..9, 12..20, 24 */
    assert_int_equal(base[1], 12);
    assert_int_equal(base[2], 24);
    assert_int_equal(rt_shmap_layout(r, 16, base), 33); /* 0, 16, 32 */
    assert_int_equal(base[1], 16);
    assert_int_equal(base[2], 32);
    assert_int_equal(rt_shmap_layout(r, 2, base), 21); /* 0, 10, 20 */
    assert_int_equal(base[2], 20);
    rt_shmap_free(r);
    rt_test_remove(path);
}

/* Every malformed input: the text, and the message after "FILE:". */
static const struct {
    const char *text, *msg;
} bad[] = {
    {"0 1 4 4\n12 1\n", "2: opcode: unknown value 12"},
    {"0 1 4 4\n-1 1\n", "2: opcode: unknown value -1"},
    {"0 1 4 4\nload 1\n", "2: opcode: not an integer 'load'"},
    {"0 1 4 4\n\x01\x02\xff 1\n", "2: opcode: not an integer '\\x01\\x02\\xff'"},
    {"0 1 4 4\n1 2 1 1 1 1 0.0\n", "2: load event: field ID: matrix 2 is not defined"},
    {"1 1 1 1 1 1 0.0\n0 1 4 4\n", "1: load event: field ID: matrix 1 is not defined"},
    {"0 1 4 4\n3 7 hello\n", "2: info event: field ID: matrix 7 is not defined"},
    {"0 1 4 4\n5 3 10 daxpy\n", "2: flops event: field ID: matrix 3 is not defined"},
    {"0 1 4 4\n0 1 2 2\n", "2: define event: matrix 1 redefined (first defined at line 1)"},
    {"0 0 4 4\n", "1: define event: field ID: 0 is not a positive integer"},
    {"0 1 0 4\n", "1: define event: field ROWS: 0 is not positive"},
    {"0 1 4 -2\n", "1: define event: field COLS: -2 is not positive"},
    {"0 1 4 4\n1 1 1 5 1 1 0.0\n", "2: load event: row 5 outside matrix 1 (4 x 4)"},
    {"0 1 4 4\n1 1 0 2 1 1 0.0\n", "2: load event: row 0 outside matrix 1 (4 x 4)"},
    {"0 1 4 3\n2 1 1 2 1 4 0.0\n", "2: store event: column 4 outside matrix 1 (4 x 3)"},
    {"0 1 4 4\n1 1 3 2 1 1 0.0\n", "2: load event: rows 3..2 reversed"},
    {"0 1 4 4\n2 1 1 1 4 2 0.0\n", "2: store event: columns 4..2 reversed"},
    {"0 1 4 4\n1 1 1 2 1 1\n", "2: load event: missing field TIME"},
    {"0 1 4\n", "1: define event: missing field COLS"},
    {"0 1 4 4\n1 1 1 2 1 1 abc\n", "2: load event: field TIME: not a number 'abc'"},
    {"0 1 4 4\n1 1 1.5 2 1 1 0\n", "2: load event: field R1: not an integer '1.5'"},
    {"0 1 4 4\n5 1 many daxpy\n", "2: flops event: field FLOPS: not an integer 'many'"},
    {"0 1 4 4\n5 1 -3 daxpy\n", "2: flops event: field FLOPS: -3 is negative"},
    {"0 1 4 4\n5 1 3\n", "2: flops event: missing field NAME"},
    {"0 1 4 4\n3\n", "2: info event: missing field ID"},
    {"6 a\n6 b\n7\n7\n", "2: parallel start: inside the parallel section opened at line 1"},
    {"8 g\n6 p\n7\n9\n", "2: parallel start: inside the group opened at line 1"},
    {"0 1 4 4\n7 end\n", "2: parallel end: no parallel section is open"},
    {"6\n8\n7\n9\n", "3: parallel end: the group opened at line 2 is still open"},
    {"0 1 4 4\n9 end\n", "2: group end: no group is open"},
    {"8 a\n8 b\n9\n9\n", "2: group start: inside the group opened at line 1"},
    {"0 1 4 4\n6 p\n8 g\n9\n", "2: parallel start: parallel section never closed (end of file at line 4)"},
    {"0 1 4 4\n6 p\n8 g\n", "3: group start: group never closed (end of file at line 3)"},
    {"0 1 4 4\n8 g\n1 1 1 1 1 1 0\n", "2: group start: group never closed (end of file at line 3)"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *path = rt_test_write_text(bad[i].text);
        rt_err e;
        rt_err_clear(&e);
        rt_shmap *r = rt_shmap_open(path, &e);
        char want[600];
        snprintf(want, sizeof want, "%s:%s", path, bad[i].msg);
        if (r || strcmp(e.msg, want) != 0)
            fail_msg("case %zu: got '%s', want '%s'", i, r ? "(opened)" : e.msg, want);
        assert_int_equal(e.status, RT_EFORMAT);
        rt_test_remove(path);
    }
    rt_err e;
    assert_null(rt_shmap_open("/nonexistent/t.shm", &e));
    assert_string_equal(e.msg, "/nonexistent/t.shm: No such file or directory");
    assert_null(rt_shmap_open("-", &e));
}

/* Run the scheduler to the end; each step as "PE@line ..." joined by " | ". */
static void run_sched(const char *file, int pes, char *out, size_t cap, uint64_t *steps)
{
    char path[512];
    rt_err e;
    rt_shmap *r = rt_shmap_open(rt_test_fixture(path, sizeof path, "shmap/%s", file), &e);
    if (!r)
        fail_msg("%s", e.msg);
    rt_sched *s = rt_sched_new(r, pes, &e);
    assert_non_null(s);
    size_t n = 0;
    out[0] = '\0';
    int st;
    while ((st = rt_sched_step(s, &e)) == RT_OK) {
        if (n)
            n += (size_t)snprintf(out + n, cap - n, " | ");
        const char *sep = "";
        int active = 0;
        for (int p = 0; p < pes; p++) {
            const rt_shmap_event *ev = rt_sched_event(s, p);
            if (!ev) {
                assert_int_equal(rt_sched_task(s, p), -1);
                continue;
            }
            active++;
            n += (size_t)snprintf(out + n, cap - n, "%s%d@%lu", sep, p, ev->line);
            sep = " ";
        }
        assert_int_equal(active, rt_sched_active(s));
        assert_true(n < cap);
    }
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(rt_sched_step(s, &e), RT_EEOF);
    *steps = rt_sched_steps(s);
    rt_sched_free(s);
    rt_shmap_free(r);
}

/*
 * Who runs what, step by step, on hand-worked traces; each step as "PE@line".
 *
 * sched_groups.shm: the definition (line 1) is no step. 2 PEs, 3 tasks in the
 * section (the group 4-6, the lone event 8, the group 10-11): PE 0 takes 4-6
 * and PE 1 takes 8; PE 1, idle after step 1, takes 10-11 at step 2; both end
 * at step 3; then the store of line 14 alone on PE 0. With 4 PEs PE 3 finds no
 * task and the barrier holds the store until PE 0 ends; with 1 PE every event
 * runs in file order.
 *
 * sched_seq.shm: the definition is no step; a group outside any section is one
 * sequential task on PE 0 (the load of line 3, the flops of line 4); the empty
 * group and the empty section are no work; a record may span lines.
 *
 * sched_defs.shm: definitions everywhere. In the first section (lines 1-14)
 * the group 3-8 holds the loads 5 and 7 (definitions 4 and 6 skipped): task
 * 0; the load 10 (after the definition 9) is task 1; the group 11-13 holds
 * only a definition: no task. The section 15-20 holds only definitions: no
 * piece; the definition 21 neither. The store 22 is task 2, the sequential
 * piece 1. On 2 PEs tasks 0 and 1 run side by side, then the rest of task 0,
 * then the store.
 */
static void test_sched_runs(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        int pes;
        const char *want;
        uint64_t steps;
    } cases[] = {
        {"sched_groups.shm", 2, "0@4 1@8 | 0@5 1@10 | 0@6 1@11 | 0@14", 4},
        {"sched_groups.shm", 4, "0@4 1@8 2@10 | 0@5 2@11 | 0@6 | 0@14", 4},
        {"sched_groups.shm", 1, "0@4 | 0@5 | 0@6 | 0@8 | 0@10 | 0@11 | 0@14", 7},
        {"sched_seq.shm", 4, "0@3 | 0@4 | 0@10", 3},
        {"sched_defs.shm", 2, "0@5 1@10 | 0@7 | 0@22", 3},
        {"sched_defs.shm", 1, "0@5 | 0@7 | 0@10 | 0@22", 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[1024];
        uint64_t steps;
        run_sched(cases[i].file, cases[i].pes, out, sizeof out, &steps);
        if (strcmp(out, cases[i].want) != 0 || steps != cases[i].steps)
            fail_msg("%s on %d PEs: got '%s' (%llu steps), want '%s' (%llu)", cases[i].file,
                     cases[i].pes, out, (unsigned long long)steps, cases[i].want,
                     (unsigned long long)cases[i].steps);
    }
}

/* Step r's scheduler on pes PEs to the end: want[k] = task of PE 0, task of
 * PE 1, piece, parallel at step k+1 (nsteps steps). */
static void check_tasks(rt_shmap *r, int pes, const int64_t (*want)[4], int nsteps)
{
    rt_err e;
    rt_sched *s = rt_sched_new(r, pes, &e);
    assert_non_null(s);
    for (int k = 0; k < nsteps; k++) {
        assert_int_equal(rt_sched_step(s, &e), RT_OK);
        assert_int_equal(rt_sched_task(s, 0), want[k][0]);
        assert_int_equal(rt_sched_task(s, 1), want[k][1]);
        assert_int_equal(rt_sched_piece(s), want[k][2]);
        assert_int_equal(rt_sched_piece_parallel(s), want[k][3]);
    }
    assert_int_equal(rt_sched_step(s, &e), RT_EEOF);
    assert_int_equal(rt_sched_steps(s), (uint64_t)nsteps);
    rt_sched_free(s);
}

static void test_sched_tasks(void **state)
{
    (void)state;
    /* 5 lone events in a section on 2 PEs (the definition is no task): tasks
     * 0,1 then 2,3 then 4, all in piece 0 */
    char *path = rt_test_write_text("0 1 4 4\n6\n1 1 1 1 1 1 0\n1 1 2 2 1 1 0\n1 1 3 3 1 1 0\n"
                                    "1 1 4 4 1 1 0\n2 1 1 1 1 1 0\n7\n");
    rt_err e;
    rt_shmap *r = rt_shmap_open(path, &e);
    assert_non_null(r);
    static const int64_t five[3][4] = {{0, 1, 0, 1}, {2, 3, 0, 1}, {4, -1, 0, 1}};
    check_tasks(r, 2, five, 3);
    assert_null(rt_sched_new(r, 0, &e));
    assert_string_equal(e.msg, "pes: 0 is outside 1..256");
    assert_null(rt_sched_new(r, 257, &e));
    rt_shmap_free(r);
    rt_test_remove(path);

    /* sched_defs.shm (see test_sched_runs) on 2 PEs: tasks and pieces per step */
    char fix[512];
    r = rt_shmap_open(rt_test_fixture(fix, sizeof fix, "shmap/sched_defs.shm"), &e);
    assert_non_null(r);
    assert_int_equal(rt_shmap_matrix_count(r), 8);
    assert_int_equal(rt_shmap_get_info(r)->events, 4);
    static const int64_t defs[3][4] = {{0, 1, 0, 1}, {0, -1, 0, 1}, {2, -1, 1, 0}};
    check_tasks(r, 2, defs, 3);
    rt_shmap_free(r);

    /* a trace of definitions only (one in a group, one in a section) has no step */
    path = rt_test_write_text("0 1 4 4\n8 g\n0 2 1 1\n9\n6\n0 3 1 1\n7\n");
    r = rt_shmap_open(path, &e);
    assert_non_null(r);
    assert_int_equal(rt_shmap_get_info(r)->events, 0);
    check_tasks(r, 4, NULL, 0);
    rt_sched *s = rt_sched_new(r, 4, &e);
    assert_non_null(s);
    assert_int_equal(rt_sched_step(s, &e), RT_EEOF);
    assert_int_equal(rt_sched_piece(s), -1);
    rt_sched_free(s);
    rt_shmap_free(r);
    rt_test_remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sched_runs),
        cmocka_unit_test(test_sched_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
