/*
 * lreduce.h - the reduce binding's helper shared with bindings that reduce an
 * engine's own arrays (lmedea.c: activity profiles).
 */
#ifndef RT_LREDUCE_H
#define RT_LREDUCE_H

#include <lua.h>

#include "rt_reduce.h"

/* Push the columns of r as the table r:columns() returns; returns 1. */
int rt_push_reduced(lua_State *L, const rt_reduce *r);

/*
 * Push a new retrace.Reducer userdata (collected by Lua, so nothing leaks when a
 * later call raises) and return its reducer; raises on bad arguments.
 */
rt_reduce *rt_lreduce_push_new(lua_State *L, lua_Integer w, double x0, double x1, int step);

#endif
