/* rt_par_text.c - text traces read in byte ranges over the ranks (see rt_par_text.h). */
#define _GNU_SOURCE /* fopencookie: the spills read back as one stream */
#include "rt_par_text.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_lines.h"
#include "rt_mem.h"
#include "rt_par.h"
#include "rt_par_job.h"
#include "rt_par_rec.h"
#include "rt_par_route.h"
#include "rt_paraver.h"
#include "rt_picl.h"
#include "rt_picl_source.h"
#include "rt_tsource_open.h"


/* ---- collectives (no-ops for one rank) ---- */

#ifdef RETRACE_HAVE_MPI
#include <mpi.h>
static int launched(const job *j) { return j->size > 1 && rt_par_launched(); }
int rt_pjob_launched(const job *j) { return launched(j); }
#endif

uint64_t rt_pjob_exscan_sum(const job *j, uint64_t v)
{
    uint64_t r = 0;
#ifdef RETRACE_HAVE_MPI
    if (launched(j)) {
        MPI_Exscan(&v, &r, 1, MPI_UINT64_T, MPI_SUM, rt_par_comm());
        if (j->rank == 0)
            r = 0;
    }
#else
    (void)j;
    (void)v;
#endif
    return r;
}

/* The sum (op 0), largest (1) or smallest (2) of every rank's v. */
int64_t rt_pjob_allreduce(const job *j, int64_t v, int op)
{
#ifdef RETRACE_HAVE_MPI
    if (launched(j)) {
        int64_t r;
        MPI_Allreduce(&v, &r, 1, MPI_INT64_T, op == 1 ? MPI_MAX : op == 2 ? MPI_MIN : MPI_SUM, rt_par_comm());
        return r;
    }
#else
    (void)j;
    (void)op;
#endif
    return v;
}

/*
 * Agree on failure: RT_OK when no rank failed, else every rank's err becomes
 * the first failing rank's and its status is returned.
 */
int rt_pjob_agree(job *j, rt_err *err)
{
    if (j->err.status != RT_OK && err != &j->err)
        *err = j->err;
#ifdef RETRACE_HAVE_MPI
    if (launched(j)) {
        int mine = j->err.status != RT_OK ? j->rank : j->size, first;
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, rt_par_comm());
        if (first == j->size)
            return RT_OK;
        rt_err e = j->err;
        MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, rt_par_comm());
        *err = e;
        return e.status;
    }
#endif
    return j->err.status;
}

/* Send every rank its lines and append what each rank sent to its spill. */
int rt_pjob_exchange(job *j)
{
    int st = RT_OK;
#ifdef RETRACE_HAVE_MPI
    if (launched(j)) {
        int n = j->size;
        int *cnt = calloc((size_t)n * 4, sizeof *cnt);
        char *sendbuf = NULL, *recvbuf = NULL;
        if (!cnt) {
            fprintf(stderr, "%s: out of memory\n", j->path);
            rt_par_abort(1);
        }
        int *sdis = cnt + n, *rcnt = cnt + 2 * n, *rdis = cnt + 3 * n;
        size_t total = 0;
        for (int r = 0; r < n; r++) {
            cnt[r] = (int)j->out[r].n;
            sdis[r] = (int)total;
            total += j->out[r].n;
        }
        sendbuf = malloc(total ? total : 1);
        if (sendbuf)
            for (int r = 0; r < n; r++)
                if (j->out[r].n)
                    memcpy(sendbuf + sdis[r], j->out[r].p, j->out[r].n);
        MPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, rt_par_comm());
        size_t rtotal = 0;
        for (int r = 0; r < n; r++) {
            rdis[r] = (int)rtotal;
            rtotal += (size_t)rcnt[r];
        }
        recvbuf = malloc(rtotal ? rtotal : 1);
        if (!sendbuf || !recvbuf) {
            /* the other ranks are inside this exchange already: no way to agree, end the job */
            fprintf(stderr, "%s: out of memory\n", j->path);
            rt_par_abort(1);
        }
        MPI_Alltoallv(sendbuf, cnt, sdis, MPI_BYTE, recvbuf, rcnt, rdis, MPI_BYTE, rt_par_comm());
        for (int r = 0; st == RT_OK && r < n; r++)
            if (rcnt[r] && fwrite(recvbuf + rdis[r], 1, (size_t)rcnt[r], j->spill[r]) != (size_t)rcnt[r])
                st = RT_EIO;
        free(sendbuf);
        free(recvbuf);
        free(cnt);
    } else
#endif
    {
        for (int r = 0; st == RT_OK && r < j->size; r++)
            if (j->out[r].n && fwrite(j->out[r].p, 1, j->out[r].n, j->spill[r]) != j->out[r].n)
                st = RT_EIO;
    }
    for (int r = 0; r < j->size; r++)
        j->out[r].n = 0;
    j->pending = 0;
    return st;
}

/* ---- routing ---- */

int rt_pjob_fail(job *j, int status, const char *what)
{
    if (j->err.status == RT_OK)
        rt_err_at(&j->err, status, j->path, 0, "%s", what);
    return status;
}

