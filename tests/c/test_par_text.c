/* Tests of rt_par_text_open (core/par/rt_par_text.c): under mpirun -np 1..4
 * the events each rank's source gives are the serial source's events that
 * the routing rule (rt_par_route.h) sends to that rank, in the serial order,
 * every field and line equal, with the serial definitions (processors,
 * regions in order), on every PICL, Paraver and Pajé fixture and shared sample;
 * a malformed record on one rank's range ends every rank with one message
 * naming file and line. The test runs itself under mpirun as the ranks
 * (RT_PAR_TEXT_CHILD); skipped, saying so, without mpirun. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_par.h"
#include "rt_par_route.h"
#include "rt_par_text.h"
#include "rt_test.h"
#include "rt_tsource_open.h"

static char self[4096];

/* One event as a line of text (every field the replay reads). */
static void put_event(FILE *f, const rt_tevent *ev)
{
    fprintf(f, "%d %d %.17g %lld %d %d %d %lld %d %.17g %.17g %lu %d", ev->kind, ev->proc, ev->time,
            (long long)ev->ticks, ev->region, ev->task, ev->peer, (long long)ev->tag, ev->comm, ev->bytes,
            ev->bytes_in, ev->line, ev->ndata);
    for (int i = 0; i < ev->ndata && i < RT_TE_MAXDATA; i++)
        fprintf(f, " %.17g", ev->data[i]);
    fputc('\n', f);
}

static void put_defs(FILE *f, const rt_tdefs *d)
{
    fprintf(f, "procs %d\n", rt_tdefs_nprocs(d));
    for (int p = 0; p < rt_tdefs_nprocs(d); p++)
        fprintf(f, "proc %s|%s\n", rt_tdefs_proc(d, p)->name, rt_tdefs_proc(d, p)->path);
    for (int i = 0; i < rt_tdefs_nregions(d); i++) {
        const rt_tregion *r = rt_tdefs_region_at(d, i);
        fprintf(f, "region %d %d %s|%s\n", r->id, r->cls, r->name, r->group);
    }
}

static int child_one(const char *path, const char *out);

/* A rank: read this rank's part of each trace (argv: DIR PATH...) into DIR/I.RANK. */
static int child(int argc, char **argv)
{
    char *args0[] = {self, NULL}, **args = args0;
    int n0 = 1;
    rt_err err;
    if (rt_par_init(&n0, &args, &err) != RT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    int rc = 0;
    for (int i = 2; i < argc && rc == 0; i++) {
        char out[4200];
        snprintf(out, sizeof out, "%s/%d.%d", argv[1], i - 2, rt_par_rank());
        rc = child_one(argv[i], out);
    }
    rt_par_finalize();
    return rc;
}

static int child_one(const char *path, const char *out)
{
    rt_err err;
    int rank = rt_par_rank();
    rt_tsource *s = rt_par_text_open(path, NULL, 0, &err);
    if (!s) {
        if (rank == 0)
            fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    FILE *f = fopen(out, "w");
    rt_tevent ev;
    int st;
    rt_tkey last = {INT64_MIN, 0, 0};
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK) {
        put_event(f, &ev);
        if (!s->has_key || rt_tkey_cmp(&s->key, &last) <= 0) /* keys go up in the serial order */
            fprintf(f, "bad key\n");
        last = s->key;
    }
    if (st != RT_EEOF)
        fprintf(f, "error %s\n", err.msg);
    fprintf(f, "skipped %llu\n", (unsigned long long)s->skipped);
    put_defs(f, s->defs);
    fclose(f);
    rt_tsource_free(s);
    return 0;
}

/* What each rank of size must get: the serial events routed to it, the malformed
 * lines skipped (all on rank 0), then the serial definitions. want[r] malloc'd. */
static void expected(const char *path, int size, char **want)
{
    rt_err err;
    rt_tsource *s = rt_tsource_open(path, NULL, &err);
    if (!s)
        fail_msg("%s", err.msg);
    size_t len[4];
    FILE *f[4];
    for (int r = 0; r < size; r++)
        f[r] = open_memstream(&want[r], &len[r]);
    rt_tevent ev;
    int st;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK) {
        int to[2], n = rt_par_route(&ev, size, to);
        for (int i = 0; i < n; i++)
            put_event(f[to[i]], &ev);
    }
    assert_int_equal(st, RT_EEOF);
    for (int r = 0; r < size; r++) {
        fprintf(f[r], "skipped %llu\n", r == 0 ? (unsigned long long)s->skipped : 0ULL);
        put_defs(f[r], s->defs);
        fclose(f[r]);
    }
    rt_tsource_free(s);
}

static int have_mpirun(void)
{
    return system("command -v mpirun >/dev/null 2>&1") == 0;
}

