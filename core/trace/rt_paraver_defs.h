/*
 * rt_paraver_defs.h - the definitions side of the Paraver reader (internal to
 * rt_paraver.c): the .prv header's process model (applications, tasks,
 * threads -> dense processor indices), its communicator lines, the .pcf's
 * state and event-type names and the .row's thread names.
 */
#ifndef RT_PARAVER_DEFS_H
#define RT_PARAVER_DEFS_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_lines.h"
#include "rt_tevent.h"

/* The threads the header declares. Thread h of task t of application a is
 * processor task_first[appl_first[a - 1] + t - 1] + h - 1. */
typedef struct prv_model {
    int nappl, ntasks, nthreads;
    int *appl_first;        /* nappl + 1 entries: index of each application's first task */
    int *task_first;        /* ntasks + 1 entries: processor index of each task's first thread */
    int64_t ftime;          /* the header's end time, ticks */
    char summary[96];       /* "1 application, 4 tasks, 4 threads", for messages */
} prv_model;

/* The processor of (appl, task, thread) into *proc: 0, or which field is out of
 * range (1 appl, 2 task, 3 thread). */
int prv_model_find(const prv_model *m, int64_t appl, int64_t task, int64_t thread, int *proc);
void prv_model_free(prv_model *m);

/*
 * Read the header line (and a "new format" line before it) and the
 * communicator lines it announces from in: fills m, the clock, the threads'
 * default names and the communicators of defs. RT_OK, or an error
 * "PATH:LINE: field: what".
 */
int prv_read_header(rt_lines *in, const char *path, prv_model *m, rt_tdefs *defs, rt_err *err);

/*
 * Define the region of state value s named name; NULL names it "state S",
 * with its class from Extrae's standard numbering when standard is set (no
 * .pcf at all), else class system. RT_OK or RT_ENOMEM.
 */
int prv_define_state(rt_tdefs *defs, int s, const char *name, int standard);

/*
 * Read the .pcf and .row beside s->path into s->defs; sets *has_pcf and
 * *has_row. A missing or unreadable companion is a warning on s; a malformed
 * one an error naming its file and line.
 */
int prv_read_companions(rt_tsource *s, const prv_model *m, int *has_pcf, int *has_row, rt_err *err);

#endif
