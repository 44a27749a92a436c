/* Tests of core/util/rt_out: outputs written whole or not at all. A write that
 * fails (the file-size limit stands in for a full disk), an abandoned output and
 * a folder that cannot take the file must each leave the target as it was and no
 * temporary behind; links and devices keep what they are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_test.h"

#include "rt_out.h"

/* a new empty folder under /tmp (malloc'd) */
static char *new_dir(void)
{
    char *d = strdup("/tmp/rt_out_XXXXXX");
    assert_non_null(d);
    assert_non_null(mkdtemp(d));
    return d;
}

/* names in folder d other than . and .., sorted into one string "a b c" */
static void listing(const char *d, char *buf, size_t cap)
{
    struct dirent **names;
    int n = scandir(d, &names, NULL, alphasort);
    assert_true(n >= 0);
    buf[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, "..")) {
            if (buf[0])
                strncat(buf, " ", cap - strlen(buf) - 1);
            strncat(buf, names[i]->d_name, cap - strlen(buf) - 1);
        }
        free(names[i]);
    }
    free(names);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strdup(buf);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_dir(char *d)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
    free(d);
}

static void test_commit_replaces_whole(void **state)
{
    (void)state;
    char *d = new_dir(), path[256], names[512];
    snprintf(path, sizeof path, "%s/r.csv", d);
    put(path, "old\n");
    rt_err err;
    rt_out *o = rt_out_open(path, &err);
    assert_non_null(o);
    fputs("a,b\n1,2\n", rt_out_fp(o));
    /* before the commit the target still holds the old text; the temporary is hidden */
    char *before = slurp(path);
    assert_string_equal(before, "old\n");
    free(before);
    listing(d, names, sizeof names);
    assert_non_null(strstr(names, ".r.csv."));
    assert_int_equal(rt_out_commit(o, &err), RT_OK);
    char *after = slurp(path);
    assert_string_equal(after, "a,b\n1,2\n");
    free(after);
    listing(d, names, sizeof names);
    assert_string_equal(names, "r.csv");
    remove_dir(d);
}

static void test_abort_leaves_target(void **state)
{
    (void)state;
    char *d = new_dir(), path[256], names[512];
    snprintf(path, sizeof path, "%s/new.png", d);
    rt_err err;
    rt_out *o = rt_out_open(path, &err);
    assert_non_null(o);
    fputs("half a picture", rt_out_fp(o));
    rt_out_abort(o);
    listing(d, names, sizeof names);
    assert_string_equal(names, ""); /* no target, no temporary */
    rt_out_abort(NULL);
    assert_int_equal(rt_out_commit(NULL, &err), RT_OK);
    remove_dir(d);
}

/* In a child (the limit is per process): a file-size limit of 4 KiB makes the
 * 64 KiB write fail as a full disk would. Exit 0 when the commit failed with a
 * message naming the file and the old content and folder are intact. */
static void test_failed_write_keeps_old(void **state)
{
    (void)state;
    char *d = new_dir(), path[256];
    snprintf(path, sizeof path, "%s/big.txt", d);
    put(path, "previous run\n");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl = {4096, 4096};
        setrlimit(RLIMIT_FSIZE, &rl);
        rt_err err;
        rt_out *o = rt_out_open(path, &err);
        if (!o)
            _exit(10);
        for (int i = 0; i < 65536; i++)
            fputc('x', rt_out_fp(o));
        if (rt_out_commit(o, &err) != RT_EIO)
            _exit(11);
        char want[300];
        snprintf(want, sizeof want, "%s: File too large", path);
        if (strcmp(err.msg, want) != 0)
            _exit(12);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char *now = slurp(path), names[512];
    assert_string_equal(now, "previous run\n");
    free(now);
    listing(d, names, sizeof names);
    assert_string_equal(names, "big.txt");
    remove_dir(d);
}

