/* rt_out.c - see rt_out.h. */
#include "rt_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static atomic_ulong out_counter;
static atomic_int out_discarding;

struct rt_out {
    FILE *fp;
    int errnum;  /* first failure recorded by rt_out_fail, 0 when none */
    char *path;   /* the target as given (for messages) */
    char *target; /* the file the rename replaces (a link's file), NULL when written in place */
    char *tmp;    /* the temporary beside target, NULL when written in place */
};

static rt_out *open_in_place(const char *path, const char *file, rt_err *err);
static rt_out *open_beside(const char *path, const char *target, rt_err *err);

rt_out *rt_out_open(const char *path, rt_err *err)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        rt_err_set(err, RT_EIO, "%s: is a folder", path);
        return NULL;
    }
    if (atomic_load(&out_discarding))
        return open_in_place(path, "/dev/null", err);
    if (exists && !S_ISREG(st.st_mode))
        return open_in_place(path, path, err);
    /* a link to a file: the file is replaced, the link kept */
    char *real = NULL;
    struct stat lst;
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        real = realpath(path, NULL);
    rt_out *o = open_beside(path, real ? real : path, err);
    free(real);
    return o;
}

/*
 * A device or a pipe (/dev/stdout, a FIFO) cannot be replaced by a rename: it is
 * written in place, every write and the close still checked. file is what is
 * opened (path itself, or /dev/null when discarding); messages name path.
 */
static rt_out *open_in_place(const char *path, const char *file, rt_err *err)
{
    rt_out *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    o->fp = fopen(file, "wb");
    if (!o->fp) {
        int e = errno;
        rt_out_abort(o);
        rt_err_set(err, RT_EIO, "%s: %s", path, strerror(e));
        return NULL;
    }
    return o;
}

/* A temporary beside target; messages name path (what the user wrote). */
static rt_out *open_beside(const char *path, const char *target, rt_err *err)
{
    const char *slash = strrchr(target, '/');
    size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = target + dir_len;
    rt_out *o = calloc(1, sizeof *o);
    size_t cap = strlen(target) + 64;
    if (o) {
        o->path = strdup(path);
        o->target = strdup(target);
        o->tmp = malloc(cap);
    }
    if (!o || !o->path || !o->target || !o->tmp) {
        if (o) {
            free(o->tmp); /* nothing created yet: nothing to remove */
            o->tmp = NULL;
        }
        rt_out_abort(o);
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    /*
     * A hidden name, so a folder listing or a frame glob never picks it up; the
     * process id and a counter keep threads and runs apart (O_EXCL settles any
     * clash). open() with 0666 applies the umask as fopen would (mkstemp would make
     * 0600, and changing the process umask to undo it is not thread-safe).
     */
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        unsigned long n = atomic_fetch_add(&out_counter, 1);
        snprintf(o->tmp, cap, "%.*s.%s.%ld-%lu.part", (int)dir_len, target, base, (long)getpid(), n);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        rt_out_abort(o);
        rt_err_set(err, RT_EIO, "%s: %s", path, strerror(e));
        return NULL;
    }
    o->fp = fdopen(fd, "wb");
    if (!o->fp) {
        int e = errno;
        close(fd);
        rt_out_abort(o);
        rt_err_set(err, RT_EIO, "%s: %s", path, strerror(e));
        return NULL;
    }
    return o;
}

FILE *rt_out_fp(rt_out *o) { return o->fp; }

const char *rt_out_path(const rt_out *o) { return o->path; }

void rt_out_fail(rt_out *o, int errnum)
{
    if (!o->errnum)
        o->errnum = errnum ? errnum : EIO;
}

int rt_out_commit(rt_out *o, rt_err *err)
{
    if (!o)
        return RT_OK;
    int e = o->errnum;
    if (fflush(o->fp) != 0 && !e)
        e = errno ? errno : EIO;
    if (ferror(o->fp) && !e)
        e = EIO;
    int r = fclose(o->fp);
    o->fp = NULL;
    if (r != 0 && !e)
        e = errno ? errno : EIO;
    if (!e && o->tmp && rename(o->tmp, o->target) != 0)
        e = errno;
    if (e) {
        rt_err_set(err, RT_EIO, "%s: %s", o->path, strerror(e));
        rt_out_abort(o);
        return RT_EIO;
    }
    free(o->tmp);
    free(o->target);
    free(o->path);
    free(o);
    return RT_OK;
}

void rt_out_abort(rt_out *o)
{
    if (!o)
        return;
    if (o->fp)
        fclose(o->fp);
    if (o->tmp)
        unlink(o->tmp);
    free(o->tmp);
    free(o->target);
    free(o->path);
    free(o);
}

void rt_out_discard(int on) { atomic_store(&out_discarding, on != 0); }