/* Queue one record line for rank dest (once per record: the stamp). */
void rt_pjob_send_line(job *j, int dest, unsigned long line, const char *text, size_t len)
{
    if (j->mark[dest] == j->stamp)
        return;
    j->mark[dest] = j->stamp;
    outbuf *o = &j->out[dest];
    size_t need = o->n + len + 24;
    if (rt_grow((void **)&o->p, &o->cap, need, 1) != RT_OK) {
        rt_pjob_fail(j, RT_ENOMEM, "out of memory");
        return;
    }
    char digits[24], *d = digits + sizeof digits;
    *--d = '\t';
    do
        *--d = (char)('0' + line % 10);
    while ((line /= 10) > 0);
    size_t k = (size_t)(digits + sizeof digits - d);
    memcpy(o->p + o->n, d, k);
    memcpy(o->p + o->n + k, text, len);
    o->p[o->n + k + len] = '\n';
    o->n += k + len + 1;
    j->pending += k + len + 1;
}

/* A processor number a record names, clamped as the PICL source clamps peers; -1 when none. */
static int peer_of(double v)
{
    if (!(v >= 0))
        return -1;
    return v > 1e9 ? 1000000000 : (int)(long)v;
}

static void note_event(job *j, int event, unsigned long line, int owner)
{
    int cached = event >= -1024 && event < 1024;
    if (cached && j->known[event + 1024])
        return;
    if (!cached)
        for (size_t i = 0; i < j->nev; i++)
            if (j->ev[i].event == event)
                return;
    if (rt_grow((void **)&j->ev, &j->capev, j->nev + 1, sizeof *j->ev) != RT_OK) {
        rt_pjob_fail(j, RT_ENOMEM, "out of memory");
        return;
    }
    j->ev[j->nev++] = (evline){event, (int64_t)line, owner};
    if (cached)
        j->known[event + 1024] = 1;
}

static void note_entry_exit(job *j, const rt_picl_record *r, unsigned long line)
{
    if (r->rectype == RT_PICL_ENTRY || r->rectype == RT_PICL_EXIT)
        note_event(j, r->event, line, 0);
}

static int grow_nodes(job *j, int node)
{
    if (node < j->nnodes)
        return RT_OK;
    int n = j->nnodes ? j->nnodes : 64;
    while (n <= node)
        n *= 2;
    unsigned char *s = realloc(j->seen, (size_t)n);
    if (s)
        j->seen = s;
    int *a = realloc(j->after8, (size_t)n * sizeof *a);
    if (a)
        j->after8 = a;
    if (!s || !a)
        return rt_pjob_fail(j, RT_ENOMEM, "out of memory");
    memset(j->seen + j->nnodes, 0, (size_t)(n - j->nnodes));
    for (int i = j->nnodes; i < n; i++)
        j->after8[i] = -1;
    j->nnodes = n;
    return RT_OK;
}

/* The ranks a PICL record goes to (see rt_par_text.h). */
static void route_picl(job *j, const rt_picl_record *rec)
{
    const char *text;
    size_t len;
    unsigned long line = rt_picl_line(j->picl, &text, &len);
    j->stamp++;
    int n = j->size;
    if (rec->proc + 1 > j->maxproc)
        j->maxproc = rec->proc + 1;
    rt_pjob_send_line(j, rt_par_owner_of(rec->proc, n), line, text, len);
    if (!j->old) {
        int entry = rec->rectype == RT_PICL_ENTRY;
        if (entry || rec->rectype == RT_PICL_EXIT) {
            rt_event_family f = rt_picl_event_family(rec->event);
            double bytes;
            long tag, peer;
            if ((entry ? f == RT_EV_SEND : f == RT_EV_RECV) && rt_picl_message_fields(rec, &bytes, &tag, &peer) &&
                peer >= 0)
                rt_pjob_send_line(j, rt_par_owner_of(peer_of((double)peer), n), line, text, len);
        }
        note_entry_exit(j, rec, line);
        return;
    }
    int node = rec->proc, code = rec->rectype;
    if (grow_nodes(j, node) != RT_OK)
        return;
    int peer = -1;
    if ((code == RT_PICL_OLD_SEND || code == RT_PICL_OLD_RECV || code == RT_PICL_OLD_RECV_WAKING) && rec->ndata >= 1)
        peer = peer_of(rec->data[0]);
    if (peer >= 0)
        rt_pjob_send_line(j, rt_par_owner_of(peer, n), line, text, len);
    /* the record after a recv_waking decides whether a recv repeats it: its rank sees it */
    if (j->after8[node] >= 0)
        rt_pjob_send_line(j, j->after8[node], line, text, len);
    j->after8[node] = code == RT_PICL_OLD_RECV_WAKING && peer >= 0 ? rt_par_owner_of(peer, n) : -1;
    /* a node's first record in the range: every rank learns how the range before ended */
    if (!j->seen[node]) {
        j->seen[node] = 1;
        for (int r = 0; r < n; r++)
            rt_pjob_send_line(j, r, line, text, len);
    }
    rt_picl_record out[2];
    int nout = 0;
    if (rt_picl_xlate_record(j->x, rec, out, &nout) != RT_OK) {
        rt_pjob_fail(j, RT_ENOMEM, "out of memory");
        return;
    }
    for (int i = 0; i < nout; i++)
        note_entry_exit(j, &out[i], line);
}

