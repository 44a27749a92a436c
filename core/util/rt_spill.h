/*
 * rt_spill.h - an append-only list of fixed-size records that keeps only its
 * newest block in memory: every full block goes to an anonymous temporary file
 * (tmpfile: removed when closed, also when the process dies) and is read back
 * by position. Results that grow with the trace (the waits and the path of the
 * critical path, MEDEA's profile change points) live here, so a command's
 * memory is one block whatever the trace's length.
 *
 *     rt_spill *s = rt_spill_new(sizeof(rec), 4096);
 *     rt_spill_append(s, &r, 1);                 (RT_OK, RT_ENOMEM, RT_EIO)
 *     rt_spill_read(s, i, n, buf);               (records i .. i + n - 1)
 *     rt_spill_free(s);
 */
#ifndef RT_SPILL_H
#define RT_SPILL_H

#include <stddef.h>
#include <stdint.h>

typedef struct rt_spill rt_spill;

/* A new empty list of records of size bytes, block records kept in memory; NULL when out of memory. */
rt_spill *rt_spill_new(size_t size, size_t block);

/* Append n records; RT_OK, or RT_EIO when the temporary file cannot be made or written
 * (records already appended stay). */
int rt_spill_append(rt_spill *s, const void *recs, size_t n);

/* Records appended so far. */
int64_t rt_spill_count(const rt_spill *s);

/* Copy records first .. first + n - 1 into out: RT_OK, RT_EINVAL past the end, RT_EIO on a
 * failed read. */
int rt_spill_read(rt_spill *s, int64_t first, size_t n, void *out);

/* Bytes written to the temporary file so far (0: everything is still in memory). */
int64_t rt_spill_file_bytes(const rt_spill *s);

void rt_spill_free(rt_spill *s);

#endif
