/* rt_input.c - inputs read once: the detector's bytes handed to the reader (see rt_input.h). */
#define _GNU_SOURCE /* fopencookie: a stream that replays the kept bytes, then the descriptor */
#include "rt_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One one-time input met so far. */
typedef struct kept {
    struct kept *next;
    char *path;
    int fd;                           /* open descriptor until a reader claims it, then -1 */
    int claimed;                      /* a reader has it (or had it): a second open is refused */
    size_t n;                         /* bytes in head */
    unsigned char head[RT_INPUT_HEAD];
} kept;

static kept *table;

/* the loan of rt_input_lend */
static const char *lent_path, *lent_buf;
static size_t lent_n;

static kept *find(const char *path)
{
    for (kept *k = table; k; k = k->next)
        if (strcmp(k->path, path) == 0)
            return k;
    return NULL;
}

static int is_stdin(const char *path)
{
    return strcmp(path, "-") == 0;
}

int rt_input_once(const char *path)
{
    if (is_stdin(path))
        return 1;
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Read up to cap bytes from fd (until then or the end). RT_OK or RT_EIO / RT_EINTR. */
static int read_full(int fd, const char *path, unsigned char *buf, size_t cap, size_t *n, rt_err *err)
{
    *n = 0;
    while (*n < cap) {
        ssize_t k = read(fd, buf + *n, cap - *n);
        if (k < 0) {
            if (errno == EINTR) {
                if (rt_interrupt_pending())
                    return rt_interrupt_check(err);
                continue;
            }
            return rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
        }
        if (k == 0)
            break;
        *n += (size_t)k;
    }
    return RT_OK;
}

static kept *keep(const char *path, int fd)
{
    kept *k = calloc(1, sizeof *k);
    if (!k || !(k->path = strdup(path))) {
        free(k);
        return NULL;
    }
    k->fd = fd;
    k->next = table;
    table = k;
    return k;
}

int rt_input_head(const char *path, unsigned char *buf, size_t cap, size_t *n, int *isdir, rt_err *err)
{
    *n = 0;
    *isdir = 0;
    if (cap > RT_INPUT_HEAD)
        cap = RT_INPUT_HEAD;
    kept *k = find(path);
    if (k) {
        *n = k->n < cap ? k->n : cap;
        memcpy(buf, k->head, *n);
        return RT_OK;
    }
    struct stat st;
    if (!is_stdin(path) && stat(path, &st) != 0)
        return rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
    if (!is_stdin(path) && S_ISDIR(st.st_mode)) {
        *isdir = 1;
        return RT_OK;
    }
    if (!rt_input_once(path)) { /* a regular file: read its head, the reader opens it again */
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
        int st2 = read_full(fd, path, buf, cap, n, err);
        close(fd);
        return st2;
    }
    int fd = is_stdin(path) ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
    k = keep(path, fd);
    if (!k) {
        close(fd);
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    }
    /* the kept head is always the full RT_INPUT_HEAD (or the whole input), whatever cap asks */
    int st2 = read_full(fd, path, k->head, RT_INPUT_HEAD, &k->n, err);
    if (st2 != RT_OK) {
        k->claimed = 1; /* what was read is lost: a later open says so rather than waits */
        close(k->fd);
        k->fd = -1;
        return st2;
    }
    *n = k->n < cap ? k->n : cap;
    memcpy(buf, k->head, *n);
    return RT_OK;
}

/* ---- the replaying stream ---- */

typedef struct replay {
    unsigned char head[RT_INPUT_HEAD];
    size_t n, pos; /* head[pos, n) still to give */
    int fd;
} replay;

static ssize_t replay_read(void *c, char *buf, size_t size)
{
    replay *r = c;
    if (r->pos < r->n) {
        size_t k = r->n - r->pos < size ? r->n - r->pos : size;
        memcpy(buf, r->head + r->pos, k);
        r->pos += k;
        return (ssize_t)k;
    }
    for (;;) {
        ssize_t k = read(r->fd, buf, size);
        if (k < 0 && errno == EINTR && !rt_interrupt_pending())
            continue;
        return k;
    }
}

static int replay_close(void *c)
{
    replay *r = c;
    int st = close(r->fd);
    free(r);
    return st;
}

static FILE *claim(kept *k, const char *path, rt_err *err)
{
    replay *r = malloc(sizeof *r);
    if (!r) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    memcpy(r->head, k->head, k->n);
    r->n = k->n;
    r->pos = 0;
    r->fd = k->fd;
    cookie_io_functions_t io = {.read = replay_read, .close = replay_close};
    FILE *fp = fopencookie(r, "rb", io);
    if (!fp) {
        free(r);
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    k->fd = -1;
    k->claimed = 1;
    return fp;
}

FILE *rt_input_fopen(const char *path, rt_err *err)
{
    if (lent_path && strcmp(path, lent_path) == 0) {
        FILE *fp = fmemopen((void *)lent_buf, lent_n, "r");
        if (!fp)
            rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return fp;
    }
    kept *k = find(path);
    if (k && k->claimed) {
        rt_err_set(err, RT_EIO, "%s: a pipe or FIFO can be read only once, and this needs a second pass; "
                   "give a regular file", is_stdin(path) ? "<stdin>" : path);
        return NULL;
    }
    if (k)
        return claim(k, path, err);
    if (rt_input_once(path)) { /* read by a reader without detection: note it, so a second open is refused */
        int fd = is_stdin(path) ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
        FILE *fp = fd >= 0 ? fdopen(fd, "rb") : NULL;
        if (!fp) {
            rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
            if (fd >= 0)
                close(fd);
            return NULL;
        }
        if ((k = keep(path, -1)))
            k->claimed = 1;
        return fp;
    }
    FILE *fp = fopen(path, "rb");
    if (!fp)
        rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
    return fp;
}

void rt_input_lend(const char *path, const char *buf, size_t n)
{
    lent_path = path;
    lent_buf = buf;
    lent_n = n;
}

void rt_input_unlend(void)
{
    lent_path = NULL;
    lent_buf = NULL;
    lent_n = 0;
}

int rt_input_lent(const char *path)
{
    return lent_path && path && strcmp(lent_path, path) == 0;
}
