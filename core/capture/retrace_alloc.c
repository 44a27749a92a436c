/*
 * retrace_alloc.c - libretrace_alloc.so, the allocation interposer of
 * `retrace capture` (LD_PRELOAD; not part of retrace_core, never links Lua).
 *
 * Hooks malloc, calloc, realloc, free, posix_memalign and aligned_alloc (and
 * memalign, valloc, reallocarray, whose blocks free releases too).
 * Each call becomes one text line, built by hand in a stack buffer (no stdio,
 * no allocation in a hook):
 *
 *   rt A ADDR SIZE PC1/PC2/...   an allocation and the return addresses of
 *                                its callers, innermost first (hex)
 *   rt F ADDR                    a free
 *   rt L LO HI BIAS PATH         one loaded object's address range and load
 *                                bias (written once, at the first hook or the
 *                                constructor)
 *   rt K LO HI                   the main thread's stack: from the stack
 *                                limit below the current frame to just above it
 *
 * realloc is a free of the old block and an allocation of the new one.
 * The lines go to the file descriptor named by RETRACE_ALLOC_FD with raw
 * write(2); under Valgrind each A and F line also goes into Valgrind's own log
 * through a client request, so it lands in lackey's memory trace at the exact
 * point of the call (the capture stamps it with the reference count there).
 *
 * RETRACE_ALLOC_VALGRIND_ONLY=1 makes the library inert outside Valgrind: the
 * valgrind launcher, which inherits LD_PRELOAD too, then logs nothing.
 * A thread-local guard lets allocations made inside a hook (dlsym, backtrace's
 * first call) through unrecorded; dlsym's own calloc is served from a static
 * buffer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <valgrind/valgrind.h>

#define FRAMES 6 /* callers kept per allocation */

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);

static int log_fd = -1;
static int active = -1; /* -1 not decided yet, 0 inert, 1 recording */
static int under_valgrind;
static __thread int in_hook __attribute__((tls_model("initial-exec")));

/* dlsym may call calloc before real_calloc is known */
static unsigned char boot_buf[4096] __attribute__((aligned(16)));
static size_t boot_used;

static int is_boot(const void *p)
{
    return (const unsigned char *)p >= boot_buf && (const unsigned char *)p < boot_buf + sizeof boot_buf;
}

static void *boot_alloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (boot_used + n > sizeof boot_buf)
        return NULL;
    void *p = boot_buf + boot_used;
    boot_used += n;
    return p; /* static: already zero */
}

/* ---- a line buffer without stdio ---- */

typedef struct line {
    char b[512];
    size_t n;
} line;

static void put_str(line *l, const char *s)
{
    while (*s && l->n < sizeof l->b - 2)
        l->b[l->n++] = *s++;
}

static void put_hex(line *l, uintptr_t v)
{
    char t[2 * sizeof v];
    int k = 0;
    do {
        t[k++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    while (k > 0 && l->n < sizeof l->b - 2)
        l->b[l->n++] = t[--k];
}

static void put_dec(line *l, size_t v)
{
    char t[24];
    int k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k > 0 && l->n < sizeof l->b - 2)
        l->b[l->n++] = t[--k];
}

static void emit(line *l, int to_valgrind)
{
    l->b[l->n++] = '\n';
    if (log_fd >= 0) {
        size_t done = 0;
        while (done < l->n) {
            ssize_t w = write(log_fd, l->b + done, l->n - done);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                break;
            done += (size_t)w;
        }
    }
    if (to_valgrind && under_valgrind) {
        l->b[l->n] = '\0';
        VALGRIND_PRINTF("%s", l->b);
    }
}

/* ---- the load map ---- */

static int one_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    if (hi == 0)
        return 0;
    line l = {.n = 0};
    put_str(&l, "rt L ");
    put_hex(&l, lo);
    put_str(&l, " ");
    put_hex(&l, hi);
    put_str(&l, " ");
    put_hex(&l, info->dlpi_addr);
    put_str(&l, " ");
    if (info->dlpi_name && info->dlpi_name[0]) {
        put_str(&l, info->dlpi_name);
    } else { /* the main program */
        char exe[400];
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[k > 0 ? k : 0] = '\0';
        put_str(&l, k > 0 ? exe : "?");
    }
    emit(&l, 1);
    return 0;
}

/* the main thread's stack, from the frame of the first recording call: up to
 * 64 KiB above it (arguments, environment) and the stack limit below */
static void stack_range(void)
{
    volatile char here = 0;
    uintptr_t sp = (uintptr_t)&here;
    struct rlimit rl;
    uintptr_t below = 8u << 20;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < (64u << 20))
        below = (uintptr_t)rl.rlim_cur;
    uintptr_t hi = (sp + (64u << 10)) & ~(uintptr_t)4095;
    line l = {.n = 0};
    put_str(&l, "rt K ");
    put_hex(&l, sp > below ? hi - below : 0);
    put_str(&l, " ");
    put_hex(&l, hi);
    emit(&l, 1);
}

