/* rt_capture.c - valgrind lackey streamed into RTMB (see rt_capture.h). */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "rt_capture.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_memtrace.h"
#include "vg/rt_vgproto.h"

/* references parsed at once from lackey's log before they go to the RTMB writer */
#define RT_CAPTURE_BATCH 4096

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

typedef struct conv {
    rt_rtmb_writer *w;
    FILE *alloc, *text;
    const char *name; /* for messages */
    int thread;       /* valgrind's number of the running thread (1 first), 0 before any */
    unsigned long lineno;
    rt_capture_result *res;
    /* the tool's blocks (RT_VG_BLOCK records), block b's references are
     * ent[blk[b].first, + blk[b].n), a load's or store's address 0 (its run brings it) */
    struct vg_block {
        size_t first;
        unsigned n, ndata; /* entries, and loads and stores among them */
    } *blk;
    size_t n_blk, cap_blk;
    rt_memref *ent;
    size_t n_ent, cap_ent;
} conv;

/* References into the RTMB file, counted: loads and stores (an M's two
 * halves each) as data references, I records as fetches; nif of the n are
 * fetches, (size_t)-1 when not known. */
static int put_refs_counted(conv *c, const rt_memref *refs, size_t n, size_t nif, rt_err *err)
{
    size_t done = 0;
    int st = rt_rtmb_write_many(c->w, refs, n, &done, err);
    if (st != RT_OK && done < n)
        done++; /* the record that failed is counted, as before */
    if (done < n || nif == (size_t)-1) {
        nif = 0;
        for (size_t i = 0; i < done; i++)
            nif += refs[i].kind == RT_REF_IFETCH;
    }
    c->res->records += done;
    c->res->ifetches += nif;
    c->res->refs += done - nif;
    return st;
}

static int put_refs(conv *c, const rt_memref *refs, size_t n, rt_err *err)
{
    return put_refs_counted(c, refs, n, (size_t)-1, err);
}

/* One line of lackey's log (without its newline). */
static int one_line(conv *c, const char *s, size_t n, rt_err *err)
{
    c->lineno++;
    if (n == 0)
        return RT_OK;
    if (s[0] == '-') { /* --PID-- debug lines: with --trace-sched, which thread runs */
        const char *k = n > 24 ? memmem(s, n, "SCHED[", 6) : NULL;
        if (k && memmem(k, (size_t)(s + n - k), "acquired lock", 13)) {
            int tid = atoi(k + 6);
            if (tid >= 1 && tid != c->thread) {
                c->thread = tid;
                if (tid > c->res->threads)
                    c->res->threads = tid;
                fprintf(c->alloc, "@%llu S %d\n", (unsigned long long)c->res->refs, tid - 1);
            }
        }
        return RT_OK;
    }
    if (s[0] == '=') /* ==PID== valgrind's messages */
        return RT_OK;
    if (s[0] == '*') { /* **PID** client output: our allocation records */
        const char *p = n > 2 ? memchr(s + 2, '*', n - 2) : NULL; /* "*" alone: nothing */
        if (!p)
            return RT_OK;
        p += 2;
        while (p < s + n && *p == ' ')
            p++;
        if (s + n - p > 3 && p[0] == 'r' && p[1] == 't' && p[2] == ' ') {
            fprintf(c->alloc, "@%llu %.*s\n", (unsigned long long)c->res->refs, (int)(s + n - p - 3), p + 3);
            c->res->allocs++;
        }
        return RT_OK;
    }
    rt_memref ref[2];
    int modify = 0;
    int st = rt_lackey_parse_line(s, n, c->name, c->lineno, &ref[0], &modify, err);
    if (st != RT_OK)
        return st;
    ref[1] = ref[0];
    ref[1].kind = RT_REF_WRITE; /* an M's store half */
    return put_refs(c, ref, modify ? 2 : 1, err);
}

/* The whole lines of buf[0, len) (len is 0 or just past a '\n'): runs of
 * plain records through the block parser, every other line through one_line. */
static int lines_of(conv *c, const char *buf, size_t len, rt_memref *refs, size_t cap, rt_err *err)
{
    size_t from = 0;
    while (from < len) {
        size_t n;
        unsigned long lines;
        size_t used = rt_lackey_parse_block(buf + from, len - from, refs, cap, &n, &lines);
        c->lineno += lines;
        int st = put_refs(c, refs, n, err);
        if (st != RT_OK)
            return st;
        from += used;
        if (used == 0) { /* valgrind's line, an allocation record, or an odd one */
            const char *nl = memchr(buf + from, '\n', len - from);
            if ((st = one_line(c, buf + from, (size_t)(nl - (buf + from)), err)) != RT_OK)
                return st;
            from = (size_t)(nl - buf) + 1;
        }
    }
    return RT_OK;
}

