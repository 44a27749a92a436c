/* rt_error.c - status texts and error message formatting (see rt_error.h). */
#include "rt_error.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const status_text[] = {
#define RT_X_TEXT(name, text) text,
    RT_STATUS_LIST(RT_X_TEXT)
#undef RT_X_TEXT
};

const char *rt_strerror(int status)
{
    if (status < 0 || status >= RT_STATUS_COUNT)
        return "unknown error";
    return status_text[status];
}

void rt_err_clear(rt_err *err)
{
    if (!err)
        return;
    err->status = RT_OK;
    err->msg[0] = '\0';
}

static void vset(rt_err *err, int status, const char *prefix, const char *fmt, va_list ap)
{
    size_t n = (size_t)snprintf(err->msg, sizeof err->msg, "%s", prefix);
    if (n < sizeof err->msg)
        vsnprintf(err->msg + n, sizeof err->msg - n, fmt, ap);
    err->status = status;
}

int rt_err_set(rt_err *err, int status, const char *fmt, ...)
{
    if (!err)
        return status;
    va_list ap;
    va_start(ap, fmt);
    vset(err, status, "", fmt, ap);
    va_end(ap);
    return status;
}

int rt_err_at(rt_err *err, int status, const char *file, unsigned long line,
              const char *fmt, ...)
{
    if (!err)
        return status;
    char prefix[300];
    if (line > 0)
        snprintf(prefix, sizeof prefix, "%s:%lu: ", file ? file : "?", line);
    else
        snprintf(prefix, sizeof prefix, "%s: ", file ? file : "?");
    va_list ap;
    va_start(ap, fmt);
    vset(err, status, prefix, fmt, ap);
    va_end(ap);
    return status;
}
