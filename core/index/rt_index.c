/*
 * rt_index.c - building and reading the viewer's index (see rt_index.h).
 *
 * The build streams the trace once. Per processor it keeps the open region
 * stack, the block being filled and the summary column being accumulated; the
 * summaries of every processor sit in one table of nprocs x C cells whose
 * column width doubles (pairs of cells merge) whenever the trace outgrows it,
 * since the span is only known at the end. Blocks are written as they fill, so
 * memory holds the summaries, one block per processor and the messages in
 * flight, never the events.
 *
 * Reading maps the file and decodes only the blocks a window touches. One
 * stack machine (ix_stack_*) serves the build and the reading, so the state
 * and region a time is drawn in are decided by one rule.
 */
#include "rt_index.h"
#include "rt_index_counters.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_chanmap.h"
#include "rt_index_block.h"
#include "rt_mem.h"
#include "rt_otf2_locs.h"
#include "rt_out.h"
#include "rt_replay.h"
#include "rt_tevent.h"
#include "rt_tsource_open.h"

/* ---- file layout ---- */

static const char IX_MAGIC[8] = RT_INDEX_MAGIC;

typedef struct ix_header {
    char magic[8];
    uint32_t version, hsize;  /* RT_INDEX_VERSION, sizeof(ix_header) */
    uint64_t sig[2];          /* the trace's signature */
    uint64_t unit;            /* ticks per second */
    int64_t origin;           /* tick of column 0's start */
    int64_t tmin, tmax;       /* first and last event */
    int64_t colw0;            /* width of the one column of level 0 (level L: colw0 >> L) */
    int64_t maxlat;           /* longest message flight */
    uint64_t nevents;
    uint32_t nprocs, nregions, levels, outside;
    uint64_t ndir;
    uint64_t off_regions, off_procs, off_dir, off_sum, size;
    uint64_t off_counters;    /* the counters' names and units, between the processors and the directory */
    uint32_t ncounters, pad;
    uint64_t hash;            /* of bytes hsize .. size */
    char format[16];
    uint64_t off_ksum;        /* the counter summaries (rt_index_counters.h), after the state summaries */
} ix_header;

typedef struct ix_dirent {
    int32_t proc;
    uint32_t nev;             /* events in the block */
    int64_t tfirst, tlast;
    uint64_t off;
    uint32_t len;             /* bytes stored */
    uint32_t raw;             /* bytes unpacked (rt_ixb_pack; 0: stored as is) */
} ix_dirent;

/* A summary cell as stored (12 bytes): times as shares of the column's width out of 65535. */
typedef struct ix_dcell {
    uint16_t st[3];           /* idle, overhead, busy */
    uint16_t toptime;         /* the top region's time */
    uint16_t top;             /* dense region number + 1; 0 none (or a region numbered past 65534) */
    uint16_t nmsg;            /* messages sent (saturated) */
} ix_dcell;

static uint16_t share16(double t, double w)
{
    double f = w > 0 ? t / w * 65535.0 + 0.5 : 0;
    return (uint16_t)(f < 0 ? 0 : f > 65535 ? 65535 : f);
}

/* A summary cell while the index is built: times in ticks, as doubles, so sums of whole ticks are
 * exact whatever order they are added in. */
typedef struct ix_bcell {
    double st[3];
    double toptime;
    int32_t top1;             /* the top region's dense number + 1; 0 none (a zeroed cell is empty) */
    uint32_t nmsg;
} ix_bcell;

static void pack_cell(ix_dcell *d, const ix_bcell *c, double w)
{
    for (int k = 0; k < 3; k++)
        d->st[k] = share16(c->st[k], w);
    int top = c->top1 > 0 && c->top1 <= 65535 ? c->top1 : 0;
    d->toptime = top ? share16(c->toptime, w) : 0;
    d->top = (uint16_t)top;
    d->nmsg = (uint16_t)(c->nmsg > 65535 ? 65535 : c->nmsg);
}

static void unpack_cell(rt_ix_cell *c, const ix_dcell *d, double w)
{
    for (int k = 0; k < 3; k++)
        c->st[k] = (float)(d->st[k] * w / 65535.0);
    c->toptime = (float)(d->toptime * w / 65535.0);
    c->top = (int32_t)d->top - 1;
    c->nmsg = d->nmsg;
}

/* ---- hashing ---- */

typedef struct ix_hash {
    uint64_t h, carry;
    unsigned ncarry;
} ix_hash;

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static void hash_word(ix_hash *s, uint64_t w)
{
    s->h = (s->h ^ mix64(w + 0x9e3779b97f4a7c15ULL)) * 0x100000001b3ULL;
}

static void hash_update(ix_hash *s, const void *buf, size_t n)
{
    const unsigned char *b = buf;
    while (n && s->ncarry) {
        s->carry |= (uint64_t)*b++ << (8 * s->ncarry);
        n--;
        if (++s->ncarry == 8) {
            hash_word(s, s->carry);
            s->carry = 0;
            s->ncarry = 0;
        }
    }
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        hash_word(s, w);
        b += 8;
        n -= 8;
    }
    while (n) {
        s->carry |= (uint64_t)*b++ << (8 * s->ncarry);
        s->ncarry++;
        n--;
    }
}

static uint64_t hash_final(ix_hash *s)
{
    if (s->ncarry)
        hash_word(s, s->carry ^ ((uint64_t)s->ncarry << 60));
    return mix64(s->h);
}

/* ---- signature ---- */

static void sig_file(const char *path, const struct stat *st, uint64_t sig[2], uint64_t *bytes)
{
    ix_hash h = {0, 0, 0};
    hash_update(&h, path + (strrchr(path, '/') ? strrchr(path, '/') - path + 1 : 0),
                strlen(strrchr(path, '/') ? strrchr(path, '/') + 1 : path));
    uint64_t v[3] = {(uint64_t)st->st_size, (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec};
    hash_update(&h, v, sizeof v);
    /* head and tail */
    int fd = open(path, O_RDONLY);
    if (fd >= 0) {
        static unsigned char buf[65536];
        ssize_t n = pread(fd, buf, sizeof buf, 0);
        if (n > 0)
            hash_update(&h, buf, (size_t)n);
        if (st->st_size > (off_t)sizeof buf) {
            n = pread(fd, buf, sizeof buf, st->st_size - (off_t)sizeof buf);
            if (n > 0)
                hash_update(&h, buf, (size_t)n);
        }
        close(fd);
    }
    /* files combine by addition: the order a folder lists them in does not matter */
    sig[0] += hash_final(&h);
    sig[1] += mix64((uint64_t)st->st_size ^ ((uint64_t)st->st_mtim.tv_sec << 20));
    *bytes += (uint64_t)st->st_size;
}

static void sig_path(const char *path, int depth, uint64_t sig[2], uint64_t *bytes)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return;
    if (S_ISREG(st.st_mode)) {
        sig_file(path, &st, sig, bytes);
        return;
    }
    if (!S_ISDIR(st.st_mode) || depth <= 0)
        return;
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *sub = malloc(n);
        if (!sub)
            break;
        snprintf(sub, n, "%s/%s", path, e->d_name);
        sig_path(sub, depth - 1, sig, bytes);
        free(sub);
    }
    closedir(d);
}

static int signature(const char *trace, uint64_t sig[2], uint64_t *bytes, rt_err *err)
{
    struct stat st;
    sig[0] = sig[1] = 0;
    *bytes = 0;
    if (stat(trace, &st) != 0)
        return rt_err_set(err, RT_EIO, "%s: %s", trace, strerror(errno));
    sig_path(trace, 3, sig, bytes);
    size_t n = strlen(trace);
    if (S_ISREG(st.st_mode) && n > 5 && strcmp(trace + n - 5, ".otf2") == 0) {
        /* an OTF2 anchor: its definitions file and its folder of location files */
        char *stem = malloc(n + 1);
        if (!stem)
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", trace);
        memcpy(stem, trace, n - 5);
        strcpy(stem + n - 5, ".def");
        sig_path(stem, 0, sig, bytes);
        stem[n - 5] = '\0';
        sig_path(stem, 2, sig, bytes);
        free(stem);
    }
    return RT_OK;
}

int rt_index_signature(const char *trace_path, uint64_t sig[2], rt_err *err)
{
    uint64_t bytes;
    return signature(trace_path, sig, &bytes, err);
}

/* ---- the stack machine: regions open on one processor ---- */

typedef struct ix_frame {
    int region;
    int state;                /* the state its class puts a processor in (rt_tclass_state; -1 look outward) */
    int64_t t;                /* when it was entered */
} ix_frame;

typedef struct ix_stack {
    ix_frame *f;
    size_t depth, cap;
} ix_stack;

/* The state and region a processor is drawn in under this stack: the innermost non-tracing
 * region decides (state -1 from a class means look outward); outside every region, the outside class. */
static void stack_now(const ix_stack *s, int outside, int *state, int *region)
{
    for (size_t i = s->depth; i-- > 0;) {
        int st = s->f[i].state;
        if (st >= 0) {
            *state = st;
            *region = s->f[i].region;
            return;
        }
    }
    *state = rt_tclass_state(outside);
    if (*state < 0)
        *state = 2;
    *region = -1;
}

/* Enter region (of class cls) at t. */
static int stack_push(ix_stack *s, int region, int cls, int64_t t)
{
    if (s->depth == s->cap && rt_grow((void **)&s->f, &s->cap, s->depth + 1, sizeof *s->f) != RT_OK)
        return RT_ENOMEM;
    s->f[s->depth].region = region;
    s->f[s->depth].state = rt_tclass_state(cls);
    s->f[s->depth].t = t;
    s->depth++;
    return RT_OK;
}

