/*
 * retrace_blas.c - libretrace_blas.so, an LD_PRELOAD interposer that records
 * the double-precision CBLAS level 1-3 calls of a program as a SHMAP trace
 * (what SHMAPI did by replacing BLAS calls with recording versions).
 *
 * Each call becomes a flop count (opcode 5, named after the routine) and block
 * loads and stores (opcodes 1 and 2) of the operands it reads and writes; the
 * real routine (Debian's reference BLAS or OpenBLAS, found with dlsym
 * RTLD_NEXT) then runs. The program is not otherwise slowed: a call costs a few
 * records, whatever its size.
 *
 * Matrices are not declared to BLAS, so they are found from the calls: every
 * matrix operand is an address range with a leading dimension and an order; ranges
 * with the same leading dimension and order that overlap or touch are one matrix,
 * and a range inside a static object of the program (dladdr1's symbol and size)
 * is that object, named after it. A vector operand belongs to the matrix whose
 * range holds it (a column, a row or a strided run of it); vectors outside every
 * matrix are column vectors of their own. Since a matrix's extent is known only
 * when the program ends, the calls are kept in a temporary file (a few records
 * per call: memory stays flat) and the trace is written at exit: the matrix
 * definitions first, then the calls, time = the call's number (1, 2, ...).
 * Column-major matrices are ld rows high, row-major ones ld columns wide.
 *
 * RETRACE_BLAS_TRACE=PATH names the trace (written to PATH.tmp and renamed, so
 * it is whole or absent; a process that made no CBLAS call writes nothing, so a
 * launcher or a child sharing the environment does not clobber it). Calls made from inside a recorded call (a BLAS that
 * calls its own CBLAS entry points) are not recorded twice. Calls from several
 * threads are serialised into one sequence (PE 0).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROW_MAJOR = 101, COL_MAJOR = 102 };
enum { NO_TRANS = 111 };
enum { UPPER = 121, LOWER = 122 };
enum { NON_UNIT = 131, UNIT = 132 };
enum { LEFT = 141, RIGHT = 142 };

/* one recorded access or flop count, in the temporary file */
typedef struct rec {
    uint8_t kind;      /* K_FLOPS, K_BLOCK (m x n operand), K_TRI (triangle), K_VEC */
    uint8_t op;        /* 1 load, 2 store */
    uint8_t row_major; /* the operand's order */
    uint8_t lower;     /* K_TRI: lower (else upper) triangle */
    uint8_t unit;      /* K_TRI: unit diagonal, not read */
    uint8_t name;      /* K_FLOPS: index in NAMES */
    int64_t m, n;      /* rows and columns (K_VEC: n elements) */
    int64_t ld;        /* leading dimension (K_VEC: the increment) */
    uintptr_t p;       /* first element */
    double flops;      /* K_FLOPS */
    uint64_t call;     /* the call's number */
} rec;

enum { K_FLOPS, K_BLOCK, K_TRI, K_VEC };

static const char *const NAMES[] = {"daxpy", "ddot",  "dscal", "dcopy", "dswap", "dnrm2", "dasum",
                                    "idamax", "dgemv", "dger",  "dtrsv", "dtrmv", "dsymv", "dgemm",
                                    "dtrsm", "dtrmm", "dsyrk", "dsymm"};

/* a matrix found from the calls */
typedef struct region {
    uintptr_t lo, hi;  /* byte range seen (or the static object's) */
    int64_t ld;        /* leading dimension in elements (0: a vector) */
    int row_major;
    int fixed;         /* the range is a static object's: it does not grow or merge */
    char name[64];     /* the symbol's name, or "" */
    uint64_t first;    /* the operand that made it (merged: the earliest); IDs follow it */
    int id;            /* SHMAP ID, given at exit */
} region;

