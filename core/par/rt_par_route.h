/*
 * rt_par_route.h - which rank of an MPI job replays which events.
 *
 * Processor p belongs to rank p % size: no processor count is needed before
 * the events come, and a processor defined late (a Pajé container) has an
 * owner at once. A rank replays, with the serial engine, every event of its
 * own processors plus every SEND whose receiver and every RECV whose sender
 * it owns, so its processors' queues, pending messages, pairing and tachyons
 * are those of the serial run. The rule lives here, once.
 */
#ifndef RT_PAR_ROUTE_H
#define RT_PAR_ROUTE_H

#include "rt_tevent.h"

/* The rank of size that owns processor p (0 when size <= 1 or p < 0). */
static inline int rt_par_owner_of(int p, int size)
{
    return (size <= 1 || p < 0) ? 0 : p % size;
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
