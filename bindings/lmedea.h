/* lmedea.h - for other bindings: the accumulator inside a retrace.MedeaAcc value. */
#ifndef RT_LMEDEA_H
#define RT_LMEDEA_H

#include <lua.h>

#include "rt_medea.h"

/* The rt_medea of the accumulator at stack index i; raises when it is not one or closed. */
rt_medea *rt_lmedea_check(lua_State *L, int i);

#endif
