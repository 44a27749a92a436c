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
 *   api/meta                               trace, span, processors, regions
 *   api/view?t0&t1&p0&p1&w&h               intervals and messages when few (JSON), else a w x rows
 *                                          raster (binary, application/octet-stream; rt_server.c)
 *   api/profile?t0&t1&p0&p1&w              processors idle / in overhead / busy in each of w columns
 *   api/stats?t0&t1&p0&p1                  states, functions, messages of a window
 *   api/search?q&t&p0&p1                   first enter at or after t of a region named like q
 */
#ifndef RT_SERVER_H
#define RT_SERVER_H

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
 * folder assets (index.html, viewer.js, viewer.css). token: the URL secret
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
 * Answer one request as the server would (for tests and benchmarks, no socket):
 * url is the path after /TOKEN/ ("api/view"), args a query string ("t0=1&t1=2").
 * Returns the HTTP status; *body (malloc'ed, NUL-terminated) the answer, *type its
 * content type.
 */
int rt_server_answer(rt_server *s, const char *url, const char *args, char **body, size_t *len, const char **type);

#endif
