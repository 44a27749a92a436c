/*
 * rt_pes_source.c - a program execution sequence read as a message-passing trace
 * source (rt_tevent.h), so that the viewer, its index and `stats --format pes` see a
 * Chitra sequence as one processor whose regions are the sequence's states.
 *
 * The PES reader proper (rt_pes_each, rt_pes.c: both layouts, its field rules and
 * its errors) pushes one element per state as it reads; a source is pulled one
 * event at a time. The reader therefore runs on a thread of its own and hands the
 * elements over through a bounded ring: memory stays flat in the sequence's length
 * (the ring, and the names: one per distinct state).
 *
 * Each state becomes ENTER at its entry time and LEAVE at the next state's entry;
 * the last line's state only ends the sequence, as in Chitra. A region's class is
 * guessed from its name (rt_tclass_guess: "idle", MPI calls), user code otherwise.
 */
#include "rt_pes_source.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt_seq.h"

#define RING 4096
#define STEP ((uint64_t)1 << 20) /* bytes between the reader's progress reports */

typedef struct {
    int32_t id;
    double entry, end;
    char *name; /* the state's name on its first element (the consumer defines the region) */
} elem;

typedef struct {
    rt_tsource base;
    rt_ses *ses; /* the reader's names (touched by the reader thread alone while it runs) */
    pthread_t thread;
    int running;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    elem ring[RING];
    size_t head, n;
    int done, stop; /* the reader ended (status, err); the consumer asks it to stop */
    int status;
    rt_err err;
    uint64_t offset, size;
    int32_t known;   /* symbols handed over with their names so far (reader side) */
    elem cur;        /* the element being returned: its ENTER, then its LEAVE */
    int half;        /* 0: next is the ENTER of a new element; 1: the LEAVE of cur */
} pes_src;

static void progress(void *ud, uint64_t done, uint64_t total)
{
    pes_src *p = ud;
    pthread_mutex_lock(&p->mu);
    p->offset = done;
    p->size = total;
    pthread_mutex_unlock(&p->mu);
}

/* The reader's callback: wait for room, then queue the element. */
static int each(void *ud, int32_t id, double entry, double end)
{
    pes_src *p = ud;
    char *name = NULL;
    if (id >= p->known) { /* ids come in order of first use */
        const char *nm = rt_ses_name(p->ses, id);
        if (!(name = strdup(nm ? nm : "")))
            return RT_ENOMEM;
        p->known = id + 1;
    }
    pthread_mutex_lock(&p->mu);
    while (p->n == RING && !p->stop)
        pthread_cond_wait(&p->cv, &p->mu);
    if (p->stop) {
        pthread_mutex_unlock(&p->mu);
        free(name);
        return RT_ENOMEM; /* (any error ends the reader; nobody reads its message) */
    }
    p->ring[(p->head + p->n++) % RING] = (elem){id, entry, end, name};
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return RT_OK;
}

