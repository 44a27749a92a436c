/*
 * rt_server.h - the HTTP server of `retrace view`: answers the page's viewport,
 * statistics and search queries from an index (rt_index.h) through
 * libmicrohttpd, one request at a time on the library's own thread.
 *
 * Security: it listens on 127.0.0.1 unless told another address; every URL
 * starts with /TOKEN/, a random 128-bit token, and anything else is refused
 * (403); it serves only the page's own files (loaded at start, named in a fixed
 * list) and the /api/ queries; a malformed query is a 400 with a one-line
 * message. Memory: the index is mapped; a query holds only its answer, bounded
 * by the pixels asked for (a raster) or by RT_SERVER_EXACT_MAX events.
 *
 * The queries (times are integer ticks of the index, processors 0-based,
 * p1 exclusive; see README "retrace view"):
 *   api/meta                               trace, span, processors, regions (and rt_server_set_meta's)
 *   api/view?t0&t1&p0&p1&w&h&comm          intervals and messages when few (JSON), else a w x rows
 *                                          raster (binary, application/octet-stream; rt_server.c)
 *   api/profile?t0&t1&p0&p1&w&procs        processors idle / in overhead / busy in each of w columns
 *   api/stats?t0&t1&p0&p1&procs&comm       states, functions, messages of a window
 * procs=0,3-5: only these processors of [p0, p1); comm=ID: only the messages of that communicator.
 *   api/search?q&t&p0&p1                   first enter at or after t of a region named like q
 *   api/critpath?t0&t1                     the critical path cut to the window, computed on demand
 *                                          by the server's owner (202 while it is being computed)
 */
#ifndef RT_SERVER_H
#define RT_SERVER_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_index.h"

/* Events a viewport may hold and still be answered with its intervals. */
#define RT_SERVER_EXACT_MAX 30000
/* Cells a raster answer may have (w x rows): a 4K screen's worth. */
#define RT_SERVER_MAX_CELLS (4096 * 2160)

typedef struct rt_server rt_server;

/*
 * Start serving ix (borrowed: it must outlive the server) on addr:port (addr
 * NULL = "127.0.0.1"; port 0 = any free port) with the page's files from the
 * folder assets (index.html, viewer.js, viewer.css, compare.html). token: the URL secret
 * (NULL = 32 random hex digits). title names the trace in the page. NULL with
 * err when the address cannot be bound or the files cannot be read.
 */
rt_server *rt_server_start(rt_index *ix, const char *title, const char *assets, const char *addr, int port,
                           const char *token, rt_err *err);
/* The port it listens on, and its token. */
int rt_server_port(const rt_server *s);
const char *rt_server_token(const rt_server *s);
/* Requests answered so far (any status). */
unsigned long rt_server_requests(const rt_server *s);
/* Stop and free (NULL allowed). */
void rt_server_stop(rt_server *s);

/*
 * A second trace to compare with the first (borrowed, as ix): every api/ query takes trace=1 to
 * ask it (trace=0, the default, the first); the page's address then serves compare.html, the two
 * timelines. Call before the page's URL is given out. 0, or -1 out of memory.
 */
int rt_server_add_trace(rt_server *s, rt_index *ix, const char *title);

/* Members added to api/meta: JSON text such as "\"comms\":[...]" (copied; NULL none). 0, or -1. */
int rt_server_set_meta(rt_server *s, const char *members);

/*
 * The critical path on demand. The server does not compute it: a request for a
 * window not yet answered is noted (the latest one) and wake(ud) is called on
 * the server's thread (it must only signal, e.g. pthread_kill); the request is
 * answered 202 {"pending":true} and the page asks again. The owner takes the
 * window with rt_server_critpath_take and gives the answer with
 * rt_server_critpath_put, kept for the next requests of that window (the last
 * RT_SERVER_CP_KEEP windows). Without wake, api/critpath is 501.
 */
#define RT_SERVER_CP_KEEP 8
typedef void (*rt_server_wake_fn)(void *ud);
void rt_server_on_critpath(rt_server *s, rt_server_wake_fn wake, void *ud);
/* The window asked for and not yet answered: 1 and *t0, *t1 (it is then being computed), 0 none. */
int rt_server_critpath_take(rt_server *s, int64_t *t0, int64_t *t1);
/* The answer for a window: status (200, or 500 with a JSON error) and the JSON body (copied). 0, or
 * -1 out of memory. */
int rt_server_critpath_put(rt_server *s, int64_t t0, int64_t t1, int status, const char *body, size_t len);

/*
 * Answer one request as the server would (for tests and benchmarks, no socket):
 * url is the path after /TOKEN/ ("api/view"), args a query string ("t0=1&t1=2").
 * Returns the HTTP status; *body (malloc'ed, NUL-terminated) the answer, *type its
 * content type.
 */
int rt_server_answer(rt_server *s, const char *url, const char *args, char **body, size_t *len, const char **type);

#endif