/* Run np ranks on the traces in paths (one argument string of quoted paths); exit code; stderr into errbuf. */
static int run_ranks(int np, const char *paths, const char *dir, char *errbuf, size_t cap)
{
    char cmd[32768];
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" RT_PAR_TEXT_CHILD=1 timeout 300 mpirun --allow-run-as-root --oversubscribe -q -np %d '%s' '%s' %s "
             "2>%s/stderr",
             np, self, dir, paths, dir);
    int rc = system(cmd);
    char ep[4200];
    snprintf(ep, sizeof ep, "%s/stderr", dir);
    FILE *f = fopen(ep, "r");
    size_t n = f ? fread(errbuf, 1, cap - 1, f) : 0;
    errbuf[n] = '\0';
    if (f)
        fclose(f);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static int samples(char paths[][512], int max)
{
    const char *sh = getenv("RETRACE_SHARED");
    char cmd[2048];
    const char *d = sh ? sh : "../shared/data";
    snprintf(cmd, sizeof cmd,
             "ls %s/picl/*.trf %s/paraver/*.prv %s/paje/*.trace %s/picl/*.trf %s/paraver/*.prv %s/paje/*.trace "
             "2>/dev/null",
             RETRACE_FIXTURES, RETRACE_FIXTURES, RETRACE_FIXTURES, d, d, d);
    FILE *ls = popen(cmd, "r");
    int n = 0;
    while (n < max && fgets(paths[n], 512, ls)) {
        paths[n][strcspn(paths[n], "\n")] = '\0';
        n++;
    }
    pclose(ls);
    return n;
}

static void test_ranks_get_their_events(void **state)
{
    (void)state;
    if (!have_mpirun())
        skip();
    char paths[32][512];
    int n = samples(paths, 32);
    assert_true(n >= 10);
    char dir[] = "/tmp/rt_par_textXXXXXX";
    assert_non_null(mkdtemp(dir));
    char all[24000] = "";
    for (int i = 0; i < n; i++) {
        size_t k = strlen(all);
        snprintf(all + k, sizeof all - k, " '%s'", paths[i]);
    }
    for (int np = 1; np <= 4; np++) {
        char errbuf[4096];
        int rc = run_ranks(np, all, dir, errbuf, sizeof errbuf);
        if (rc != 0)
            fail_msg("%d ranks: exit %d: %s", np, rc, errbuf);
        for (int i = 0; i < n; i++) {
            char *wants[4];
            expected(paths[i], np, wants);
            for (int r = 0; r < np; r++) {
                char out[4200];
                snprintf(out, sizeof out, "%s/%d.%d", dir, i, r);
                size_t len;
                char *got = rt_test_read_file(out, &len);
                char *want = wants[r];
                if (strcmp(got, want) != 0) {
                    size_t k = 0;
                    while (got[k] && got[k] == want[k])
                        k++;
                    while (k > 0 && got[k - 1] != '\n')
                        k--;
                    fail_msg("%s, rank %d of %d differs at:\n got  %.200s\n want %.200s", paths[i], r, np, got + k,
                             want + k);
                }
                free(got);
                free(want);
                unlink(out);
            }
        }
    }
    char ep[4200];
    snprintf(ep, sizeof ep, "%s/stderr", dir);
    unlink(ep);
    rmdir(dir);
}

/* A bad record in the last rank's range: one message naming file:line, exit 1 from the job. */
static void test_bad_record_ends_every_rank(void **state)
{
    (void)state;
    if (!have_mpirun())
        skip();
    size_t len;
    char *text = rt_test_read_file(RETRACE_FIXTURES "/paraver/small.prv", &len);
    /* the last line becomes a state record with a bad end */
    char *bad = malloc(len + 64);
    memcpy(bad, text, len);
    size_t k = len;
    if (k && bad[k - 1] != '\n')
        bad[k++] = '\n';
    unsigned long lines = 0;
    for (size_t i = 0; i < k; i++)
        lines += bad[i] == '\n';
    k += (size_t)sprintf(bad + k, "1:1:1:1:1:10:x:1\n");
    char dir[] = "/tmp/rt_par_textXXXXXX";
    assert_non_null(mkdtemp(dir));
    char prv[4200];
    snprintf(prv, sizeof prv, "%s/bad.prv", dir);
    FILE *f = fopen(prv, "w");
    fwrite(bad, 1, k, f);
    fclose(f);
    char want[4300];
    snprintf(want, sizeof want, "%s:%lu:", prv, lines + 1);
    for (int np = 1; np <= 4; np++) {
        char errbuf[4096];
        char arg[4300];
        snprintf(arg, sizeof arg, "'%s'", prv);
        int rc = run_ranks(np, arg, dir, errbuf, sizeof errbuf);
        assert_int_equal(rc, 1);
        if (!strstr(errbuf, want) || strchr(errbuf, '\n') != strrchr(errbuf, '\n'))
            fail_msg("%d ranks: stderr '%s', want one line with %s", np, errbuf, want);
    }
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(bad);
    free(text);
}

int main(int argc, char **argv)
{
    if (!realpath("/proc/self/exe", self))
        snprintf(self, sizeof self, "%s", argv[0]);
    if (getenv("RT_PAR_TEXT_CHILD") && argc >= 3)
        return child(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranks_get_their_events),
        cmocka_unit_test(test_bad_record_ends_every_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
