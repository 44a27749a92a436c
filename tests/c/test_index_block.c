/* Tests of the index's event blocks (core/index/rt_index_block.c): random blocks
 * written and read back against the events they were given (every field of every
 * event, the stack open at the block's start), edge values (negative times, peers
 * 0 and P-1 and unknown, sizes up to 2^63 - 1, tags 0, 65535, negative and the
 * int64 extremes, communicators), empty blocks, packed blocks both compressed and
 * stored as is, and damaged blocks refused without a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_error.h"
#include "rt_index_block.h"
#include "rt_tevent.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int below(int n) { return (int)(next64() % (uint64_t)n); }

/* A value from a pool mixing small numbers and extremes. */
static int64_t pick_tag(void)
{
    static const int64_t edge[] = {0, 1, -1, 65535, 65536, -65535, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, 7};
    return below(3) ? (int64_t)below(300) - 20 : edge[below((int)(sizeof edge / sizeof *edge))];
}

static uint64_t pick_bytes(void)
{
    static const uint64_t edge[] = {0, 1, 8, 65536, 1u << 20, (uint64_t)1 << 40, (uint64_t)INT64_MAX};
    return below(2) ? (uint64_t)below(100000) : edge[below((int)(sizeof edge / sizeof *edge))];
}

/* A random event of processor proc (of nprocs) at or after t. */
static rt_ixb_event random_event(int proc, int nprocs, int64_t t)
{
    rt_ixb_event e;
    memset(&e, 0, sizeof e);
    static const int kinds[] = {RT_TE_ENTER, RT_TE_LEAVE, RT_TE_SEND, RT_TE_RECV, RT_TE_COLL_BEGIN,
                                RT_TE_COLL_END, RT_TE_MARKER, RT_TE_COUNTER};
    e.kind = kinds[below(8)];
    int64_t gaps[] = {0, 1, 2, 100, 5000, 1000000, (int64_t)1 << 40};
    e.t = t + gaps[below(7)];
    switch (e.kind) {
    case RT_TE_ENTER:
    case RT_TE_LEAVE:
    case RT_TE_MARKER:
        e.id = below(4) ? below(20) : below(1 << 30);
        break;
    case RT_TE_COUNTER:
        e.id = below(5);
        e.value = below(2) ? (double)below(1000) / 7.0 : -1e300 * (below(2) ? 1 : -1);
        break;
    case RT_TE_SEND:
    case RT_TE_RECV: {
        int peers[] = {0, nprocs - 1, proc, proc + 1 < nprocs ? proc + 1 : 0, proc > 0 ? proc - 1 : nprocs - 1,
                       below(nprocs), -1};
        e.peer = peers[below(7)];
        e.comm = below(3) ? 0 : below(2) ? below(10) : -1;
        e.tag = below(2) ? 42 : pick_tag();
        e.bytes = pick_bytes();
        if (e.kind == RT_TE_RECV && below(4)) {
            e.has_ts = 1;
            int64_t flight[] = {0, 1, 3000, -5, (int64_t)1 << 33};
            e.ts = e.t - flight[below(5)];
        }
        break;
    }
    default:
        e.comm = below(2) ? 0 : below(4) - 1;
        e.peer = below(2) ? -1 : below(nprocs);
        e.bytes = pick_bytes();
        e.bytes_in = pick_bytes();
        break;
    }
    return e;
}

/* The fields of e its kind carries, against f. */
static void assert_same_event(const rt_ixb_event *e, const rt_ixb_event *f)
{
    assert_int_equal(f->kind, e->kind);
    assert_true(f->t == e->t);
    switch (e->kind) {
    case RT_TE_ENTER:
    case RT_TE_LEAVE:
    case RT_TE_MARKER:
        assert_int_equal(f->id, e->id);
        break;
    case RT_TE_COUNTER:
        assert_int_equal(f->id, e->id);
        assert_memory_equal(&f->value, &e->value, sizeof e->value);
        break;
    case RT_TE_SEND:
    case RT_TE_RECV:
        assert_int_equal(f->peer, e->peer);
        assert_int_equal(f->comm, e->comm);
        assert_true(f->tag == e->tag);
        assert_true(f->bytes == e->bytes);
        if (e->kind == RT_TE_RECV) {
            assert_int_equal(f->has_ts, e->has_ts);
            if (e->has_ts)
                assert_true(f->ts == e->ts);
        }
        break;
    default:
        assert_int_equal(f->comm, e->comm);
        assert_int_equal(f->peer, e->peer);
        assert_true(f->bytes == e->bytes);
        assert_true(f->bytes_in == e->bytes_in);
        break;
    }
}