/* A leave of region: closes it and any region opened inside it and left open (each reported
 * through close, when not NULL); a leave of a region not open is ignored. */
static int stack_leave(ix_stack *s, int region, int64_t t, int proc,
                       int (*close)(void *ud, const rt_ix_interval *iv), void *ud)
{
    size_t i = s->depth;
    while (i > 0 && s->f[i - 1].region != region)
        i--;
    if (i == 0)
        return 0;
    while (s->depth >= i) {
        s->depth--;
        if (close) {
            rt_ix_interval iv = {proc, s->f[s->depth].region, (int)s->depth, s->f[s->depth].t, t};
            if (close(ud, &iv))
                return 1;
        }
        if (s->depth == 0)
            break;
    }
    return 0;
}

/* ---- the build ---- */

/* Columns of the finest summary level are at most this many cells in all. */
#define IX_CELL_BUDGET (1u << 20)
/* The finest level kept has at least this many events per column on average. */
#define IX_EVENTS_PER_COLUMN 128
#define IX_SCRATCH 8
/* A raster is drawn from the events when they number at most this many, else from the finest summaries. */
#define IX_RASTER_EVENTS 2000000
/* A stored block unpacks to at most this many bytes (a block ends past RT_INDEX_BLOCK bytes, plus
 * the stack open at its start); a larger claim is damage. */
#define IX_MAX_RAW (1u << 28)

typedef struct ix_pb {
    ix_stack stack;
    int64_t last;             /* time of the last event (INT64_MIN before the first) */
    rt_ixb_enc blk;           /* the block being filled */
    int64_t col;              /* summary column the scratch belongs to (-1 none) */
    int64_t acol;             /* column of the last time accumulated (-1: to be computed) */
    int sr[IX_SCRATCH];       /* regions of that column and their times */
    double stime[IX_SCRATCH];
    int ns;
} ix_pb;

typedef struct ix_fifo {
    rt_chankey key;
    int64_t *t;               /* send times in flight on the channel */
    size_t head, n, cap;
} ix_fifo;

typedef struct ix_regent {
    rt_chankey key;
    int dense;
} ix_regent;

typedef struct ix_build {
    rt_tsource *src;          /* the serial reader (NULL when the archive is read per location) */
    rt_otf2_locs *locs;       /* the per-location reader (OTF2) */
    const rt_tdefs *defs;
    const char *format;
    int per_loc;              /* events come location by location: span known, sends matched up front */
    struct ix_inbox *inbox;   /* per location, the sends to it from others (per_loc) */
    rt_chanmap inchan;        /* the receiving location's channels: (src, comm, tag) -> its sends */
    struct ix_sortkey *order; /* the receiving location's sends by channel, then time */
    size_t capord;
    rt_out *out;
    FILE *fp;
    rt_ixb_packer packer;     /* packs the blocks as they are written */
    ix_hash hash;
    uint64_t off;             /* file offset of the next byte */
    int use_ticks;
    int64_t offset;
    uint64_t unit;
    ix_pb *pb;
    size_t npb;
    size_t cappb, zrows;      /* rows of pb and cells allocated; rows of cells zero from calloc */
    rt_chanmap regmap;        /* trace region id -> dense number */
    int small[256];           /* region ids 0 .. 255 -> dense number + 1 (0: not yet) */
    int *reg_id;
    unsigned char *reg_cls;
    size_t nreg, capreg;
    rt_chanmap fifos;         /* (src, dst, comm, tag) -> send times */
    ix_dirent *dir;
    size_t ndir, capdir;
    ix_bcell *cells;          /* npb x C */
    size_t C;
    int64_t origin, colw;     /* first event, finest column width */
    int64_t tmin, tmax, maxlat;
    uint64_t nevents;
    int outside;
    ix_kbuild *kb;            /* the counter summaries */
} ix_build;

static int put(ix_build *b, const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, b->fp) != n)
        return RT_EIO;
    hash_update(&b->hash, p, n);
    b->off += n;
    return RT_OK;
}

static int put_bytes(void *ud, const void *p, size_t n)
{
    return put(ud, p, n);
}

static int dense_region_slow(ix_build *b, int id);

static inline int dense_region(ix_build *b, int id)
{
    if (id >= 0 && id < 256 && b->small[id])
        return b->small[id] - 1;
    int d = dense_region_slow(b, id);
    if (id >= 0 && id < 256 && d >= 0)
        b->small[id] = d + 1;
    return d;
}

static int dense_region_slow(ix_build *b, int id)
{
    ix_regent *e = rt_chanmap_get(&b->regmap, id, 0, 0, 0);
    if (!e)
        return -1;
    if (e->dense)
        return e->dense - 1;
    if (rt_grow((void **)&b->reg_id, &b->capreg, b->nreg + 1, sizeof *b->reg_id) != RT_OK)
        return -1;
    size_t cap = b->capreg;
    unsigned char *c = realloc(b->reg_cls, cap);
    if (!c)
        return -1;
    b->reg_cls = c;
    const rt_tregion *r = rt_tdefs_region(b->defs, id);
    b->reg_id[b->nreg] = id;
    b->reg_cls[b->nreg] = (unsigned char)(r ? r->cls : RT_TC_USER);
    e->dense = (int)++b->nreg;
    return e->dense - 1;
}

static int grow_procs(ix_build *b, size_t n)
{
    if (n <= b->npb)
        return RT_OK;
    if (n > b->cappb) { /* doubling: Pajé names its processors one by one as containers come */
        size_t cap = b->cappb ? 2 * b->cappb : n;
        if (cap < n)
            cap = n;
        ix_pb *pb = realloc(b->pb, cap * sizeof *pb);
        if (!pb)
            return RT_ENOMEM;
        b->pb = pb;
        /* the first table comes zeroed from the system (its pages are touched only when used) */
        ix_bcell *cells = b->cells ? realloc(b->cells, cap * b->C * sizeof *cells) : calloc(cap * b->C, sizeof *cells);
        if (!cells)
            return RT_ENOMEM;
        if (!b->cells)
            b->zrows = cap;
        b->cells = cells;
        b->cappb = cap;
    }
    if (n > b->zrows) { /* rows past the calloc'd ones hold what realloc left */
        size_t from = b->npb > b->zrows ? b->npb : b->zrows;
        memset(&b->cells[from * b->C], 0, (n - from) * b->C * sizeof *b->cells);
    }
    for (size_t i = b->npb; i < n; i++) {
        memset(&b->pb[i], 0, sizeof b->pb[i]);
        b->pb[i].last = INT64_MIN;
        b->pb[i].col = -1;
        b->pb[i].acol = -1;
    }
    b->npb = n;
    return RT_OK;
}

/* Settle the scratch of p's current column into its cell. */
static void scratch_flush(ix_build *b, size_t p)
{
    ix_pb *pb = &b->pb[p];
    if (pb->col < 0)
        return;
    ix_bcell *c = &b->cells[p * b->C + (size_t)pb->col];
    int best = -1;
    for (int i = 0; i < pb->ns; i++)
        if (best < 0 || pb->stime[i] > pb->stime[best])
            best = i;
    if (best >= 0) {
        c->top1 = pb->sr[best] + 1;
        c->toptime = pb->stime[best];
    }
    pb->col = -1;
    pb->ns = 0;
}

static void region_add(ix_build *b, size_t p, int64_t col, int region, double dt)
{
    ix_pb *pb = &b->pb[p];
    if (pb->col != col) {
        scratch_flush(b, p);
        pb->col = col;
        ix_bcell *c = &b->cells[p * b->C + (size_t)col];
        if (c->top1) {
            pb->sr[0] = c->top1 - 1;
            pb->stime[0] = c->toptime;
            pb->ns = 1;
        }
    }
    for (int i = 0; i < pb->ns; i++)
        if (pb->sr[i] == region) {
            pb->stime[i] += dt;
            return;
        }
    if (pb->ns < IX_SCRATCH) {
        pb->sr[pb->ns] = region;
        pb->stime[pb->ns++] = dt;
        return;
    }
    /* full: the new region replaces the smallest when it already outweighs it */
    int lo = 0;
    for (int i = 1; i < pb->ns; i++)
        if (pb->stime[i] < pb->stime[lo])
            lo = i;
    if (dt > pb->stime[lo]) {
        pb->sr[lo] = region;
        pb->stime[lo] = dt;
    }
}

static void cell_merge(ix_bcell *d, const ix_bcell *a, const ix_bcell *c)
{
    ix_bcell r;
    for (int k = 0; k < 3; k++)
        r.st[k] = a->st[k] + c->st[k];
    r.nmsg = a->nmsg + c->nmsg;
    if (a->top1 == c->top1) {
        r.top1 = a->top1;
        r.toptime = a->toptime + c->toptime;
    } else if (a->toptime >= c->toptime) {
        r.top1 = a->top1;
        r.toptime = a->toptime;
    } else {
        r.top1 = c->top1;
        r.toptime = c->toptime;
    }
    *d = r;
}

/* Double the finest column width until time t fits. */
static void fit_time(ix_build *b, int64_t t)
{
    while (t - b->origin >= (int64_t)b->C * b->colw) {
        for (size_t p = 0; p < b->npb; p++) {
            scratch_flush(b, p);
            b->pb[p].acol = -1;
            ix_bcell *row = &b->cells[p * b->C];
            for (size_t i = 0; i < b->C / 2; i++)
                cell_merge(&row[i], &row[2 * i], &row[2 * i + 1]);
            memset(&row[b->C / 2], 0, b->C / 2 * sizeof *row);
        }
        b->colw *= 2;
    }
}