static void *reader(void *ud)
{
    pes_src *p = ud;
    rt_err err;
    size_t states;
    int st = rt_pes_each(p->ses, p->base.path, STEP, progress, p, each, p, &states, &err);
    pthread_mutex_lock(&p->mu);
    p->status = st;
    p->err = err;
    p->done = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int start(pes_src *p, rt_err *err)
{
    p->head = p->n = 0;
    p->done = p->stop = 0;
    p->status = RT_OK;
    p->known = 0;
    p->half = 0;
    if (pthread_create(&p->thread, NULL, reader, p) != 0)
        return rt_err_set(err, RT_ENOMEM, "%s: cannot start a reader thread", p->base.path);
    p->running = 1;
    return RT_OK;
}

/* Stop the reader (it may be waiting for room) and drop what it queued. */
static void halt(pes_src *p)
{
    if (!p->running)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    p->running = 0;
    for (; p->n; p->n--, p->head = (p->head + 1) % RING)
        free(p->ring[p->head].name);
    if (p->half == 1) {
        free(p->cur.name);
        p->cur.name = NULL;
    }
}

static int pes_next(rt_tsource *s, rt_tevent *ev, rt_err *err)
{
    pes_src *p = (pes_src *)s;
    memset(ev, 0, sizeof *ev);
    ev->proc = 0;
    ev->peer = -1;
    ev->comm = -1;
    if (p->half == 1) { /* the LEAVE of the element whose ENTER went out last */
        ev->kind = RT_TE_LEAVE;
        ev->region = p->cur.id;
        ev->time = p->cur.end;
        p->half = 0;
        return RT_OK;
    }
    pthread_mutex_lock(&p->mu);
    while (p->n == 0 && !p->done)
        pthread_cond_wait(&p->cv, &p->mu);
    if (p->n == 0) { /* the reader ended: the end of the sequence, or its error */
        int st = p->status;
        if (st != RT_OK)
            *err = p->err;
        pthread_mutex_unlock(&p->mu);
        return st == RT_OK ? RT_EEOF : st;
    }
    p->cur = p->ring[p->head];
    p->head = (p->head + 1) % RING;
    p->n--;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->cur.name) { /* the state's first element: its region */
        int st = rt_tdefs_add_region(s->defs, p->cur.id, p->cur.name, "state", rt_tclass_guess(p->cur.name));
        free(p->cur.name);
        p->cur.name = NULL;
        if (st != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->path);
    }
    ev->kind = RT_TE_ENTER;
    ev->region = p->cur.id;
    ev->time = p->cur.entry;
    p->half = 1;
    return RT_OK;
}

static int pes_rewind(rt_tsource *s, rt_err *err)
{
    pes_src *p = (pes_src *)s;
    halt(p);
    return start(p, err); /* (the names come again with their first elements: defined again) */
}

/* A figure the reader thread updates, read under the lock. */
static uint64_t locked(const rt_tsource *s, int size)
{
    pes_src *p = (pes_src *)s;
    pthread_mutex_lock(&p->mu);
    uint64_t v = size ? p->size : p->offset;
    pthread_mutex_unlock(&p->mu);
    return v;
}

static uint64_t pes_offset(const rt_tsource *s) { return locked(s, 0); }
static uint64_t pes_size(const rt_tsource *s) { return locked(s, 1); }

static void pes_free(rt_tsource *s)
{
    pes_src *p = (pes_src *)s;
    halt(p);
    if (p->ses)
        rt_ses_free(p->ses);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static const rt_tsource_ops pes_ops = {"pes", pes_next, pes_rewind, pes_offset, pes_size, pes_free};

int rt_pes_source_sniff(const char *path, const unsigned char *head, size_t n)
{
    (void)path, (void)head, (void)n;
    return 0; /* opened by name only (--format pes): a PES is Chitra's by content */
}

rt_tsource *rt_pes_source_open(const char *path, rt_err *err)
{
    pes_src *p = calloc(1, sizeof *p);
    if (!p) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (rt_tsource_init(&p->base, &pes_ops, path, err) != RT_OK) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        free(p);
        return NULL;
    }
    if (!(p->ses = rt_ses_new())) {
        rt_tsource_free(&p->base);
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    rt_tdefs *d = p->base.defs;
    const char *slash = strrchr(path, '/');
    if (rt_tdefs_set_proc(d, 0, slash ? slash + 1 : path, NULL) != RT_OK || start(p, err) != RT_OK) {
        if (err->status == RT_OK)
            rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        rt_tsource_free(&p->base);
        return NULL;
    }
    /* the first element now, so that a file that is no PES is refused at open */
    rt_tevent ev;
    int st = pes_next(&p->base, &ev, err);
    if (st != RT_OK) {
        if (st == RT_EEOF)
            rt_err_set(err, RT_EFORMAT, "%s: no state", path);
        rt_tsource_free(&p->base);
        return NULL;
    }
    halt(p); /* and read again from the start */
    if (start(p, err) != RT_OK) {
        rt_tsource_free(&p->base);
        return NULL;
    }
    return &p->base;
}
