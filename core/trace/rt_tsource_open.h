/*
 * rt_tsource_open.h - open any message-passing trace as a neutral event
 * source (rt_tevent.h), its format recognised by content.
 *
 * Detection reads at most RT_TSOURCE_HEAD bytes of a file (never a whole
 * line: a trace may be one huge line) or lists a directory (an OTF2 archive's
 * folder). The readers are kept in one table in rt_tsource_open.c, one line per
 * format: {name, sniff, open}. Companion files are recognised and refused with
 * the file to open instead: a Paraver .pcf (names) or .row (hierarchy), and an
 * OTF2 archive's .def / .evt parts.
 */
#ifndef RT_TSOURCE_OPEN_H
#define RT_TSOURCE_OPEN_H

#include <stddef.h>

#include "rt_error.h"
#include "rt_input.h"
#include "rt_tevent.h"

/* Bytes of a file the detection looks at. */
#define RT_TSOURCE_HEAD RT_INPUT_HEAD

/*
 * Open path as format ("picl", "picl-old", "picl-new", "otf2", "paraver",
 * "paje"; NULL = detect by content). NULL with err = one line naming the file
 * (and, for a companion file, the trace to open instead). Bad input RT_EFORMAT,
 * an unknown format name RT_EINVAL, unreadable files RT_EIO.
 */
rt_tsource *rt_tsource_open(const char *path, const char *format, rt_err *err);

/*
 * What path is, by content, without opening it as a trace: a format name a
 * reader in this build accepts ("picl-old", "picl-new", "otf2", "paraver",
 * "paje"), or a name for what no reader here opens: "otf2-part", "paraver-pcf",
 * "paraver-row", "otf2-noreader", "paraver-noreader", "paje-noreader",
 * "directory", or NULL (not a message-passing trace). why (may be NULL) gets a
 * one-line explanation ("PATH: ...") for the non-trace answers, or the evidence.
 * Returns RT_OK, or RT_EIO when path cannot be read (why = the error). A FIFO or pipe
 * is read once: its head is kept for the reader that opens it next (rt_input.h).
 */
int rt_tsource_detect(const char *path, const char **name, char *why, size_t whycap);

/* rt_tsource_detect on a head already read (n bytes of path, or isdir): the name, why filled.
 * For the detector of every format (rt_detect.h). */
const char *rt_tsource_detect_head(const char *path, const unsigned char *head, size_t n, int isdir, char *why,
                                   size_t whycap);

/* Formats this build reads, in detection order: the i-th name, NULL past the end. */
const char *rt_tsource_format_name(int i);
/* 1 when format i is recognised by content, 0 when it opens by name only (pes). */
int rt_tsource_format_by_content(int i);

#endif