static int64_t col_of(const ix_build *b, int64_t t)
{
    int64_t c = (t - b->origin) / b->colw;
    if (c < 0)
        c = 0;
    if (c >= (int64_t)b->C)
        c = (int64_t)b->C - 1;
    return c;
}

/* Add [a, e) of state and region to p's summary columns. */
static void accumulate(ix_build *b, size_t p, int64_t a, int64_t e, int state, int region)
{
    if (e <= a)
        return;
    /* a processor's times only grow: its stretch usually starts in the column the last one ended in,
     * and most stretches stay in it (no division then) */
    ix_pb *pb = &b->pb[p];
    int64_t c0 = pb->acol, c1;
    if (c0 < 0 || a < b->origin + c0 * b->colw || a >= b->origin + (c0 + 1) * b->colw)
        c0 = col_of(b, a);
    if (e - 1 < b->origin + (c0 + 1) * b->colw)
        c1 = c0;
    else
        c1 = col_of(b, e - 1);
    pb->acol = c1;
    for (int64_t c = c0; c <= c1; c++) {
        int64_t lo = b->origin + c * b->colw, hi = lo + b->colw;
        if (lo < a)
            lo = a;
        if (hi > e)
            hi = e;
        if (hi <= lo)
            continue;
        b->cells[p * b->C + (size_t)c].st[state] += (double)(hi - lo);
        if (region >= 0)
            region_add(b, p, c, region, (double)(hi - lo));
    }
}

static int flush_block(ix_build *b, size_t p)
{
    ix_pb *pb = &b->pb[p];
    if (!pb->blk.nev)
        return RT_OK;
    if (rt_grow((void **)&b->dir, &b->capdir, b->ndir + 1, sizeof *b->dir) != RT_OK)
        return RT_ENOMEM;
    ix_dirent *d = &b->dir[b->ndir++];
    memset(d, 0, sizeof *d);
    d->proc = (int32_t)p;
    d->nev = pb->blk.nev;
    d->tfirst = pb->blk.first;
    d->tlast = pb->blk.prev;
    d->off = b->off;
    const unsigned char *data;
    size_t len;
    int rc = rt_ixb_pack(&b->packer, &pb->blk, &data, &len, &d->raw);
    if (rc)
        return rc;
    if (len > UINT32_MAX)
        return RT_ENOMEM;
    d->len = (uint32_t)len;
    return put(b, data, len);
}

/* ---- the sends of a per-location build ---- */

/* A send to a location, queued by the send pass. */
typedef struct ix_isend {
    int64_t t, tag;
    int32_t src, comm;
} ix_isend;

/* A location's sends from others, in the order the send pass met them (sender, then time). */
typedef struct ix_inbox {
    ix_isend *s;
    size_t n, cap;
} ix_inbox;

/* A channel into the receiving location: its sends are order[first .. first+n-1], taken so far. */
typedef struct ix_inchan {
    rt_chankey key;
    size_t first, n, taken;
} ix_inchan;

static int inbox_push(ix_build *b, int src, int dst, int comm, int64_t tag, int64_t t)
{
    ix_inbox *in = &b->inbox[dst];
    if (rt_grow((void **)&in->s, &in->cap, in->n + 1, sizeof *in->s) != RT_OK)
        return RT_ENOMEM;
    in->s[in->n++] = (ix_isend){t, tag, src, comm};
    return RT_OK;
}

/* A send of the receiving location's inbox as sorted: its channel and its place in the inbox. */
typedef struct ix_sortkey {
    int64_t tag;
    int32_t src, comm;
    size_t i;
} ix_sortkey;

static int isend_cmp(const void *x, const void *y)
{
    const ix_sortkey *a = x, *c = y;
    if (a->src != c->src)
        return a->src < c->src ? -1 : 1;
    if (a->comm != c->comm)
        return a->comm < c->comm ? -1 : 1;
    if (a->tag != c->tag)
        return a->tag < c->tag ? -1 : 1;
    return a->i < c->i ? -1 : a->i > c->i; /* a channel's sends in the order they were sent */
}

/* Before location p is built: its sends grouped by channel, each channel found by the map. */
static int inbox_open(ix_build *b, int p)
{
    rt_chanmap_free(&b->inchan);
    rt_chanmap_init(&b->inchan, sizeof(ix_inchan));
    ix_inbox *in = &b->inbox[p];
    if (!in->n)
        return RT_OK;
    if (rt_grow((void **)&b->order, &b->capord, in->n, sizeof *b->order) != RT_OK)
        return RT_ENOMEM;
    for (size_t i = 0; i < in->n; i++)
        b->order[i] = (ix_sortkey){in->s[i].tag, in->s[i].src, in->s[i].comm, i};
    qsort(b->order, in->n, sizeof *b->order, isend_cmp);
    for (size_t i = 0; i < in->n; i++) {
        const ix_isend *e = &in->s[b->order[i].i];
        ix_inchan *c = rt_chanmap_get(&b->inchan, e->src, p, e->comm, e->tag);
        if (!c)
            return RT_ENOMEM;
        if (!c->n)
            c->first = i;
        c->n++;
    }
    return RT_OK;
}

static void inbox_close(ix_build *b, int p)
{
    free(b->inbox[p].s);
    b->inbox[p] = (ix_inbox){0};
}

/* The send a receive on dst at tr pairs with, by the serial rule: the channel's oldest send not
 * taken, when a time-ordered read (time, then processor) would have met it before the receive. */
static int64_t inbox_pop(ix_build *b, int src, int dst, int comm, int64_t tag, int64_t tr)
{
    ix_inchan *c = rt_chanmap_find(&b->inchan, src, dst, comm, tag);
    if (!c || c->taken == c->n)
        return -1;
    int64_t t = b->inbox[dst].s[b->order[c->first + c->taken].i].t;
    if (!(t < tr || (t == tr && src < dst)))
        return -1;
    c->taken++;
    return t;
}

static int fifo_push(ix_build *b, int src, int dst, int comm, int64_t tag, int64_t t)
{
    ix_fifo *f = rt_chanmap_get(&b->fifos, src, dst, comm, tag);
    if (!f)
        return RT_ENOMEM;
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 4;
        int64_t *nt = malloc(cap * sizeof *nt);
        if (!nt)
            return RT_ENOMEM;
        for (size_t i = 0; i < f->n; i++)
            nt[i] = f->t[(f->head + i) % f->cap];
        free(f->t);
        f->t = nt;
        f->cap = cap;
        f->head = 0;
    }
    f->t[(f->head + f->n) % f->cap] = t;
    f->n++;
    return RT_OK;
}

/* The send a receive pairs with: the oldest send on its channel still in flight (-1: none). */
static int64_t fifo_pop(ix_build *b, int src, int dst, int comm, int64_t tag)
{
    ix_fifo *f = rt_chanmap_find(&b->fifos, src, dst, comm, tag);
    if (!f || !f->n)
        return -1;
    int64_t t = f->t[f->head];
    f->head = (f->head + 1) % f->cap;
    f->n--;
    return t;
}

/* A size in whole bytes (0 for none). */
static uint64_t whole_bytes(double bytes)
{
    return bytes > 0 ? bytes < 0x1p63 ? (uint64_t)llround(bytes) : (uint64_t)INT64_MAX : 0;
}

static int64_t event_time(const ix_build *b, const rt_tevent *ev)
{
    if (b->use_ticks)
        return ev->ticks - b->offset;
    return llround(ev->time * 1e9);
}

static int add_event(ix_build *b, const rt_tevent *ev)
{
    if (ev->proc < 0)
        return RT_OK;
    size_t p = (size_t)ev->proc;
    if (p >= b->npb && grow_procs(b, p + 1) != RT_OK)
        return RT_ENOMEM;
    ix_pb *pb = &b->pb[p];
    int64_t t = event_time(b, ev);
    if (b->nevents == 0 && !b->per_loc) {
        b->origin = t;
        b->tmin = b->tmax = t;
    }
    if (pb->last != INT64_MIN && t < pb->last)
        t = pb->last; /* a processor's events are in time order; a step back is held at the last time */
    if (t < b->tmin)
        t = b->tmin;
    if (t > b->tmax)
        b->tmax = t;
    fit_time(b, t);
    b->nevents++;

    /* the time since the last event, in the state it was spent in */
    if (pb->last != INT64_MIN) {
        int st, rg;
        stack_now(&pb->stack, b->outside, &st, &rg);
        accumulate(b, p, pb->last, t, st, rg);
    }
    pb->last = t;

    if (rt_ixb_size(&pb->blk) >= RT_INDEX_BLOCK) {
        int rc = flush_block(b, p);
        if (rc)
            return rc;
    }
    if (!pb->blk.nev) {
        /* a block begins with the stack open at its first event */
        if (rt_ixb_begin(&pb->blk, t, pb->stack.depth) != RT_OK)
            return RT_ENOMEM;
        for (size_t i = 0; i < pb->stack.depth; i++)
            if (rt_ixb_frame(&pb->blk, pb->stack.f[i].region, pb->stack.f[i].t) != RT_OK)
                return RT_ENOMEM;
    }
    int kind = ev->kind;
    rt_ixb_event be = {.kind = kind, .t = t};
    switch (kind) {
    case RT_TE_ENTER:
    case RT_TE_LEAVE:
    case RT_TE_MARKER: {
        int r = dense_region(b, ev->region);
        if (r < 0)
            return RT_ENOMEM;
        be.id = r;
        if (kind == RT_TE_ENTER) {
            if (stack_push(&pb->stack, r, b->reg_cls[r], t) != RT_OK)
                return RT_ENOMEM;
        } else if (kind == RT_TE_LEAVE) {
            stack_leave(&pb->stack, r, t, (int)p, NULL, NULL);
        }
        break;
    }
    case RT_TE_SEND:
    case RT_TE_RECV:
        be.peer = ev->peer;
        be.comm = ev->comm;
        be.tag = ev->tag;
        be.bytes = whole_bytes(ev->bytes);
        if (kind == RT_TE_SEND) {
            /* per location, sends to others were queued by the send pass; to itself, in order here */
            if ((!b->per_loc || ev->peer == (int)p) && fifo_push(b, (int)p, ev->peer, ev->comm, ev->tag, t) != RT_OK)
                return RT_ENOMEM;
            b->cells[p * b->C + (size_t)col_of(b, t)].nmsg++;
        } else {
            /* per location, sends from others wait in the receiver's inbox */
            int64_t ts = b->per_loc && ev->peer != (int)p ? inbox_pop(b, ev->peer, (int)p, ev->comm, ev->tag, t)
                                                          : fifo_pop(b, ev->peer, (int)p, ev->comm, ev->tag);
            be.has_ts = ts >= 0;
            be.ts = ts;
            if (ts >= 0 && t - ts > b->maxlat)
                b->maxlat = t - ts;
        }
        break;
    case RT_TE_COUNTER:
        /* a counter's sample: its number and value */
        if (ev->region < 0 || ev->ndata < 1)
            goto skip;
        be.id = ev->region;
        be.value = ev->data[0];
        if (ix_kbuild_sample(b->kb, b->origin, (int)p, ev->region, t, ev->data[0]) != RT_OK)
            return RT_ENOMEM;
        break;
    case RT_TE_COLL_BEGIN:
    case RT_TE_COLL_END:
        be.comm = ev->comm;
        be.peer = ev->peer;
        be.bytes = whole_bytes(ev->bytes);
        be.bytes_in = whole_bytes(ev->bytes_in);
        break;
    default:
    skip:
        b->nevents--;
        return RT_OK;
    }
    return rt_ixb_put(&pb->blk, (int)p, &be);
}

