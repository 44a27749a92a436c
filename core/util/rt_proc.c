/* rt_proc.c - running a helper program without a shell (see rt_proc.h). */
#include "rt_proc.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int rt_run(const char *const *argv, int *code, rt_err *err)
{
    assert(argv && argv[0] && code);
    /* a close-on-exec pipe: it closes unread when exec succeeds, and carries the
     * child's errno back when exec fails, so "not found" is told apart from an
     * exit status of 127 */
    int fds[2];
    if (pipe(fds) != 0)
        return rt_err_set(err, RT_EIO, "run: pipe: %s", strerror(errno));
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return rt_err_set(err, RT_EIO, "run: fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        execvp(argv[0], (char *const *)argv);
        int e = errno;
        ssize_t w = write(fds[1], &e, sizeof e);
        (void)w;
        _exit(127);
    }
    close(fds[1]);
    int child_errno = 0;
    ssize_t got;
    do
        got = read(fds[0], &child_errno, sizeof child_errno);
    while (got < 0 && errno == EINTR);
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == (ssize_t)sizeof child_errno) {
        if (child_errno == ENOENT)
            return rt_err_set(err, RT_EIO, "%s: not found on PATH", argv[0]);
        return rt_err_set(err, RT_EIO, "%s: %s", argv[0], strerror(child_errno));
    }
    *code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return RT_OK;
}