/* A malformed PICL line a lenient reader skips: rank 0 skips it too (counted once, in its place). */
static void on_skip(void *ud, const char *msg)
{
    (void)msg;
    job *j = ud;
    const char *text;
    size_t len;
    unsigned long line = rt_picl_line(j->picl, &text, &len);
    j->stamp++;
    if (text)
        rt_pjob_send_line(j, 0, line, text, len);
}

/* A Paraver record: states and events to their thread's owner, messages to both ends' owners,
 * records not modelled (counted as skipped) to rank 0, so the count is the serial one there. */
static void on_paraver_record(void *ud, const char *text, size_t len, unsigned long line, int type, int t0,
                              int t1)
{
    job *j = ud;
    j->stamp++;
    int owner = type >= 1 && type <= 3 && t0 >= 0 ? rt_par_owner_of(t0, j->size) : 0;
    if (type == 1) { /* a state: its value (the last field) and the first line this range has it on */
        const char *v = memrchr(text, ':', len);
        char num[24];
        size_t n = v ? len - (size_t)(v + 1 - text) : 0;
        if (n > 0 && n < sizeof num) {
            memcpy(num, v + 1, n);
            num[n] = '\0';
            char *e;
            long long value = strtoll(num, &e, 10);
            while (*e == ' ' || *e == '\t' || *e == '\r')
                e++;
            if (*e == '\0' && e > num && value >= 0 && value <= RT_PARAVER_MAXSTATE)
                note_event(j, (int)value, line, owner);
        }
    }
    rt_pjob_send_line(j, owner, line, text, len);
    if (t1 >= 0)
        rt_pjob_send_line(j, rt_par_owner_of(t1, j->size), line, text, len);
}

/* ---- the spills read back in rank order ---- */

typedef struct spills {
    FILE **f;
    int n, cur;
} spills;

static ssize_t cat_read(void *c, char *buf, size_t size)
{
    spills *s = c;
    while (s->cur < s->n) {
        size_t got = fread(buf, 1, size, s->f[s->cur]);
        if (got > 0)
            return (ssize_t)got;
        if (ferror(s->f[s->cur]))
            return -1;
        s->cur++;
    }
    return 0;
}

static int cat_seek(void *c, off64_t *off, int whence)
{
    spills *s = c;
    if (whence != SEEK_SET || *off != 0)
        return -1; /* only a second pass from the start */
    for (int i = 0; i < s->n; i++)
        if (fseek(s->f[i], 0, SEEK_SET) != 0)
            return -1;
    s->cur = 0;
    return 0;
}

static int cat_close(void *c)
{
    spills *s = c;
    for (int i = 0; i < s->n; i++)
        if (s->f[i])
            fclose(s->f[i]);
    free(s->f);
    free(s);
    return 0;
}

/* ---- the source: this rank's events of the reread spills ---- */

typedef struct ptext {
    rt_tsource base;
    rt_tsource *in;         /* the format's reader over the spills */
    FILE *body;             /* the spills as one stream (closed here) */
    int rank, size;
    int paraver;
    unsigned long line;     /* line of the last event read, and its index there */
    uint64_t index;
    /* PICL: the file's records (every range's, summed), and the malformed lines this rank's
     * reader skipped (rank 0 gets them all, in file order) with the first messages */
    uint64_t records;
    rt_picl_skips skips;
} ptext;

/*
 * The serial key of an event: PICL {line, index in the record, 0} (the file's
 * order is the serial order); Paraver {ticks, 0 for a send or receive, 1 for
 * a leave, 2 for the events a record starts with, line * 64 + index in the
 * record} (the reader's time merge: at equal times sends and receives, then
 * leaves, then the records that start there, in file order).
 */
static rt_tkey key_of(ptext *p, const rt_tevent *ev)
{
    p->index = ev->line == p->line ? p->index + 1 : 0;
    p->line = ev->line;
    if (!p->paraver)
        return (rt_tkey){(int64_t)ev->line, p->index, 0};
    int cls = ev->kind == RT_TE_SEND || ev->kind == RT_TE_RECV ? 0 : ev->kind == RT_TE_LEAVE ? 1 : 2;
    uint64_t idx = ev->kind == RT_TE_RECV ? 1 : ev->kind == RT_TE_MARKER ? p->index : 0;
    return (rt_tkey){ev->ticks, (uint64_t)cls, (uint64_t)ev->line * 64 + (idx < 63 ? idx : 63)};
}

static int pt_next(rt_tsource *s, rt_tevent *ev, rt_err *err)
{
    ptext *p = (ptext *)s;
    for (;;) {
        int st = rt_tsource_next(p->in, ev, err);
        s->skipped = p->in->skipped;
        if (st != RT_OK)
            return st;
        rt_tkey key = key_of(p, ev);
        int to[2], n = rt_par_route(ev, p->size, to);
        if (to[0] == p->rank || (n == 2 && to[1] == p->rank)) {
            s->key = key;
            return RT_OK;
        }
    }
}

