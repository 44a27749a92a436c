/*
 * lshmap.h - the SHMAP simulation binding's C face for other bindings (the view).
 */
#ifndef RT_LSHMAP_H
#define RT_LSHMAP_H

#include <lua.h>

#include "rt_shmap_sim.h"

/* The simulation of the "retrace.ShmapSim" at index i; raises when closed or not one. */
rt_shmap_sim *rt_lshmap_check_sim(lua_State *L, int i);

/*
 * Call fn(ud) just before the simulation at index i is freed (sim:close or
 * collection), so that an observer can let go of it. RT_OK, or RT_ERANGE when
 * too many are registered. rt_lshmap_forget drops the ones registered with ud.
 */
int rt_lshmap_on_close(lua_State *L, int i, void (*fn)(void *), void *ud);
void rt_lshmap_forget(lua_State *L, int i, void *ud);

#endif