/* Bytes of v as a varint. */
static size_t vlen(uint64_t v)
{
    size_t n = 1;
    for (; v >= 128; v >>= 7)
        n++;
    return n;
}

/* The unpacked size of enc's block: its streams after the lengths of the first two. */
static size_t unpacked_size(const rt_ixb_enc *enc)
{
    return rt_ixb_size(enc) + vlen(enc->n[0]) + vlen(enc->n[1]);
}

/* Pack enc (begun at t0 with depth frames regions/entered and holding ev[0..n-1]) and read it
 * back. Returns raw (0: stored as is). */
static uint32_t round_trip(rt_ixb_enc *enc, rt_ixb_packer *z, rt_ixb_unpacker *u, int proc, int64_t t0,
                           size_t depth, const int *regions, const int64_t *entered, const rt_ixb_event *ev,
                           size_t n, int read_frames)
{
    size_t unpacked = unpacked_size(enc);
    assert_int_equal(enc->nev, n);
    const unsigned char *data;
    size_t len;
    uint32_t raw;
    assert_int_equal(rt_ixb_pack(z, enc, &data, &len, &raw), RT_OK);
    assert_true(raw == 0 ? len == unpacked : raw == unpacked && len < raw);
    /* a copy of exactly what is stored, so reading past it is caught */
    unsigned char *copy = malloc(len ? len : 1);
    memcpy(copy, data, len);
    rt_ixb_dec d;
    uint64_t dep;
    assert_int_equal(rt_ixb_open(&d, u, copy, len, raw, 1u << 28, proc, t0, &dep), 0);
    assert_int_equal(dep, depth);
    if (read_frames) {
        for (size_t i = 0; i < depth; i++) {
            int r;
            int64_t en;
            assert_int_equal(rt_ixb_frame_next(&d, &r, &en), 1);
            assert_int_equal(r, regions[i]);
            assert_true(en == entered[i]);
        }
    }
    rt_ixb_event f;
    for (size_t i = 0; i < n; i++) {
        memset(&f, 0x5a, sizeof f);
        assert_int_equal(rt_ixb_next(&d, &f), 1);
        assert_same_event(&ev[i], &f);
    }
    assert_int_equal(rt_ixb_next(&d, &f), 0);
    free(copy);
    return raw;
}

/* Random blocks of random processors, every field of every event read back. */
static void test_random_blocks(void **state)
{
    (void)state;
    rt_ixb_enc enc = {0};
    rt_ixb_packer z = {0};
    rt_ixb_unpacker u = {0};
    int packed = 0, stored = 0;
    enum { MAXN = 3000, MAXD = 12 };
    static rt_ixb_event ev[MAXN];
    for (int round = 0; round < 400; round++) {
        int nprocs = below(2) ? 1 + below(8) : 1 + below(100000);
        int proc = below(nprocs);
        int64_t t0 = below(3) ? (int64_t)below(1000000) : -(int64_t)(next64() >> 20);
        size_t depth = (size_t)below(MAXD), n = (size_t)below(round % 10 ? MAXN : 4);
        int regions[MAXD];
        int64_t entered[MAXD];
        assert_int_equal(rt_ixb_begin(&enc, t0, depth), RT_OK);
        for (size_t i = 0; i < depth; i++) {
            regions[i] = below(50);
            entered[i] = t0 - (i == 0 ? (int64_t)below(1 << 20) : below(100));
            assert_int_equal(rt_ixb_frame(&enc, regions[i], entered[i]), RT_OK);
        }
        int64_t t = t0;
        for (size_t i = 0; i < n; i++) {
            ev[i] = random_event(proc, nprocs, t);
            if (i == 0)
                ev[i].t = t0;
            t = ev[i].t;
            assert_int_equal(rt_ixb_put(&enc, proc, &ev[i]), RT_OK);
        }
        if (round_trip(&enc, &z, &u, proc, t0, depth, regions, entered, ev, n, round % 2))
            packed++;
        else
            stored++;
    }
    /* both ways of storing a block were exercised */
    assert_true(packed > 50);
    assert_true(stored > 5);
    rt_ixb_free(&enc);
    rt_ixb_packer_free(&z);
    rt_ixb_unpacker_free(&u);
}