static int pt_rewind(rt_tsource *s, rt_err *err)
{
    ptext *p = (ptext *)s;
    p->line = 0;
    p->index = 0;
    return rt_tsource_rewind(p->in, err);
}

static void pt_free(rt_tsource *s)
{
    ptext *p = (ptext *)s;
    if (p->in) {
        p->in->defs = NULL; /* the base holds them and frees them */
        rt_tsource_free(p->in);
    }
    if (p->body)
        fclose(p->body);
    rt_picl_skips_free(&p->skips);
    free(p);
}

static void pt_warn(void *ud, const char *msg)
{
    rt_tsource_warn(ud, "%s", msg);
}

static const rt_tsource_ops pt_ops_picl_old = {"picl-old", pt_next, pt_rewind, NULL, NULL, pt_free};
static const rt_tsource_ops pt_ops_picl_new = {"picl-new", pt_next, pt_rewind, NULL, NULL, pt_free};
static const rt_tsource_ops pt_ops_paraver = {"paraver", pt_next, pt_rewind, NULL, NULL, pt_free};

int rt_par_text_is(const rt_tsource *s)
{
    return s && (s->ops == &pt_ops_picl_old || s->ops == &pt_ops_picl_new || s->ops == &pt_ops_paraver);
}

int rt_par_text_picl_lines(const rt_tsource *s, uint64_t *records, const rt_picl_skips **skips)
{
    if (!s || (s->ops != &pt_ops_picl_old && s->ops != &pt_ops_picl_new))
        return RT_EINVAL;
    const ptext *p = (const ptext *)s;
    *records = p->records;
    *skips = &p->skips;
    return RT_OK;
}

int rt_par_text_format(const char *f)
{
    return f && (strcmp(f, "picl") == 0 || strcmp(f, "picl-old") == 0 || strcmp(f, "picl-new") == 0 ||
                 strcmp(f, "old") == 0 || strcmp(f, "new") == 0 || strcmp(f, "paraver") == 0 ||
                 strcmp(f, "paje") == 0);
}

static int by_event(const void *a, const void *b)
{
    const evline *x = a, *y = b;
    return x->event != y->event ? (x->event > y->event) - (x->event < y->event)
                                : (x->line > y->line) - (x->line < y->line);
}

static int by_line(const void *a, const void *b)
{
    const evline *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line ? 1 : (x->event > y->event) - (x->event < y->event);
}

/*
 * Every rank's event numbers (state values) with their first lines, merged:
 * each at its smallest line (with that record's owner), in line order, in
 * *out (*n of them; free it unless it is j->ev).
 */
static int first_lines(job *j, evline **out, size_t *n, rt_err *err)
{
    evline *all = j->ev;
    size_t total = j->nev;
#ifdef RETRACE_HAVE_MPI
    int size = j->size, *cnt = NULL, *dis = NULL;
    if (launched(j)) {
        cnt = calloc((size_t)size * 2, sizeof *cnt);
        if (!cnt)
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", j->path);
        dis = cnt + size;
        int mine = (int)(j->nev * sizeof(evline));
        MPI_Allgather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, rt_par_comm());
        size_t bytes = 0;
        for (int r = 0; r < size; r++) {
            dis[r] = (int)bytes;
            bytes += (size_t)cnt[r];
        }
        all = malloc(bytes ? bytes : 1);
        if (!all) {
            free(cnt);
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", j->path);
        }
        MPI_Allgatherv(j->ev, mine, MPI_BYTE, all, cnt, dis, MPI_BYTE, rt_par_comm());
        total = bytes / sizeof(evline);
        free(cnt);
    }
#endif
    /* by event, its smallest line first; keep that one; then in line order */
    if (total > 1)
        qsort(all, total, sizeof *all, by_event);
    size_t k = 0;
    for (size_t i = 0; i < total; i++)
        if (k == 0 || all[k - 1].event != all[i].event)
            all[k++] = all[i];
    if (k > 1)
        qsort(all, k, sizeof *all, by_line);
    *out = all;
    *n = k;
    return RT_OK;
}

/* PICL: the regions of the event numbers, defined in d in the order of their first lines in the file. */
static int define_regions(job *j, rt_tdefs *d, rt_err *err)
{
    evline *all;
    size_t k;
    int st = first_lines(j, &all, &k, err);
    for (size_t i = 0; i < k && st == RT_OK; i++)
        if (rt_picl_define_region(d, (int)all[i].event) < 0)
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", j->path);
    if (all != j->ev)
        free(all);
    return st;
}

/*
 * Paraver: the state values of the whole file. A value the .pcf does not
 * name is defined, and warned about, by the serial reader at its first line;
 * here the rank that replays that line's record does so, and every other rank
 * defines it beforehand, silently, so it is told once and every rank's
 * definitions are the serial run's.
 */
