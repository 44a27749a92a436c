/*
 * rt_sched.h - SHMAP's pool -> task -> trace hierarchy and its PE scheduler.
 *
 * A task is one event outside any group, or all the events of one group.
 * Markers (opcodes 6-9) are not events, and neither are matrix definitions
 * (opcode 0): the reader's first pass takes them all before the run starts, so
 * wherever they stand, even inside a group, they make no task and use no step.
 * A piece of work is one task outside any parallel section (sequential) or all
 * the tasks of one parallel section (parallel); a section without tasks is no
 * piece. Pieces run in file order, each after the previous one has finished.
 *
 * Time advances in steps. At the start of a step every idle PE, lowest number
 * first, takes the next task of the current piece if one is left; then every PE
 * holding a task executes exactly one event of it, lowest PE first. A PE whose
 * task ends is idle from the next step. A sequential piece thus runs on PE 0.
 *
 * Shaped for long traces: the trace is streamed and tasks are read from it only
 * when a PE takes them, so memory holds at most one task per PE (a group's
 * events), whatever the length of the trace or of a parallel section.
 */
#ifndef RT_SCHED_H
#define RT_SCHED_H

#include <stdint.h>

#include "rt_shmap.h"

#define RT_SCHED_MAX_PES 256

typedef struct rt_sched rt_sched;

/*
 * A scheduler of npes PEs (1..RT_SCHED_MAX_PES) over trace, which it rewinds
 * and then reads; trace is borrowed and must outlive the scheduler. NULL with
 * err filled on a bad PE count or no memory.
 */
rt_sched *rt_sched_new(rt_shmap *trace, int npes, rt_err *err);

/* Free; NULL is allowed. The trace is not freed. */
void rt_sched_free(rt_sched *s);

/*
 * Run one step: assign tasks to idle PEs, then pick each busy PE's next event.
 * Returns RT_OK when at least one PE executed an event (see rt_sched_event),
 * RT_EEOF when the trace is finished, or an I/O error from the trace.
 */
int rt_sched_step(rt_sched *s, rt_err *err);

/*
 * The event PE pe executed in the last step, or NULL if it was idle. Valid
 * until the next rt_sched_step.
 */
const rt_shmap_event *rt_sched_event(const rt_sched *s, int pe);

/* Number of PEs that executed an event in the last step. */
int rt_sched_active(const rt_sched *s);

/* Task pe worked on in the last step (0-based in file order), or -1 when idle. */
int64_t rt_sched_task(const rt_sched *s, int pe);

/* Steps run so far; the current piece (0-based over the pieces that have tasks,
 * -1 before the first) and whether it is parallel. */
uint64_t rt_sched_steps(const rt_sched *s);
int64_t rt_sched_piece(const rt_sched *s);
int rt_sched_piece_parallel(const rt_sched *s);

/* The number of PEs. */
int rt_sched_pes(const rt_sched *s);

#endif
