/*
 * rt_server_int.h - what the server's answers share (internal to core/server): the parsed query,
 * the reply, the JSON writer and the argument parsers of rt_server.c, so an answer may live in a
 * file of its own (rt_server_counters.c). The names are prefixed rt_srv_ in the library.
 */
#ifndef RT_SERVER_INT_H
#define RT_SERVER_INT_H

#include <stdint.h>
#include <stdio.h>

#include "rt_index.h"

#define kv_get rt_srv_kv_get
#define jw_open rt_srv_jw_open
#define jw_str rt_srv_jw_str
#define jw_close rt_srv_jw_close
#define fail rt_srv_fail
#define arg_int rt_srv_arg_int
#define window_args rt_srv_window_args
#define procs_arg rt_srv_procs_arg
#define next_run rt_srv_next_run

#define MAXARGS 16
typedef struct kv {
    int n;
    char *k[MAXARGS], *v[MAXARGS];
} kv;

typedef struct reply {
    int status;
    char *body;
    size_t len;
    const char *type;
} reply;

/* JSON written to memory */
typedef struct jw {
    FILE *f;
    char *buf;
    size_t len;
} jw;

const char *kv_get(const kv *a, const char *k);
int jw_open(jw *w);
void jw_str(jw *w, const char *s);
/* The body written becomes the 200 reply. */
void jw_close(jw *w, reply *r);
/* The reply becomes status with {"error": message}. */
void fail(reply *r, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* An integer argument in [lo, hi]; def when absent (has_def) else an error. 0 ok, -1 answered 400. */
int arg_int(const kv *a, const char *k, int64_t lo, int64_t hi, int has_def, int64_t def, int64_t *out, reply *r);
/* t0 < t1 ticks (default the whole run), 0 <= p0 < p1 <= nprocs (default all). 0 or -1 answered. */
int window_args(rt_index *ix, const kv *a, int64_t *t0, int64_t *t1, int *p0, int *p1, reply *r);
/* procs=LIST met with [p0, p1): *mask (malloc'ed, p1 - p0 bytes, 1 = shown). 0 or -1 answered. */
int procs_arg(const kv *a, int p0, int p1, unsigned char **mask, reply *r);
/* The next run of shown processors from *p on: [*a, *b); 0 when none is left. */
int next_run(const unsigned char *mask, int p0, int p1, int *p, int *a, int *b);

/* api/counters (rt_server_counters.c). */
void rt_server_answer_counters(rt_index *ix, const kv *a, reply *r);
/* The counters' part of api/meta: ,"counters":[{"name":..,"unit":..},...] */
void rt_server_meta_counters(rt_index *ix, jw *w);

#endif