static int define_states(job *j, rt_tsource *in, rt_err *err)
{
    evline *all;
    size_t k;
    int st = first_lines(j, &all, &k, err);
    for (size_t i = 0; i < k && st == RT_OK; i++)
        if (all[i].owner != j->rank && in && rt_paraver_define_state(in, all[i].event) != RT_OK)
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", j->path);
    if (all != j->ev)
        free(all);
    return st;
}

void rt_pjob_job_free(job *j)
{
    if (j->out)
        for (int r = 0; r < j->size; r++)
            free(j->out[r].p);
    free(j->out);
    if (j->spill)
        for (int r = 0; r < j->size; r++)
            if (j->spill[r])
                fclose(j->spill[r]);
    free(j->spill);
    free(j->mark);
    free(j->seen);
    free(j->after8);
    free(j->ev);
    rt_picl_xlate_free(j->x);
    rt_picl_free(j->picl);
}

/* The format to read: a PICL or Paraver name, detected when not given. */
static const char *text_format(const char *path, const char *format, rt_err *err)
{
    if (format && strcmp(format, "old") == 0)
        return "picl-old";
    if (format && strcmp(format, "new") == 0)
        return "picl-new";
    if (format && strcmp(format, "picl") != 0) {
        if (!rt_par_text_format(format)) {
            rt_err_set(err, RT_EINVAL, "%s: format %s is not read over the ranks here (picl, paraver, paje)", path,
                       format);
            return NULL;
        }
        return format;
    }
    const char *name = NULL;
    char why[512] = "";
    if (rt_tsource_detect(path, &name, why, sizeof why) != RT_OK) {
        rt_err_set(err, RT_EIO, "%s", why);
        return NULL;
    }
    if (!name) { /* not a trace: the serial opening's own words */
        rt_tsource *s = rt_tsource_open(path, format, err);
        if (!s)
            return NULL;
        rt_tsource_free(s);
    }
    if (!name || (strcmp(name, "picl-old") != 0 && strcmp(name, "picl-new") != 0 &&
                  (format || (strcmp(name, "paraver") != 0 && strcmp(name, "paje") != 0)))) {
        rt_err_set(err, RT_EINVAL, "%s: not a %s trace read over the ranks here (%s)", path, format ? format : "text",
                   name ? name : "unknown format");
        return NULL;
    }
    return name;
}

/* The spills of j as one stream, in rank order (it owns them then); NULL when out of memory. */
FILE *rt_pjob_spills_stream(job *j)
{
    spills *sp = calloc(1, sizeof *sp);
    cookie_io_functions_t io = {cat_read, NULL, cat_seek, cat_close};
    FILE *body = NULL;
    if (sp) {
        sp->f = j->spill;
        sp->n = j->size;
        for (int r = 0; r < j->size; r++)
            rewind(j->spill[r]);
        if ((body = fopencookie(sp, "r", io)))
            j->spill = NULL;
        else
            free(sp);
    }
    return body;
}

/* ---- Pajé: rank 0 reads, the events are routed ---- */

/* A growing byte buffer for the definitions sent from rank 0. */
static int put(outbuf *o, const void *p, size_t n)
{
    if (rt_grow((void **)&o->p, &o->cap, o->n + n, 1) != RT_OK)
        return RT_ENOMEM;
    memcpy(o->p + o->n, p, n);
    o->n += n;
    return RT_OK;
}

static int put_str(outbuf *o, const char *s) { return put(o, s ? s : "", strlen(s ? s : "") + 1); }

/* The definitions as bytes in o (rt_tdefs_pack); RT_OK or RT_ENOMEM. */
static int defs_pack(const rt_tdefs *d, outbuf *o)
{
    size_t n = 0;
    char *b = NULL;
    FILE *f = open_memstream(&b, &n);
    if (!f)
        return RT_ENOMEM;
    int st = rt_tdefs_pack(d, f);
    if (fclose(f) != 0 || st != RT_OK) {
        free(b);
        return RT_ENOMEM;
    }
    free(o->p);
    o->p = b;
    o->n = o->cap = n;
    return RT_OK;
}

/* This rank's events of a trace rank 0 read: packed records (rt_par_rec.h) in the spills. */
typedef struct precs {
    rt_tsource base;
    FILE *body;
    size_t recsize;
    unsigned char *buf;
} precs;

static int pr_next(rt_tsource *s, rt_tevent *ev, rt_err *err)
{
    precs *p = (precs *)s;
    size_t got = fread(p->buf, 1, p->recsize, p->body);
    if (got == 0 && !ferror(p->body))
        return RT_EEOF;
    if (got != p->recsize)
        return rt_err_at(err, RT_EIO, s->path, 0, "a spill file: read error");
    rt_par_rec_unpack(p->buf, ev, &s->key, s->raw_size);
    return RT_OK;
}

static int pr_rewind(rt_tsource *s, rt_err *err)
{
    if (fseek(((precs *)s)->body, 0, SEEK_SET) != 0)
        return rt_err_at(err, RT_EIO, s->path, 0, "a spill file: cannot seek");
    return RT_OK;
}

