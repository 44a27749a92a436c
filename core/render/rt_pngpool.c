/* rt_pngpool.c - PNG encoding of frames on worker threads (see rt_pngpool.h). */
#include "rt_pngpool.h"

#include <errno.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_grid.h"
#include "rt_out.h"

typedef struct job {
    struct job *next;
    unsigned char *data; /* w * h * 4 bytes, tightly packed copy */
    int w, h;
    char *path;
} job;

struct rt_pngpool {
    pthread_mutex_t mu;
    pthread_cond_t work;    /* signalled when a job is queued or the pool stops */
    pthread_cond_t room;    /* signalled when a job leaves the queue or finishes */
    job *head, *tail;       /* FIFO of waiting jobs */
    int queued;             /* jobs in the FIFO */
    int busy;               /* jobs being encoded */
    int queue_max;
    int level;              /* zlib level */
    int stop;               /* set by free: workers leave when the FIFO is empty */
    int nthreads;
    pthread_t th[RT_PNGPOOL_MAX_THREADS];
    long done[RT_PNGPOOL_MAX_THREADS];
    rt_err first_error;     /* status RT_OK until a worker fails */
};

typedef struct {
    rt_pngpool *p;
    int index;
} worker_arg;

/* libpng error handler state: the message goes to err */
typedef struct {
    jmp_buf jb;
    char msg[200];
} png_jmp;

static void on_png_error(png_structp png, png_const_charp msg)
{
    png_jmp *j = png_get_error_ptr(png);
    snprintf(j->msg, sizeof j->msg, "%s", msg);
    longjmp(j->jb, 1);
}

static void on_png_warning(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

static int all_opaque(const unsigned char *data, int w, int h, int stride)
{
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * (size_t)stride);
        for (int x = 0; x < w; x++)
            if ((row[x] >> 24) != 255)
                return 0;
    }
    return 1;
}

int rt_png_write(const char *path, const unsigned char *data, int w, int h, int stride,
                 int level, rt_err *err)
{
    /* opaque frames (the usual case) are written as RGB, others as RGBA */
    volatile int opaque_v = all_opaque(data, w, h, stride);
    rt_out *out = rt_out_open(path, err);
    if (!out)
        return err ? err->status : RT_EIO;
    FILE *fp = rt_out_fp(out);
    unsigned char *line = malloc((size_t)w * 4);
    png_jmp j;
    j.msg[0] = '\0';
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &j, on_png_error,
                                              on_png_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!line || !png || !info) {
        png_destroy_write_struct(&png, &info);
        free(line);
        rt_out_abort(out);
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    }
    if (setjmp(j.jb)) {
        /* a failed write: the system's reason (a full disk), not libpng's "Write Error" */
        int e = ferror(rt_out_fp(out)) ? errno : 0;
        png_destroy_write_struct(&png, &info);
        free(line);
        rt_out_abort(out);
        return rt_err_set(err, RT_EIO, "%s: %s", path, e ? strerror(e) : j.msg);
    }
    const int opaque = opaque_v, channels = opaque ? 3 : 4;
    png_init_io(png, fp);
    png_set_compression_level(png, level);
    /* the Sub filter alone: nearly as small as adaptive filtering, much faster */
    png_set_filter(png, 0, PNG_FILTER_SUB);
    png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8,
                 opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * (size_t)stride);
        unsigned char *o = line;
        for (int x = 0; x < w; x++) {
            /* undo Cairo's premultiplication (opaque pixels are unchanged) */
            rt_rgba c = opaque ? row[x] : rt_rgba_unpremultiply(row[x]);
            o[0] = (unsigned char)RT_RGBA_R(c);
            o[1] = (unsigned char)RT_RGBA_G(c);
            o[2] = (unsigned char)RT_RGBA_B(c);
            if (!opaque)
                o[3] = (unsigned char)RT_RGBA_A(c);
            o += channels;
        }
        png_write_row(png, line);
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    free(line);
    return rt_out_commit(out, err);
}

static void job_free(job *jb)
{
    if (!jb)
        return;
    free(jb->data);
    free(jb->path);
    free(jb);
}