static int drop_fifo(void *item, void *ud)
{
    (void)ud;
    free(((ix_fifo *)item)->t);
    return 1;
}

static int dir_cmp(const void *a, const void *b)
{
    const ix_dirent *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    if (x->tfirst != y->tfirst)
        return x->tfirst < y->tfirst ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int write_tail(ix_build *b, ix_header *h, rt_err *err)
{
    const char *path = rt_out_path(b->out);
    int rc = RT_OK;
    /* regions */
    h->off_regions = b->off;
    for (size_t i = 0; i < b->nreg && !rc; i++) {
        const rt_tregion *r = rt_tdefs_region(b->defs, b->reg_id[i]);
        char fallback[32];
        const char *name = r && r->name && r->name[0] ? r->name : fallback;
        snprintf(fallback, sizeof fallback, "region %d", b->reg_id[i]);
        int32_t v[3] = {b->reg_id[i], b->reg_cls[i], (int32_t)strlen(name)};
        rc = put(b, v, sizeof v) || put(b, name, strlen(name));
    }
    /* processors */
    h->off_procs = b->off;
    for (size_t p = 0; p < b->npb && !rc; p++) {
        const rt_tproc *pr = rt_tdefs_proc(b->defs, (int)p);
        char fallback[32];
        snprintf(fallback, sizeof fallback, "%zu", p);
        const char *name = pr && pr->name && pr->name[0] ? pr->name : fallback;
        uint32_t n = (uint32_t)strlen(name);
        rc = put(b, &n, sizeof n) || put(b, name, n);
    }
    /* counters: name and unit of each */
    h->off_counters = b->off;
    h->ncounters = (uint32_t)rt_tdefs_ncounters(b->defs);
    for (uint32_t i = 0; i < h->ncounters && !rc; i++) {
        const rt_tcounter *c = rt_tdefs_counter_at(b->defs, (int)i);
        uint32_t n[2] = {(uint32_t)strlen(c->name), (uint32_t)strlen(c->unit)};
        rc = put(b, n, sizeof n) || put(b, c->name, n[0]) || put(b, c->unit, n[1]);
    }
    /* directory, sorted by processor then time */
    if (b->ndir)
        qsort(b->dir, b->ndir, sizeof *b->dir, dir_cmp);
    while (b->off % 8 && !rc)
        rc = put(b, "", 1);
    h->off_dir = b->off;
    if (!rc)
        rc = put(b, b->dir, b->ndir * sizeof *b->dir);
    /* summaries: keep the finest level with enough events per column, merge upward */
    int lc = 0;
    while (((size_t)1 << lc) < b->C)
        lc++;
    int lf = lc;
    double per_proc = b->npb ? (double)b->nevents / (double)b->npb : 0;
    while (lf > 0) {
        double used = ceil((double)(b->tmax - b->origin + 1) / (double)(b->colw << (lc - lf)));
        if (per_proc / (used < 1 ? 1 : used) >= IX_EVENTS_PER_COLUMN)
            break;
        lf--;
    }
    for (int l = lc; l > lf; l--) /* merge down to level lf in place (the row keeps stride C) */
        for (size_t p = 0; p < b->npb; p++) {
            ix_bcell *row = &b->cells[p * b->C];
            size_t n = (size_t)1 << l;
            for (size_t i = 0; i < n / 2; i++)
                cell_merge(&row[i], &row[2 * i], &row[2 * i + 1]);
        }
    h->levels = (uint32_t)lf + 1;
    h->colw0 = b->colw << lc;
    h->off_sum = b->off;
    ix_dcell *tmp = malloc(sizeof *tmp * ((size_t)1 << lf) * (b->npb ? b->npb : 1));
    if (!tmp && !rc)
        rc = RT_ENOMEM;
    /* level L is written from the one below, coarsest first: compute each by merging from lf */
    for (int l = 0; l <= lf && !rc; l++) {
        size_t n = (size_t)1 << l, k = (size_t)1 << (lf - l);
        for (size_t p = 0; p < b->npb; p++)
            for (size_t i = 0; i < n; i++) {
                ix_bcell c = b->cells[p * b->C + i * k];
                for (size_t j = 1; j < k; j++)
                    cell_merge(&c, &c, &b->cells[p * b->C + i * k + j]);
                pack_cell(&tmp[p * n + i], &c, (double)(h->colw0 >> l));
            }
        rc = put(b, tmp, sizeof *tmp * n * b->npb);
    }
    free(tmp);
    while (b->off % 8 && !rc)
        rc = put(b, "", 1);
    h->off_ksum = b->off;
    if (!rc)
        rc = ix_kbuild_write(b->kb, b->tmax, put_bytes, b);
    h->size = b->off;
    if (rc == RT_ENOMEM)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    if (rc)
        return rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
    return RT_OK;
}

/* The error for a failed add_event. */
static int add_failed(int rc, const char *index_path, rt_err *err)
{
    if (rc == RT_ENOMEM)
        return rt_err_set(err, rc, "%s: out of memory", index_path);
    return rt_err_set(err, rc, "%s: %s", index_path, strerror(errno));
}

/* The serial read: every event in time order. */
static int read_merged(ix_build *b, const char *index_path, void (*progress)(void *ud, uint64_t done, uint64_t total),
                       void *ud, rt_err *err)
{
    rt_tevent ev;
    uint64_t n = 0;
    for (;;) {
        int rc = rt_tsource_next(b->src, &ev, err);
        if (rc == RT_EEOF)
            return RT_OK;
        if (rc)
            return rc;
        rc = add_event(b, &ev);
        if (rc)
            return add_failed(rc, index_path, err);
        if (progress && (++n & 0xfffff) == 0)
            progress(ud, rt_tsource_offset(b->src), rt_tsource_size(b->src));
    }
}

/* The send pass of a per-location read: each send to another processor queued on its channel, at
 * the time the build will give it (the reader holds it at the latest time before it). */
static int send_pass_event(void *ud, const rt_tevent *ev)
{
    ix_build *b = ud;
    int p = ev->proc;
    if (ev->peer != p && ev->peer >= 0 && ev->peer < rt_tdefs_nprocs(b->defs))
        return inbox_push(b, p, ev->peer, ev->comm, ev->tag, event_time(b, ev));
    return RT_OK;
}

/* The time in the index of a time stamp of the per-location reader. */
static int64_t locs_time(const ix_build *b, int64_t ticks)
{
    rt_tevent ev;
    ev.ticks = ticks;
    ev.time = rt_otf2_locs_seconds(b->locs, ticks);
    return event_time(b, &ev);
}

/* Location p's send pass: its sends queued, the span widened to its first and latest event. */
static int send_pass(ix_build *b, int p, rt_err *err)
{
    int64_t span[2];
    uint64_t n = 0;
    int rc = rt_otf2_locs_sends(b->locs, p, send_pass_event, b, span, &n, err);
    if (rc || !n)
        return rc;
    int64_t t0 = locs_time(b, span[0]), t1 = locs_time(b, span[1]);
    if (!b->nevents || t0 < b->tmin)
        b->tmin = t0;
    if (!b->nevents || t1 > b->tmax)
        b->tmax = t1;
    b->nevents = 1;
    return RT_OK;
}

static int build_pass_event(void *ud, const rt_tevent *ev)
{
    return add_event(ud, ev);
}

/* Location p's build: its receives take their sends from its inbox. */
static int build_pass(ix_build *b, int p, rt_err *err)
{
    if (inbox_open(b, p) != RT_OK)
        return RT_ENOMEM;
    int rc = rt_otf2_locs_read(b->locs, p, build_pass_event, b, err);
    inbox_close(b, p);
    return rc;
}

/* One pass over every location in turn; *done counts the bytes read for progress. */
static int each_location(ix_build *b, int (*pass)(ix_build *b, int p, rt_err *err), const char *index_path,
                         void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud, uint64_t *done,
                         rt_err *err)
{
    size_t np = (size_t)rt_tdefs_nprocs(b->defs);
    uint64_t total = 2 * rt_otf2_locs_bytes(b->locs);
    for (size_t p = 0; p < np; p++) {
        int rc = pass(b, (int)p, err);
        if (rc == RT_ENOMEM || rc == RT_EIO)
            return add_failed(rc, index_path, err);
        if (rc)
            return rc;
        *done += rt_otf2_locs_bytes_of(b->locs, (int)p);
        if (progress && (p & 63) == 63)
            progress(ud, *done, total);
    }
    return RT_OK;
}

/*
 * The per-location read of an OTF2 archive: a first pass over every location
 * finds the span and queues the sends; the second builds each location's
 * blocks and summaries in turn, the columns at their final width from the
 * start. Receives take their send from the queues by the serial rule
 * (inbox_pop), so the index equals the one a time-ordered read builds.
 */
static int read_per_location(ix_build *b, const char *index_path,
                             void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud, rt_err *err)
{
    size_t np = (size_t)rt_tdefs_nprocs(b->defs);
    b->inbox = calloc(np ? np : 1, sizeof *b->inbox);
    rt_chanmap_init(&b->inchan, sizeof(ix_inchan));
    if (!b->inbox)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", index_path);
    uint64_t done = 0;
    int rc = each_location(b, send_pass, index_path, progress, ud, &done, err);
    if (rc || !b->nevents)
        return rc;
    b->nevents = 0;
    b->origin = b->tmin;
    while (b->tmax - b->origin >= (int64_t)b->C * b->colw) /* the columns' final width (all still empty) */
        b->colw *= 2;
    return each_location(b, build_pass, index_path, progress, ud, &done, err);
}

int rt_index_build_with(const char *trace_path, const char *format, const char *index_path, int flags,
                        void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                        rt_index_build_info *info, rt_err *err)
{
    ix_build b;
    memset(&b, 0, sizeof b);
    ix_header h;
    memset(&h, 0, sizeof h);
    uint64_t trace_bytes = 0;
    int rc = signature(trace_path, h.sig, &trace_bytes, err);
    if (rc)
        return rc;
    const char *detected = format;
    if (!detected && !(flags & RT_INDEX_MERGED) && rt_tsource_detect(trace_path, &detected, NULL, 0) != RT_OK)
        detected = NULL;
    if (!(flags & RT_INDEX_MERGED) && detected && strcmp(detected, "otf2") == 0) {
        b.locs = rt_otf2_locs_open(trace_path, err);
        if (!b.locs)
            return err ? err->status : RT_EFORMAT;
        b.per_loc = 1;
        b.defs = rt_otf2_locs_defs(b.locs);
        b.format = "otf2";
    } else {
        b.src = rt_tsource_open(trace_path, format, err);
        if (!b.src)
            return err ? err->status : RT_EFORMAT;
        b.defs = b.src->defs;
        b.format = b.src->ops->format;
    }
    rt_chanmap_init(&b.regmap, sizeof(ix_regent));
    rt_chanmap_init(&b.fifos, sizeof(ix_fifo));
    b.kb = ix_kbuild_new();
    if (!b.kb) {
        rc = rt_err_set(err, RT_ENOMEM, "%s: out of memory", index_path);
        goto done;
    }
    b.out = rt_out_open(index_path, err);
    if (!b.out) {
        rc = err ? err->status : RT_EIO;
        goto done;
    }
    b.fp = rt_out_fp(b.out);
    if (put(&b, &h, sizeof h)) { /* a placeholder, written again at the end */
        rc = rt_err_set(err, RT_EIO, "%s: %s", index_path, strerror(errno));
        goto done;
    }
    b.hash.h = 0;
    b.hash.ncarry = 0;
    b.hash.carry = 0;
    b.colw = 1;
    int np0 = rt_tdefs_nprocs(b.defs);
    size_t c = IX_CELL_BUDGET / (size_t)(np0 > 0 ? np0 : 1);
    b.C = 64;
    while (b.C * 2 <= c && b.C < 4096)
        b.C *= 2;
    b.unit = rt_tdefs_resolution(b.defs);
    b.use_ticks = b.unit > 1;
    b.offset = rt_tdefs_offset(b.defs);
    if (!b.use_ticks)
        b.unit = 1000000000u;
    b.outside = rt_tdefs_outside(b.defs);
    if (b.locs)
        rt_otf2_locs_ticks_only(b.locs, b.use_ticks);
    if (grow_procs(&b, (size_t)(np0 > 0 ? np0 : 0)) != RT_OK) {
        rc = rt_err_set(err, RT_ENOMEM, "%s: out of memory", index_path);
        goto done;
    }
    rc = b.per_loc ? read_per_location(&b, index_path, progress, ud, err)
                   : read_merged(&b, index_path, progress, ud, err);
    if (rc)
        goto done;
    /* processors named but silent still get rows */
    if (grow_procs(&b, (size_t)rt_tdefs_nprocs(b.defs)) != RT_OK) {
        rc = rt_err_set(err, RT_ENOMEM, "%s: out of memory", index_path);
        goto done;
    }
    for (size_t p = 0; p < b.npb && !rc; p++) {
        scratch_flush(&b, p);
        rc = flush_block(&b, p);
    }
    if (rc) {
        rc = rt_err_set(err, rc, "%s: %s", index_path, rc == RT_ENOMEM ? "out of memory" : strerror(errno));
        goto done;
    }
    rc = write_tail(&b, &h, err);
    if (rc)
        goto done;
    memcpy(h.magic, IX_MAGIC, sizeof h.magic);
    h.version = RT_INDEX_VERSION;
    h.hsize = sizeof h;
    h.unit = b.unit;
    h.origin = b.origin;
    h.tmin = b.tmin;
    h.tmax = b.tmax;
    h.maxlat = b.maxlat;
    h.nevents = b.nevents;
    h.nprocs = (uint32_t)b.npb;
    h.nregions = (uint32_t)b.nreg;
    h.outside = (uint32_t)b.outside;
    h.ndir = b.ndir;
    h.hash = hash_final(&b.hash);
    snprintf(h.format, sizeof h.format, "%s", b.format);
    if (fseek(b.fp, 0, SEEK_SET) != 0 || fwrite(&h, sizeof h, 1, b.fp) != 1) {
        rc = rt_err_set(err, RT_EIO, "%s: %s", index_path, strerror(errno));
        goto done;
    }
    rc = rt_out_commit(b.out, err);
    b.out = NULL;
    if (!rc && info) {
        info->events = b.nevents;
        info->bytes = h.size;
        info->trace_bytes = trace_bytes;
        info->levels = (int)h.levels;
    }
done:
    rt_out_abort(b.out);
    for (size_t p = 0; p < b.npb; p++) {
        rt_ixb_free(&b.pb[p].blk);
        free(b.pb[p].stack.f);
    }
    rt_ixb_packer_free(&b.packer);
    free(b.pb);
    free(b.cells);
    free(b.dir);
    free(b.reg_id);
    free(b.reg_cls);
    for (size_t p = 0; b.inbox && p < (size_t)rt_tdefs_nprocs(b.defs); p++)
        free(b.inbox[p].s);
    free(b.inbox);
    free(b.order);
    rt_chanmap_free(&b.inchan);
    rt_chanmap_sweep(&b.fifos, drop_fifo, NULL);
    rt_chanmap_free(&b.fifos);
    rt_chanmap_free(&b.regmap);
    ix_kbuild_free(b.kb);
    rt_tsource_free(b.src);
    rt_otf2_locs_close(b.locs);
    return rc;
}

int rt_index_build(const char *trace_path, const char *format, const char *index_path,
                   void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                   rt_index_build_info *info, rt_err *err)
{
    return rt_index_build_with(trace_path, format, index_path, 0, progress, ud, info, err);
}

/* ---- reading ---- */

struct rt_index {
    unsigned char *map;
    size_t size;
    const ix_header *h;
    const ix_dirent *dir;
    size_t *first;            /* nprocs + 1: each processor's first directory entry */
    char **rname;
    int *rid;
    unsigned char *rcls;
    char **pname;
    char **cname, **cunit;    /* the counters' names and units */
    const ix_dcell *sum;
    ix_kread k;               /* the counter summaries */
    char *path;
};

const ix_kread *ix_kread_of(const rt_index *ix)
{
    return &ix->k;
}

void rt_index_close(rt_index *ix)
{
    if (!ix)
        return;
    if (ix->rname)
        for (uint32_t i = 0; i < ix->h->nregions; i++)
            free(ix->rname[i]);
    if (ix->cname)
        for (uint32_t i = 0; i < ix->h->ncounters; i++) {
            free(ix->cname[i]);
            free(ix->cunit[i]);
        }
    free(ix->cname);
    free(ix->cunit);
    if (ix->pname)
        for (uint32_t i = 0; i < ix->h->nprocs; i++)
            free(ix->pname[i]);
    if (ix->map)
        munmap(ix->map, ix->size);
    free(ix->rname);
    free(ix->pname);
    free(ix->rid);
    free(ix->rcls);
    free(ix->first);
    free(ix->path);
    free(ix);
}

static char *copy_str(const unsigned char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

rt_index *rt_index_open(const char *path, const char *trace_path, rt_err *err)
{
    rt_index *ix = calloc(1, sizeof *ix);
    if (!ix) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        free(ix);
        return NULL;
    }
    const char *why = NULL;
    int status = RT_EFORMAT;
    if ((size_t)st.st_size < sizeof(ix_header)) {
        why = "too short for an index";
        close(fd);
        goto bad;
    }
    ix->size = (size_t)st.st_size;
    ix->map = mmap(NULL, ix->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (ix->map == MAP_FAILED) {
        ix->map = NULL;
        rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno));
        rt_index_close(ix);
        return NULL;
    }
    const ix_header *h = ix->h = (const ix_header *)(const void *)ix->map;
    if (memcmp(h->magic, IX_MAGIC, sizeof IX_MAGIC) != 0) {
        why = "not a retrace index (bad magic)";
        goto bad;
    }
    if (h->version != RT_INDEX_VERSION || h->hsize != sizeof *h) {
        why = "written by another version";
        status = RT_ESTATE;
        goto bad;
    }
    if (trace_path) {
        uint64_t sig[2];
        if (rt_index_signature(trace_path, sig, err) != RT_OK) {
            rt_index_close(ix);
            return NULL;
        }
        if (sig[0] != h->sig[0] || sig[1] != h->sig[1]) {
            why = "stale (the trace changed since it was built, or it belongs to another trace)";
            status = RT_ESTATE;
            goto bad;
        }
    }
    if (h->size != ix->size || h->off_regions > h->off_procs || h->off_procs > h->off_counters ||
        h->off_counters > h->off_dir || h->ncounters > (h->off_dir - h->off_counters) / 8 ||
        h->off_dir > h->off_sum || h->off_sum > h->off_ksum || h->off_ksum > h->size || h->off_dir % 8 ||
        h->ndir > (h->off_sum - h->off_dir) / sizeof(ix_dirent) || h->levels > 20 || h->nprocs > RT_TE_MAXPROC ||
        h->levels < 1 || h->colw0 <= 0 ||
        ((uint64_t)1 << h->levels) * h->nprocs * sizeof(ix_dcell) > h->off_ksum - h->off_sum + h->nprocs * sizeof(ix_dcell)) {
        why = "corrupt (sections out of bounds)";
        goto bad;
    }
    ix_hash hs = {0, 0, 0};
    hash_update(&hs, ix->map + sizeof *h, ix->size - sizeof *h);
    if (hash_final(&hs) != h->hash) {
        why = "corrupt (its checksum does not match)";
        goto bad;
    }
    if (ix_kread_open(&ix->k, ix->map + h->off_ksum, h->size - h->off_ksum, h->nprocs, h->ncounters) != 0) {
        why = "corrupt (its counter summaries do not parse)";
        goto bad;
    }
    ix->dir = (const ix_dirent *)(const void *)(ix->map + h->off_dir);
    ix->sum = (const ix_dcell *)(const void *)(ix->map + h->off_sum);
    ix->first = calloc((size_t)h->nprocs + 1, sizeof *ix->first);
    ix->rname = calloc((size_t)h->nregions + 1, sizeof *ix->rname);
    ix->rid = calloc((size_t)h->nregions + 1, sizeof *ix->rid);
    ix->rcls = calloc((size_t)h->nregions + 1, 1);
    ix->pname = calloc((size_t)h->nprocs + 1, sizeof *ix->pname);
    ix->cname = calloc((size_t)h->ncounters + 1, sizeof *ix->cname);
    ix->cunit = calloc((size_t)h->ncounters + 1, sizeof *ix->cunit);
    if (!ix->first || !ix->rname || !ix->rid || !ix->rcls || !ix->pname || !ix->cname || !ix->cunit) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        rt_index_close(ix);
        return NULL;
    }
    const unsigned char *p = ix->map + h->off_regions, *end = ix->map + h->off_procs;
    for (uint32_t i = 0; i < h->nregions; i++) {
        int32_t v[3];
        if ((size_t)(end - p) < sizeof v)
            goto short_section;
        memcpy(v, p, sizeof v);
        p += sizeof v;
        if (v[2] < 0 || (size_t)(end - p) < (size_t)v[2] || v[1] < 0 || v[1] >= RT_TC_COUNT)
            goto short_section;
        ix->rid[i] = v[0];
        ix->rcls[i] = (unsigned char)v[1];
        if (!(ix->rname[i] = copy_str(p, (size_t)v[2])))
            goto short_section;
        p += v[2];
    }
    p = ix->map + h->off_procs;
    end = ix->map + h->off_counters;
    for (uint32_t i = 0; i < h->nprocs; i++) {
        uint32_t n;
        if ((size_t)(end - p) < sizeof n)
            goto short_section;
        memcpy(&n, p, sizeof n);
        p += sizeof n;
        if ((size_t)(end - p) < n || !(ix->pname[i] = copy_str(p, n)))
            goto short_section;
        p += n;
    }
    p = ix->map + h->off_counters;
    end = ix->map + h->off_dir;
    for (uint32_t i = 0; i < h->ncounters; i++) {
        uint32_t n[2];
        if ((size_t)(end - p) < sizeof n)
            goto short_section;
        memcpy(n, p, sizeof n);
        p += sizeof n;
        if ((size_t)(end - p) < (size_t)n[0] + n[1] || !(ix->cname[i] = copy_str(p, n[0])) ||
            !(ix->cunit[i] = copy_str(p + n[0], n[1])))
            goto short_section;
        p += (size_t)n[0] + n[1];
    }
    /* each processor's run of directory entries; entries must point inside the data */
    size_t k = 0;
    for (uint32_t q = 0; q <= h->nprocs; q++) {
        while (k < h->ndir && ix->dir[k].proc >= 0 && (uint32_t)ix->dir[k].proc < q)
            k++;
        ix->first[q] = k;
    }
    for (size_t i = 0; i < h->ndir; i++) {
        const ix_dirent *d = &ix->dir[i];
        if (d->proc < 0 || (uint32_t)d->proc >= h->nprocs || d->off < sizeof *h || d->off + d->len > h->off_regions ||
            (i && (d->proc < ix->dir[i - 1].proc)))
            goto short_section;
    }
    if (ix->first[h->nprocs] != h->ndir)
        goto short_section;
    ix->path = strdup(path);
    return ix;
