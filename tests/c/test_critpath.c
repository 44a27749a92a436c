/*
 * test_critpath.c - the critical path where one wait completes several
 * receives (MPI_Waitall): the receive that came last ended the wait, and of
 * receives at the same time, the message sent last. Events are fed to the
 * replay directly (format-neutral), times in seconds, worked out by hand.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "rt_test.h"

#include "rt_replay.h"

enum { WAITALL = 10, COMPUTE = 11, SEND = 12 };

/* An event: kind, processor, time, region (ENTER/LEAVE) or peer (SEND/RECV, 8 bytes, tag 1). */
static rt_tevent ev(int kind, int proc, double t, int x)
{
    if (kind == RT_TE_SEND || kind == RT_TE_RECV)
        return rt_test_message(kind, proc, t, x, 0, 1, 8);
    return rt_test_event(kind, proc, t, x);
}

/* Replay evs and check the path: segments {proc, from, to} x nseg, messages {src, send, recv} x nmsg. */
static void check_path(const rt_tevent *evs, int n, const double (*seg)[3], int nseg, const double (*msg)[3],
                       int nmsg, double length)
{
    rt_replay_opts o = {.critical_path = 1};
    rt_replay *rp = rt_replay_new(NULL, &o, NULL);
    assert_non_null(rp);
    rt_tdefs *d = rt_replay_defs(rp);
    assert_int_equal(rt_tdefs_add_region(d, WAITALL, "MPI_Waitall", "MPI", RT_TC_WAIT), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, COMPUTE, "compute", "USER", RT_TC_USER), RT_OK);
    assert_int_equal(rt_tdefs_add_region(d, SEND, "MPI_Send", "MPI", RT_TC_SEND), RT_OK);
    for (int i = 0; i < n; i++)
        assert_int_equal(rt_replay_feed_event(rp, &evs[i], NULL), RT_OK);
    assert_int_equal(rt_replay_finish(rp, NULL), RT_OK);
    rt_critical_path cp;
    assert_int_equal(rt_replay_critical_path(rp, &cp, NULL), RT_OK);
    assert_int_equal(cp.nsegments, nseg);
    for (int i = 0; i < nseg; i++) {
        assert_int_equal(cp.segments[i].proc, (int)seg[i][0]);
        assert_true(cp.segments[i].from == seg[i][1] && cp.segments[i].to == seg[i][2]);
    }
    assert_int_equal(cp.nmessages, nmsg);
    for (int i = 0; i < nmsg; i++) {
        assert_int_equal(cp.messages[i].src, (int)msg[i][0]);
        assert_true(cp.messages[i].send_time == msg[i][1] && cp.messages[i].recv_time == msg[i][2]);
    }
    assert_true(fabs(cp.length - length) < 1e-12);
    rt_critical_path_clear(&cp);
    rt_replay_free(rp);
}

/*
 * P1 sends to P0 at 1, P2 at 4. P0 waits in MPI_Waitall 1..5 and both
 * receives come at 5 (P2's first in the stream). The wait ended with the
 * message sent last, P2's: back from P0 (last, 8) to 5 -> P2 at 4 -> P2's
 * first event 0. Segments P2 [0,4], P0 [5,8]; message 4 -> 5; length
 * 4 + 3 + 1 = 8.
 */
static void test_waitall_same_time(void **state)
{
    (void)state;
    const rt_tevent evs[] = {
        ev(RT_TE_ENTER, 0, 0, COMPUTE), ev(RT_TE_ENTER, 1, 0, COMPUTE), ev(RT_TE_ENTER, 2, 0, COMPUTE),
        ev(RT_TE_ENTER, 0, 1, WAITALL), ev(RT_TE_ENTER, 1, 1, SEND),    ev(RT_TE_SEND, 1, 1, 0),
        ev(RT_TE_LEAVE, 1, 1.1, SEND),  ev(RT_TE_LEAVE, 1, 2, COMPUTE), ev(RT_TE_ENTER, 2, 4, SEND),
        ev(RT_TE_SEND, 2, 4, 0),        ev(RT_TE_LEAVE, 2, 4.1, SEND),  ev(RT_TE_RECV, 0, 5, 2),
        ev(RT_TE_RECV, 0, 5, 1),        ev(RT_TE_LEAVE, 0, 5, WAITALL), ev(RT_TE_LEAVE, 2, 6, COMPUTE),
        ev(RT_TE_LEAVE, 0, 8, COMPUTE),
    };
    const double seg[][3] = {{2, 0, 4}, {0, 5, 8}}, msg[][3] = {{2, 4, 5}};
    check_path(evs, (int)(sizeof evs / sizeof evs[0]), seg, 2, msg, 1, 8);
}

/*
 * P1 sends to P0 at 1, P2 at 2. P0 waits in MPI_Waitall 0.5..5; P2's message
 * is received at 3, P1's at 5: P1's arrival ended the wait, though sent
 * first. Back from P0 (8) to 5 -> P1 at 1 -> P1's first event 0. Segments
 * P1 [0,1], P0 [5,8]; message 1 -> 5; length 1 + 3 + 4 = 8.
 */
static void test_waitall_last_received(void **state)
{
    (void)state;
    const rt_tevent evs[] = {
        ev(RT_TE_ENTER, 0, 0, COMPUTE), ev(RT_TE_ENTER, 1, 0, COMPUTE), ev(RT_TE_ENTER, 2, 0, COMPUTE),
        ev(RT_TE_ENTER, 0, 0.5, WAITALL), ev(RT_TE_ENTER, 1, 1, SEND),  ev(RT_TE_SEND, 1, 1, 0),
        ev(RT_TE_LEAVE, 1, 1.1, SEND),  ev(RT_TE_ENTER, 2, 2, SEND),    ev(RT_TE_SEND, 2, 2, 0),
        ev(RT_TE_LEAVE, 2, 2.1, SEND),  ev(RT_TE_LEAVE, 1, 2.5, COMPUTE), ev(RT_TE_RECV, 0, 3, 2),
        ev(RT_TE_RECV, 0, 5, 1),        ev(RT_TE_LEAVE, 0, 5, WAITALL), ev(RT_TE_LEAVE, 2, 6, COMPUTE),
        ev(RT_TE_LEAVE, 0, 8, COMPUTE),
    };
    const double seg[][3] = {{1, 0, 1}, {0, 5, 8}}, msg[][3] = {{1, 1, 5}};
    check_path(evs, (int)(sizeof evs / sizeof evs[0]), seg, 2, msg, 1, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waitall_same_time),
        cmocka_unit_test(test_waitall_last_received),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
