/*
 * rt_index_block.h - one event block of the viewer's index (rt_index.h):
 * encoding while the index is built, decoding while it answers a query.
 *
 * A block holds a run of one processor's events and decodes alone. Unpacked, it
 * is three streams of varints, each read front to back:
 *   - times:  per event its time since the previous event (the first event's
 *             since the block's first time, so 0), and for a receive whose send
 *             is known its flight time (zigzag + 1; 0 when unknown);
 *   - codes:  the region stack open at the block's first event (depth, then per
 *             frame its region and how long before the first event it was
 *             entered), then per event its kind in the low 3 bits and above them
 *             the region, the counter, the communicator of a collective, or for a
 *             message the peer relative to the processor (zigzag), a "same tag as
 *             the block's previous message" flag and an "other communicator" flag;
 *   - args:   a message's tag (zigzag difference from the previous message's
 *             tag in the block, absent when the flag says it is the same), size
 *             and communicator (when not 0); a collective's root, bytes sent and
 *             received; a counter's value (8 bytes).
 * Packed, the three streams follow two varints (the lengths of the first two)
 * and the whole is compressed with zstd when that makes it smaller. Keeping like
 * with like (times with times, codes with codes) is what lets the compressor
 * find the repeats: a processor's steps repeat the same codes, and its times
 * are mostly small.
 */
#ifndef RT_INDEX_BLOCK_H
#define RT_INDEX_BLOCK_H

#include <stddef.h>
#include <stdint.h>

/* One event as a block stores it. */
typedef struct rt_ixb_event {
    int kind;            /* RT_TE_ENTER .. RT_TE_COUNTER (rt_tevent.h) */
    int64_t t;           /* ticks */
    int id;              /* enter, leave, marker: the region (dense number); counter: its number */
    int peer;            /* send, receive: the other processor; collective: the root (-1 none) */
    int comm;            /* send, receive, collective: the communicator */
    int64_t tag;         /* send, receive */
    uint64_t bytes;      /* send, receive: the size; collective: bytes sent */
    uint64_t bytes_in;   /* collective: bytes received */
    int has_ts;          /* receive: the send's time is known ... */
    int64_t ts;          /* ... and is this */
    double value;        /* counter: the sample */
} rt_ixb_event;

/* A block being filled (zero it to start). */
typedef struct rt_ixb_enc {
    unsigned char *s[3];
    size_t n[3], cap[3];
    int64_t first, prev; /* the block's first time, the latest event's */
    int64_t tag;         /* the latest message's tag */
    uint32_t nev;        /* events in the block */
    int open;            /* rt_ixb_begin was called */
} rt_ixb_enc;

/* Start a block at time t whose first event finds depth regions open; then rt_ixb_frame for each,
 * outermost first. RT_OK or RT_ENOMEM. */
int rt_ixb_begin(rt_ixb_enc *e, int64_t t, size_t depth);
int rt_ixb_frame(rt_ixb_enc *e, int region, int64_t entered);
/* Add an event of processor proc (its time not before the latest). RT_OK, RT_EINVAL (time going
 * back, unknown kind, negative region or counter), RT_ENOMEM. */
int rt_ixb_put(rt_ixb_enc *e, int proc, const rt_ixb_event *ev);
/* The events' bytes so far, unpacked (what the build weighs against RT_INDEX_BLOCK; the block
 * stores a few more: the streams' lengths). */
static inline size_t rt_ixb_size(const rt_ixb_enc *e) { return e->n[0] + e->n[1] + e->n[2]; }
void rt_ixb_free(rt_ixb_enc *e);

/* What packs blocks (zero it to start): the compressor's state and scratch, reused. */
typedef struct rt_ixb_packer {
    void *cctx;
    unsigned char *raw, *out;
    size_t capraw, capout;
} rt_ixb_packer;

/* Pack e's block: *data and *len what to store (valid until the next call), *raw its unpacked
 * size, 0 when it is stored as is. Empties e for the next rt_ixb_begin. RT_OK or RT_ENOMEM. */
int rt_ixb_pack(rt_ixb_packer *z, rt_ixb_enc *e, const unsigned char **data, size_t *len, uint32_t *raw);
void rt_ixb_packer_free(rt_ixb_packer *z);

/* What unpacks blocks (zero it to start). */
typedef struct rt_ixb_unpacker {
    void *dctx;
    unsigned char *buf;
    size_t cap;
} rt_ixb_unpacker;
void rt_ixb_unpacker_free(rt_ixb_unpacker *u);

/* A block being read. */
typedef struct rt_ixb_dec {
    const unsigned char *p[3], *end[3];
    int proc;
    int64_t t, tag;
    uint64_t frames;     /* frames of the stack not read yet */
} rt_ixb_dec;

/* Open a stored block (data, len, raw as rt_ixb_pack gave them) of processor proc whose first
 * event is at tfirst; *depth gets the regions open at its start. 0, or -1 when damaged (also
 * when raw exceeds max_raw). */
int rt_ixb_open(rt_ixb_dec *d, rt_ixb_unpacker *u, const unsigned char *data, size_t len, uint32_t raw,
                size_t max_raw, int proc, int64_t tfirst, uint64_t *depth);
/* The next frame of the stack (outermost first): 1, or -1 when damaged. */
int rt_ixb_frame_next(rt_ixb_dec *d, int *region, int64_t *entered);
/* The next event: 1, 0 at the block's end (every stream read whole), -1 when damaged. Reads any
 * frames not read yet first. */
int rt_ixb_next(rt_ixb_dec *d, rt_ixb_event *ev);

#endif
