/*
 * rt_chanmap.h - message channels by (source, destination, communicator, tag).
 *
 * The replay pairs messages first-in first-out per channel, and the pre-pass
 * counts what is in flight the same way: both keep a table of channels. This
 * is that table, once: open addressing with linear probing, grown by doubling
 * at half load, items of a size the caller chooses whose first member is an
 * rt_chankey. Items move when the table grows: hold no pointer to one across
 * a call that may add another.
 */
#ifndef RT_CHANMAP_H
#define RT_CHANMAP_H

#include <stddef.h>
#include <stdint.h>

/* The first member of every item. hash 0 marks an empty slot. */
typedef struct rt_chankey {
    uint64_t hash;
    int src, dst, comm;
    int64_t tag;
} rt_chankey;

typedef struct rt_chanmap {
    unsigned char *slots; /* cap items of elem bytes */
    size_t elem;          /* item size, >= sizeof(rt_chankey) */
    size_t n, cap;        /* items, slots (a power of two, or 0) */
} rt_chanmap;

/* An empty map of items of elem bytes (no allocation yet). */
void rt_chanmap_init(rt_chanmap *m, size_t elem);

/*
 * The item of channel (src, dst, comm, tag), made when absent (zeroed past
 * its key). NULL when memory ran out (the map is unchanged then).
 */
void *rt_chanmap_get(rt_chanmap *m, int src, int dst, int comm, int64_t tag);

/* The item of channel (src, dst, comm, tag), NULL when absent (nothing added). */
void *rt_chanmap_find(const rt_chanmap *m, int src, int dst, int comm, int64_t tag);

/* Slot i (0 <= i < cap): its item, or NULL when the slot is empty. */
static inline void *rt_chanmap_slot(const rt_chanmap *m, size_t i)
{
    rt_chankey *k = (rt_chankey *)(void *)(m->slots + i * m->elem);
    return k->hash ? k : NULL;
}

/*
 * Drop every item for which drop(item, ud) returns 1 (drop frees what the item
 * holds), re-placing the others in a table of the same size. Returns the items
 * dropped, or 0 with the map unchanged when memory ran out. Items move, as when
 * the table grows. A replay sweeps its empty channels so that a trace using a new
 * tag for every message keeps the channels in flight, not every channel it met.
 */
size_t rt_chanmap_sweep(rt_chanmap *m, int (*drop)(void *item, void *ud), void *ud);

/* Free the slots (what items point to is the caller's to free first). */
void rt_chanmap_free(rt_chanmap *m);

#endif
