/*
 * rt_par_text.h - a text trace (PICL old and new, Paraver, Pajé) read over the
 * ranks of an MPI job, each rank its byte range, for a distributed replay.
 *
 * Collective: every rank calls rt_par_text_open with the same arguments.
 * Rank r of N reads the records whose line starts in bytes
 * [size * r / N, size * (r + 1) / N) of the file (the header, and a PICL
 * trace's first record for its format, are read by every rank); the ranks
 * count the newlines of their ranges and exchange the counts, so every
 * record keeps the file's line number. Each record line is sent, in batches
 * (MPI_Alltoallv), to the ranks that replay its events (rt_par_route.h): the
 * owner of its processor, and for a message the owner of the peer (a PICL
 * send entry or receive exit with message fields, a Paraver communication
 * record); an old-format PICL record also goes to the owner of the sender of
 * a receive it may repeat, and a node's first record of each range to every
 * rank, so each rank translates its records exactly as the serial reader
 * does. A rank appends what rank s sends it to a spill file for s; once
 * every range is read, its source reads spill 0, 1, ..., N - 1 (ranges are
 * in file order, so this is file order) with the format's unchanged reader
 * and gives the events its replay needs: every event of its own processors,
 * and each SEND / RECV whose peer it owns, in the serial order. No rank reads
 * or holds the whole file: memory is a batch, the spills are files.
 *
 * Definitions are the serial run's on every rank: the header's (Paraver),
 * processors up to the largest seen by any rank (PICL), and PICL regions
 * defined in the order of their first record in the file.
 *
 * Each event's key (src->key, has_key set) is {line of its record, index of
 * the event among its record's events as this rank sees them, 0}.
 *
 * Errors: a record a range cannot read (a malformed Paraver record, a PICL
 * line under a strict reader) ends the reading on every rank once every
 * range before it is read through; every rank returns NULL with the same
 * one-line message, the serial reader's: "FILE:LINE: field: what" of the
 * first bad record in the file.
 *
 * RETRACE_PAR_TEXT_BATCH=BYTES (for tests) sets the bytes of record lines a
 * rank routes between two exchanges (4 MiB by default).
 *
 * Pajé is read in ranges too (rt_par_paje.c: definitions gathered, first uses
 * numbered, links paired on the rank their key hashes to); keys are {line, index
 * of the event among its line's events as this rank sees them, 0}. A Pajé trace
 * the ranges cannot reproduce exactly (a header line after the first event line,
 * a line the serial reader refuses) is read by rank 0 with the serial reader,
 * which sends each event, packed (rt_par_rec.h), to the ranks that need it, in
 * batches; every rank then receives the whole trace's definitions. Keys there are
 * {position of the event in the serial stream, 0, 0}.
 *
 * Without MPI, or when not launched, this reads the whole file as rank 0 of 1
 * through the same path (spill and reread).
 */
#ifndef RT_PAR_TEXT_H
#define RT_PAR_TEXT_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_picl.h"
#include "rt_tevent.h"

/*
 * format: "picl", "picl-old", "picl-new", "paraver", "paje", or NULL (detect).
 * strict 1: a PICL trace's malformed line is an error, as for the strict serial
 * reader (the first one in the file, told by every rank), not a skipped line;
 * ignored for the other formats.
 */
rt_tsource *rt_par_text_open(const char *path, const char *format, int strict, rt_err *err);

/* 1 when format (a name of rt_tsource_open, or a detected one) is read by rt_par_text_open. */
int rt_par_text_format(const char *format);

/*
 * A PICL source of rt_par_text_open: the file's records (every range's, as
 * the serial reader counts them), and the malformed lines this rank's reader
 * skipped so far (a lenient reader's; every skipped line is read by rank 0,
 * in file order, so rank 0's are the serial reader's). RT_OK, or RT_EINVAL
 * when s is not one.
 */
int rt_par_text_picl_lines(const rt_tsource *s, uint64_t *records, const rt_picl_skips **skips);

/* 1 when s was made by rt_par_text_open for a PICL or Paraver trace. */
int rt_par_text_is(const rt_tsource *s);

#endif