#define MAX_REGIONS 4096
static region regs[MAX_REGIONS];
static int nregs;
static uint64_t lost; /* operands that found no room */
static uint64_t operands; /* operands noted so far */
static FILE *tmp;
static uint64_t calls;
static int failed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int depth; /* inside a recorded call */

/* The static object holding [lo, hi), when there is one: its range and name. */
static int static_object(uintptr_t lo, uintptr_t hi, region *r)
{
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1((void *)lo, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !info.dli_saddr
        || sym->st_size == 0 || ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
        return 0;
    uintptr_t a = (uintptr_t)info.dli_saddr, b = a + sym->st_size;
    if (lo < a || hi > b)
        return 0;
    r->lo = a;
    r->hi = b;
    r->fixed = 1;
    snprintf(r->name, sizeof r->name, "%s", info.dli_sname ? info.dli_sname : "");
    return 1;
}

/* Merge regions that now overlap or touch, with the same ld and order. */
static void coalesce(int i)
{
    for (int again = 1; again;) {
        again = 0;
        for (int j = 0; j < nregs; j++) {
            region *a = &regs[i], *b = &regs[j];
            if (j == i || a->fixed || b->fixed || a->ld != b->ld || a->row_major != b->row_major)
                continue;
            if (b->lo <= a->hi && a->lo <= b->hi) {
                if (b->lo < a->lo)
                    a->lo = b->lo;
                if (b->hi > a->hi)
                    a->hi = b->hi;
                if (b->first < a->first)
                    a->first = b->first;
                regs[j] = regs[--nregs];
                if (i == nregs)
                    i = j;
                again = 1;
                break;
            }
        }
    }
}

/* Note an operand's byte range [lo, hi) with leading dimension ld (0: vector). */
static void note(uintptr_t lo, uintptr_t hi, int64_t ld, int row_major)
{
    for (int i = 0; i < nregs; i++) {
        region *r = &regs[i];
        if (r->fixed && lo >= r->lo && hi <= r->hi) {
            if (r->ld == 0 && ld > 0) { /* first seen as a vector: a matrix after all */
                r->ld = ld;
                r->row_major = row_major;
            }
            return;
        }
    }
    region nr = {.lo = lo, .hi = hi, .ld = ld, .row_major = row_major, .first = operands++};
    if (static_object(lo, hi, &nr)) {
        if (nregs == MAX_REGIONS) {
            lost++;
            return;
        }
        regs[nregs++] = nr;
        return;
    }
    for (int i = 0; i < nregs; i++) {
        region *r = &regs[i];
        if (!r->fixed && r->ld == ld && r->row_major == row_major && lo <= r->hi && r->lo <= hi) {
            if (lo < r->lo)
                r->lo = lo;
            if (hi > r->hi)
                r->hi = hi;
            coalesce(i);
            return;
        }
    }
    if (nregs == MAX_REGIONS) {
        lost++;
        return;
    }
    regs[nregs++] = nr;
}

static void put(const rec *r)
{
    if (!tmp) {
        tmp = tmpfile();
        if (!tmp) {
            failed = 1;
            return;
        }
    }
    if (fwrite(r, sizeof *r, 1, tmp) != 1)
        failed = 1;
}

static int64_t iabs64(int64_t v) { return v < 0 ? -v : v; }

/* ---- what the wrappers call (under the lock) --------------------------------- */

static void flops(int name, double f)
{
    rec r = {.kind = K_FLOPS, .name = (uint8_t)name, .flops = f, .call = calls};
    put(&r);
}

/* An m x n operand at p (element (i, j) at p + i + j*ld column-major, p + i*ld + j row-major). */
static void block(int op, const double *p, int64_t m, int64_t n, int64_t ld, int row_major)
{
    if (m <= 0 || n <= 0 || !p)
        return;
    uintptr_t lo = (uintptr_t)p;
    int64_t last = row_major ? (m - 1) * ld + (n - 1) : (n - 1) * ld + (m - 1);
    note(lo, lo + (uintptr_t)(last + 1) * sizeof(double), ld, row_major);
    rec r = {.kind = K_BLOCK, .op = (uint8_t)op, .row_major = (uint8_t)row_major, .m = m, .n = n, .ld = ld,
             .p = lo, .call = calls};
    put(&r);
}

/* The triangle (uplo) of an n x n operand; with a unit diagonal the diagonal is not read. */
static void tri(int op, const double *p, int64_t n, int64_t ld, int row_major, int uplo, int diag)
{
    if (n <= 0 || !p)
        return;
    uintptr_t lo = (uintptr_t)p;
    note(lo, lo + (uintptr_t)((n - 1) * ld + n) * sizeof(double), ld, row_major);
    rec r = {.kind = K_TRI, .op = (uint8_t)op, .row_major = (uint8_t)row_major, .lower = uplo == LOWER,
             .unit = diag == UNIT, .m = n, .n = n, .ld = ld, .p = lo, .call = calls};
    put(&r);
}

/* n elements at p, inc apart (a negative inc touches the same elements). */
static void vec(int op, const double *p, int64_t n, int64_t inc)
{
    if (n <= 0 || !p)
        return;
    inc = iabs64(inc);
    if (inc == 0)
        inc = 1, n = 1;
    uintptr_t lo = (uintptr_t)p;
    note(lo, lo + (uintptr_t)((n - 1) * inc + 1) * sizeof(double), 0, 0);
    rec r = {.kind = K_VEC, .op = (uint8_t)op, .m = n, .n = 1, .ld = inc, .p = lo, .call = calls};
    put(&r);
}

/* ---- writing the trace at exit ------------------------------------------------ */

static FILE *out;
static uint64_t time_of; /* the current record's call */

/* The matrix region holding [lo, hi): a matrix (ld > 0) first, then a vector one. */
static region *holder(uintptr_t lo, uintptr_t hi)
{
    region *best = NULL;
    for (int i = 0; i < nregs; i++) {
        region *r = &regs[i];
        if (lo >= r->lo && hi <= r->hi && (!best || (best->ld == 0 && r->ld > 0)))
            best = r;
    }
    return best;
}

static int64_t reg_ld(const region *r)
{
    return r->ld > 0 ? r->ld : (int64_t)((r->hi - r->lo) / sizeof(double));
}

/* (row, col), 0-based, of element offset o of region r */
static void coords(const region *r, int64_t o, int64_t *row, int64_t *col)
{
    int64_t L = reg_ld(r);
    if (r->row_major) {
        *row = o / L;
        *col = o % L;
    } else {
        *row = o % L;
        *col = o / L;
    }
}

static void line(int op, const region *r, int64_t r1, int64_t r2, int64_t c1, int64_t c2)
{
    if (fprintf(out, "%d %d %lld %lld %lld %lld %llu\n", op, r->id, (long long)r1 + 1, (long long)r2 + 1,
                (long long)c1 + 1, (long long)c2 + 1, (unsigned long long)time_of) < 0)
        failed = 1;
}

/* n elements from offset o, step s apart, of region r: one block when they are a
   run along a column or a row, else one block per element. */
static void run(int op, const region *r, int64_t o, int64_t n, int64_t s)
{
    if (n <= 0)
        return;
    int64_t L = reg_ld(r), row, col;
    coords(r, o, &row, &col);
    int along_first = s == (r->row_major ? L : 1);  /* down a column */
    int along_second = s == (r->row_major ? 1 : L); /* along a row */
    if (along_first && (r->row_major || row + n <= L)) {
        line(op, r, row, row + n - 1, col, col);
        return;
    }
    if (along_second && (!r->row_major || col + n <= L)) {
        line(op, r, row, row, col, col + n - 1);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        coords(r, o + i * s, &row, &col);
        line(op, r, row, row, col, col);
    }
}

static void emit(const rec *x)
{
    time_of = x->call;
    if (x->kind == K_FLOPS)
        return; /* written by the caller, which knows the next operand */
    uintptr_t lo = x->p;
    int64_t last;
    if (x->kind == K_VEC)
        last = (x->m - 1) * x->ld;
    else
        last = x->row_major ? (x->m - 1) * x->ld + (x->n - 1) : (x->n - 1) * x->ld + (x->m - 1);
    const region *r = holder(lo, lo + (uintptr_t)(last + 1) * sizeof(double));
    if (!r)
        return;
    int64_t o = (int64_t)((lo - r->lo) / sizeof(double));
    if (x->kind == K_VEC) {
        run(x->op, r, o, x->m, x->ld);
        return;
    }
    /* element (i, j) of the operand at o + i*si + j*sj */
    int64_t si = x->row_major ? x->ld : 1, sj = x->row_major ? 1 : x->ld;
    int same = r->ld == x->ld && r->row_major == x->row_major;
    if (x->kind == K_BLOCK && same) {
        int64_t row, col;
        coords(r, o, &row, &col);
        if ((x->row_major ? col + x->n : row + x->m) <= reg_ld(r)) {
            line(x->op, r, row, row + x->m - 1, col, col + x->n - 1);
            return;
        }
    }
    /* column by column (j), rows i0..i1 of each */
    for (int64_t j = 0; j < x->n; j++) {
        int64_t i0 = 0, i1 = x->m - 1;
        if (x->kind == K_TRI) {
            if (x->lower)
                i0 = j + (x->unit ? 1 : 0);
            else
                i1 = j - (x->unit ? 1 : 0);
        }
        if (i0 <= i1)
            run(x->op, r, o + i0 * si + j * sj, i1 - i0 + 1, si);
    }
}

/* The region the next access of the temporary file falls in (for a flop count's ID). */
static int next_id(long at)
{
    rec x;
    int id = 1;
    if (fseek(tmp, at, SEEK_SET) == 0 && fread(&x, sizeof x, 1, tmp) == 1 && x.kind != K_FLOPS) {
        const region *r = holder(x.p, x.p + sizeof(double));
        if (r)
            id = r->id;
    }
    return id;
}

__attribute__((destructor)) static void finish(void)
{
    const char *path = getenv("RETRACE_BLAS_TRACE");
    /* a process that made no CBLAS call (a launcher, a shell, a child) leaves the
       trace to the one that did */
    if (!path || !*path || calls == 0)
        return;
    pthread_mutex_lock(&lock);
    depth++;
    /* vector regions inside a matrix are that matrix */
    for (int i = 0; i < nregs;) {
        region *v = &regs[i];
        int inside = 0;
        for (int j = 0; j < nregs && v->ld == 0 && !v->fixed; j++)
            inside = inside || (j != i && regs[j].ld > 0 && v->lo >= regs[j].lo && v->hi <= regs[j].hi);
        if (inside)
            regs[i] = regs[--nregs];
        else
            i++;
    }
    /* IDs in the order of first use */
    for (int i = 1; i < nregs; i++)
        for (int j = i; j > 0 && regs[j].first < regs[j - 1].first; j--) {
            region t = regs[j];
            regs[j] = regs[j - 1];
            regs[j - 1] = t;
        }
    char tmpname[4096];
    snprintf(tmpname, sizeof tmpname, "%s.tmp", path);
    out = fopen(tmpname, "w");
    if (!out) {
        fprintf(stderr, "retrace_blas: cannot write %s\n", tmpname);
        return;
    }
    for (int i = 0; i < nregs; i++) {
        region *r = &regs[i];
        r->id = i + 1;
        int64_t L = reg_ld(r), n = (int64_t)((r->hi - r->lo) / sizeof(double));
        int64_t other = (n + L - 1) / L;
        fprintf(out, "0 %d %lld %lld\n", r->id, (long long)(r->row_major ? other : L),
                (long long)(r->row_major ? L : other));
        fprintf(out, "3 %d %s %s\n", r->id, r->name[0] ? r->name : (r->ld > 0 ? "matrix" : "vector"),
                r->row_major ? "(row-major)" : "(column-major)");
    }
    if (tmp) {
        rewind(tmp);
        rec x;
        long at = 0;
        while (fread(&x, sizeof x, 1, tmp) == 1) {
            at += (long)sizeof x;
            if (x.kind == K_FLOPS) {
                int id = next_id(at);
                fprintf(out, "5 %d %.17g %s\n", id, x.flops, NAMES[x.name]);
                if (fseek(tmp, at, SEEK_SET) != 0)
                    failed = 1;
            } else {
                emit(&x);
            }
        }
        fclose(tmp);
        tmp = NULL;
    }
    if (fclose(out) != 0 || failed) {
        fprintf(stderr, "retrace_blas: writing %s failed\n", path);
        remove(tmpname);
    } else if (rename(tmpname, path) != 0) {
        fprintf(stderr, "retrace_blas: cannot rename %s to %s\n", tmpname, path);
        remove(tmpname);
    }
    if (lost)
        fprintf(stderr, "retrace_blas: %llu operands beyond %d matrices were not recorded\n",
                (unsigned long long)lost, MAX_REGIONS);
    pthread_mutex_unlock(&lock);
}

/* ---- the wrappers ------------------------------------------------------------- */

/* Look up the real routine once; enter the recording section (0: do not record). */
#define REAL(T, name, args)                                                                          \
    static T(*real) args;                                                                            \
    if (!real)                                                                                       \
        *(void **)&real = dlsym(RTLD_NEXT, #name);                                                   \
    int rec_ = depth++ == 0;                                                                         \
    if (rec_) {                                                                                      \
        pthread_mutex_lock(&lock);                                                                   \
        calls++;                                                                                     \
    }
#define DONE()                                                                                       \
    if (rec_)                                                                                        \
        pthread_mutex_unlock(&lock);                                                                 \
    depth--

enum { N_DAXPY, N_DDOT, N_DSCAL, N_DCOPY, N_DSWAP, N_DNRM2, N_DASUM, N_IDAMAX, N_DGEMV, N_DGER, N_DTRSV,
       N_DTRMV, N_DSYMV, N_DGEMM, N_DTRSM, N_DTRMM, N_DSYRK, N_DSYMM };

void cblas_daxpy(int n, double a, const double *x, int incx, double *y, int incy)
{
    REAL(void, cblas_daxpy, (int, double, const double *, int, double *, int));
    if (rec_) {
        flops(N_DAXPY, 2.0 * n);
        vec(1, x, n, incx);
        vec(1, y, n, incy);
        vec(2, y, n, incy);
    }
    DONE();
    real(n, a, x, incx, y, incy);
}

double cblas_ddot(int n, const double *x, int incx, const double *y, int incy)
{
    REAL(double, cblas_ddot, (int, const double *, int, const double *, int));
    if (rec_) {
        flops(N_DDOT, 2.0 * n);
        vec(1, x, n, incx);
        vec(1, y, n, incy);
    }
    DONE();
    return real(n, x, incx, y, incy);
}

void cblas_dscal(int n, double a, double *x, int incx)
{
    REAL(void, cblas_dscal, (int, double, double *, int));
    if (rec_) {
        flops(N_DSCAL, n);
        vec(1, x, n, incx);
        vec(2, x, n, incx);
    }
    DONE();
    real(n, a, x, incx);
}

void cblas_dcopy(int n, const double *x, int incx, double *y, int incy)
{
    REAL(void, cblas_dcopy, (int, const double *, int, double *, int));
    if (rec_) {
        flops(N_DCOPY, 0);
        vec(1, x, n, incx);
        vec(2, y, n, incy);
    }
    DONE();
    real(n, x, incx, y, incy);
}

void cblas_dswap(int n, double *x, int incx, double *y, int incy)
{
    REAL(void, cblas_dswap, (int, double *, int, double *, int));
    if (rec_) {
        flops(N_DSWAP, 0);
        vec(1, x, n, incx);
        vec(1, y, n, incy);
        vec(2, x, n, incx);
        vec(2, y, n, incy);
    }
    DONE();
    real(n, x, incx, y, incy);
}

double cblas_dnrm2(int n, const double *x, int incx)
{
    REAL(double, cblas_dnrm2, (int, const double *, int));
    if (rec_) {
        flops(N_DNRM2, 2.0 * n);
        vec(1, x, n, incx);
    }
    DONE();
    return real(n, x, incx);
}

double cblas_dasum(int n, const double *x, int incx)
{
    REAL(double, cblas_dasum, (int, const double *, int));
    if (rec_) {
        flops(N_DASUM, n);
        vec(1, x, n, incx);
    }
    DONE();
    return real(n, x, incx);
}

size_t cblas_idamax(int n, const double *x, int incx)
{
    REAL(size_t, cblas_idamax, (int, const double *, int));
    if (rec_) {
        flops(N_IDAMAX, n);
        vec(1, x, n, incx);
    }
    DONE();
    return real(n, x, incx);
}

void cblas_dgemv(int order, int trans, int m, int n, double alpha, const double *a, int lda, const double *x,
                 int incx, double beta, double *y, int incy)
{
    REAL(void, cblas_dgemv, (int, int, int, int, double, const double *, int, const double *, int, double,
                             double *, int));
    if (rec_) {
        int t = trans != NO_TRANS;
        flops(N_DGEMV, 2.0 * m * n);
        block(1, a, m, n, lda, order == ROW_MAJOR);
        vec(1, x, t ? m : n, incx);
        if (beta != 0)
            vec(1, y, t ? n : m, incy);
        vec(2, y, t ? n : m, incy);
    }
    DONE();
    real(order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_dger(int order, int m, int n, double alpha, const double *x, int incx, const double *y, int incy,
                double *a, int lda)
{
    REAL(void, cblas_dger, (int, int, int, double, const double *, int, const double *, int, double *, int));
    if (rec_) {
        flops(N_DGER, 2.0 * m * n);
        vec(1, x, m, incx);
        vec(1, y, n, incy);
        block(1, a, m, n, lda, order == ROW_MAJOR);
        block(2, a, m, n, lda, order == ROW_MAJOR);
    }
    DONE();
    real(order, m, n, alpha, x, incx, y, incy, a, lda);
}

static void trsv_like(int name, int order, int uplo, int diag, int n, const double *a, int lda, double *x,
                      int incx)
{
    flops(name, (double)n * n);
    tri(1, a, n, lda, order == ROW_MAJOR, uplo, diag);
    vec(1, x, n, incx);
    vec(2, x, n, incx);
}

void cblas_dtrsv(int order, int uplo, int trans, int diag, int n, const double *a, int lda, double *x, int incx)
{
    REAL(void, cblas_dtrsv, (int, int, int, int, int, const double *, int, double *, int));
    if (rec_)
        trsv_like(N_DTRSV, order, uplo, diag, n, a, lda, x, incx);
    DONE();
    real(order, uplo, trans, diag, n, a, lda, x, incx);
}

void cblas_dtrmv(int order, int uplo, int trans, int diag, int n, const double *a, int lda, double *x, int incx)
{
    REAL(void, cblas_dtrmv, (int, int, int, int, int, const double *, int, double *, int));
    if (rec_)
        trsv_like(N_DTRMV, order, uplo, diag, n, a, lda, x, incx);
    DONE();
    real(order, uplo, trans, diag, n, a, lda, x, incx);
}

void cblas_dsymv(int order, int uplo, int n, double alpha, const double *a, int lda, const double *x, int incx,
                 double beta, double *y, int incy)
{
    REAL(void, cblas_dsymv, (int, int, int, double, const double *, int, const double *, int, double, double *,
                             int));
    if (rec_) {
        flops(N_DSYMV, 2.0 * n * n);
        tri(1, a, n, lda, order == ROW_MAJOR, uplo, NON_UNIT);
        vec(1, x, n, incx);
        if (beta != 0)
            vec(1, y, n, incy);
        vec(2, y, n, incy);
    }
    DONE();
    real(order, uplo, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    REAL(void, cblas_dgemm, (int, int, int, int, int, int, double, const double *, int, const double *, int,
                             double, double *, int));
    if (rec_) {
        int rm = order == ROW_MAJOR, tA = ta != NO_TRANS, tB = tb != NO_TRANS;
        flops(N_DGEMM, 2.0 * m * n * k);
        block(1, a, tA ? k : m, tA ? m : k, lda, rm);
        block(1, b, tB ? n : k, tB ? k : n, ldb, rm);
        if (beta != 0)
            block(1, c, m, n, ldc, rm);
        block(2, c, m, n, ldc, rm);
    }
    DONE();
    real(order, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

static void trsm_like(int name, int order, int side, int uplo, int diag, int m, int n, const double *a, int lda,
                      double *b, int ldb)
{
    int rm = order == ROW_MAJOR, na = side == LEFT ? m : n;
    flops(name, (double)na * na * (side == LEFT ? n : m));
    tri(1, a, na, lda, rm, uplo, diag);
    block(1, b, m, n, ldb, rm);
    block(2, b, m, n, ldb, rm);
}

void cblas_dtrsm(int order, int side, int uplo, int transa, int diag, int m, int n, double alpha, const double *a,
                 int lda, double *b, int ldb)
{
    REAL(void, cblas_dtrsm, (int, int, int, int, int, int, int, double, const double *, int, double *, int));
    if (rec_)
        trsm_like(N_DTRSM, order, side, uplo, diag, m, n, a, lda, b, ldb);
    DONE();
    real(order, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}

void cblas_dtrmm(int order, int side, int uplo, int transa, int diag, int m, int n, double alpha, const double *a,
                 int lda, double *b, int ldb)
{
    REAL(void, cblas_dtrmm, (int, int, int, int, int, int, int, double, const double *, int, double *, int));
    if (rec_)
        trsm_like(N_DTRMM, order, side, uplo, diag, m, n, a, lda, b, ldb);
    DONE();
    real(order, side, uplo, transa, diag, m, n, alpha, a, lda, b, ldb);
}

void cblas_dsyrk(int order, int uplo, int trans, int n, int k, double alpha, const double *a, int lda, double beta,
                 double *c, int ldc)
{
    REAL(void, cblas_dsyrk, (int, int, int, int, int, double, const double *, int, double, double *, int));
    if (rec_) {
        int rm = order == ROW_MAJOR, t = trans != NO_TRANS;
        flops(N_DSYRK, (double)n * (n + 1) * k);
        block(1, a, t ? k : n, t ? n : k, lda, rm);
        if (beta != 0)
            tri(1, c, n, ldc, rm, uplo, NON_UNIT);
        tri(2, c, n, ldc, rm, uplo, NON_UNIT);
    }
    DONE();
    real(order, uplo, trans, n, k, alpha, a, lda, beta, c, ldc);
}

void cblas_dsymm(int order, int side, int uplo, int m, int n, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc)
{
    REAL(void, cblas_dsymm, (int, int, int, int, int, double, const double *, int, const double *, int, double,
                             double *, int));
    if (rec_) {
        int rm = order == ROW_MAJOR, na = side == LEFT ? m : n;
        flops(N_DSYMM, 2.0 * m * n * na);
        tri(1, a, na, lda, rm, uplo, NON_UNIT);
        block(1, b, m, n, ldb, rm);
        if (beta != 0)
            block(1, c, m, n, ldc, rm);
        block(2, c, m, n, ldc, rm);
    }
    DONE();
    real(order, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc);
}
