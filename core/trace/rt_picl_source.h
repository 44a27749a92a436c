/*
 * rt_picl_source.h - PICL traces (old and new record formats) as a producer of
 * the format-neutral event stream (rt_tevent.h).
 *
 * Every new-format record (old ones go through rt_picl_xlate first) becomes
 * one or two events:
 *   event entry  -> ENTER of region = the PICL event number; a send entry that
 *                   carries (bytes tag dest) adds a SEND right after it;
 *   event exit   -> LEAVE of that region; a receive exit that carries
 *                   (bytes tag src) puts a RECV right before it;
 *   anything else (marks, labels, data descriptors, statistics, messages,
 *   subsets) -> one MARKER (region = the record's event field, data kept), so
 *   every record reaches the consumers and the record counts stay those of the file.
 * Regions are defined lazily in the source's definitions: name = the words of
 * rt_picl_event_words, group = the family name, class = rt_picl_event_class.
 *
 * PICL states are expressed through the classes alone (rt_tclass_state):
 *   user events (>= 0)                     user        busy
 *   -52 -55 -56 -61 -31 (blocked waits)    wait        idle
 *   -401 clock sync, -402 barrier          sync        idle
 *   -601 idle                              idle        idle
 *   send family -21..-50                   send        overhead
 *   receive family -51..-62                receive     overhead
 *   collectives -750..-799                 collective  overhead
 *   I/O -201..-299                         io          overhead
 *   tracing -901..-914                     tracing     (decides nothing)
 *   every other number                     system      overhead
 *
 * Extra fields for the replay (not in other formats): ENTER.bytes holds the
 * bytes a send or collective entry reports without a SEND event following,
 * LEAVE.bytes_in the bytes a receive or collective exit reports without a RECV.
 *
 * ev.raw is the translated new-format rt_picl_record, ev.task its TASK field,
 * ev.line its line. All events of one record share one raw pointer and
 * consecutive records never do (the source alternates two record buffers), so
 * a consumer can tell record boundaries (rt_replay counts records that way).
 */
#ifndef RT_PICL_SOURCE_H
#define RT_PICL_SOURCE_H

#include "rt_error.h"
#include "rt_picl.h"
#include "rt_tevent.h"

/* The region class (rt_tclass) of a PICL event number (table above). */
int rt_picl_event_class(int event);

/*
 * Define region `event` in d unless defined (name, family, class as above).
 * Returns its class, or -RT_ENOMEM.
 */
int rt_picl_define_region(rt_tdefs *d, int event);

/*
 * The events of one new-format record into out[0..*n) (*n is 1 or 2), defining
 * regions in d on the way. Old-format records give RT_EINVAL (translate them).
 * Returns RT_OK, RT_ENOMEM or RT_EINVAL (err filled).
 */
int rt_picl_record_events(rt_tdefs *d, const rt_picl_record *rec, rt_tevent out[2], int *n, rt_err *err);

/*
 * A source over an open PICL reader (positioned at its start). own = 1: the
 * source closes the reader when freed. Format "picl-old" or "picl-new".
 * Processors are named "processor N" as they appear. NULL with err on failure.
 */
rt_tsource *rt_picl_source(rt_picl *reader, int own, rt_err *err);
/* Open path with rt_picl_open (opts may be NULL) and wrap it (owned). */
rt_tsource *rt_picl_source_open(const char *path, const rt_picl_opts *opts, rt_err *err);
/*
 * Old-format traces: communication calls bracketed by compstats records.
 * PICL 1.x writes a compstats record (code 11: computation and communication
 * time counters) at the start and at the end of each communication call, so
 * a compstats record that comes right after a send, receive or probe record of
 * its node at the same time opens a call, and the node's next compstats record
 * closes it. The source turns such a pair into ENTER / LEAVE of region
 * RT_PICL_COMPSTATS_REGION ("communication call", class system: overhead)
 * carrying the records' data; a bracket that would open while the node is
 * blocked in a receive (recv_blocking .. recv_waking, idle) is not made, so
 * that wait stays idle. Every other compstats record stays a MARKER. On by
 * default; on = 0 leaves all of them markers (call before the first event).
 * No effect on new-format sources.
 */
#define RT_PICL_COMPSTATS_REGION (-11)
void rt_picl_source_set_compstats(rt_tsource *s, int on);
/* Name processors 0 .. n - 1 now ("processor N"), as if records of them had been
 * read: a rank reading part of a trace names every processor of the whole. */
int rt_picl_source_name_procs(rt_tsource *s, int n, rt_err *err);
/* The reader under a PICL source; NULL when s is not one. */
rt_picl *rt_picl_source_reader(const rt_tsource *s);
/* 1 when s is a PICL source (its events' raw fields are rt_picl_record pointers). */
int rt_tsource_is_picl(const rt_tsource *s);

/*
 * Content sniffer for the dispatcher: head = the first n bytes of the file.
 * Returns RT_PICL_NEW or RT_PICL_OLD when the first record line (blank and '#'
 * lines skipped, never past n bytes) parses as that format, else 0.
 */
int rt_picl_sniff(const char *path, const unsigned char *head, size_t n);

#endif
