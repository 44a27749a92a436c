/*
 * Tests of the `retrace` program: exit codes and messages of the command line,
 * and the REPL driven through a pseudo-terminal (expression printing,
 * multi-line input, error recovery, Ctrl-C, tab completion, history file).
 * The binary is $RETRACE_BIN.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_test.h"

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void test_version(void **state)
{
    (void)state;
    char out[4096], err[4096], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -e 'print(require(\"retrace\").version)'", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, RETRACE_VERSION_EXPECTED "\n");
    snprintf(cmd, sizeof cmd, "%s --version", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "retrace " RETRACE_VERSION_EXPECTED));
}

static void test_missing_script(void **state)
{
    (void)state;
    char out[4096], err[4096], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s /nonexistent/script.lua", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 1);
    assert_string_equal(err, "retrace: /nonexistent/script.lua: No such file or directory\n");
    assert_int_equal(count_lines(err), 1);
}

static void test_bad_usage(void **state)
{
    (void)state;
    char out[4096], err[4096], cmd[1024];
    snprintf(cmd, sizeof cmd, "%s --no-such-option", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "retrace: unknown option '--no-such-option'"));
    snprintf(cmd, sizeof cmd, "%s -e", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 2);
    snprintf(cmd, sizeof cmd, "%s nosuchcommand", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "unknown command 'nosuchcommand'"));
    assert_non_null(strstr(err, "help")); /* lists the known ones */
    snprintf(cmd, sizeof cmd, "%s info", rt_test_bin()); /* missing required argument */
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 2);
    snprintf(cmd, sizeof cmd, "%s run", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 2);
}

static void test_scripts_and_args(void **state)
{
    (void)state;
    char out[4096], err[4096], cmd[1024];
    FILE *f = fopen("/tmp/rt_host_script.lua", "w");
    assert_non_null(f);
    fputs("print(arg[0], #arg, ...)\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s /tmp/rt_host_script.lua a b", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/tmp/rt_host_script.lua\t2\ta\tb\n");
    snprintf(cmd, sizeof cmd, "%s run /tmp/rt_host_script.lua x", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "/tmp/rt_host_script.lua\t1\tx\n");
    snprintf(cmd, sizeof cmd, "echo 'print(6*7)' | %s -", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "42\n");
    snprintf(cmd, sizeof cmd, "echo 'print(6*7)' | %s", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, "42\n");
    /* a runtime error: exit 1, message with a traceback */
    snprintf(cmd, sizeof cmd, "%s -e 'error(\"boom\")'", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "retrace: (command line):1: boom"));
    assert_non_null(strstr(err, "stack traceback"));
    /* a syntax error in a script: exit 1, file and line named */
    f = fopen("/tmp/rt_host_bad.lua", "w");
    fputs("x = 1\nif then\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s /tmp/rt_host_bad.lua", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "retrace: /tmp/rt_host_bad.lua:2:"));
    /* os.exit codes pass through */
    snprintf(cmd, sizeof cmd, "%s -e 'os.exit(3)'", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 3);
    /* -i without a terminal: runs, then reads the REPL from stdin */
    snprintf(cmd, sizeof cmd, "echo 'x + 1' | %s -e 'x = 41' -i", rt_test_bin());
    assert_int_equal(rt_test_run(cmd, out, sizeof out, err, sizeof err), 0);
    assert_non_null(strstr(out, "42"));
}

/* ---- REPL through a pseudo-terminal ---- */

typedef struct {
    int fd;
    pid_t pid;
    char buf[65536];
    size_t len;
} pty_proc;

static void pty_start(pty_proc *p, const char *home, const char *extra_arg)
{
    memset(p, 0, sizeof *p);
    struct winsize ws = {.ws_row = 40, .ws_col = 200};
    p->pid = forkpty(&p->fd, NULL, NULL, &ws);
    assert_true(p->pid >= 0);
    if (p->pid == 0) {
        setenv("HOME", home, 1);
        unsetenv("RETRACE_HISTORY");
        setenv("TERM", "dumb", 1);
        setenv("INPUTRC", "/dev/null", 1);
        if (extra_arg)
            execl(rt_test_bin(), rt_test_bin(), extra_arg, (char *)NULL);
        else
            execl(rt_test_bin(), rt_test_bin(), (char *)NULL);
        _exit(127);
    }
}

/* Read until needle appears in the output after offset *from (or time out). */
static int pty_expect(pty_proc *p, size_t *from, const char *needle, int ms)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        p->buf[p->len] = '\0';
        char *hit = strstr(p->buf + *from, needle);
        if (hit) {
            *from = (size_t)(hit - p->buf) + strlen(needle);
            return 1;
        }
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (el > ms)
            return 0;
        struct pollfd pf = {.fd = p->fd, .events = POLLIN};
        if (poll(&pf, 1, 50) > 0) {
            ssize_t n = read(p->fd, p->buf + p->len, sizeof p->buf - 1 - p->len);
            if (n <= 0)
                return 0;
            p->len += (size_t)n;
        }
    }
}

