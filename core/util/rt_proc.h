/*
 * rt_proc.h - running a helper program (ffmpeg, dot) without a shell.
 *
 * For the few outputs retrace leaves to another program: the argument vector
 * goes to execvp as it is, so no word of it is ever parsed by a shell, and a
 * missing program is told apart from a program that ran and failed.
 */
#ifndef RT_PROC_H
#define RT_PROC_H

#include "rt_error.h"

/*
 * Run argv[0] (looked up on PATH) with the NULL-terminated argv and wait for
 * it. RT_OK with *code its exit status (128 + the signal when it was killed);
 * RT_EIO when it could not start, err reading "NAME: not found on PATH" or
 * "NAME: reason" (or "run: fork: reason"). argv must hold at least one word.
 */
int rt_run(const char *const *argv, int *code, rt_err *err);

#endif
