/*
 * rt_otf2.h - OTF2 archives (Score-P and other tools) as a source of the
 * format-neutral event stream (rt_tevent.h), read through the OTF2 library.
 *
 * An archive is an anchor file NAME.otf2 next to NAME.def (global
 * definitions) and a folder NAME/ holding one event file per location
 * (LOCATION.evt) and, usually, local definitions (LOCATION.def: id mappings
 * and clock offsets, which the library applies while reading). The reader
 * takes the anchor or the folder that holds exactly one anchor.
 *
 * Definitions become rt_tdefs: locations are processors 0..P-1 in location
 * id order, named "GROUP / LOCATION" ("MPI Rank 3 / Master thread") with the
 * system tree as path; regions get a class from their role and paradigm
 * (MPI calls by name through rt_tclass_guess where the role says little);
 * communicators get their members as processor indices in rank order; the
 * clock properties give the resolution and the global offset (time 0).
 *
 * Events come from the library's per-location event readers, merged by
 * time in retrace (rt_otf2.c says how memory stays bounded): Enter / Leave, MpiSend / MpiIsend (SEND), MpiRecv /
 * MpiIrecv (RECV, at completion), MpiCollectiveBegin / End, Metric (one
 * COUNTER per member of its metric class: the members are the counters). Every
 * other record type, and a Metric of a metric not defined, is counted
 * (rt_otf2_skipped) and skipped, never an error.
 * Peers and roots are ranks in a communicator in the file and processor
 * indices in the events. Timestamps stay integer ticks in ev->ticks.
 */
#ifndef RT_OTF2_H
#define RT_OTF2_H

#include <stddef.h>
#include <stdint.h>

#include "rt_tevent.h"

/*
 * Open an archive: path is the anchor (.otf2) or a directory with exactly one
 * anchor. Reads all global and local definitions, checks that every location
 * with events has its event file, and positions the source before the first
 * event. NULL on failure with err = one line naming the archive and the part
 * ("run/traces.otf2: traces/0.evt: event file of location 0 ... is missing").
 * Free with rt_tsource_free. The source can be rewound.
 */
rt_tsource *rt_otf2_open(const char *path, rt_err *err);

/*
 * Events go out in the serial order of rt_tkey (rt_tevent.h): time stamp,
 * location index, index of the event in its location (the library merges by
 * time alone; events of one time stamp are put in that order), each with its
 * key in s->key (has_key set).
 *
 * rt_otf2_open_part: the same with only rank's block of the locations read
 * (their event files checked and opened): one rank's part of a distributed
 * replay (core/par). With size > 1 it sets the block ownership of the job to
 * the archive's locations (rt_par_set_blocks, core/par/rt_par_route.h), so
 * rank owns the locations p with p * size / P == rank. Definitions are the
 * whole archive's. size <= 1: all.
 */
rt_tsource *rt_otf2_open_part(const char *path, int rank, int size, rt_err *err);

/*
 * The same with the global definitions read by part 0 alone and handed to the
 * other parts (size > 1; collective: every part calls it, whatever fails):
 * share(ud, &buf, &len) is called once on every part; on part 0 buf / len hold
 * the packed definitions (with its status and message) to send, on the others
 * it sets them to what part 0 sent (malloc'd, freed here). RT_OK, or an error
 * (no memory) from share. A part gets part 0's error when part 0 could not read
 * the definitions.
 */
typedef int (*rt_otf2_share_fn)(void *ud, char **buf, size_t *len);
rt_tsource *rt_otf2_open_part_shared(const char *path, int rank, int size, rt_otf2_share_fn share, void *ud,
                                     rt_err *err);

/*
 * 1 when path is an OTF2 archive: an anchor file (head = its first n bytes
 * start with the anchor's magic), or a directory (n == 0, head NULL) holding
 * exactly one anchor. 0 otherwise. Reads the directory, never the events.
 */
int rt_otf2_sniff(const char *path, const unsigned char *head, size_t n);

/*
 * 1 when head is the start of a file that belongs to an OTF2 archive but is
 * not its anchor (a .def or .evt file), so a caller can say "open the .otf2
 * anchor" instead of "unknown format". 0 otherwise.
 */
int rt_otf2_sniff_part(const char *path, const unsigned char *head, size_t n);

/*
 * The records counted and skipped so far, by OTF2 record type: for i = 0, 1,
 * ... gives the type's name as otf2-print spells it ("MPI_ISEND_COMPLETE",
 * "METRIC", "PROGRAM_BEGIN"...) and its count, returning 1, and 0 past the
 * last type. s must come from rt_otf2_open. Their sum is s->skipped.
 */
int rt_otf2_skipped(const rt_tsource *s, int i, const char **name, uint64_t *count);

/*
 * How the events are read (for tests and benchmarks): the location readers
 * open at once (each holds one event chunk of the library), at most and now;
 * the readers reopened to refill a look-ahead; the events per location's
 * look-ahead. rt_otf2_counts_of gives 0 when s is not an OTF2 source.
 */
typedef struct rt_otf2_counts {
    uint64_t readers_open, readers_open_max, reopens, lookahead;
} rt_otf2_counts;

int rt_otf2_counts_of(const rt_tsource *s, rt_otf2_counts *c);

/*
 * Change the memory budget before the first event is read: readers stay open
 * when every location's fits in reader_bytes (else one is open at a time), and
 * each location's look-ahead holds lookahead events (> 0). The defaults bound
 * both (64 MiB of readers, 96 MiB of look-ahead); tests use this to exercise
 * the reopening path on small archives. RT_OK, or RT_EINVAL after a read.
 */
int rt_otf2_set_budget(rt_tsource *s, size_t reader_bytes, uint32_t lookahead, rt_err *err);

#endif
