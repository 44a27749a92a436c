/*
 * lseq.h - what the Chitra binding (lseq.c) shares with its views part
 * (seq_views.c): argument checks and the methods the views add to retrace.Ses.
 */
#ifndef RT_LSEQ_H
#define RT_LSEQ_H

#include <stddef.h>
#include <stdint.h>

#include <lauxlib.h>
#include <lua.h>

#include "rt_seq.h"

/* The open session at argument 1 (raises when closed or inside its own load). */
rt_ses *rt_lseq_check(lua_State *L);

/* The 1-based member number at argument i as a 0-based index (raises when out of range). */
size_t rt_lseq_member(lua_State *L, rt_ses *s, int i);

/* true, or nil and err's message when st is not RT_OK; returns the count pushed. */
int rt_lseq_status(lua_State *L, int st, const rt_err *err);

/* bytes of scratch memory owned by a new userdata left on the stack (freed by Lua). */
void *rt_lseq_scratch(lua_State *L, size_t bytes);

/* The symbol ids of the list of names at argument i (*m of them, in scratch memory);
 * NULL, with nil and a message naming `what` pushed, for a name not in the sequence. */
int32_t *rt_lseq_pattern(lua_State *L, rt_ses *s, int i, size_t *m, const char *what);

/* seq.periodogram(x, dt): the periodogram of a plain signal. */
int rt_lseq_periodogram(lua_State *L);

/* Methods of retrace.Ses defined in seq_views.c. */
extern const luaL_Reg rt_lseq_view_methods[];

#endif
