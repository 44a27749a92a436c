/* Tests of the neutral event model's definitions (core/trace/rt_tevent.c):
 * the region table against a plain array on random ids, the class -> state
 * rule, and exact tick -> seconds conversion of OTF2-sized stamps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_tevent.h"

static void test_class_states(void **state)
{
    (void)state;
    assert_int_equal(rt_tclass_state(RT_TC_USER), 2);
    assert_int_equal(rt_tclass_state(RT_TC_SEND), 1);
    assert_int_equal(rt_tclass_state(RT_TC_RECV), 1);
    assert_int_equal(rt_tclass_state(RT_TC_COLLECTIVE), 1);
    assert_int_equal(rt_tclass_state(RT_TC_IO), 1);
    assert_int_equal(rt_tclass_state(RT_TC_SYSTEM), 1);
    assert_int_equal(rt_tclass_state(RT_TC_WAIT), 0);
    assert_int_equal(rt_tclass_state(RT_TC_SYNC), 0);
    assert_int_equal(rt_tclass_state(RT_TC_IDLE), 0);
    assert_int_equal(rt_tclass_state(RT_TC_TRACING), -1);
    for (int c = 0; c < RT_TC_COUNT; c++)
        assert_int_equal(rt_tclass_from_name(rt_tclass_name(c)), c);
    assert_int_equal(rt_tclass_from_name("nonsense"), -1);
    assert_string_equal(rt_te_kind_name(RT_TE_RECV), "receive");
    assert_string_equal(rt_te_kind_name(99), "?");
}

static void test_class_guess(void **state)
{
    (void)state;
    static const struct { const char *name; int cls; } cases[] = {
        {"MPI_Send", RT_TC_SEND},       {"MPI_Isend", RT_TC_SEND},     {"MPI_Ssend", RT_TC_SEND},
        {"MPI_Recv", RT_TC_WAIT},       {"MPI_Wait", RT_TC_WAIT},      {"MPI_Waitall", RT_TC_WAIT},
        {"MPI_Sendrecv", RT_TC_WAIT},   {"MPI_Probe", RT_TC_WAIT},     {"MPI_Irecv", RT_TC_RECV},
        {"MPI_Test", RT_TC_RECV},       {"MPI_Testall", RT_TC_RECV},   {"MPI_Iprobe", RT_TC_RECV},
        {"MPI_Barrier", RT_TC_SYNC},    {"MPI_Bcast", RT_TC_COLLECTIVE}, {"MPI_Allreduce", RT_TC_COLLECTIVE},
        {"MPI_Reduce_scatter", RT_TC_COLLECTIVE}, {"MPI_Alltoallv", RT_TC_COLLECTIVE},
        {"MPI_File_write", RT_TC_IO},   {"MPI_Init", RT_TC_SYSTEM},    {"MPI_Comm_rank", RT_TC_SYSTEM},
        {"PMPI_Send", RT_TC_SEND},      {"idle", RT_TC_IDLE},          {"Idle", RT_TC_IDLE},
        {"int main(int, char**)", RT_TC_USER}, {"MPIX", RT_TC_USER},  {"compute", RT_TC_USER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (rt_tclass_guess(cases[i].name) != cases[i].cls)
            fail_msg("%s: got %s, want %s", cases[i].name, rt_tclass_name(rt_tclass_guess(cases[i].name)),
                     rt_tclass_name(cases[i].cls));
    }
    assert_int_equal(rt_tclass_guess(NULL), RT_TC_USER);
}

/* Runtime waits of paradigms other than MPI, by name (GPU synchronisation, barriers, joins). */
static void test_runtime_wait(void **state)
{
    (void)state;
    static const struct { const char *name; int cls; } cases[] = {
        {"hipEventSynchronize", RT_TC_WAIT}, {"cudaDeviceSynchronize", RT_TC_WAIT},
        {"cudaStreamSynchronize", RT_TC_WAIT}, {"!$omp barrier @foo.c:12", RT_TC_SYNC},
        {"hpx::lcos::local::barrier::wait", RT_TC_SYNC}, {"hpx::wait_all", RT_TC_WAIT},
        {"omp_taskwait", RT_TC_WAIT}, {"pthread_join", RT_TC_WAIT}, {"pthread_cond_wait", RT_TC_WAIT},
        {"thread.Join", RT_TC_WAIT}, {"clFinish", RT_TC_WAIT}, {"joint_matrix", -1}, {"compute", -1},
        {"hipLaunchKernel", -1}, {"_Z6vecaddPfS_S_i", -1}, {"", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (rt_tclass_runtime_wait(cases[i].name) != cases[i].cls)
            fail_msg("%s: got %d, want %d", cases[i].name, rt_tclass_runtime_wait(cases[i].name), cases[i].cls);
    assert_int_equal(rt_tclass_runtime_wait(NULL), -1);
}

/* Random ids (negative ones too), redefinitions, lookups of ids never defined. */
static void test_regions_random(void **state)
{
    (void)state;
    enum { N = 5000, RANGE = 20000 };
    int *cls = malloc(2 * RANGE * sizeof *cls); /* model: class + 1 per id + RANGE, 0 = absent */
    assert_non_null(cls);
    memset(cls, 0, 2 * RANGE * sizeof *cls);
    rt_tdefs *d = rt_tdefs_new();
    srand(7);
    int distinct = 0;
    for (int i = 0; i < N; i++) {
        int id = rand() % (2 * RANGE) - RANGE, c = rand() % RT_TC_COUNT;
        char name[32];
        snprintf(name, sizeof name, "r%d", id);
        assert_int_equal(rt_tdefs_add_region(d, id, name, "G", c), RT_OK);
        if (!cls[id + RANGE])
            distinct++;
        cls[id + RANGE] = c + 1;
    }
    assert_int_equal(rt_tdefs_nregions(d), distinct);
    for (int id = -RANGE; id < RANGE; id++) {
        const rt_tregion *r = rt_tdefs_region(d, id);
        if (!cls[id + RANGE]) {
            assert_null(r);
            continue;
        }
        assert_non_null(r);
        assert_int_equal(r->id, id);
        assert_int_equal(r->cls, cls[id + RANGE] - 1);
        char name[32];
        snprintf(name, sizeof name, "r%d", id);
        assert_string_equal(r->name, name);
        assert_string_equal(r->group, "G");
    }
    rt_tdefs_free(d);
    free(cls);
}

static void test_procs_comms(void **state)
{
    (void)state;
    rt_tdefs *d = rt_tdefs_new();
    assert_int_equal(rt_tdefs_nprocs(d), 0);
    assert_null(rt_tdefs_proc(d, 0));
    assert_int_equal(rt_tdefs_set_proc(d, 3, "rank 3", "node0/rank 3"), RT_OK);
    assert_int_equal(rt_tdefs_nprocs(d), 4);
    assert_string_equal(rt_tdefs_proc(d, 3)->path, "node0/rank 3");
    assert_string_equal(rt_tdefs_proc(d, 1)->name, "");
    assert_int_equal(rt_tdefs_set_proc(d, -1, "x", NULL), RT_ERANGE);
    assert_int_equal(rt_tdefs_set_proc(d, RT_TE_MAXPROC, "x", NULL), RT_ERANGE);
    int m[3] = {0, 2, 3};
    assert_int_equal(rt_tdefs_add_comm(d, 7, "sub", 3, m), RT_OK);
    assert_int_equal(rt_tdefs_add_comm(d, 1, "world", 4, NULL), RT_OK);
    const rt_tcomm *c = rt_tdefs_comm(d, 7);
    assert_non_null(c);
    assert_int_equal(c->size, 3);
    assert_int_equal(c->members[2], 3);
    assert_null(rt_tdefs_comm(d, 99));
    assert_int_equal(rt_tdefs_ncomms(d), 2);
    rt_tdefs_free(d);
}

/* Stamps near 7.4e15 with a 1 GHz clock: the difference must come out to the tick. */
static void test_clock_exact(void **state)
{
    (void)state;
    rt_tdefs *d = rt_tdefs_new();
    assert_true(rt_tdefs_seconds(d, 5) == 5.0);
    int64_t t0 = 7397466976977800LL;
    rt_tdefs_set_clock(d, 1000000000ull, t0);
    assert_true(rt_tdefs_seconds(d, t0) == 0.0);
    assert_true(rt_tdefs_seconds(d, t0 + 1) == 1e-9);
    /* 0.405720564 s after the start, which a double of the raw stamps cannot hold */
    assert_true(rt_tdefs_seconds(d, t0 + 405720564) == 0.405720564);
    assert_true(rt_tdefs_seconds(d, t0 + 3000000007LL) == 3.0 + 7e-9);
    assert_true(rt_tdefs_seconds(d, t0 - 1000) == -1e-6);
    rt_tdefs_set_clock(d, 0, 0); /* a zero resolution is taken as 1 */
    assert_int_equal((int)rt_tdefs_resolution(d), 1);
    rt_tdefs_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_class_states),
        cmocka_unit_test(test_class_guess),
        cmocka_unit_test(test_runtime_wait),
        cmocka_unit_test(test_regions_random),
        cmocka_unit_test(test_procs_comms),
        cmocka_unit_test(test_clock_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