static void pty_send(pty_proc *p, const char *s)
{
    size_t n = strlen(s);
    assert_int_equal(write(p->fd, s, n), (ssize_t)n);
}

static int pty_finish(pty_proc *p)
{
    int st = 0;
    for (int i = 0; i < 400; i++) {
        if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
            close(p->fd);
            if (WIFSIGNALED(st))
                fprintf(stderr, "REPL killed by signal %d; output:\n%s\n", WTERMSIG(st), p->buf);
            return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        }
        struct pollfd pf = {.fd = p->fd, .events = POLLIN};
        if (poll(&pf, 1, 50) > 0) {
            ssize_t n = read(p->fd, p->buf + p->len, sizeof p->buf - 1 - p->len);
            if (n > 0)
                p->len += (size_t)n;
            else
                usleep(10000);
        }
    }
    p->buf[p->len] = '\0';
    fprintf(stderr, "REPL did not exit; output:\n%s\n", p->buf);
    kill(p->pid, SIGKILL);
    waitpid(p->pid, &st, 0);
    close(p->fd);
    return -1;
}

#define EXPECT(p, from, s) \
    assert_true_msg(pty_expect(p, from, s, 8000), s, (p)->buf)

static void assert_true_msg(int ok, const char *wanted, const char *seen)
{
    if (!ok)
        fail_msg("expected '%s' in REPL output; saw:\n%s", wanted, seen);
}

static void test_repl(void **state)
{
    (void)state;
    char home[] = "/tmp/rt_host_home_XXXXXX";
    assert_non_null(mkdtemp(home));
    pty_proc p;
    size_t at = 0;
    pty_start(&p, home, NULL);
    EXPECT(&p, &at, "retrace> ");

    pty_send(&p, "1+1\r");
    EXPECT(&p, &at, "\n2\r\n");
    EXPECT(&p, &at, "retrace> ");

    pty_send(&p, "t = {1, 2, name = 'x', sub = {a = true}}\r");
    EXPECT(&p, &at, "retrace> ");
    pty_send(&p, "t\r");
    EXPECT(&p, &at, "{ 1, 2, name = \"x\", sub = { a = true } }");
    EXPECT(&p, &at, "retrace> ");

    /* multi-line input continues on an incomplete chunk */
    pty_send(&p, "function sq(x)\r");
    EXPECT(&p, &at, "...> ");
    pty_send(&p, "  return x * x\r");
    EXPECT(&p, &at, "...> ");
    pty_send(&p, "end\r");
    EXPECT(&p, &at, "retrace> ");
    pty_send(&p, "sq(12)\r");
    EXPECT(&p, &at, "144");
    EXPECT(&p, &at, "retrace> ");

    /* an error prints a traceback and the REPL goes on */
    pty_send(&p, "error('kaboom')\r");
    EXPECT(&p, &at, "kaboom");
    EXPECT(&p, &at, "stack traceback");
    EXPECT(&p, &at, "retrace> ");
    pty_send(&p, "sq(3) + 1\r");
    EXPECT(&p, &at, "10");
    EXPECT(&p, &at, "retrace> ");

    /* Ctrl-C interrupts a running loop without leaving the REPL */
    pty_send(&p, "while true do end\r");
    usleep(300000);
    pty_send(&p, "\003");
    EXPECT(&p, &at, "interrupted!");
    EXPECT(&p, &at, "retrace> ");
    pty_send(&p, "40 + 2\r");
    EXPECT(&p, &at, "42");
    EXPECT(&p, &at, "retrace> ");

    /* Ctrl-C at the prompt drops the line being typed, and the next keystroke
     * belongs to the next line (the "4" of "41 + 1" is not swallowed) */
    pty_send(&p, "half a line");
    usleep(200000);
    pty_send(&p, "\003");
    usleep(200000);
    pty_send(&p, "41 + 1\r");
    EXPECT(&p, &at, "42");
    EXPECT(&p, &at, "retrace> ");

    /* tab completes fields of the retrace module */
    pty_send(&p, "retrace.vers\t\r");
    EXPECT(&p, &at, "retrace.version");
    EXPECT(&p, &at, "\"" RETRACE_VERSION_EXPECTED "\"");
    EXPECT(&p, &at, "retrace> ");

    /* Ctrl-D leaves */
    pty_send(&p, "\004");
    assert_int_equal(pty_finish(&p), 0);

    /* the history file holds what was typed */
    char hist[256];
    snprintf(hist, sizeof hist, "%s/.retrace_history", home);
    char *text = rt_test_read_file(hist, NULL);
    assert_non_null(strstr(text, "1+1"));
    assert_non_null(strstr(text, "sq(12)"));
    assert_non_null(strstr(text, "return x * x"));
    free(text);

    /* a new session sees the history: Up arrow recalls the last line */
    at = 0;
    pty_start(&p, home, NULL);
    EXPECT(&p, &at, "retrace> ");
    pty_send(&p, "\033[A\r");
    EXPECT(&p, &at, "\"" RETRACE_VERSION_EXPECTED "\"");
    EXPECT(&p, &at, "retrace> ");
    pty_send(&p, "\004");
    assert_int_equal(pty_finish(&p), 0);
}