static void pr_free(rt_tsource *s)
{
    precs *p = (precs *)s;
    if (p->body)
        fclose(p->body);
    free(p->buf);
    free(p);
}

static const rt_tsource_ops pr_ops_paje = {"paje", pr_next, pr_rewind, NULL, NULL, pr_free};

/* A warning of rank 0's reader, kept for the consumer of rank 0's source (rt_tsource early warnings). */
static void keep_warning(void *ud, const char *msg)
{
    outbuf *o = ud;
    if (o->n < 8 * 400)
        put_str(o, msg);
}

/*
 * Pajé (containers are created on the way): rank 0 reads the trace with the
 * serial reader and routes each event, packed, to the ranks that need it; then
 * sends every rank the definitions. Returns the source or NULL with err.
 */
static rt_tsource *paje_open(job *j, rt_err *err)
{
    rt_tsource *whole = NULL;
    outbuf warnings = {0};
    size_t raw_size = 0;
    if (j->rank == 0) {
        whole = rt_tsource_open(j->path, "paje", &j->err);
        if (whole) {
            whole->on_warning = keep_warning;
            whole->ud = &warnings;
            raw_size = whole->raw_size;
        }
    }
    int st = rt_pjob_agree(j, err);
    raw_size = (size_t)rt_pjob_allreduce(j, (int64_t)raw_size, 1);
    size_t recsize = rt_par_rec_size(raw_size);
    uint64_t seq = 0;
    int done = j->rank != 0;
    while (st == RT_OK) {
        while (!done && j->pending < j->batch && j->err.status == RT_OK) {
            rt_tevent ev;
            int rs = rt_tsource_next(whole, &ev, &j->err);
            if (rs == RT_EEOF) {
                rt_err_clear(&j->err);
                done = 1;
                break;
            }
            if (rs != RT_OK)
                break;
            rt_tkey key = {(int64_t)seq++, 0, 0};
            int to[2], n = rt_par_route(&ev, j->size, to);
            for (int i = 0; i < n; i++) {
                outbuf *o = &j->out[to[i]];
                if (rt_grow((void **)&o->p, &o->cap, o->n + recsize, 1) != RT_OK) {
                    rt_pjob_fail(j, RT_ENOMEM, "out of memory");
                    break;
                }
                rt_par_rec_pack(o->p + o->n, &ev, &key, raw_size);
                o->n += recsize;
                j->pending += recsize;
            }
        }
        int xs = rt_pjob_exchange(j);
        if (xs != RT_OK)
            rt_pjob_fail(j, xs, xs == RT_ENOMEM ? "out of memory" : "a spill file: write error");
        if ((st = rt_pjob_agree(j, err)) != RT_OK)
            break;
        if (rt_pjob_allreduce(j, !done, 0) == 0)
            break;
    }
    /* the definitions, whole now, from rank 0 to every rank */
    outbuf defs = {0};
    uint64_t skipped = whole ? whole->skipped : 0, nwarn = whole ? whole->warnings : 0;
    if (st == RT_OK && j->rank == 0 && defs_pack(whole->defs, &defs) != RT_OK)
        rt_pjob_fail(j, RT_ENOMEM, "out of memory");
    rt_tsource_free(whole);
    if (st == RT_OK)
        st = rt_pjob_agree(j, err);
    int64_t len = (int64_t)defs.n;
#ifdef RETRACE_HAVE_MPI
    if (st == RT_OK && launched(j)) {
        MPI_Bcast(&len, 1, MPI_INT64_T, 0, rt_par_comm());
        if (j->rank != 0 && rt_grow((void **)&defs.p, &defs.cap, (size_t)len + 1, 1) != RT_OK) {
            fprintf(stderr, "%s: out of memory\n", j->path); /* the broadcast cannot be left: end the job */
            rt_par_abort(1);
        }
        MPI_Bcast(defs.p, (int)len, MPI_BYTE, 0, rt_par_comm());
        defs.n = (size_t)len;
    }
#endif
    precs *p = NULL;
    if (st == RT_OK) {
        p = calloc(1, sizeof *p);
        if (!p || rt_tsource_init(&p->base, &pr_ops_paje, j->path, &j->err) != RT_OK) {
            free(p);
            p = NULL;
            rt_pjob_fail(j, RT_ENOMEM, "out of memory");
        } else {
            const char *dp = defs.p;
            p->recsize = recsize;
            p->buf = malloc(recsize);
            p->body = rt_pjob_spills_stream(j);
            if (!p->buf || !p->body || (defs.n && rt_tdefs_unpack(p->base.defs, &dp, defs.p + defs.n) != RT_OK))
                rt_pjob_fail(j, RT_ENOMEM, "out of memory");
            p->base.raw_size = raw_size;
            p->base.has_key = 1;
            p->base.skipped = j->rank == 0 ? skipped : 0;
            for (const char *w = warnings.p; w && w < warnings.p + warnings.n; w += strlen(w) + 1)
                rt_tsource_warn(&p->base, "%s", w);
            p->base.warnings = nwarn; /* the reader's count (rank 0), its first messages handed on */
        }
        st = rt_pjob_agree(j, err);
    }
    free(defs.p);
    free(warnings.p);
    if (st != RT_OK) {
        rt_tsource_free(p ? &p->base : NULL);
        return NULL;
    }
    return &p->base;
}

