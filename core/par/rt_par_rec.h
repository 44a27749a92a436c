/*
 * rt_par_rec.h - an event as it travels between the ranks of a distributed
 * replay (MPI messages) or waits in a spill file: the rt_tevent without its
 * pointer, the event's key in the serial order, and a copy of its raw record
 * (rt_tsource.raw_size bytes; none when the format has no raw records).
 *
 * The serial order is a key of three integers (rt_tkey, rt_tevent.h) compared in order:
 *   text formats (PICL, Paraver, Pajé): {byte offset of the record in the
 *     file, index of the event within its record, 0};
 *   OTF2: {ticks, location index, index of the event within its location}.
 * All ranks run the same build, so the layout is the C struct's own.
 */
#ifndef RT_PAR_REC_H
#define RT_PAR_REC_H

#include <stddef.h>
#include <stdint.h>

#include "rt_tevent.h"

/* The fixed part of a packed record (raw bytes follow it). */
typedef struct rt_par_rec {
    rt_tkey key;
    double time, bytes, bytes_in;
    int64_t ticks, tag;
    uint64_t line;
    int32_t kind, proc, region, task, peer, comm, ndata, has_raw;
    double data[RT_TE_MAXDATA];
} rt_par_rec;

/* Bytes one packed record takes with raw_size bytes of raw record (8-aligned). */
static inline size_t rt_par_rec_size(size_t raw_size)
{
    return (sizeof(rt_par_rec) + raw_size + 7u) & ~(size_t)7u;
}

/*
 * Pack ev with its key into buf (rt_par_rec_size(raw_size) bytes): raw_size
 * bytes of ev->raw are copied when ev->raw is set (zeros otherwise).
 */
void rt_par_rec_pack(void *buf, const rt_tevent *ev, const rt_tkey *key, size_t raw_size);
/*
 * Unpack buf into ev and *key (key may be NULL). ev->raw points into buf
 * (valid while buf is) when the record had one, else NULL.
 */
void rt_par_rec_unpack(const void *buf, rt_tevent *ev, rt_tkey *key, size_t raw_size);

#endif
