/*
 * rt_detect.h - the format detector of every trace retrace reads.
 *
 * One pass over the input's first RT_INPUT_HEAD bytes, read once through
 * rt_input (a named FIFO or `<(cat trace)` works: the reader that opens the
 * path next gets those bytes again). The message-passing formats are asked of
 * the trace dispatcher's table (rt_tsource_detect_head); magic numbers name
 * RTMB and MemSpy traces; the line formats vote line by line over the first 50
 * lines, the memory formats' votes coming from their readers' own parsers
 * (rt_memtrace.h) run on each line, so a line is din exactly when the din
 * reader accepts it.
 */
#ifndef RT_DETECT_H
#define RT_DETECT_H

#include <stddef.h>

/*
 * The format of path: one of "shmap", "picl-new", "picl-old", "din", "xdin",
 * "lackey", "bin", "msp", "pes", "paje", "paraver", "otf2" (a file or an
 * archive's folder); for a file that belongs to a trace without being one,
 * "paraver-pcf", "paraver-row", "otf2-part", and "rtidx" for an index retrace
 * wrote; "unknown" when nothing fits.
 * why gets the evidence (for "unknown", what each line reader objected to).
 * Returns RT_OK; RT_EIO (or RT_EINTR) with *name = NULL and why = "PATH: reason"
 * when path cannot be read or is a directory that is not an OTF2 archive.
 */
int rt_detect(const char *path, const char **name, char *why, size_t whycap);

#endif