rt_tsource *rt_par_text_open(const char *path, const char *format, int strict, rt_err *err)
{
    job j = {0};
    rt_par_set_blocks(0); /* ranks own processors p % size: text formats know them only as they come */
    j.rank = rt_par_rank();
    j.size = rt_par_size();
    j.path = path;
    j.batch = BATCH_BYTES;
    const char *tb = getenv("RETRACE_PAR_TEXT_BATCH"); /* tests: many exchanges on a small file */
    if (tb && atol(tb) > 0)
        j.batch = (size_t)atol(tb);
    if ((size_t)j.size * j.batch > ((size_t)1 << 30)) /* MPI counts are ints: a round stays under 2 GiB */
        j.batch = ((size_t)1 << 30) / (size_t)j.size;
    const char *fmt = text_format(path, format, &j.err);
    int paraver = fmt && strcmp(fmt, "paraver") == 0, paje = fmt && strcmp(fmt, "paje") == 0;
    j.old = fmt && strcmp(fmt, "picl-old") == 0;
    /* this rank's range, and the lines before it */
    uint64_t size = 0, begin = 0, end = 0, nl = 0;
    if (j.err.status == RT_OK) {
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            rt_err_at(&j.err, RT_EIO, path, 0, "%s", errno && stat(path, &st) != 0 ? strerror(errno)
                                                                                 : "a byte range needs a regular file");
        else
            size = (uint64_t)st.st_size;
    }
    if (j.err.status == RT_OK && !paje) {
        begin = size * (uint64_t)j.rank / (uint64_t)j.size;
        end = size * (uint64_t)(j.rank + 1) / (uint64_t)j.size;
        FILE *f = fopen(path, "rb");
        int ioerr = f ? 0 : errno;
        if (f) {
            nl = rt_lines_count(f, begin, end, &ioerr);
            fclose(f);
        }
        if (ioerr)
            rt_err_at(&j.err, RT_EIO, path, 0, "%s", strerror(ioerr));
    }
    uint64_t before = rt_pjob_exscan_sum(&j, nl);
    /* buffers and spills */
    if (j.err.status == RT_OK) {
        j.out = calloc((size_t)j.size, sizeof *j.out);
        j.spill = calloc((size_t)j.size, sizeof *j.spill);
        j.mark = calloc((size_t)j.size, sizeof *j.mark);
        if (!j.out || !j.spill || !j.mark)
            rt_pjob_fail(&j, RT_ENOMEM, "out of memory");
        for (int r = 0; j.err.status == RT_OK && r < j.size; r++)
            if (!(j.spill[r] = tmpfile()))
                rt_err_at(&j.err, RT_EIO, path, 0, "a spill file: %s", strerror(errno));
    }
    if (paje) {
        rt_tsource *src = NULL;
        if (rt_pjob_agree(&j, err) == RT_OK) {
            int fallback = 0;
            src = rt_par_paje_open(&j, size, &fallback);
            if (fallback) { /* rank 0 reads it with the serial reader, which tells what was wrong */
                if (getenv("RETRACE_PAR_DEBUG"))
                    fprintf(stderr, "rank %d: %s: Pajé read by rank 0\n", j.rank, path);
                rt_err_clear(&j.err);
                for (int r = 0; r < j.size; r++) {
                    j.out[r].n = 0;
                    if (j.spill && j.spill[r]) {
                        fclose(j.spill[r]);
                        j.spill[r] = NULL;
                    }
                }
                j.pending = 0;
                if (!j.spill)
                    j.spill = calloc((size_t)j.size, sizeof *j.spill);
                for (int r = 0; j.spill && r < j.size; r++)
                    if (!(j.spill[r] = tmpfile()))
                        rt_err_at(&j.err, RT_EIO, path, 0, "a spill file: %s", strerror(errno));
                if (!j.spill)
                    rt_pjob_fail(&j, RT_ENOMEM, "out of memory");
                src = rt_pjob_agree(&j, err) == RT_OK ? paje_open(&j, err) : NULL;
            }
        }
        rt_pjob_job_free(&j);
        return src;
    }
    /* the range reader */
    rt_tsource *range = NULL;
    rt_picl_opts po = {0};
    po.format = j.old ? RT_PICL_OLD : RT_PICL_NEW;
    if (j.err.status == RT_OK) {
        if (paraver) {
            if ((range = rt_paraver_open_range(path, begin, end, (unsigned long)before, &j.err)))
                rt_paraver_on_record(range, on_paraver_record, &j);
        } else {
            rt_picl_opts ro = po;
            ro.strict = strict != 0;
            ro.on_skip = on_skip;
            ro.ud = &j;
            j.picl = rt_picl_open_range(path, &ro, begin, end, (unsigned long)before, &j.err);
            if (j.picl && j.old && !(j.x = rt_picl_xlate_new()))
                rt_pjob_fail(&j, RT_ENOMEM, "out of memory");
        }
    }
    int st = rt_pjob_agree(&j, err);
    /* read the range, exchanging every batch */
    for (int done = 0; st == RT_OK;) {
        while (!done && j.pending < j.batch && j.err.status == RT_OK) {
            int rs;
            if (paraver) {
                rt_tevent ev;
                rs = rt_tsource_next(range, &ev, &j.err);
            } else {
                rt_picl_record rec;
                rs = rt_picl_next(j.picl, &rec, &j.err);
                if (rs == RT_OK)
                    route_picl(&j, &rec);
            }
            if (rs == RT_EEOF) {
                rt_err_clear(&j.err);
                done = 1;
            }
        }
        int xs = rt_pjob_exchange(&j);
        if (xs != RT_OK)
            rt_pjob_fail(&j, xs, xs == RT_ENOMEM ? "out of memory" : "a spill file: write error");
        /* a failure ends the reading once every range before the first failing one is read
         * through (or fails earlier in the file): the error told is the serial reader's */
        if (j.rank > (int)rt_pjob_allreduce(&j, j.err.status != RT_OK ? j.rank : j.size, 2))
            done = 1;
        if (rt_pjob_allreduce(&j, !done && j.err.status == RT_OK, 0) == 0) {
            st = rt_pjob_agree(&j, err);
            break;
        }
    }
    uint64_t records = paraver && range ? rt_paraver_records(range) : 0;
    rt_tsource_free(range);
    if (st != RT_OK) {
        rt_pjob_job_free(&j);
        return NULL;
    }
    if (paraver && rt_pjob_allreduce(&j, (int64_t)records, 0) == 0) {
        /* no records in any range: the whole body is empty, the serial reader says so */
        rt_tsource *whole = rt_paraver_open(path, err);
        rt_tevent ev;
        if (whole && rt_tsource_next(whole, &ev, err) == RT_OK)
            rt_err_set(err, RT_EIO, "%s: changed while read", path);
        rt_tsource_free(whole);
        rt_pjob_job_free(&j);
        return NULL;
    }
    int nprocs = paraver ? 0 : (int)rt_pjob_allreduce(&j, j.maxproc, 1);
    uint64_t picl_records = paraver ? 0 : (uint64_t)rt_pjob_allreduce(&j, j.picl ? (int64_t)rt_picl_count(j.picl) : 0, 0);
    /* this rank's source over its spills */
    FILE *body = rt_pjob_spills_stream(&j);
    ptext *p = calloc(1, sizeof *p);
    if (!body || !p) {
        if (body)
            fclose(body);
        free(p);
        rt_err_set(&j.err, RT_ENOMEM, "%s: out of memory", path);
    } else {
        p->body = body;
        p->paraver = paraver;
        p->rank = j.rank;
        p->size = j.size;
        if (paraver) {
            p->in = rt_paraver_open_numbered(path, body, &j.err);
        } else {
            p->records = picl_records;
            po.on_skip = rt_picl_skips_add; /* (every skipped line is read by rank 0) */
            po.ud = &p->skips;
            rt_picl *rd = rt_picl_open_numbered(body, path, &po, &j.err);
            if (rd && (p->in = rt_picl_source(rd, 1, &j.err)) != NULL)
                rt_picl_source_name_procs(p->in, nprocs, &j.err);
        }
    }
    /* the region order is collective: every rank takes part, whatever happened above */
    if (paraver) {
        rt_err e;
        rt_err_clear(&e);
        if (define_states(&j, p ? p->in : NULL, &e) != RT_OK && j.err.status == RT_OK)
            j.err = e;
    } else {
        rt_tdefs *scratch = p && p->in ? NULL : rt_tdefs_new();
        rt_err e;
        rt_err_clear(&e);
        if (define_regions(&j, p && p->in ? p->in->defs : scratch, &e) != RT_OK && j.err.status == RT_OK)
            j.err = e;
        rt_tdefs_free(scratch);
    }
    const rt_tsource_ops *ops = paraver ? &pt_ops_paraver : j.old ? &pt_ops_picl_old : &pt_ops_picl_new;
    if (p && p->in && j.err.status == RT_OK && rt_tsource_init(&p->base, ops, path, &j.err) == RT_OK) {
        rt_tdefs_free(p->base.defs);
        p->base.defs = p->in->defs;
        p->base.raw_size = p->in->raw_size;
        p->base.describe = p->in->describe;
        p->base.has_key = 1;
        p->in->on_warning = pt_warn;
        p->in->ud = &p->base;
    }
    st = rt_pjob_agree(&j, err);
    rt_pjob_job_free(&j);
    if (st != RT_OK) {
        if (p && p->base.ops) {
            rt_tsource_free(&p->base);
        } else if (p) {
            rt_tsource_free(p->in);
            if (p->body)
                fclose(p->body);
            rt_picl_skips_free(&p->skips);
            free(p);
        }
        return NULL;
    }
    return &p->base;
}