short_section:
    why = "corrupt (a section does not parse)";
bad:
    rt_err_set(err, status, "%s: index %s", path, why);
    rt_index_close(ix);
    return NULL;
}

int rt_index_nprocs(const rt_index *ix) { return (int)ix->h->nprocs; }
int rt_index_nregions(const rt_index *ix) { return (int)ix->h->nregions; }
const char *rt_index_region_name(const rt_index *ix, int i)
{
    return i >= 0 && (uint32_t)i < ix->h->nregions ? ix->rname[i] : NULL;
}
int rt_index_region_class(const rt_index *ix, int i)
{
    return i >= 0 && (uint32_t)i < ix->h->nregions ? ix->rcls[i] : -1;
}
int rt_index_region_id(const rt_index *ix, int i)
{
    return i >= 0 && (uint32_t)i < ix->h->nregions ? ix->rid[i] : 0;
}
int rt_index_region_state(const rt_index *ix, int i)
{
    return i >= 0 && (uint32_t)i < ix->h->nregions ? rt_tclass_state(ix->rcls[i]) : -1;
}
const char *rt_index_proc_name(const rt_index *ix, int p)
{
    return p >= 0 && (uint32_t)p < ix->h->nprocs ? ix->pname[p] : NULL;
}
int rt_index_ncounters(const rt_index *ix) { return (int)ix->h->ncounters; }
const char *rt_index_counter_name(const rt_index *ix, int i)
{
    return i >= 0 && (uint32_t)i < ix->h->ncounters ? ix->cname[i] : NULL;
}
const char *rt_index_counter_unit(const rt_index *ix, int i)
{
    return i >= 0 && (uint32_t)i < ix->h->ncounters ? ix->cunit[i] : NULL;
}
const char *rt_index_format(const rt_index *ix) { return ix->h->format; }
int64_t rt_index_tmin(const rt_index *ix) { return ix->h->tmin; }
int64_t rt_index_tmax(const rt_index *ix) { return ix->h->tmax; }
uint64_t rt_index_unit(const rt_index *ix) { return ix->h->unit; }
uint64_t rt_index_nevents(const rt_index *ix) { return ix->h->nevents; }
int rt_index_levels(const rt_index *ix) { return (int)ix->h->levels; }

