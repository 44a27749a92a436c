/*
 * lreplay.h - what other bindings need from the replay's (bindings/lreplay.c):
 * the engine under a "retrace.Replay" value, and a way to keep a value alive
 * as long as that replay (a raster fed by it through a tap).
 */
#ifndef RT_LREPLAY_H
#define RT_LREPLAY_H

#include <lua.h>

#include "rt_replay.h"

/* The engine of the replay at index i; raises when it is not a replay or is closed. */
rt_replay *rt_lreplay_check(lua_State *L, int i);
/* The same without raising: NULL when not a replay or closed. */
rt_replay *rt_lreplay_get(lua_State *L, int i);
/* Keep the value at index v alive while the replay at index r lives (or until rt_lreplay_release). */
void rt_lreplay_keep(lua_State *L, int r, int v);
void rt_lreplay_release(lua_State *L, int r, int v);

#endif
