/*
 * rt_shmap_paje.h - a SHMAP run written as a Pajé trace, so that `retrace view`,
 * `retrace stats` and Pajé's own tools (pj_dump, ViTE) show it: one container
 * per PE, one second per step.
 *
 * Each PE's state (type "S") names what it executes in the step: "load matrix
 * ID", "store matrix ID", the subroutine of a flops event ("flops" when it names
 * none), "message" for an information message, "idle" for a step without an
 * event. A state is set when it changes, so consecutive steps of one name are one
 * interval. With caches, two variables give each PE's cache hits and misses in
 * each step, set when they change. Step k (1-based) runs from time k - 1 to k; every
 * PE's container is destroyed at the last step's end. Lines go out in time order
 * as the steps run: memory is the PEs' last states and values.
 */
#ifndef RT_SHMAP_PAJE_H
#define RT_SHMAP_PAJE_H

#include "rt_shmap_sim.h"

/*
 * Run s from where it stands to the end and write the run to path, which appears
 * whole or not at all (written beside it first). RT_OK, or an error with err
 * filled: the simulation's, or "PATH: cannot write: why".
 */
int rt_shmap_write_paje(rt_shmap_sim *s, const char *path, rt_err *err);

#endif