/* Read the pipe to its end, converting whole lines. */
static int pump(conv *c, int fd, pid_t pid, rt_err *err)
{
    size_t cap = 1 << 20, have = 0;
    char *buf = malloc(cap);
    rt_memref *refs = malloc(RT_CAPTURE_BATCH * sizeof *refs);
    if (!buf || !refs) {
        free(buf);
        free(refs);
        return rt_err_set(err, RT_ENOMEM, "capture: out of memory");
    }
    int st = RT_OK, forwarded = 0;
    for (;;) {
        if (stop_signal && !forwarded) {
            kill(pid, SIGINT); /* the child may not share our terminal */
            forwarded = 1;
            c->res->interrupted = 1;
        }
        ssize_t got = read(fd, buf + have, cap - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            st = rt_err_set(err, RT_EIO, "capture: reading lackey's log: %s", strerror(errno));
            break;
        }
        if (got == 0)
            break;
        if ((size_t)got < (64u << 10) && !stop_signal) {
            /* little came: let lackey fill the (enlarged) pipe for a moment rather
             * than waking on each of its small writes */
            struct timespec nap = {0, 2000000};
            nanosleep(&nap, NULL);
        }
        if (c->text && fwrite(buf + have, 1, (size_t)got, c->text) != (size_t)got) {
            st = rt_err_set(err, RT_EIO, "capture: writing the text log: %s", strerror(errno));
            break;
        }
        c->res->bytes_in += (uint64_t)got;
        have += (size_t)got;
        size_t from = have; /* just past the last newline: whole lines before it */
        while (from > 0 && buf[from - 1] != '\n')
            from--;
        if (st == RT_OK)
            st = lines_of(c, buf, from, refs, RT_CAPTURE_BATCH, err);
        memmove(buf, buf + from, have - from);
        have -= from;
        if (have == cap) { /* a line longer than the buffer: not lackey's */
            if (st == RT_OK)
                st = rt_err_at(err, RT_EFORMAT, c->name, c->lineno + 1, "record: a line of more than 1 MiB");
            have = 0;
        }
    }
    if (st == RT_OK && have > 0 && !c->res->interrupted)
        st = one_line(c, buf, have, err); /* a last line without newline */
    free(buf);
    free(refs);
    return st;
}

/* ---- the retrace Valgrind tool's binary stream (vg/rt_vgtool.c) ---- */

#define RT_VG_MAX_RECORD 4096 /* payload words of one record: more is not the tool's */

/* RT_VG_BLOCK: p[0] the block's id (the next one), then its entries. */
static int tool_block(conv *c, const uint64_t *p, uint64_t n, rt_err *err)
{
    if (p[0] != c->n_blk)
        return rt_err_at(err, RT_EFORMAT, c->name, c->lineno, "record: block %llu where block %llu was next",
                         (unsigned long long)p[0], (unsigned long long)c->n_blk);
    if (c->n_blk == c->cap_blk || c->n_ent + RT_VG_BLOCK_MAX > c->cap_ent) {
        size_t cb = c->n_blk == c->cap_blk ? c->cap_blk * 2 + 1024 : c->cap_blk;
        size_t ce = c->n_ent + RT_VG_BLOCK_MAX > c->cap_ent ? c->cap_ent * 2 + 8192 : c->cap_ent;
        struct vg_block *b = realloc(c->blk, cb * sizeof *b);
        if (b)
            c->blk = b;
        rt_memref *e = b ? realloc(c->ent, ce * sizeof *e) : NULL;
        if (!e)
            return rt_err_set(err, RT_ENOMEM, "capture: out of memory");
        c->ent = e;
        c->cap_blk = cb;
        c->cap_ent = ce;
    }
    struct vg_block *b = &c->blk[c->n_blk];
    b->first = c->n_ent;
    b->n = (unsigned)(n - 1);
    b->ndata = 0;
    for (uint64_t i = 1; i < n; i++) {
        uint64_t x = p[i];
        rt_memref *e = &c->ent[c->n_ent + i - 1];
        e->kind = (int)(x >> 60);
        e->size = (x >> 48) & 0xfff;
        e->addr = x & 0xffffffffffffull;
        if (e->kind > RT_REF_IFETCH || e->size == 0 || (e->kind != RT_REF_IFETCH && e->addr != 0))
            return rt_err_at(err, RT_EFORMAT, c->name, c->lineno,
                             "record: block %llu entry %llu: %016llx is not a fetch, a load or a store",
                             (unsigned long long)p[0], (unsigned long long)i, (unsigned long long)x);
        b->ndata += e->kind != RT_REF_IFETCH;
    }
    c->n_ent += b->n;
    c->n_blk++;
    return RT_OK;
}