/* Worked edge cases in one block, and a step by step pattern that must compress. */
static void test_edges(void **state)
{
    (void)state;
    rt_ixb_enc enc = {0};
    rt_ixb_packer z = {0};
    rt_ixb_unpacker u = {0};
    const int P = 4096, me = 17;
    int64_t t0 = -1000000000000LL;
    rt_ixb_event ev[] = {
        {.kind = RT_TE_ENTER, .t = t0, .id = 0},
        {.kind = RT_TE_SEND, .t = t0 + 1, .peer = 0, .tag = 0, .bytes = 0},
        {.kind = RT_TE_SEND, .t = t0 + 1, .peer = P - 1, .tag = 65535, .bytes = (uint64_t)INT64_MAX, .comm = 3},
        {.kind = RT_TE_RECV, .t = t0 + 2, .peer = me, .tag = -65535, .bytes = 1, .has_ts = 1, .ts = t0 + 1},
        {.kind = RT_TE_RECV, .t = t0 + 2, .peer = -1, .tag = INT64_MIN, .bytes = 12, .comm = -1},
        {.kind = RT_TE_RECV, .t = t0 + 9, .peer = 0, .tag = INT64_MAX, .bytes = 3, .has_ts = 1, .ts = t0 + 20},
        {.kind = RT_TE_SEND, .t = t0 + 9, .peer = P - 1, .tag = INT64_MAX, .bytes = 4},
        {.kind = RT_TE_COLL_BEGIN, .t = t0 + 10, .comm = -1, .peer = -1, .bytes = 0, .bytes_in = 0},
        {.kind = RT_TE_COLL_END, .t = t0 + 10, .comm = 2000000000, .peer = P - 1, .bytes = (uint64_t)INT64_MAX,
         .bytes_in = 8},
        {.kind = RT_TE_COUNTER, .t = INT64_MAX - 5, .id = 0, .value = -0.0},
        {.kind = RT_TE_LEAVE, .t = INT64_MAX, .id = 2000000000},
    };
    size_t n = sizeof ev / sizeof *ev;
    int regions[] = {5};
    int64_t entered[] = {INT64_MIN};
    assert_int_equal(rt_ixb_begin(&enc, t0, 1), RT_OK);
    assert_int_equal(rt_ixb_frame(&enc, regions[0], entered[0]), RT_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rt_ixb_put(&enc, me, &ev[i]), RT_OK);
    round_trip(&enc, &z, &u, me, t0, 1, regions, entered, ev, n, 1);

    /* the encoder refuses what a block cannot hold */
    assert_int_equal(rt_ixb_begin(&enc, 100, 0), RT_OK);
    rt_ixb_event back = {.kind = RT_TE_ENTER, .t = 99, .id = 1};
    assert_int_equal(rt_ixb_put(&enc, 0, &back), RT_EINVAL);
    rt_ixb_event neg = {.kind = RT_TE_LEAVE, .t = 100, .id = -2};
    assert_int_equal(rt_ixb_put(&enc, 0, &neg), RT_EINVAL);
    rt_ixb_event odd = {.kind = 0, .t = 100};
    assert_int_equal(rt_ixb_put(&enc, 0, &odd), RT_EINVAL);
    assert_int_equal(rt_ixb_frame(&enc, 1, 101), RT_EINVAL); /* entered after the block's start */

    /* an empty block, with and without a stack */
    for (size_t depth = 0; depth < 3; depth++) {
        int r[3] = {7, 8, 9};
        int64_t e[3] = {-50, -20, 0};
        assert_int_equal(rt_ixb_begin(&enc, 0, depth), RT_OK);
        for (size_t i = 0; i < depth; i++)
            assert_int_equal(rt_ixb_frame(&enc, r[i], e[i]), RT_OK);
        assert_int_equal(round_trip(&enc, &z, &u, 3, 0, depth, r, e, NULL, 0, 1), 0);
        /* events read with the frames left unread skip them */
        assert_int_equal(rt_ixb_begin(&enc, 0, depth), RT_OK);
        for (size_t i = 0; i < depth; i++)
            assert_int_equal(rt_ixb_frame(&enc, r[i], e[i]), RT_OK);
        round_trip(&enc, &z, &u, 3, 0, depth, r, e, NULL, 0, 0);
    }

    /* a ring step repeated: stored compressed */
    static rt_ixb_event steps[4000];
    size_t k = 0;
    int64_t t = 1000;
    assert_int_equal(rt_ixb_begin(&enc, t, 0), RT_OK);
    for (int s = 0; s < 500; s++) {
        rt_ixb_event step[] = {
            {.kind = RT_TE_ENTER, .t = t, .id = 10},
            {.kind = RT_TE_LEAVE, .t = t += 1200 + s % 3, .id = 10},
            {.kind = RT_TE_ENTER, .t = t += 2, .id = 2},
            {.kind = RT_TE_SEND, .t = t, .peer = me + 1, .tag = s, .bytes = 4096},
            {.kind = RT_TE_LEAVE, .t = t += 40, .id = 2},
            {.kind = RT_TE_ENTER, .t = t += 2, .id = 3},
            {.kind = RT_TE_RECV, .t = t += 300, .peer = me - 1, .tag = s, .bytes = 4096, .has_ts = 1, .ts = t - 250},
            {.kind = RT_TE_LEAVE, .t = t, .id = 3},
        };
        for (size_t i = 0; i < 8; i++) {
            steps[k] = step[i];
            assert_int_equal(rt_ixb_put(&enc, me, &steps[k]), RT_OK);
            k++;
        }
    }
    size_t unpacked = unpacked_size(&enc);
    uint32_t raw = round_trip(&enc, &z, &u, me, 1000, 0, NULL, NULL, steps, k, 1);
    assert_int_equal(raw, unpacked);
    assert_true(z.capout > 0);
    rt_ixb_free(&enc);
    rt_ixb_packer_free(&z);
    rt_ixb_unpacker_free(&u);
}