/*
 * Ctrl-C during a long C call: the first one only arms the hook (which fires
 * when the call returns to Lua), so a second one must take the default action
 * and end the program, as lua.c does; after an interrupted call the handler is
 * back, so a later loop is still interrupted cleanly.
 */
static void test_second_ctrl_c(void **state)
{
    (void)state;
    char home[] = "/tmp/retrace-sigint-XXXXXX";
    assert_non_null(mkdtemp(home));
    pty_proc p;
    size_t at = 0;
    pty_start(&p, home, NULL);
    EXPECT(&p, &at, "retrace> ");
    /* the handler is reinstalled after each interrupted call */
    for (int i = 0; i < 2; i++) {
        pty_send(&p, "while true do end\r");
        usleep(300000);
        pty_send(&p, "\003");
        EXPECT(&p, &at, "interrupted!");
        EXPECT(&p, &at, "retrace> ");
    }
    /* ".-b" on a string without 'b' backtracks quadratically inside one C call */
    pty_send(&p, "s = ('a'):rep(400000); print('go' .. 'ing'); s:find('.-b')\r");
    EXPECT(&p, &at, "going");
    usleep(300000);
    pty_send(&p, "\003");
    usleep(300000);
    pty_send(&p, "\003");
    int st = 0, ended = 0;
    for (int i = 0; i < 100 && !ended; i++) {
        if (waitpid(p.pid, &st, WNOHANG) == p.pid)
            ended = 1;
        else
            usleep(50000);
    }
    if (!ended) {
        kill(p.pid, SIGKILL);
        waitpid(p.pid, &st, 0);
    }
    close(p.fd);
    assert_true(ended);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGINT);
}

/*
 * Ctrl-C during `retrace cache` with its progress bar (stderr a terminal):
 * the interrupt raised inside the progress callback stops the C loop and
 * ends the command with one line and exit 130 (what a shell reports for
 * Ctrl-C, so a loop over files stops too), instead of being swallowed by the
 * callback and the run going on to the end.
 */
static void test_ctrl_c_in_progress(void **state)
{
    (void)state;
    char path[] = "/tmp/retrace-big-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    for (long i = 0; i < 4000000; i++)
        fprintf(f, "0 %lx\n", (unsigned long)i * 64);
    fclose(f);
    pty_proc p;
    memset(&p, 0, sizeof p);
    struct winsize ws = {.ws_row = 40, .ws_col = 200};
    p.pid = forkpty(&p.fd, NULL, NULL, &ws);
    assert_true(p.pid >= 0);
    if (p.pid == 0) {
        unsetenv("RETRACE_NO_PROGRESS");
        setenv("TERM", "dumb", 1);
        execl(rt_test_bin(), rt_test_bin(), "cache", "--size", "1024", "--sweep", path, (char *)NULL);
        _exit(127);
    }
    size_t at = 0;
    EXPECT(&p, &at, "%"); /* the progress bar is up: the run is inside the C loop */
    pty_send(&p, "\003");
    int st = 0, ended = 0;
    for (int i = 0; i < 600 && !ended; i++) {
        if (waitpid(p.pid, &st, WNOHANG) == p.pid)
            ended = 1;
        else {
            struct pollfd pf = {.fd = p.fd, .events = POLLIN};
            ssize_t n = poll(&pf, 1, 50) > 0 ? read(p.fd, p.buf + p.len, sizeof p.buf - 1 - p.len) : 0;
            if (n > 0)
                p.len += (size_t)n;
            else
                usleep(50000); /* the terminal closed (EIO) before the exit is reaped: wait, do not spin */
        }
    }
    if (!ended) {
        kill(p.pid, SIGKILL);
        waitpid(p.pid, &st, 0);
    }
    for (;;) { /* what it wrote before it exited */
        struct pollfd pf = {.fd = p.fd, .events = POLLIN};
        ssize_t n = poll(&pf, 1, 200) > 0 ? read(p.fd, p.buf + p.len, sizeof p.buf - 1 - p.len) : 0;
        if (n <= 0)
            break;
        p.len += (size_t)n;
    }
    close(p.fd);
    unlink(path);
    p.buf[p.len] = '\0';
    assert_true(ended);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 130);
    assert_non_null(strstr(p.buf, "retrace: interrupted\r\n"));
    assert_null(strstr(p.buf, "stack traceback"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_missing_script),
        cmocka_unit_test(test_bad_usage),
        cmocka_unit_test(test_scripts_and_args),
        cmocka_unit_test(test_repl),
        cmocka_unit_test(test_second_ctrl_c),
        cmocka_unit_test(test_ctrl_c_in_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
