/* lpicl.h - the PICL trace userdata, for bindings that read from one (lreplay.c). */
#ifndef RT_LPICL_H
#define RT_LPICL_H

#include <lua.h>

#include "rt_picl.h"

#define PICL_T "retrace.PiclTrace"

/* The open reader of the trace userdata at index i; raises when closed or not a trace. */
rt_picl *rt_lpicl_check(lua_State *L, int i);

/* Mark the trace userdata at index i (open or closed) as read by a running
 * replay (busy = 1) or not (0): while busy, its next, records, rewind and close raise. */
void rt_lpicl_set_busy(lua_State *L, int i, int busy);

/* Push a record as a table with fields by name (see lpicl.c). */
void rt_lpicl_push_record(lua_State *L, const rt_picl_record *rec);

#endif
