/*
 * rt_par_source.h - open a message-passing trace for this rank's part of a
 * distributed replay.
 *
 * Under an MPI job of more than one rank (rt_par_size() > 1) every rank
 * calls this collectively with the same arguments and gets a source that
 * yields, in the serial order of the trace (rt_par_rec.h's key), the events
 * its replay needs (rt_par_route.h): every event of its own processors and
 * the SEND / RECV records whose peer it owns. Definitions are the whole
 * trace's on every rank. An OTF2 archive is read location by location, each
 * rank its own locations, in epochs up to a common time horizon; a text
 * format is read in byte ranges (rt_par_text.h). Reading is collective: every
 * rank must read its source to the end (or until an error: an error on any
 * rank is agreed on at the next exchange, and every rank's next call returns
 * it - the failing rank with its own message, the others with
 * "another rank failed").
 *
 * With one rank, or a build without MPI, this is rt_tsource_open.
 */
#ifndef RT_PAR_SOURCE_H
#define RT_PAR_SOURCE_H

#include "rt_error.h"
#include "rt_tevent.h"

rt_tsource *rt_par_source_open(const char *path, const char *format, rt_err *err);

/* The same, with a PICL trace's malformed lines errors (strict 1) as the strict serial
 * reader makes them: every rank fails with the first one in the file (rt_par_text.h).
 * strict is ignored for other formats and with one rank (rt_tsource_open). */
rt_tsource *rt_par_source_open_strict(const char *path, const char *format, int strict, rt_err *err);

/* 1 when src is a distributed source (its events are this rank's part, each with
 * its serial key in src->key), else 0. */
int rt_par_source_is_par(const rt_tsource *src);

/* The reader under a distributed source (format options such as PICL's compstats go to it);
 * src itself otherwise. */
rt_tsource *rt_par_source_part(rt_tsource *src);

/* The message of every rank but the failing one when a rank failed (it prints its own). */
extern const char *const rt_par_peer_failed;
/* 1 when err is that: this rank stops because another failed. */
int rt_par_source_peer_failed(const rt_err *err);

#endif