/* A failure the writer saw itself (rt_out_fail) fails the commit the same way. */
static void test_recorded_failure(void **state)
{
    (void)state;
    char *d = new_dir(), path[256], names[512];
    snprintf(path, sizeof path, "%s/x.pdf", d);
    rt_err err;
    rt_out *o = rt_out_open(path, &err);
    assert_non_null(o);
    fputs("%PDF", rt_out_fp(o));
    rt_out_fail(o, 28 /* ENOSPC */);
    assert_int_equal(rt_out_commit(o, &err), RT_EIO);
    char want[300];
    snprintf(want, sizeof want, "%s: No space left on device", path);
    assert_string_equal(err.msg, want);
    listing(d, names, sizeof names);
    assert_string_equal(names, "");
    remove_dir(d);
}

static void test_open_errors(void **state)
{
    (void)state;
    char *d = new_dir(), path[256];
    rt_err err;
    snprintf(path, sizeof path, "%s/missing/x.csv", d);
    assert_null(rt_out_open(path, &err));
    char want[300];
    snprintf(want, sizeof want, "%s: No such file or directory", path);
    assert_string_equal(err.msg, want);
    assert_null(rt_out_open(d, &err));
    snprintf(want, sizeof want, "%s: is a folder", d);
    assert_string_equal(err.msg, want);
    remove_dir(d);
}

/* A link keeps being a link to the new content; a device is written in place. */
static void test_link_and_device(void **state)
{
    (void)state;
    char *d = new_dir(), file[256], link[256];
    snprintf(file, sizeof file, "%s/real.txt", d);
    snprintf(link, sizeof link, "%s/link.txt", d);
    put(file, "one");
    assert_int_equal(symlink("real.txt", link), 0);
    rt_err err;
    rt_out *o = rt_out_open(link, &err);
    assert_non_null(o);
    fputs("two", rt_out_fp(o));
    assert_int_equal(rt_out_commit(o, &err), RT_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char *now = slurp(file);
    assert_string_equal(now, "two");
    free(now);
    o = rt_out_open("/dev/null", &err);
    assert_non_null(o);
    fputs("gone", rt_out_fp(o));
    assert_int_equal(rt_out_commit(o, &err), RT_OK);
    assert_int_equal(stat("/dev/null", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    o = rt_out_open("/dev/full", &err);
    assert_non_null(o);
    fputs("no room", rt_out_fp(o));
    assert_int_equal(rt_out_commit(o, &err), RT_EIO);
    assert_string_equal(err.msg, "/dev/full: No space left on device");
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    remove_dir(d);
}

/* discarding (the ranks other than 0 of an MPI job): nothing is created or replaced, a
 * folder is still refused, and writing resumes when discarding stops */
static void test_discard(void **state)
{
    (void)state;
    char *d = new_dir(), path[256], fresh[256], names[512];
    snprintf(path, sizeof path, "%s/kept.txt", d);
    snprintf(fresh, sizeof fresh, "%s/fresh.txt", d);
    put(path, "old\n");
    rt_err err;
    rt_out_discard(1);
    rt_out *o = rt_out_open(path, &err);
    assert_non_null(o);
    fputs("new\n", rt_out_fp(o));
    assert_int_equal(rt_out_commit(o, &err), RT_OK);
    o = rt_out_open(fresh, &err);
    assert_non_null(o);
    fputs("x", rt_out_fp(o));
    assert_int_equal(rt_out_commit(o, &err), RT_OK);
    assert_null(rt_out_open(d, &err));
    assert_non_null(strstr(err.msg, "is a folder"));
    char *kept = slurp(path);
    assert_string_equal(kept, "old\n");
    free(kept);
    listing(d, names, sizeof names);
    assert_string_equal(names, "kept.txt");
    rt_out_discard(0);
    o = rt_out_open(fresh, &err);
    assert_non_null(o);
    fputs("y", rt_out_fp(o));
    assert_int_equal(rt_out_commit(o, &err), RT_OK);
    listing(d, names, sizeof names);
    assert_string_equal(names, "fresh.txt kept.txt");
    remove_dir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_replaces_whole),
        cmocka_unit_test(test_abort_leaves_target),
        cmocka_unit_test(test_failed_write_keeps_old),
        cmocka_unit_test(test_recorded_failure),
        cmocka_unit_test(test_open_errors),
        cmocka_unit_test(test_link_and_device),
        cmocka_unit_test(test_discard),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