/* The first of p's blocks whose last event is at or after t. */
static size_t first_block(const rt_index *ix, int p, int64_t t)
{
    size_t lo = ix->first[p], hi = ix->first[p + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->dir[mid].tlast < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint64_t rt_index_estimate(const rt_index *ix, int p0, int p1, int64_t t0, int64_t t1)
{
    uint64_t n = 0;
    if (p0 < 0)
        p0 = 0;
    if (p1 > (int)ix->h->nprocs)
        p1 = (int)ix->h->nprocs;
    for (int p = p0; p < p1; p++)
        for (size_t b = first_block(ix, p, t0); b < ix->first[p + 1] && ix->dir[b].tfirst <= t1; b++)
            n += ix->dir[b].nev;
    return n;
}

int rt_index_blocks_measure(const rt_index *ix, rt_index_blocks *m, rt_err *err)
{
    memset(m, 0, sizeof *m);
    rt_ixb_unpacker u = {0};
    int rc = RT_OK;
    for (uint64_t b = 0; b < ix->h->ndir && !rc; b++) {
        const ix_dirent *d = &ix->dir[b];
        rt_ixb_dec dec;
        uint64_t depth;
        if (rt_ixb_open(&dec, &u, ix->map + d->off, d->len, d->raw, IX_MAX_RAW, d->proc, d->tfirst, &depth) < 0) {
            rc = rt_err_set(err, RT_EFORMAT, "%s: index corrupt (block %llu)", ix->path, (unsigned long long)b);
            break;
        }
        m->blocks++;
        m->stored += d->len;
        m->unpacked += d->raw ? d->raw : d->len;
        for (int k = 0; k < 3; k++)
            m->stream[k] += (uint64_t)(dec.end[k] - dec.p[k]);
    }
    rt_ixb_unpacker_free(&u);
    return rc;
}

/* One processor's walk. */
typedef struct ix_walk {
    const rt_index *ix;
    const rt_ix_visitor *v;
    int (*segment)(void *ud, int proc, int state, int region, int64_t a, int64_t e);
    int64_t t0, t1, t1msg;
    ix_stack stack;
    rt_ixb_unpacker unpack;   /* unpacks the blocks read */
} ix_walk;

/* Report an interval closing at its leave when it overlaps the window. */
static int close_cb(void *ud, const rt_ix_interval *iv)
{
    ix_walk *w = ud;
    if (iv->t1 >= w->t0 && iv->t0 <= w->t1 && w->v->interval)
        return w->v->interval(w->v->ud, iv);
    return 0;
}

/*
 * The replay's rule (rt_replay.h): a processor is idle from the run's first event to its own first,
 * and from its own last to the run's last; a processor without events has no time at all. The
 * stretches of [t0, t1] this gives p, handed to segment as state idle outside every region.
 */
static int end_idle(const rt_index *ix, int p, int64_t t0, int64_t t1,
                    int (*segment)(void *ud, int proc, int state, int region, int64_t a, int64_t e), void *ud)
{
    if (ix->first[p] == ix->first[p + 1])
        return 0;
    int64_t ends[2][2] = {{ix->h->tmin, ix->dir[ix->first[p]].tfirst},
                          {ix->dir[ix->first[p + 1] - 1].tlast, ix->h->tmax}};
    for (int k = 0; k < 2; k++) {
        int64_t a = ends[k][0] > t0 ? ends[k][0] : t0, e = ends[k][1] < t1 ? ends[k][1] : t1;
        if (e > a && segment(ud, p, RT_STATE_IDLE, -1, a, e))
            return 1;
    }
    return 0;
}

static int walk_proc(ix_walk *w, int p, rt_err *err)
{
    const rt_index *ix = w->ix;
    const rt_ix_visitor *v = w->v;
    size_t b = first_block(ix, p, w->t0), bstart = b;
    size_t bend = ix->first[p + 1];
    int past = 0;             /* an event after t1 was met: only messages from here on */
    int64_t prev = INT64_MIN; /* time of the previous event (none yet) */
    int state = 0, region = -1;
    /* the first block is read even when it begins after the window: its stack tells what
     * runs through a window that holds no event */
    for (; b < bend && (b == bstart || ix->dir[b].tfirst <= w->t1msg); b++) {
        const ix_dirent *d = &ix->dir[b];
        rt_ixb_dec dec;
        uint64_t depth;
        if (rt_ixb_open(&dec, &w->unpack, ix->map + d->off, d->len, d->raw, IX_MAX_RAW, p, d->tfirst, &depth) < 0)
            goto bad;
        if (b == bstart) {
            /* the stack open at the block's start (later blocks carry it on) */
            w->stack.depth = 0;
            for (uint64_t i = 0; i < depth; i++) {
                int r;
                int64_t entered;
                if (rt_ixb_frame_next(&dec, &r, &entered) < 0 || r >= (int)ix->h->nregions)
                    goto bad;
                if (stack_push(&w->stack, r, ix->rcls[r], entered) != RT_OK)
                    return rt_err_set(err, RT_ENOMEM, "%s: out of memory", ix->path);
            }
            if (b > ix->first[p]) {
                /* the time since the previous block's last event, in the state this stack gives */
                prev = ix->dir[b - 1].tlast;
                stack_now(&w->stack, (int)ix->h->outside, &state, &region);
            }
        }
        int64_t t = d->tfirst;
        rt_ixb_event ev;
        int more, first = 1;
        while ((more = rt_ixb_next(&dec, &ev)) > 0) {
            if (first && ev.t != d->tfirst)
                goto bad;
            first = 0;
            t = ev.t;
            int kind = ev.kind;
            int arg = ev.id;
            if (!past && t > w->t1) {
                /* the regions still open run on past the window: report them up to here */
                if (w->segment && prev != INT64_MIN && prev < w->t1 + 1) {
                    int64_t a = prev < w->t0 ? w->t0 : prev;
                    if (w->t1 > a && w->segment(v->ud, p, state, region, a, w->t1))
                        return RT_EINTR;
                }
                for (size_t i = w->stack.depth; i-- > 0;) {
                    rt_ix_interval iv = {p, w->stack.f[i].region, (int)i, w->stack.f[i].t, t};
                    if (close_cb(w, &iv))
                        return RT_EINTR;
                }
                past = 1;
            }
            if (!past) {
                if (prev != INT64_MIN && w->segment && t > w->t0 && prev < t) {
                    int64_t a = prev < w->t0 ? w->t0 : prev;
                    if (w->segment(v->ud, p, state, region, a, t))
                        return RT_EINTR;
                }
            }
            prev = t;
            switch (kind) {
            case RT_TE_ENTER:
            case RT_TE_LEAVE:
            case RT_TE_MARKER:
                if (arg >= (int)ix->h->nregions)
                    goto bad;
                if (past)
                    break;
                if (kind == RT_TE_ENTER) {
                    if (stack_push(&w->stack, arg, ix->rcls[arg], t) != RT_OK)
                        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", ix->path);
                    if (v->enter && t >= w->t0 && v->enter(v->ud, p, arg, (int)w->stack.depth - 1, t))
                        return RT_EINTR;
                } else if (kind == RT_TE_LEAVE) {
                    if (stack_leave(&w->stack, arg, t, p, close_cb, w))
                        return RT_EINTR;
                }
                break;
            case RT_TE_RECV: {
                rt_ix_message m = {ev.peer, p, ev.comm, ev.tag, ev.has_ts ? ev.ts : -1, t, (double)ev.bytes};
                if (v->message && t >= w->t0 && t <= w->t1msg && ((m.ts >= 0 && m.ts <= w->t1) || t <= w->t1) &&
                    v->message(v->ud, &m))
                    return RT_EINTR;
                break;
            }
            case RT_TE_COUNTER:
                if (arg >= (int)ix->h->ncounters)
                    goto bad;
                /* the sample in force at t0 (the last before it) and those up to t1 */
                if (v->counter && !past && arg == v->counter_id && t <= w->t1 && v->counter(v->ud, p, t, ev.value))
                    return RT_EINTR;
                break;
            default:
                break; /* sends and collectives: seen on the receiver, or not drawn */
            }
            if (!past)
                stack_now(&w->stack, (int)ix->h->outside, &state, &region);
        }
        if (more < 0 || t != d->tlast)
            goto bad;
        if (past && t > w->t1msg)
            break;
    }
    if (!past) {
        /* either the window ends before the next block begins (what is open runs on to that
         * block's first event) or the processor's last event is inside the window (what is
         * open closes there) */
        int64_t end = prev;
        if (b < bend && prev != INT64_MIN) {
            end = ix->dir[b].tfirst;
            int64_t a = prev < w->t0 ? w->t0 : prev;
            if (w->segment && w->t1 > a && w->segment(v->ud, p, state, region, a, w->t1))
                return RT_EINTR;
        }
        for (size_t i = w->stack.depth; i-- > 0;) {
            rt_ix_interval iv = {p, w->stack.f[i].region, (int)i, w->stack.f[i].t, end};
            if (close_cb(w, &iv))
                return RT_EINTR;
        }
    }
    return RT_OK;
bad:
    return rt_err_set(err, RT_EFORMAT, "%s: index corrupt (block %zu of processor %d)", ix->path, b, p);
}

static int walk(const rt_index *ix, int p0, int p1, int64_t t0, int64_t t1, const rt_ix_visitor *v,
                int (*segment)(void *, int, int, int, int64_t, int64_t), rt_err *err)
{
    ix_walk w = {ix, v, segment, t0, t1, t1 + ix->h->maxlat, {NULL, 0, 0}, {0}};
    if (!v->message)
        w.t1msg = t1;
    if (p0 < 0)
        p0 = 0;
    if (p1 > (int)ix->h->nprocs)
        p1 = (int)ix->h->nprocs;
    int rc = RT_OK;
    for (int p = p0; p < p1 && !rc; p++) {
        if (segment && end_idle(ix, p, t0, t1, segment, v->ud))
            rc = RT_EINTR;
        else
            rc = walk_proc(&w, p, err);
    }
    free(w.stack.f);
    rt_ixb_unpacker_free(&w.unpack);
    return rc;
}

int rt_index_walk(const rt_index *ix, int p0, int p1, int64_t t0, int64_t t1, const rt_ix_visitor *v, rt_err *err)
{
    return walk(ix, p0, p1, t0, t1, v, NULL, err);
}

int rt_index_walk_segments(const rt_index *ix, int p0, int p1, int64_t t0, int64_t t1, const rt_ix_visitor *v,
                           int (*segment)(void *ud, int proc, int state, int region, int64_t a, int64_t e),
                           rt_err *err)
{
    return walk(ix, p0, p1, t0, t1, v, segment, err);
}

/* ---- rasters ---- */

/*
 * A raster is filled one row at a time: processors are read in order and rows group
 * consecutive processors, so only the row being filled is held (ncols cells) and each
 * finished row is handed to the caller. Memory and cache traffic follow the columns
 * asked for, not rows x columns.
 */
typedef struct ix_raster {
    const rt_index *ix;
    int p0, p1, nrows, ncols;
    int64_t t0, t1;
    double px;                /* ticks per raster column */
    rt_ix_cell *acc;          /* the row being filled */
    int row;                  /* its number (-1 before the first) */
    int (*emit)(void *ud, int row, const rt_ix_cell *cells);
    void *ud;
} ix_raster;

static int row_of(const ix_raster *r, int p)
{
    return (int)((int64_t)(p - r->p0) * r->nrows / (r->p1 - r->p0));
}

/* Make row the one being filled, handing over every row before it (empty ones too). 1: stopped. */
static int raster_goto(ix_raster *r, int row)
{
    while (r->row < row) {
        if (r->row >= 0 && r->emit(r->ud, r->row, r->acc))
            return 1;
        r->row++;
        for (int c = 0; c < r->ncols; c++) {
            memset(&r->acc[c], 0, sizeof r->acc[c]);
            r->acc[c].top = -1;
        }
    }
    return 0;
}

/* Add dt of state (and region) to one cell. */
static inline void cell_add(rt_ix_cell *cell, int state, int region, float dt)
{
    if (state >= 0)
        cell->st[state] += dt;
    if (region >= 0) {
        if (cell->top == region)
            cell->toptime += dt;
        else if (dt > cell->toptime) {
            cell->top = region;
            cell->toptime = dt;
        }
    }
}

/*
 * Add [a, e) of the current row's time: overlap x scale ticks of state (and region) per column.
 * The columns a stretch covers whole all get the same time (computed once).
 */
static void raster_add(ix_raster *r, int state, int region, double a, double e, double scale)
{
    double fa = (a - (double)r->t0) / r->px, fe = (e - (double)r->t0) / r->px;
    if (fa < 0)
        fa = 0;
    if (fe > r->ncols)
        fe = r->ncols;
    int c0 = (int)fa, c1 = (int)ceil(fe) - 1;
    if (c1 >= r->ncols)
        c1 = r->ncols - 1;
    if (c1 < c0)
        return;
    rt_ix_cell *cells = r->acc;
    /* the first and last columns, maybe partly covered */
    for (int end = 0; end < 2 && (end == 0 || c1 > c0); end++) {
        int c = end ? c1 : c0;
        double lo = fa > c ? fa : c, hi = fe < c + 1 ? fe : c + 1;
        if (hi > lo)
            cell_add(&cells[c], state, region, (float)((hi - lo) * r->px * scale));
    }
    if (c1 - c0 < 2)
        return;
    float full = (float)(r->px * scale);
    for (int c = c0 + 1; c < c1; c++)
        cell_add(&cells[c], state, region, full);
}

static int raster_segment(void *ud, int proc, int state, int region, int64_t a, int64_t e)
{
    ix_raster *r = ud;
    if (raster_goto(r, row_of(r, proc)))
        return 1;
    raster_add(r, state, region, (double)a, (double)e, 1.0);
    return 0;
}

static int raster_message(void *ud, const rt_ix_message *m)
{
    ix_raster *r = ud;
    if (m->tr >= r->t0 && m->tr < r->t1) {
        if (raster_goto(r, row_of(r, m->dst))) /* reported on the receiver, the processor being read */
            return 1;
        int c = (int)((double)(m->tr - r->t0) / r->px);
        r->acc[c < r->ncols ? c : r->ncols - 1].nmsg++;
    }
    return 0;
}

/* Add a share g of summary cell s to raster cell o. */
static inline void cell_share(rt_ix_cell *o, const rt_ix_cell *s, double g)
{
    for (int k = 0; k < 3; k++)
        o->st[k] += (float)(s->st[k] * g);
    if (s->top >= 0)
        cell_add(o, -1, s->top, (float)(s->toptime * g));
}

/* One processor's summary columns c0 .. c1 of a level (columns cw ticks wide) into the current row. */
static void raster_summaries(ix_raster *r, const ix_dcell *row, int64_t c0, int64_t c1, int64_t cw)
{
    const rt_index *ix = r->ix;
    double t0 = (double)r->t0, t1 = (double)r->t1;
    for (int64_t c = c0; c <= c1; c++) {
        const ix_dcell *d = &row[c];
        if (!d->st[0] && !d->st[1] && !d->st[2] && !d->nmsg)
            continue;
        rt_ix_cell s;
        unpack_cell(&s, d, (double)cw);
        double a = (double)(ix->h->origin + c * cw), e = a + (double)cw;
        double lo = a < t0 ? t0 : a, hi = e > t1 ? t1 : e;
        if (hi <= lo)
            continue;
        /* the summary's times taken as spread evenly over its column: each raster column it
         * covers gets its share in proportion to the overlap */
        double fa = (lo - t0) / r->px, fe = (hi - t0) / r->px;
        int k0 = (int)fa, k1 = (int)ceil(fe) - 1;
        if (k0 >= r->ncols)
            k0 = r->ncols - 1;
        if (k1 >= r->ncols)
            k1 = r->ncols - 1;
        if (k1 < k0)
            k1 = k0;
        double per = r->px / (double)cw; /* share of the summary in one whole raster column */
        for (int k = k0; k <= k1; k++) {
            double ov = (fe < k + 1 ? fe : k + 1) - (fa > k ? fa : k);
            if (ov > 0)
                cell_share(&r->acc[k], &s, ov * per);
        }
        r->acc[k0].nmsg += s.nmsg;
    }
}

int rt_index_raster_rows(const rt_index *ix, int p0, int p1, int nrows, int64_t t0, int64_t t1, int ncols,
                         int (*emit)(void *ud, int row, const rt_ix_cell *cells), void *ud, int *from_events,
                         rt_err *err)
{
    if (p0 < 0)
        p0 = 0;
    if (p1 > (int)ix->h->nprocs)
        p1 = (int)ix->h->nprocs;
    if (t1 <= t0 || p1 <= p0 || nrows <= 0 || ncols <= 0)
        return rt_err_set(err, RT_EINVAL, "empty window");
    ix_raster r = {ix, p0, p1, nrows, ncols, t0, t1, (double)(t1 - t0) / ncols, NULL, -1, emit, ud};
    r.acc = malloc((size_t)ncols * sizeof *r.acc);
    if (!r.acc)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", ix->path);
    /* the coarsest level whose columns are no wider than a raster column */
    int level = -1;
    for (int l = 0; l < (int)ix->h->levels; l++)
        if ((double)(ix->h->colw0 >> l) <= r.px) {
            level = l;
            break;
        }
    /* below the finest level, the events themselves, unless there are too many of them: then the
     * finest level, each of its columns spread over the raster columns it covers */
    if (level < 0 && rt_index_estimate(ix, p0, p1, t0, t1) > IX_RASTER_EVENTS)
        level = (int)ix->h->levels - 1;
    if (from_events)
        *from_events = level < 0;
    int rc = RT_OK;
    if (level < 0) {
        rt_ix_visitor v = {NULL, raster_message, NULL, &r, NULL, 0};
        rc = walk(ix, p0, p1, t0, t1, &v, raster_segment, err);
    } else {
        int64_t cw = ix->h->colw0 >> level;
        int64_t n = (int64_t)1 << level;
        int64_t c0 = (t0 - ix->h->origin) / cw, c1 = (t1 - ix->h->origin) / cw;
        if (c0 < 0)
            c0 = 0;
        if (c1 >= n)
            c1 = n - 1;
        const ix_dcell *lv = ix->sum + (size_t)ix->h->nprocs * (size_t)(n - 1);
        for (int p = p0; p < p1 && !rc; p++) {
            if (raster_goto(&r, row_of(&r, p)))
                rc = RT_EINTR;
            else {
                raster_summaries(&r, lv + (size_t)p * (size_t)n, c0, c1, cw);
                end_idle(ix, p, t0, t1, raster_segment, &r);
            }
        }
    }
    if (!rc && raster_goto(&r, nrows))
        rc = RT_EINTR;
    free(r.acc);
    return rc;
}

typedef struct ix_fill {
    rt_ix_cell *cells;
    int ncols;
} ix_fill;

static int fill_row(void *ud, int row, const rt_ix_cell *cells)
{
    ix_fill *f = ud;
    memcpy(&f->cells[(size_t)row * (size_t)f->ncols], cells, (size_t)f->ncols * sizeof *cells);
    return 0;
}

int rt_index_raster(const rt_index *ix, int p0, int p1, int nrows, int64_t t0, int64_t t1, int ncols,
                    rt_ix_cell *cells, int *from_events, rt_err *err)
{
    ix_fill f = {cells, ncols};
    return rt_index_raster_rows(ix, p0, p1, nrows, t0, t1, ncols, fill_row, &f, from_events, err);
}

int rt_index_summary(const rt_index *ix, int level, int p, int64_t col, rt_ix_cell *cell, int64_t *col_t0)
{
    if (level < 0 || level >= (int)ix->h->levels || p < 0 || p >= (int)ix->h->nprocs || col < 0 ||
        col >= ((int64_t)1 << level))
        return RT_EINVAL;
    int64_t n = (int64_t)1 << level, cw = ix->h->colw0 >> level;
    unpack_cell(cell, ix->sum + (size_t)ix->h->nprocs * (size_t)(n - 1) + (size_t)p * (size_t)n + (size_t)col,
                (double)cw);
    if (col_t0)
        *col_t0 = ix->h->origin + col * cw;
    return RT_OK;
}