/* v in base 10 or 16 (lower case, no prefix) at q; returns the end. The
 * allocation log's frequent records are written with it rather than fprintf,
 * called nine times per allocation (a list walk's 400,000 records: about 0.1 s
 * less of the converter's 1.2-1.4 s). */
static char *put_num(char *q, uint64_t v, unsigned base)
{
    char t[24];
    int k = 0;
    do {
        t[k++] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    while (k)
        *q++ = t[--k];
    return q;
}

/* One record of the tool (type, n payload words p) into the allocation log. */
static int tool_record(conv *c, unsigned type, const uint64_t *p, uint64_t n, rt_err *err)
{
    unsigned long long seq = (unsigned long long)c->res->refs;
    switch (type) {
    case RT_VG_ALLOC: { /* "@SEQ A ADDR SIZE RET1/RET2/..." ("0" without return addresses) */
        if (n < 2)
            break;
        char line[512], *q = line;
        *q++ = '@';
        q = put_num(q, seq, 10);
        memcpy(q, " A ", 3);
        q = put_num(q + 3, p[0], 16);
        *q++ = ' ';
        q = put_num(q, p[1], 10);
        *q++ = ' ';
        for (uint64_t i = 2; i < n; i++) {
            if (q > line + sizeof line - 24) { /* (more return addresses than the tool sends) */
                fwrite(line, 1, (size_t)(q - line), c->alloc);
                q = line;
            }
            if (i > 2)
                *q++ = '/';
            q = put_num(q, p[i], 16);
        }
        if (n == 2)
            *q++ = '0';
        *q++ = '\n';
        fwrite(line, 1, (size_t)(q - line), c->alloc);
        c->res->allocs++;
        return RT_OK;
    }
    case RT_VG_FREE: { /* "@SEQ F ADDR" */
        if (n < 1)
            break;
        char line[64], *q = line;
        *q++ = '@';
        q = put_num(q, seq, 10);
        memcpy(q, " F ", 3);
        q = put_num(q + 3, p[0], 16);
        *q++ = '\n';
        fwrite(line, 1, (size_t)(q - line), c->alloc);
        c->res->allocs++;
        return RT_OK;
    }
    case RT_VG_THREAD:
        if (n < 1 || p[0] < 1 || p[0] > 100000)
            break;
        if ((int)p[0] > c->res->threads)
            c->res->threads = (int)p[0];
        if ((int)p[0] != c->thread) {
            c->thread = (int)p[0];
            fprintf(c->alloc, "@%llu S %d\n", seq, c->thread - 1);
        }
        return RT_OK;
    case RT_VG_REF: {
        if (n < 2)
            break;
        rt_memref ref = {p[0], (p[1] >> 48) & 0xfff, (int)(p[1] >> 60)};
        if (ref.kind > RT_REF_IFETCH)
            break;
        return put_refs(c, &ref, 1, err);
    }
    case RT_VG_OBJECT: {
        if (n < 4 || p[3] > (n - 4) * 8)
            break;
        fprintf(c->alloc, "@%llu L %llx %llx %llx %.*s\n", seq, (unsigned long long)p[0],
                (unsigned long long)p[1], (unsigned long long)p[2], (int)p[3], (const char *)(p + 4));
        return RT_OK;
    }
    case RT_VG_STACK:
        if (n < 2)
            break;
        fprintf(c->alloc, "@%llu K %llx %llx\n", seq, (unsigned long long)p[0], (unsigned long long)p[1]);
        return RT_OK;
    case RT_VG_BLOCK:
        if (n < 2 || n > 1 + RT_VG_BLOCK_MAX)
            break;
        return tool_block(c, p, n, err);
    default:
        break;
    }
    return rt_err_at(err, RT_EFORMAT, c->name, c->lineno, "record: type %u with %llu words is not the tool's",
                     type, (unsigned long long)n);
}

/* The whole records among the words w[0, n): returns how many words were used
 * (a record cut by the end of the buffer waits for the next read). */
static size_t tool_words(conv *c, const uint64_t *w, size_t n, rt_memref *refs, size_t cap, int *st, rt_err *err)
{
    size_t i = 0, k = 0, kf = 0; /* refs[0, k) to write, kf of them fetches */
    while (i < n && *st == RT_OK) {
        uint64_t x = w[i];
        unsigned kind = (unsigned)(x >> 60);
        if (kind <= RT_VG_KIND_IFETCH) {
            refs[k].addr = x & 0xffffffffffffull;
            refs[k].size = (x >> 48) & 0xfff;
            refs[k].kind = (int)kind;
            kf += kind == RT_VG_KIND_IFETCH;
            if (++k == cap) {
                *st = put_refs_counted(c, refs, k, kf, err);
                k = kf = 0;
            }
            i++;
            c->lineno++;
            continue;
        }
        uint64_t len = x & 0xffffffffffffull;
        if (kind == RT_VG_KIND_BLOCK) { /* a run of block len: its references, in order */
            if (len >= c->n_blk) {
                *st = rt_err_at(err, RT_EFORMAT, c->name, c->lineno + 1, "word: %016llx names no block described before",
                                (unsigned long long)x);
                break;
            }
            const struct vg_block *b = &c->blk[len];
            if (i + 1 + b->ndata > n)
                break; /* its addresses come with the next read */
            if (k + b->n > cap) {
                if ((*st = put_refs_counted(c, refs, k, kf, err)) != RT_OK)
                    break;
                k = kf = 0;
            }
            const rt_memref *e = c->ent + b->first;
            const uint64_t *a = w + i + 1;
            for (unsigned j = 0; j < b->n; j++, k++) {
                refs[k] = e[j];
                if (e[j].kind != RT_REF_IFETCH)
                    refs[k].addr = *a++;
            }
            kf += b->n - b->ndata;
            i += 1 + b->ndata;
            c->lineno++;
            continue;
        }
        if (k > 0) {
            *st = put_refs_counted(c, refs, k, kf, err);
            k = kf = 0;
            if (*st != RT_OK)
                break;
        }
        if (kind != RT_VG_KIND_RECORD || len > RT_VG_MAX_RECORD) {
            *st = rt_err_at(err, RT_EFORMAT, c->name, c->lineno + 1, "word: %016llx is not the tool's",
                            (unsigned long long)x);
            break;
        }
        if (i + 1 + len > n)
            break;
        c->lineno++; /* a record's errors name it */
        *st = tool_record(c, (unsigned)((x >> 48) & 0xfff), w + i + 1, len, err);
        i += 1 + (size_t)len;
    }
    if (k > 0 && *st == RT_OK)
        *st = put_refs_counted(c, refs, k, kf, err);
    return i;
}

/* Read the tool's stream to its end. */
static int pump_tool(conv *c, int fd, pid_t pid, rt_err *err)
{
    size_t cap = 1 << 20, have = 0; /* bytes */
    uint64_t *buf = malloc(cap);
    rt_memref *refs = malloc(RT_CAPTURE_BATCH * sizeof *refs);
    if (!buf || !refs) {
        free(buf);
        free(refs);
        return rt_err_set(err, RT_ENOMEM, "capture: out of memory");
    }
    int st = RT_OK, forwarded = 0;
    for (;;) {
        if (stop_signal && !forwarded) {
            kill(pid, SIGINT);
            forwarded = 1;
            c->res->interrupted = 1;
        }
        ssize_t got = read(fd, (char *)buf + have, cap - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            st = rt_err_set(err, RT_EIO, "capture: reading the tool's stream: %s", strerror(errno));
            break;
        }
        if (got == 0)
            break;
        c->res->bytes_in += (uint64_t)got;
        have += (size_t)got;
        if (st != RT_OK) { /* keep draining so that the program can finish */
            have = 0;
            continue;
        }
        size_t used = tool_words(c, buf, have / 8, refs, RT_CAPTURE_BATCH, &st, err) * 8;
        memmove(buf, (char *)buf + used, have - used);
        have -= used;
    }
    if (st == RT_OK && have > 0 && !c->res->interrupted)
        st = rt_err_at(err, RT_EFORMAT, c->name, c->lineno + 1, "stream: ends inside a record");
    free(buf);
    free(refs);
    return st;
}

int rt_capture_run(const rt_capture_opts *o, rt_capture_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    res->exit_code = -1;
    size_t argc = 0;
    while (o->argv[argc])
        argc++;
    if (argc == 0)
        return rt_err_set(err, RT_EINVAL, "capture: no command");
    conv c = {0};
    c.name = o->tool ? "retrace tool stream" : "lackey log";
    c.res = res;
    c.w = rt_rtmb_create(o->rtmb, err);
    if (!c.w)
        return err && err->status ? err->status : RT_EIO;
    c.alloc = fopen(o->alloc, "w");
    int fdlog = o->fdlog ? open(o->fdlog, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
    if (o->text)
        c.text = fopen(o->text, "w");
    if (!c.alloc || (o->fdlog && fdlog < 0) || (o->text && !c.text)) {
        int e = errno;
        rt_rtmb_abort(c.w);
        if (c.alloc)
            fclose(c.alloc);
        if (c.text)
            fclose(c.text);
        if (fdlog >= 0)
            close(fdlog);
        return rt_err_set(err, RT_EIO, "capture: cannot create the capture's files: %s", strerror(e));
    }
    int logp[2], errp[2];
    if (pipe(logp) != 0 || pipe(errp) != 0) {
        rt_rtmb_abort(c.w);
        fclose(c.alloc);
        return rt_err_set(err, RT_EIO, "capture: pipe: %s", strerror(errno));
    }
    fcntl(logp[0], F_SETFD, FD_CLOEXEC);
#ifdef F_SETPIPE_SZ
    fcntl(logp[0], F_SETPIPE_SZ, 1 << 20); /* fewer wake-ups; the default 64 KiB is kept when refused */
#endif
    fcntl(errp[0], F_SETFD, FD_CLOEXEC);
    fcntl(errp[1], F_SETFD, FD_CLOEXEC);
    char logarg[32], fdenv[48];
    snprintf(logarg, sizeof logarg, o->tool ? "--retrace-fd=%d" : "--log-fd=%d", logp[1]);
    snprintf(fdenv, sizeof fdenv, "RETRACE_ALLOC_FD=%d", fdlog);
    const char **argv = calloc(argc + 2, sizeof *argv);
    if (!argv) {
        rt_rtmb_abort(c.w);
        fclose(c.alloc);
        return rt_err_set(err, RT_ENOMEM, "capture: out of memory");
    }
    argv[0] = o->argv[0];
    argv[1] = logarg;
    for (size_t i = 1; i < argc; i++)
        argv[i + 1] = o->argv[i];
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    stop_signal = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(logp[0]);
        close(errp[0]);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        for (const char *const *e = o->env; e && *e; e++)
            putenv((char *)*e);
        if (fdlog >= 0)
            putenv(fdenv);
        execvp(argv[0], (char *const *)argv);
        int e = errno;
        ssize_t w = write(errp[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    int st = RT_OK;
    close(logp[1]);
    close(errp[1]);
    if (fdlog >= 0)
        close(fdlog);
    if (pid < 0) {
        st = rt_err_set(err, RT_EIO, "capture: fork: %s", strerror(errno));
        close(logp[0]);
        close(errp[0]);
    } else {
        int child_errno = 0;
        ssize_t got;
        do
            got = read(errp[0], &child_errno, sizeof child_errno);
        while (got < 0 && errno == EINTR);
        close(errp[0]);
        if (got == (ssize_t)sizeof child_errno) {
            if (child_errno == ENOENT)
                st = rt_err_set(err, RT_EIO, "%s: not found on PATH (install the Debian package valgrind)",
                                argv[0]);
            else
                st = rt_err_set(err, RT_EIO, "%s: %s", argv[0], strerror(child_errno));
        } else {
            st = o->tool ? pump_tool(&c, logp[0], pid, err) : pump(&c, logp[0], pid, err);
        }
        close(logp[0]);
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        if (st == RT_OK || got != (ssize_t)sizeof child_errno) {
            if (WIFEXITED(status))
                res->exit_code = WEXITSTATUS(status);
            else if (WIFSIGNALED(status))
                res->signal = WTERMSIG(status);
        }
        if (stop_signal)
            res->interrupted = 1;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(argv);
    int cst = rt_rtmb_close(c.w, st == RT_OK ? err : NULL);
    if (st == RT_OK)
        st = cst;
    if (fclose(c.alloc) != 0 && st == RT_OK)
        st = rt_err_set(err, RT_EIO, "%s: %s", o->alloc, strerror(errno));
    if (c.text && fclose(c.text) != 0 && st == RT_OK)
        st = rt_err_set(err, RT_EIO, "%s: %s", o->text, strerror(errno));
    free(c.blk);
    free(c.ent);
    return st;
}
