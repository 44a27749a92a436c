/*
 * rt_out.h - an output file written whole or not at all.
 *
 * Every file retrace writes (reports, CSVs, pictures, frames, converted traces)
 * goes through this: the bytes go to a temporary file beside the target (same
 * folder, so the final rename never crosses file systems), every write and the
 * close are checked, and only a successful commit renames the temporary onto the
 * target. A failure (full disk, an interrupt, an error raised half-way) removes
 * the temporary: the target keeps its old content, or stays absent, and nothing
 * complete-looking is left behind.
 *
 *     rt_err err;
 *     rt_out *o = rt_out_open("report.csv", &err);
 *     if (!o) return err.status;
 *     fprintf(rt_out_fp(o), "...");
 *     return rt_out_commit(o, &err);      (frees o, succeeded or not)
 */
#ifndef RT_OUT_H
#define RT_OUT_H

#include <stdio.h>

#include "rt_error.h"

typedef struct rt_out rt_out;

/*
 * Start writing path: creates ".NAME.PID-N.part" in path's folder (mode 0666
 * less the umask, as fopen would; safe from several threads). When path is a
 * link to a file, the file is replaced and the link kept. A device or a FIFO
 * (/dev/stdout, a pipe) cannot be replaced: it is written in place, its writes
 * still checked. Returns NULL with err set ("PATH: reason") when the folder is
 * missing or unwritable, or path names a folder.
 */
rt_out *rt_out_open(const char *path, rt_err *err);

/* The stream to write to (a plain stdio FILE; write errors are caught at commit). */
FILE *rt_out_fp(rt_out *o);

/* The target path, as given to rt_out_open. */
const char *rt_out_path(const rt_out *o);

/*
 * Record a failure seen by the writer (a callback that could not write, say) so
 * that the commit fails with it: errnum is an errno value.
 */
void rt_out_fail(rt_out *o, int errnum);

/*
 * Flush, check for any write error, close and rename onto the target. Returns
 * RT_OK, or RT_EIO with err = "PATH: reason" after removing the temporary. Frees o
 * in both cases. o may be NULL (returns RT_OK).
 */
int rt_out_commit(rt_out *o, rt_err *err);

/* Give up: close and remove the temporary, free o. The target is untouched. NULL-safe. */
void rt_out_abort(rt_out *o);

/*
 * Discard every output from now on (on = 1) until rt_out_discard(0): opens still
 * check that path is no folder, then write to /dev/null and commit nothing. The
 * ranks of an MPI job other than rank 0 run so (only rank 0 writes files).
 */
void rt_out_discard(int on);

#endif
