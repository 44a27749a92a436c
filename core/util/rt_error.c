/* rt_error.c - status texts and error message formatting (see rt_error.h). */
#include "rt_error.h"

#include <signal.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

static volatile sig_atomic_t interrupt_flag;

void rt_interrupt_request(void) { interrupt_flag = 1; }

void rt_interrupt_clear(void) { interrupt_flag = 0; }

int rt_interrupt_pending(void) { return interrupt_flag != 0; }

int rt_interrupt_check(rt_err *err)
{
    if (!interrupt_flag)
        return RT_OK;
    return rt_err_set(err, RT_EINTR, "interrupted!");
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

const char *rt_excerpt(const char *s, size_t n, int stop_at_blank, char *buf, size_t cap)
{
    size_t o = 0, i = 0;
    for (; i < n && i < 32; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (stop_at_blank && (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'))
            break;
        if (o + 8 >= cap)
            break;
        if (ch >= 0x20 && ch < 0x7f && ch != '\\')
            buf[o++] = (char)ch;
        else
            o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", ch);
    }
    int cut = i < n && !(stop_at_blank && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'));
    if (cut && o + 4 < cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}
