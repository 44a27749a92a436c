/*
 * rt_par_route.h - which rank of an MPI job replays which events.
 *
 * Processor p belongs to rank p % size: no processor count is needed before
 * the events come, and a processor defined late (a Pajé container) has an
 * owner at once. A source that knows its processors before the first event
 * (OTF2: the definitions) sets blocks instead (rt_par_set_blocks(P)): rank r
 * owns the processors p with p * size / P == r, neighbours in rank order on
 * one rank, so the messages of neighbour exchanges (rings, stencils) stay on
 * it and need no copy. A rank replays, with the serial engine, every event of its
 * own processors plus every SEND whose receiver and every RECV whose sender
 * it owns, so its processors' queues, pending messages, pairing and tachyons
 * are those of the serial run. The rule lives here, once.
 */
#ifndef RT_PAR_ROUTE_H
#define RT_PAR_ROUTE_H

#include <stdint.h>

#include "rt_tevent.h"

/* The processor count of the block ownership, 0 for p % size (rt_par.c). */
extern int rt_par_block_procs;

/* Blocks of P processors (P > 0) for the sources opened from now on, or back to p % size (P = 0). */
static inline void rt_par_set_blocks(int P)
{
    rt_par_block_procs = P > 0 ? P : 0;
}

/* The rank of size that owns processor p (0 when size <= 1 or p < 0). */
static inline int rt_par_owner_of(int p, int size)
{
    if (size <= 1 || p < 0)
        return 0;
    if (p < rt_par_block_procs)
        return (int)((int64_t)p * size / rt_par_block_procs);
    return p % size;
}

/* 1 when rank of size owns processor p (always 1 when size <= 1). */
static inline int rt_par_owns(int p, int rank, int size)
{
    return size <= 1 || rt_par_owner_of(p, size) == rank;
}

/*
 * The ranks of size that need ev: the owner of ev->proc, and for a SEND or
 * RECV with a peer also the owner of ev->peer when it is another rank.
 * Writes 1 or 2 ranks into out (owner of proc first); returns how many.
 */
static inline int rt_par_route(const rt_tevent *ev, int size, int out[2])
{
    int a = rt_par_owner_of(ev->proc, size);
    out[0] = a;
    if ((ev->kind == RT_TE_SEND || ev->kind == RT_TE_RECV) && ev->peer >= 0) {
        int b = rt_par_owner_of(ev->peer, size);
        if (b != a) {
            out[1] = b;
            return 2;
        }
    }
    return 1;
}

#endif
