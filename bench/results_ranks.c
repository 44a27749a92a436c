/*
 * results_ranks.c - `retrace paragraph --static` (Gantt + spacetime at
 * 1920 x 1080) and `retrace medea --json --approach processor` on a generated
 * ring of 1024 processors, serial and under `mpirun -np N` (N = 2, 4), at 4 * 10^5
 * and 4 * 10^6 records: wall time of the job, each rank's peak memory (max RSS),
 * and whether the outputs are byte for byte the serial ones.
 *
 *   build/bench/results_ranks [RECORDS] [PROCS]   (defaults 4 * 10^6, 1024; a tenth is run first)
 *
 * Each rank draws (or characterizes) its own processors, p % N == rank, and rank
 * 0 combines; PICL text is not read in parts yet, so every rank reads and
 * replays the whole trace: the figures show what that and the combining cost,
 * and that the results stay the serial ones. Needs
 * mpirun on PATH and a build with MPI; run from the source folder or the build
 * folder (the command is build/retrace or ./retrace).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

static int nproc = 1024;

static long generate(const char *path, long n) { return bench_ring_trace(path, n, nproc); }

static const char *retrace_path(void)
{
    return access("build/retrace", X_OK) == 0 ? "build/retrace" : "./retrace";
}

/* The whole content of a file (NULL when unreadable); *n its length. */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    *n = len;
    return b;
}

static int same_file(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/*
 * Run `retrace ARGS` (ARGS a shell word list; OUT in it is replaced by out) with
 * n ranks (0: serial, no mpirun), stdout to out.json; each rank's max RSS in
 * KiB into rss[rank]. Returns the wall seconds; exits on a failure.
 */
static double job(int n, const char *args, const char *out, long *rss)
{
    char cmd[2048], rssf[128];
    snprintf(rssf, sizeof rssf, "/tmp/retrace_bench_ranks_%ld", (long)getpid());
    const char *launch = n > 0 ? "mpirun --allow-run-as-root --oversubscribe -q -np " : "";
    char np[16] = "";
    if (n > 0)
        snprintf(np, sizeof np, "%d ", n);
    /* each rank runs under /usr/bin/time, writing its peak to a file of its own */
    snprintf(cmd, sizeof cmd,
             "%s%ssh -c '/usr/bin/time -f %%M -o %s.${OMPI_COMM_WORLD_RANK:-0} %s %s' >%s.json",
             launch, np, rssf, retrace_path(), args, out);
    double t0 = bench_now();
    int rc = system(cmd);
    double dt = bench_now() - t0;
    if (rc != 0) {
        fprintf(stderr, "results_ranks: failed: %s\n", cmd);
        exit(1);
    }
    for (int r = 0; r < (n > 0 ? n : 1); r++) {
        char f[160];
        snprintf(f, sizeof f, "%s.%d", rssf, r);
        FILE *fp = fopen(f, "r");
        rss[r] = 0;
        if (!fp || fscanf(fp, "%ld", &rss[r]) != 1)
            fprintf(stderr, "results_ranks: no peak memory from rank %d\n", r);
        if (fp)
            fclose(fp);
        unlink(f);
    }
    return dt;
}

static void run(const char *path)
{
    static const int ranks[] = {0, 2, 4};
    char base[96];
    snprintf(base, sizeof base, "/tmp/retrace_bench_ranks_out_%ld", (long)getpid());
    for (int kind = 0; kind < 2; kind++) {
        double serial = 0;
        for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
            int n = ranks[i];
            char out[160], args[1024];
            snprintf(out, sizeof out, "%s_%d", base, n);
            if (kind == 0)
                snprintf(args, sizeof args, "paragraph --static -o %s.png --size 1920x1080 %s", out, path);
            else
                snprintf(args, sizeof args, "medea --json --approach processor %s", path);
            long rss[4] = {0};
            double dt = job(n, args, out, rss);
            if (n == 0)
                serial = dt;
            char a[200], b[200];
            snprintf(a, sizeof a, "%s_0.%s", base, kind == 0 ? "png" : "json");
            snprintf(b, sizeof b, "%s.%s", out, kind == 0 ? "png" : "json");
            printf("%-18s %s: %6.2f s wall (%.2fx serial), max RSS per rank KiB:",
                   kind == 0 ? "paragraph --static" : "medea --json", n ? (n == 2 ? "-np 2" : "-np 4") : "serial",
                   dt, dt / serial);
            for (int r = 0; r < (n ? n : 1); r++)
                printf(" %ld", rss[r]);
            printf("%s\n", n == 0 ? "" : same_file(a, b) ? "; output identical" : "; OUTPUT DIFFERS");
        }
        for (size_t i = 0; i < sizeof ranks / sizeof ranks[0]; i++) {
            char f[200];
            snprintf(f, sizeof f, "%s_%d.json", base, ranks[i]);
            unlink(f);
            snprintf(f, sizeof f, "%s_%d.png", base, ranks[i]);
            unlink(f);
        }
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 4000000L;
    if (argc > 2)
        nproc = atoi(argv[2]);
    char path[64];
    bench_tmp_path(path, sizeof path, "ranks", "trf");
    printf("results under mpirun, %d processors in a ring\n", nproc);
    return bench_two_lengths("results_ranks", path, n, "records", generate, run);
}