static void *worker(void *arg)
{
    worker_arg wa = *(worker_arg *)arg;
    free(arg);
    rt_pngpool *p = wa.p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->head && !p->stop)
            pthread_cond_wait(&p->work, &p->mu);
        if (!p->head)
            break; /* stopping and nothing left */
        job *jb = p->head;
        p->head = jb->next;
        if (!p->head)
            p->tail = NULL;
        p->queued--;
        p->busy++;
        int failed = p->first_error.status != RT_OK;
        pthread_mutex_unlock(&p->mu);

        rt_err e;
        rt_err_clear(&e);
        int st = failed ? RT_OK : rt_png_write(jb->path, jb->data, jb->w, jb->h, jb->w * 4,
                                                p->level, &e);
        job_free(jb);

        pthread_mutex_lock(&p->mu);
        p->busy--;
        if (st != RT_OK && p->first_error.status == RT_OK)
            p->first_error = e;
        else if (st == RT_OK && !failed)
            p->done[wa.index]++;
        pthread_cond_broadcast(&p->room);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int rt_pngpool_new(int threads, int queue_max, int level, rt_pngpool **out, rt_err *err)
{
    *out = NULL;
    if (threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : n > RT_PNGPOOL_MAX_THREADS ? RT_PNGPOOL_MAX_THREADS : (int)n;
    }
    if (threads < 1 || threads > RT_PNGPOOL_MAX_THREADS)
        return rt_err_set(err, RT_ERANGE, "encoder threads: %d, must be 1 to %d", threads,
                          RT_PNGPOOL_MAX_THREADS);
    if (level < 0 || level > 9)
        return rt_err_set(err, RT_ERANGE, "PNG compression level: %d, must be 0 to 9", level);
    if (queue_max < 0)
        return rt_err_set(err, RT_ERANGE, "encoder queue: %d, must not be negative", queue_max);
    rt_pngpool *p = calloc(1, sizeof *p);
    if (!p)
        return rt_err_set(err, RT_ENOMEM, "encoder: out of memory");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->room, NULL);
    p->queue_max = queue_max ? queue_max : 2 * threads;
    p->level = level;
    rt_err_clear(&p->first_error);
    for (int i = 0; i < threads; i++) {
        worker_arg *wa = malloc(sizeof *wa);
        if (wa) {
            wa->p = p;
            wa->index = i;
        }
        if (!wa || pthread_create(&p->th[i], NULL, worker, wa) != 0) {
            free(wa);
            rt_pngpool_free(p);
            return rt_err_set(err, RT_EIO, "encoder: cannot start thread %d", i + 1);
        }
        pthread_mutex_lock(&p->mu);
        p->nthreads = i + 1;
        pthread_mutex_unlock(&p->mu);
    }
    *out = p;
    return RT_OK;
}

int rt_pngpool_submit(rt_pngpool *p, const unsigned char *data, int w, int h, int stride,
                      const char *path, rt_err *err)
{
    job *jb = calloc(1, sizeof *jb);
    if (jb) {
        jb->data = malloc((size_t)w * (size_t)h * 4);
        jb->path = strdup(path);
    }
    if (!jb || !jb->data || !jb->path) {
        job_free(jb);
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory for the frame", path);
    }
    for (int y = 0; y < h; y++)
        memcpy(jb->data + (size_t)y * (size_t)w * 4, data + (size_t)y * (size_t)stride,
               (size_t)w * 4);
    jb->w = w;
    jb->h = h;
    pthread_mutex_lock(&p->mu);
    while (p->queued >= p->queue_max && p->first_error.status == RT_OK)
        pthread_cond_wait(&p->room, &p->mu);
    if (p->first_error.status != RT_OK) {
        if (err)
            *err = p->first_error;
        int st = p->first_error.status;
        pthread_mutex_unlock(&p->mu);
        job_free(jb);
        return st;
    }
    if (p->tail)
        p->tail->next = jb;
    else
        p->head = jb;
    p->tail = jb;
    p->queued++;
    pthread_cond_signal(&p->work);
    pthread_mutex_unlock(&p->mu);
    return RT_OK;
}

int rt_pngpool_wait(rt_pngpool *p, rt_err *err)
{
    pthread_mutex_lock(&p->mu);
    while (p->queued > 0 || p->busy > 0)
        pthread_cond_wait(&p->room, &p->mu);
    int st = p->first_error.status;
    if (st != RT_OK && err)
        *err = p->first_error;
    pthread_mutex_unlock(&p->mu);
    return st;
}

void rt_pngpool_stats_get(rt_pngpool *p, rt_pngpool_stats *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&p->mu);
    st->threads = p->nthreads;
    for (int i = 0; i < p->nthreads; i++) {
        st->per_thread[i] = p->done[i];
        st->frames += p->done[i];
        clockid_t cid;
        struct timespec ts;
        if (pthread_getcpuclockid(p->th[i], &cid) == 0 && clock_gettime(cid, &ts) == 0)
            st->cpu_seconds[i] = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    }
    pthread_mutex_unlock(&p->mu);
}

void rt_pngpool_free(rt_pngpool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    int n = p->nthreads;
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < n; i++)
        pthread_join(p->th[i], NULL);
    /* a pool that stopped on an error may still hold jobs nobody took */
    while (p->head) {
        job *next = p->head->next;
        job_free(p->head);
        p->head = next;
    }
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->room);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