/* ---- set-up ---- */

static void resolve(void)
{
    if (real_malloc)
        return;
    in_hook++;
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    real_valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
    in_hook--;
}

/* Decide once whether to record; the first time, write the load map. */
static int recording(void)
{
    if (active >= 0)
        return active;
    in_hook++;
    under_valgrind = RUNNING_ON_VALGRIND ? 1 : 0;
    const char *only = getenv("RETRACE_ALLOC_VALGRIND_ONLY");
    const char *fd = getenv("RETRACE_ALLOC_FD");
    int n = -1;
    if (fd && *fd) {
        n = 0;
        for (const char *p = fd; *p >= '0' && *p <= '9'; p++)
            n = n * 10 + (*p - '0');
    }
    log_fd = n;
    active = (only && only[0] == '1' && !under_valgrind) ? 0 : 1;
    if (active) {
        void *prime[2];
        backtrace(prime, 2); /* loads the unwinder now, under the guard */
        dl_iterate_phdr(one_object, NULL);
        stack_range();
    }
    in_hook--;
    return active;
}

__attribute__((constructor)) static void retrace_alloc_init(void)
{
    resolve();
    recording();
}

/* ---- the records ---- */

__attribute__((noinline)) static void record_alloc(void *p, size_t size)
{
    if (!p || in_hook || recording() == 0)
        return;
    in_hook++;
    void *fr[FRAMES + 2];
    int n = backtrace(fr, FRAMES + 2);
    line l = {.n = 0};
    put_str(&l, "rt A ");
    put_hex(&l, (uintptr_t)p);
    put_str(&l, " ");
    put_dec(&l, size);
    put_str(&l, " ");
    /* fr[0] is this function, fr[1] the hook; the callers follow */
    for (int i = 2; i < n; i++) {
        if (i > 2)
            put_str(&l, "/");
        put_hex(&l, (uintptr_t)fr[i]);
    }
    if (n <= 2)
        put_str(&l, "0");
    emit(&l, 1);
    in_hook--;
}

__attribute__((noinline)) static void record_free(void *p)
{
    if (!p || in_hook || recording() == 0)
        return;
    in_hook++;
    line l = {.n = 0};
    put_str(&l, "rt F ");
    put_hex(&l, (uintptr_t)p);
    emit(&l, 1);
    in_hook--;
}

/* ---- the hooks ---- */

void *malloc(size_t n)
{
    resolve();
    if (!real_malloc)
        return boot_alloc(n);
    void *p = real_malloc(n);
    record_alloc(p, n);
    return p;
}

void *calloc(size_t k, size_t n)
{
    if (!real_calloc) {
        if (in_hook)
            return n && k > SIZE_MAX / n ? NULL : boot_alloc(k * n);
        resolve();
        if (!real_calloc)
            return n && k > SIZE_MAX / n ? NULL : boot_alloc(k * n);
    }
    void *p = real_calloc(k, n);
    record_alloc(p, k * n);
    return p;
}

void *realloc(void *old, size_t n)
{
    resolve();
    if (old && is_boot(old)) { /* never handed to the real allocator */
        void *p = malloc(n);
        if (p)
            memcpy(p, old, n < sizeof boot_buf ? n : sizeof boot_buf);
        return p;
    }
    if (!real_realloc)
        return NULL;
    void *p = real_realloc(old, n);
    if (p || n == 0) {
        record_free(old);
        record_alloc(p, n);
    }
    return p;
}

void free(void *p)
{
    if (!p || is_boot(p))
        return;
    resolve();
    record_free(p);
    if (real_free)
        real_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    resolve();
    if (!real_posix_memalign)
        return ENOMEM;
    int st = real_posix_memalign(out, align, n);
    if (st == 0)
        record_alloc(*out, n);
    return st;
}

void *aligned_alloc(size_t align, size_t n)
{
    resolve();
    if (!real_aligned_alloc)
        return NULL;
    void *p = real_aligned_alloc(align, n);
    record_alloc(p, n);
    return p;
}

/* the older aligned allocators (their blocks are freed with free: they must be known) */
void *memalign(size_t align, size_t n)
{
    resolve();
    if (!real_memalign)
        return NULL;
    void *p = real_memalign(align, n);
    record_alloc(p, n);
    return p;
}

void *valloc(size_t n)
{
    resolve();
    if (!real_valloc)
        return NULL;
    void *p = real_valloc(n);
    record_alloc(p, n);
    return p;
}

void *reallocarray(void *old, size_t k, size_t n)
{
    if (n && k > SIZE_MAX / n) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(old, k * n);
}