/* Damaged blocks: every truncation and many flipped bytes are read without a crash; a
 * truncated or mislabelled block is refused. */
static void test_damage(void **state)
{
    (void)state;
    rt_ixb_enc enc = {0};
    rt_ixb_packer z = {0};
    rt_ixb_unpacker u = {0};
    for (int packed = 0; packed < 2; packed++) {
        assert_int_equal(rt_ixb_begin(&enc, 5, 1), RT_OK);
        assert_int_equal(rt_ixb_frame(&enc, 1, 0), RT_OK);
        int64_t t = 5;
        for (int i = 0; i < (packed ? 600 : 3); i++) {
            rt_ixb_event e = random_event(2, 9, t);
            if (i == 0)
                e.t = 5;
            t = e.t;
            assert_int_equal(rt_ixb_put(&enc, 2, &e), RT_OK);
        }
        const unsigned char *data;
        size_t len;
        uint32_t raw;
        assert_int_equal(rt_ixb_pack(&z, &enc, &data, &len, &raw), RT_OK);
        assert_int_equal(raw != 0, packed);
        unsigned char *copy = malloc(len);
        memcpy(copy, data, len);
        rt_ixb_dec d;
        uint64_t depth;
        rt_ixb_event f;
        /* claimed larger than allowed, or not larger than stored: refused */
        if (packed) {
            assert_int_equal(rt_ixb_open(&d, &u, copy, len, raw, raw - 1, 2, 5, &depth), -1);
            assert_int_equal(rt_ixb_open(&d, &u, copy, len, (uint32_t)len, 1u << 28, 2, 5, &depth), -1);
            assert_int_equal(rt_ixb_open(&d, &u, copy, len, raw + 1, 1u << 28, 2, 5, &depth), -1);
        }
        for (size_t cut = 0; cut < len; cut++) {
            unsigned char *part = malloc(cut ? cut : 1);
            memcpy(part, copy, cut);
            int ok = rt_ixb_open(&d, &u, part, cut, raw, 1u << 28, 2, 5, &depth) == 0;
            int r = 1;
            while (ok && (r = rt_ixb_next(&d, &f)) == 1)
                ;
            assert_true(!ok || r == -1); /* a truncated block never reads to a clean end */
            free(part);
        }
        for (int flip = 0; flip < 2000; flip++) {
            size_t at = (size_t)below((int)len);
            unsigned char bit = (unsigned char)(1u << below(8));
            copy[at] ^= bit;
            if (rt_ixb_open(&d, &u, copy, len, raw, 1u << 28, 2, 5, &depth) == 0)
                while (rt_ixb_next(&d, &f) == 1)
                    ;
            copy[at] ^= bit;
        }
        free(copy);
    }
    rt_ixb_free(&enc);
    rt_ixb_packer_free(&z);
    rt_ixb_unpacker_free(&u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_blocks),
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_damage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
