/* picl.c - PICL trace readers (old and new formats), event vocabulary, old -> new
 * translation (see rt_picl.h). */
#include "rt_picl.h"
#include "rt_picl_source.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_lines.h"

struct rt_picl {
    rt_lines *lines;
    int format;            /* RT_PICL_OLD / RT_PICL_NEW once known */
    int strict;
    void (*on_skip)(void *ud, const char *msg);
    void *ud;
    unsigned long skipped;
    uint64_t count;
    int have_pending;      /* the detection line was parsed into pending */
    rt_picl_record pending;
    /* new format: the block of whole lines being parsed in place (rt_lines_block);
     * [bstart, bp) parsed but not yet reported to the line reader as consumed */
    const char *bstart, *bp, *bend;
    unsigned long blines;  /* lines in [bstart, bp) */
    unsigned long bline0;  /* the line number before the block */
    const char *lp;        /* the text of the last record or skipped line (rt_picl_line) */
    size_t llen;
    unsigned long lno;     /* its line */
};

/* ---- numbers ---- */

/* The careful path (unusual lines only): strtod. */
static int parse_double(rt_span s, double *out)
{
    return rt_span_double(s, out);
}

static int parse_long(rt_span s, long *out)
{
    return rt_span_long(s, out);
}

/* ---- fast path: the common new-format line, scanned once, numbers in place ---- */

/*
 * Nearly every line of a long trace is plain: six head fields (integers and a
 * decimal time) and a few integer data values. The fast scanner reads such a
 * line in one pass and gives up (0) on anything unusual; the careful parser
 * then takes the line and gives the same record or the same error. So a line
 * the fast path accepts must give exactly what the careful one gives: integers
 * as strtol, reals as strtod (correctly rounded).
 *
 * The scanner needs no end pointer: the text it reads ends with a newline or a
 * NUL (the line reader's blocks end with '\n', or with the NUL it keeps past
 * the last line; rt_picl_parse_line copies a line to a terminated buffer), and
 * no character it steps over is either, so it stops at the line's end at the latest.
 */

/* Character classes: blank (space, tab, carriage return) and what may follow a
 * number (a blank, the newline or the NUL end), one table load per test. */
enum { CC_BLANK = 1, CC_END = 2 };
static const unsigned char char_class[256] = {
    [0] = CC_END, ['\n'] = CC_END, [' '] = CC_BLANK | CC_END, ['\t'] = CC_BLANK | CC_END, ['\r'] = CC_BLANK | CC_END};

static inline int is_blank(char c) { return char_class[(unsigned char)c] & CC_BLANK; }

static inline int ends_number(char c) { return char_class[(unsigned char)c] & CC_END; }

static inline const char *skip_blanks(const char *p)
{
    while (is_blank(*p))
        p++;
    return p;
}

/* Exact powers of ten: every one up to 10^22 is a double without rounding. */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* "digits" (1 to 18, no sign) at p into *out; the end of the number, or NULL. */
static inline const char *fast_count(const char *p, long *out)
{
    const char *d0 = p;
    uint64_t m = 0;
    unsigned d;
    while ((d = (unsigned)((unsigned char)*p - '0')) <= 9) {
        m = m * 10 + d;
        p++;
    }
    /* 1 to 18 digits: one unsigned comparison */
    if ((size_t)(p - d0) - 1 > 17 || !ends_number(*p))
        return NULL;
    *out = (long)m;
    return p;
}

/* "[-]digits" (at most 18) at p into *out; the end of the number, or NULL for anything else. */
static inline const char *fast_long(const char *p, long *out)
{
    int neg = *p == '-';
    long m;
    if (!(p = fast_count(p + neg, &m)))
        return NULL;
    *out = neg ? -m : m;
    return p;
}

/* The exponent of "e[+-]digits" (at most 4 digits) at p into *e; its end, or NULL. */
static const char *fast_exponent(const char *p, int *e)
{
    p++;
    int neg = *p == '-';
    p += *p == '-' || *p == '+';
    const char *d0 = p;
    int v = 0;
    unsigned d;
    while ((d = (unsigned)((unsigned char)*p - '0')) <= 9 && p - d0 < 4) {
        v = v * 10 + (int)d;
        p++;
    }
    if (p == d0)
        return NULL;
    *e = neg ? -v : v;
    return p;
}

/* "[-]digits[.digits][e[+-]digits]" at p (at most 19 digits) into *out, exactly
 * strtod's value; the end of the number, or NULL (then strtod decides). */
static inline const char *fast_double(const char *p, double *out)
{
    int neg = *p == '-';
    p += neg;
    const char *d0 = p;
    uint64_t m = 0;
    unsigned d;
    while ((d = (unsigned)((unsigned char)*p - '0')) <= 9) {
        m = m * 10 + d;
        p++;
    }
    int digits = (int)(p - d0), scale = 0;
    if (*p == '.') {
        const char *f0 = ++p;
        while ((d = (unsigned)((unsigned char)*p - '0')) <= 9) {
            m = m * 10 + d;
            p++;
        }
        scale = -(int)(p - f0);
        digits -= scale;
    }
    /* 19 digits cannot overflow the 64-bit mantissa (more are refused) */
    if (digits == 0 || digits > 19)
        return NULL;
    if (*p == 'e' || *p == 'E') {
        int e;
        if (!(p = fast_exponent(p, &e)))
            return NULL;
        scale += e;
    }
    if (!ends_number(*p))
        return NULL;
    double v = 0;
    if (m != 0) {
        /* Clinger's fast case: an exact mantissa and an exact power of ten, so the
         * one rounding of the division or product is strtod's correct rounding */
        if (m > (1ull << 53) || scale < -22 || scale > 22)
            return NULL;
        v = (double)m;
        if (scale < 0)
            v /= pow10_exact[-scale];
        else if (scale > 0)
            v *= pow10_exact[scale];
    }
    *out = neg ? -v : v;
    return p;
}

/* The time stamp: nearly always "[-]digits.digits" (at most 15 digits), inlined
 * here; anything else goes through fast_double. */
static inline const char *fast_time(const char *p, double *out)
{
    const char *s = p;
    int neg = *p == '-';
    p += neg;
    const char *d0 = p;
    uint64_t m = 0;
    unsigned d;
    while ((d = (unsigned)((unsigned char)*p - '0')) <= 9) {
        m = m * 10 + d;
        p++;
    }
    if (*p == '.') {
        const char *f0 = ++p;
        while ((d = (unsigned)((unsigned char)*p - '0')) <= 9) {
            m = m * 10 + d;
            p++;
        }
        size_t k = (size_t)(p - f0);
        /* 1 to 15 digits in all (below 2^53), 1 to 15 of them after the point */
        if (k - 1 < 15 && (size_t)(p - d0) - 2 < 15 && ends_number(*p)) {
            double v = (double)m / pow10_exact[k];
            *out = neg ? -v : v;
            return p;
        }
    }
    return fast_double(s, out);
}

/* A data value: most are plain counts ("1024", "3"), exact as doubles up to 15
 * digits without further checks; anything else goes through fast_double. */
static inline const char *fast_value(const char *p, double *out)
{
    const char *d0 = p;
    uint64_t m = 0;
    unsigned d;
    while ((d = (unsigned)((unsigned char)*p - '0')) <= 9) {
        m = m * 10 + d;
        p++;
    }
    if (p != d0 && p - d0 <= 15 && ends_number(*p)) {
        *out = (double)m;
        return p;
    }
    return fast_double(d0, out);
}

int rt_picl_fast_double(const char *p, size_t len, double *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, p, len);
    buf[len] = '\0';
    const char *e = fast_double(buf, out);
    return e == buf + len;
}

/* Integer fields are kept in ints: a wider value would wrap (event 4294967275
 * replaying as -21, a send), so it is an error, not a silent cut. */
static int int_range(long v) { return v >= INT_MIN && v <= INT_MAX; }

/* A send entry or receive exit whose message length (first value) is negative. */
static int negative_length(const rt_picl_record *rec)
{
    rt_event_family f = rt_picl_event_family(rec->event);
    return rec->ndata >= 1 && rec->data[0] < 0 &&
           ((rec->rectype == RT_PICL_ENTRY && f == RT_EV_SEND) || (rec->rectype == RT_PICL_EXIT && f == RT_EV_RECV));
}

/*
 * One new-format line at line (ending with '\n' or NUL): 1 when parsed
 * completely, with *eol at that '\n' or NUL; 0 sends it to the careful parser.
 * cut_cr: a carriage return before the end is the line reader's to drop (not
 * part of rec->text), as it is for a line read with rt_lines_next.
 */
static int parse_new_fast(const char *line, int cut_cr, rt_picl_record *rec, const char **eol)
{
    long h[6];
    double time;
    const char *p = skip_blanks(line);
    /* the record type is negative, the processor and the data count are not: a
     * line where they are otherwise is the careful parser's to report */
    if (*p != '-' || !(p = fast_count(p + 1, &h[0])) || !(p = fast_long(skip_blanks(p), &h[1])) ||
        !(p = fast_time(skip_blanks(p), &time)) || !(p = fast_count(skip_blanks(p), &h[3])) ||
        !(p = fast_long(skip_blanks(p), &h[4])) || !(p = fast_count(skip_blanks(p), &h[5])))
        return 0;
    h[0] = -h[0];
    if (h[0] > -2 || h[3] < 0 || h[3] >= RT_PICL_MAXPROC || h[5] < 0 || h[5] > RT_PICL_MAXDATA ||
        !int_range(h[0]) || !int_range(h[1]) || !int_range(h[4]))
        return 0;
    rec->format = RT_PICL_NEW;
    rec->rectype = (int)h[0];
    rec->event = (int)h[1];
    rec->time = time;
    rec->proc = (int)h[3];
    rec->task = (int)h[4];
    rec->ndata_field = (int)h[5];
    rec->desc = 0;
    rec->fmt[0] = '\0';
    rec->ndata = 0;
    rec->truncated = 0;
    rec->line = 0;
    rec->text = NULL;
    rec->textlen = 0;
    p = skip_blanks(p);
    if (*p == '\n' || *p == '\0') {
        *eol = p;
        return h[5] == 0;
    }
    long desc;
    if (!(p = fast_long(p, &desc)))
        return 0;
    rec->desc = (int)desc;
    const char *text = p;
    p = skip_blanks(p);
    while (*p != '\n' && *p != '\0') {
        if (rec->ndata >= RT_PICL_MAXDATA || !(p = fast_value(p, &rec->data[rec->ndata])))
            return 0;
        rec->ndata++;
        p = skip_blanks(p);
    }
    *eol = p;
    const char *le = cut_cr && p > line && p[-1] == '\r' ? p - 1 : p;
    while (text < le && is_blank(*text))
        text++;
    rec->text = text;
    rec->textlen = (size_t)(le - text);
    return rec->ndata == h[5] && !negative_length(rec);
}

/* ---- line parsers ---- */

#define WHY(...) (snprintf(why, whycap, __VA_ARGS__), -1)

static void rec_reset(rt_picl_record *rec, int format)
{
    rec->format = format;
    rec->rectype = rec->event = rec->proc = rec->task = 0;
    rec->time = 0;
    rec->ndata_field = rec->desc = rec->ndata = rec->truncated = 0;
    rec->fmt[0] = '\0';
    rec->line = 0;
    rec->text = NULL;
    rec->textlen = 0;
}

static int blank_or_comment(const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        i++;
    return i == len || line[i] == '#';
}

/* Append a value to rec->data (counting past the end sets truncated). */
static void push_value(rt_picl_record *rec, double v, int *got)
{
    if (rec->ndata < RT_PICL_MAXDATA)
        rec->data[rec->ndata++] = v;
    else
        rec->truncated = 1;
    (*got)++;
}

static int conversions(const char *fmt)
{
    int n = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p == '%') {
            if (p[1] == '%') {
                p++;
                continue;
            }
            n++;
        }
    }
    return n;
}

static int parse_new(const char *line, size_t len, rt_picl_record *rec, char *why, size_t whycap)
{
    const char *cur = line, *end = line + len;
    rt_span t;
    long v;
    static const char *const names[] = {"record type", "event type", "time", "processor", "task",
                                        "data count"};
    long head[6];
    double time = 0;
    rec_reset(rec, RT_PICL_NEW);
    for (int k = 0; k < 6; k++) {
        if (!rt_tok_next(&cur, end, &t))
            return WHY("%s: missing (a new-format record has at least 6 fields)", names[k]);
        if (k == 2) {
            if (!parse_double(t, &time))
                return WHY("time: '%.*s' is not a number", (int)(t.n > 40 ? 40 : t.n), t.p);
            continue;
        }
        if (!parse_long(t, &v))
            return WHY("%s: '%.*s' is not an integer", names[k], (int)(t.n > 40 ? 40 : t.n), t.p);
        head[k] = v;
    }
    if (head[0] > -2)
        return WHY("record type: %ld is not a new-format record type (<= -2)", head[0]);
    if (head[3] < 0 || head[3] >= RT_PICL_MAXPROC)
        return WHY("processor: %ld out of range (0..%d)", head[3], RT_PICL_MAXPROC - 1);
    if (head[5] < 0)
        return WHY("data count: %ld is negative", head[5]);
    for (int k = 0; k < 5; k++)
        if (k != 2 && !int_range(head[k]))
            return WHY("%s: %ld out of range (%d..%d)", names[k], head[k], INT_MIN, INT_MAX);
    rec->rectype = (int)head[0];
    rec->event = (int)head[1];
    rec->time = time;
    rec->proc = (int)head[3];
    rec->task = (int)head[4];
    rec->ndata_field = (int)head[5];
    /* descriptor */
    if (!rt_tok_next(&cur, end, &t)) {
        if (head[5] == 0)
            return 1;
        return WHY("descriptor: missing before %ld data values", head[5]);
    }
    long expect = head[5];
    if (t.p[0] == '"') {
        const char *q0 = t.p + 1;
        const char *q1 = memchr(q0, '"', (size_t)(end - q0));
        if (!q1)
            return WHY("descriptor: unterminated quoted format");
        size_t fl = (size_t)(q1 - q0);
        if (fl >= sizeof rec->fmt)
            fl = sizeof rec->fmt - 1;
        memcpy(rec->fmt, q0, fl);
        rec->fmt[fl] = '\0';
        cur = q1 + 1;
        int nc = conversions(rec->fmt);
        if (nc == 0)
            return WHY("descriptor: format \"%s\" has no conversion", rec->fmt);
        expect = head[5] * nc;
    } else {
        if (!parse_long(t, &v)) {
            if (head[5] == 0)
                return WHY("data: 0 values expected, found '%.*s'", (int)(t.n > 40 ? 40 : t.n), t.p);
            return WHY("descriptor: '%.*s' is neither a type code nor a quoted format",
                       (int)(t.n > 40 ? 40 : t.n), t.p);
        }
        rec->desc = (int)v;
    }
    while (cur < end && (*cur == ' ' || *cur == '\t'))
        cur++;
    rec->text = cur;
    rec->textlen = (size_t)(end - cur);
    int got = 0;
    while (rt_tok_next(&cur, end, &t)) {
        double d;
        if (!parse_double(t, &d)) {
            if (strchr(rec->fmt, 's')) /* a string value: kept as NaN */
                d = NAN;
            else
                return WHY("data: value %d '%.*s' is not a number", got + 1,
                           (int)(t.n > 40 ? 40 : t.n), t.p);
        }
        push_value(rec, d, &got);
    }
    if (got != expect)
        return WHY("data: %ld values expected, found %d", expect, got);
    if (negative_length(rec))
        return WHY("data: message length %g is negative", rec->data[0]);
    return 1;
}

static int parse_old(const char *line, size_t len, rt_picl_record *rec, char *why, size_t whycap)
{
    const char *cur = line, *end = line + len;
    rt_span t;
    static const char *const names[] = {"code", "seconds", "microseconds", "node"};
    long head[4];
    rec_reset(rec, RT_PICL_OLD);
    for (int k = 0; k < 4; k++) {
        if (!rt_tok_next(&cur, end, &t))
            return WHY("%s: missing (an old-format record has at least 4 fields)", names[k]);
        if (!parse_long(t, &head[k]))
            return WHY("%s: '%.*s' is not an integer", names[k], (int)(t.n > 40 ? 40 : t.n), t.p);
    }
    if (head[0] < 1)
        return WHY("code: %ld is not an old-format record code (>= 1)", head[0]);
    if (head[0] > INT_MAX)
        return WHY("code: %ld out of range (1..%d)", head[0], INT_MAX);
    if (head[3] < 0 || head[3] >= RT_PICL_MAXPROC)
        return WHY("node: %ld out of range (0..%d)", head[3], RT_PICL_MAXPROC - 1);
    rec->rectype = (int)head[0];
    rec->time = (double)head[1] + (double)head[2] * 1e-6;
    rec->proc = (int)head[3];
    int got = 0;
    while (rt_tok_next(&cur, end, &t)) {
        double d;
        if (!parse_double(t, &d))
            return WHY("field %d: '%.*s' is not a number", got + 5, (int)(t.n > 40 ? 40 : t.n), t.p);
        push_value(rec, d, &got);
    }
    rec->ndata_field = got;
    int need = 0;
    const char *what = "";
    switch (rec->rectype) {
    case RT_PICL_OLD_SEND: need = 3; what = "send needs to, type, length"; break;
    case RT_PICL_OLD_RECV: need = 3; what = "recv needs from, type, length"; break;
    case RT_PICL_OLD_RECV_WAKING: need = 3; what = "recv_waking needs from, type, length"; break;
    case RT_PICL_OLD_BLOCK_BEGIN:
    case RT_PICL_OLD_BLOCK_END: need = 1; what = "block records need the block type"; break;
    default: break;
    }
    if (got < need)
        return WHY("fields: %d found, %s", got, what);
    if (need == 3 && rec->data[2] < 0)
        return WHY("length: %g is negative", rec->data[2]);
    if (need == 1 && !(rec->data[0] >= INT_MIN && rec->data[0] <= INT_MAX && rec->data[0] == floor(rec->data[0])))
        return WHY("block type: %g is not an integer in %d..%d", rec->data[0], INT_MIN, INT_MAX);
    return 1;
}

int rt_picl_parse_line(int format, const char *line, size_t len, rt_picl_record *rec,
                       char *why, size_t whycap)
{
    /* the fast scanner wants a terminated line: short ones are copied (this is not the bulk path) */
    char buf[512];
    const char *eol;
    if (format == RT_PICL_NEW && len < sizeof buf) {
        memcpy(buf, line, len);
        buf[len] = '\0';
        if (parse_new_fast(buf, 0, rec, &eol) && eol == buf + len) {
            if (rec->text)
                rec->text = line + (rec->text - buf);
            return 1;
        }
    }
    if (blank_or_comment(line, len))
        return 0;
    return format == RT_PICL_OLD ? parse_old(line, len, rec, why, whycap)
                                 : parse_new(line, len, rec, why, whycap);
}

int rt_picl_guess_format(const char *line, size_t len)
{
    const char *cur = line, *end = line + len;
    rt_span t;
    long v;
    int n = 0;
    long first = 0;
    while (rt_tok_next(&cur, end, &t)) {
        if (n == 0) {
            if (!parse_long(t, &v))
                return 0;
            first = v;
        }
        n++;
    }
    if (first <= -2 && n >= 6)
        return RT_PICL_NEW;
    if (first >= 1 && n >= 4)
        return RT_PICL_OLD;
    return 0;
}

/* ---- reader ---- */

static rt_picl *open_lines(rt_lines *lines, const char *path, const rt_picl_opts *opts, rt_err *err)
{
    rt_picl *r = calloc(1, sizeof *r);
    if (!r) {
        rt_lines_free(lines);
        rt_err_at(err, RT_ENOMEM, path, 0, "out of memory");
        return NULL;
    }
    if (opts) {
        r->format = opts->format;
        r->strict = opts->strict;
        r->on_skip = opts->on_skip;
        r->ud = opts->ud;
    }
    r->lines = lines;
    if (r->format == RT_PICL_AUTO) {
        const char *line;
        size_t len;
        int st;
        while ((st = rt_lines_next(r->lines, &line, &len, err)) == RT_OK) {
            if (blank_or_comment(line, len))
                continue;
            r->format = rt_picl_guess_format(line, len);
            if (!r->format) {
                rt_err_at(err, RT_EFORMAT, path, rt_lines_lineno(r->lines),
                          "not a PICL trace: the first record fits neither the old "
                          "(CODE SEC USEC NODE ...) nor the new (RECTYPE EVENT TIME PROC TASK NDATA ...) format");
                rt_picl_free(r);
                return NULL;
            }
            break;
        }
        if (st == RT_EEOF) {
            rt_err_at(err, RT_EFORMAT, path, 0, "empty trace: no record");
            rt_picl_free(r);
            return NULL;
        }
        if (st != RT_OK) {
            rt_picl_free(r);
            return NULL;
        }
        /* rewind so the first record goes through the normal path (with its checks) */
        if (rt_lines_rewind(r->lines, NULL) != RT_OK) {
            /* a stream: parse the detection line now and keep it */
            char why[256];
            int pr = rt_picl_parse_line(r->format, line, len, &r->pending, why, sizeof why);
            r->pending.line = rt_lines_lineno(r->lines);
            if (pr == 1) {
                r->have_pending = 1;
            } else {
                rt_err_at(err, RT_EFORMAT, path, r->pending.line, "%s", why);
                rt_picl_free(r);
                return NULL;
            }
        }
    }
    return r;
}

/* Tell the line reader what was parsed of the block, and let the block go. */
static void block_done(rt_picl *r)
{
    if (r->bstart)
        rt_lines_consume(r->lines, (size_t)(r->bp - r->bstart), r->blines);
    r->bstart = r->bp = r->bend = NULL;
    r->blines = 0;
}

/*
 * New format, the common case: parse lines in place in the reader's buffer,
 * without a call or a copy per line. 1 with *rec filled, 0 when the next line
 * needs the careful path (the block is given back first), or -status.
 */
static int next_in_block(rt_picl *r, rt_picl_record *rec, rt_err *err)
{
    if (r->bp == r->bend) {
        block_done(r);
        size_t len;
        int st = rt_lines_block(r->lines, &r->bstart, &len, err);
        if (st != RT_OK) {
            r->bstart = NULL;
            return -st;
        }
        r->bp = r->bstart;
        r->bend = r->bstart + len;
        r->bline0 = rt_lines_lineno(r->lines);
    }
    const char *eol;
    /* a NUL inside a line is not its end: the careful path reports it */
    if (!parse_new_fast(r->bp, 1, rec, &eol) || (*eol == '\0' && eol != r->bend)) {
        block_done(r);
        return 0;
    }
    r->lp = r->bp;
    r->llen = (size_t)(eol - r->bp);
    r->bp = eol < r->bend ? eol + 1 : eol;
    r->blines++;
    rec->line = r->lno = r->bline0 + r->blines;
    r->count++;
    return 1;
}

int rt_picl_next(rt_picl *r, rt_picl_record *rec, rt_err *err)
{
    if (r->have_pending) {
        *rec = r->pending;
        r->have_pending = 0;
        r->count++;
        return RT_OK;
    }
    const char *line;
    size_t len;
    char why[256];
    for (;;) {
        if (r->format == RT_PICL_NEW && !rt_lines_is_numbered(r->lines)) {
            int b = next_in_block(r, rec, err);
            if (b == 1)
                return RT_OK;
            if (b < 0)
                return -b;
        }
        int st = rt_lines_next(r->lines, &line, &len, err);
        if (st != RT_OK)
            return st;
        int pr = rt_picl_parse_line(r->format, line, len, rec, why, sizeof why);
        r->lp = line;
        r->llen = len;
        r->lno = rt_lines_lineno(r->lines);
        if (pr == 1) {
            rec->line = rt_lines_lineno(r->lines);
            r->count++;
            return RT_OK;
        }
        if (pr == 0)
            continue;
        if (r->strict)
            return rt_err_at(err, RT_EFORMAT, rt_lines_name(r->lines), rt_lines_lineno(r->lines),
                             "%s", why);
        r->skipped++;
        if (r->on_skip) {
            rt_err e;
            rt_err_at(&e, RT_EFORMAT, rt_lines_name(r->lines), rt_lines_lineno(r->lines), "%s", why);
            r->on_skip(r->ud, e.msg);
        }
    }
}

static rt_picl *open_lines(rt_lines *lines, const char *path, const rt_picl_opts *opts, rt_err *err);

rt_picl *rt_picl_open(const char *path, const rt_picl_opts *opts, rt_err *err)
{
    rt_lines *lines = rt_lines_open(path, err);
    return lines ? open_lines(lines, path, opts, err) : NULL;
}

rt_picl *rt_picl_open_range(const char *path, const rt_picl_opts *opts, uint64_t begin, uint64_t end,
                            unsigned long lines_before, rt_err *err)
{
    rt_picl *r = rt_picl_open(path, opts, err);
    if (!r)
        return NULL;
    if (r->have_pending) { /* detection read the first record of a stream: no range over it */
        rt_picl_free(r);
        rt_err_at(err, RT_EINVAL, path, 0, "a byte range needs a regular file");
        return NULL;
    }
    if (rt_lines_range(r->lines, begin, end, lines_before, err) != RT_OK) {
        rt_picl_free(r);
        return NULL;
    }
    return r;
}

rt_picl *rt_picl_open_numbered(FILE *fp, const char *name, const rt_picl_opts *opts, rt_err *err)
{
    if (!opts || opts->format == RT_PICL_AUTO) {
        rt_err_at(err, RT_EINVAL, name, 0, "numbered PICL lines: the format must be given");
        return NULL;
    }
    rt_lines *lines = rt_lines_from_stream(fp, name, err);
    if (!lines)
        return NULL;
    rt_lines_numbered(lines, 1);
    return open_lines(lines, name, opts, err);
}

unsigned long rt_picl_line(const rt_picl *r, const char **p, size_t *len)
{
    *p = r->lp;
    *len = r->lp ? r->llen : 0;
    return r->lp ? r->lno : 0;
}

int rt_picl_format(const rt_picl *r) { return r->format; }
void rt_picl_skips_add(void *skips, const char *msg)
{
    rt_picl_skips *s = skips;
    s->n++;
    if (s->nkept < RT_PICL_KEEP_SKIPS) {
        char *c = strdup(msg);
        if (c)
            s->kept[s->nkept++] = c;
    }
}

void rt_picl_skips_free(rt_picl_skips *s)
{
    for (int i = 0; i < s->nkept; i++)
        free(s->kept[i]);
    s->nkept = 0;
}

unsigned long rt_picl_skipped(const rt_picl *r) { return r->skipped; }
uint64_t rt_picl_count(const rt_picl *r) { return r->count; }
const char *rt_picl_name(const rt_picl *r) { return rt_lines_name(r->lines); }
uint64_t rt_picl_offset(const rt_picl *r)
{
    return rt_lines_offset(r->lines) + (r->bstart ? (uint64_t)(r->bp - r->bstart) : 0);
}
uint64_t rt_picl_size(const rt_picl *r) { return rt_lines_size(r->lines); }

int rt_picl_rewind(rt_picl *r, rt_err *err)
{
    int st = rt_lines_rewind(r->lines, err);
    if (st == RT_OK) {
        r->bstart = r->bp = r->bend = NULL;
        r->blines = 0;
        r->count = 0;
        r->skipped = 0;
        r->have_pending = 0;
    }
    return st;
}

void rt_picl_free(rt_picl *r)
{
    if (!r)
        return;
    rt_lines_free(r->lines);
    free(r);
}

/* ---- event vocabulary ---- */

rt_event_family rt_picl_event_family(int e)
{
    if (e >= 0)
        return RT_EV_USER;
    if (e >= -10)
        return RT_EV_OTHER;
    if (e >= -16)
        return RT_EV_SETUP;
    if (e <= -21 && e >= -50)
        return RT_EV_SEND;
    if (e <= -51 && e >= -62)
        return RT_EV_RECV;
    if (e <= -201 && e >= -299)
        return RT_EV_IO;
    if (e == -401 || e == -402)
        return RT_EV_SYNC;
    if (e <= -501 && e >= -503)
        return RT_EV_ALLOC;
    if (e == -601)
        return RT_EV_IDLE;
    if (e == -602 || e == -603)
        return RT_EV_OVERHEAD;
    if (e <= -750 && e >= -799)
        return RT_EV_COLLECTIVE;
    if (e <= -800 && e >= -849)
        return RT_EV_COMMUNICATOR;
    if (e <= -901 && e >= -914)
        return RT_EV_TRACING;
    return RT_EV_OTHER_SYSTEM;
}

const char *rt_picl_family_name(rt_event_family f)
{
    static const char *const names[RT_EV_FAMILY_COUNT] = {
        "user", "setup", "send", "receive", "io", "sync", "allocation", "idle", "overhead",
        "collective", "communicator", "tracing", "system", "other"};
    return (unsigned)f < RT_EV_FAMILY_COUNT ? names[f] : "other";
}

/* through the region classes, the one state rule (rt_picl_source.h) */
int rt_picl_event_waits(int e) { return rt_tclass_state(rt_picl_event_class(e)) == 0; }

int rt_picl_event_is_system(int e) { return e < -10; }

const char *rt_picl_event_words(int e, char *buf, size_t cap)
{
    const char *w = NULL;
    switch (e) {
    case -21: w = "send"; break;
    case -22: w = "send (blocking)"; break;
    case -27: w = "send (nonblocking)"; break;
    case -31: w = "send-end (blocked)"; break;
    case -51: w = "receive"; break;
    case -52: w = "receive (blocked)"; break;
    case -53: w = "probe"; break;
    case -55: w = "probe (blocking)"; break;
    case -56: w = "probe (blocking, any)"; break;
    case -61: w = "receive-end (blocked)"; break;
    case -401: w = "clock synchronisation"; break;
    case -402: w = "barrier"; break;
    case -601: w = "idle"; break;
    case -602: w = "system overhead"; break;
    case -603: w = "user overhead"; break;
    case -901: w = "tracing"; break;
    case -12: w = "communication set-up"; break;
    default: break;
    }
    if (w)
        snprintf(buf, cap, "%s", w);
    else if (e >= 0)
        snprintf(buf, cap, "user event %d", e);
    else
        snprintf(buf, cap, "%s event %d", rt_picl_family_name(rt_picl_event_family(e)), e);
    return buf;
}

const char *rt_picl_rectype_words(int t)
{
    switch (t) {
    case RT_PICL_MARK: return "mark";
    case RT_PICL_ENTRY: return "event entry";
    case RT_PICL_EXIT: return "event exit";
    case RT_PICL_LABEL: return "label";
    case RT_PICL_DATADESC: return "data descriptor";
    case RT_PICL_MESSAGE: return "message";
    case RT_PICL_STAT_TIME: return "statistics: time";
    case RT_PICL_STAT_COUNT: return "statistics: count";
    case RT_PICL_STAT_SEND: return "statistics: send volume";
    case RT_PICL_STAT_RECV: return "statistics: receive volume";
    case RT_PICL_STAT_SIZE: return "statistics: size volume";
    case -201: case -202: case -203: return "subset definition";
    default: return "record";
    }
}

const char *rt_picl_oldcode_words(int code, char *buf, size_t cap)
{
    static const char *const names[] = {
        [1] = "trace_start", [4] = "send", [5] = "probe", [6] = "recv", [7] = "recv_blocking",
        [8] = "recv_waking", [11] = "compstats", [12] = "commstats", [13] = "close",
        [14] = "trace_level", [19] = "trace_exit", [20] = "block_begin", [21] = "block_end",
        [22] = "trace_marks"};
    if (code > 0 && code < (int)(sizeof names / sizeof names[0]) && names[code])
        snprintf(buf, cap, "%s", names[code]);
    else
        snprintf(buf, cap, "code %d", code);
    return buf;
}

int rt_picl_message_fields(const rt_picl_record *rec, double *bytes, long *tag, long *peer)
{
    if (rec->format != RT_PICL_NEW || rec->ndata < 3)
        return 0;
    rt_event_family f = rt_picl_event_family(rec->event);
    int kind = 0;
    if (rec->rectype == RT_PICL_ENTRY && f == RT_EV_SEND)
        kind = 1;
    else if (rec->rectype == RT_PICL_EXIT && f == RT_EV_RECV)
        kind = 2;
    if (!kind)
        return 0;
    *bytes = rec->data[0] > 0 ? rec->data[0] : 0;
    *tag = (long)rec->data[1];
    *peer = (long)rec->data[2];
    return kind;
}

/* ---- old -> new ---- */

struct rt_picl_xlate {
    int n;          /* slots in waking */
    double *waking; /* per node: from, type, length of the last record if it was recv_waking; from = -1 none */
};

rt_picl_xlate *rt_picl_xlate_new(void) { return calloc(1, sizeof(rt_picl_xlate)); }

void rt_picl_xlate_free(rt_picl_xlate *x)
{
    if (!x)
        return;
    free(x->waking);
    free(x);
}

static double *waking_slot(rt_picl_xlate *x, int node)
{
    if (node >= x->n) {
        int nn = x->n ? x->n : 16;
        while (nn <= node)
            nn *= 2;
        double *w = realloc(x->waking, (size_t)nn * 3 * sizeof *w);
        if (!w)
            return NULL;
        for (int i = x->n; i < nn; i++)
            w[3 * i] = -1;
        x->waking = w;
        x->n = nn;
    }
    return x->waking + 3 * node;
}

static void make_new(rt_picl_record *o, const rt_picl_record *old, int rectype, int event)
{
    rec_reset(o, RT_PICL_NEW);
    o->rectype = rectype;
    o->event = event;
    o->time = old->time;
    o->proc = old->proc;
    o->desc = 2;
    o->line = old->line;
}

static void set_data3(rt_picl_record *o, double a, double b, double c)
{
    o->data[0] = a;
    o->data[1] = b;
    o->data[2] = c;
    o->ndata = o->ndata_field = 3;
}

int rt_picl_xlate_record(rt_picl_xlate *x, const rt_picl_record *old, rt_picl_record out[2], int *n)
{
    double *w = waking_slot(x, old->proc);
    if (!w)
        return RT_ENOMEM;
    int was_waking = w[0] >= 0;
    double wf = w[0], wt = w[1], wl = w[2];
    w[0] = -1;
    const double *d = old->data;
    *n = 1;
    switch (old->rectype) {
    case RT_PICL_OLD_SEND: /* to type length -> bytes tag dest */
        make_new(&out[0], old, RT_PICL_ENTRY, -21);
        set_data3(&out[0], d[2], d[1], d[0]);
        make_new(&out[1], old, RT_PICL_EXIT, -21);
        *n = 2;
        break;
    case RT_PICL_OLD_RECV: /* from type length -> bytes tag src */
        if (was_waking && wf == d[0] && wt == d[1] && wl == d[2]) {
            make_new(&out[0], old, RT_PICL_MARK, -old->rectype);
            set_data3(&out[0], d[0], d[1], d[2]);
            break;
        }
        make_new(&out[0], old, RT_PICL_ENTRY, -51);
        make_new(&out[1], old, RT_PICL_EXIT, -51);
        set_data3(&out[1], d[2], d[1], d[0]);
        *n = 2;
        break;
    case RT_PICL_OLD_RECV_BLOCKING:
        make_new(&out[0], old, RT_PICL_ENTRY, -52);
        break;
    case RT_PICL_OLD_RECV_WAKING:
        make_new(&out[0], old, RT_PICL_EXIT, -52);
        set_data3(&out[0], d[2], d[1], d[0]);
        w[0] = d[0];
        w[1] = d[1];
        w[2] = d[2];
        break;
    case RT_PICL_OLD_PROBE:
        make_new(&out[0], old, RT_PICL_ENTRY, -53);
        make_new(&out[1], old, RT_PICL_EXIT, -53);
        *n = 2;
        break;
    case RT_PICL_OLD_BLOCK_BEGIN:
    case RT_PICL_OLD_BLOCK_END:
        make_new(&out[0], old, old->rectype == RT_PICL_OLD_BLOCK_BEGIN ? RT_PICL_ENTRY : RT_PICL_EXIT,
                 (int)d[0]);
        break;
    case RT_PICL_OLD_TRACE_START:
        make_new(&out[0], old, RT_PICL_ENTRY, -901);
        break;
    case RT_PICL_OLD_TRACE_EXIT:
        make_new(&out[0], old, RT_PICL_EXIT, -901);
        break;
    default:
        make_new(&out[0], old, RT_PICL_MARK, -old->rectype);
        for (int i = 0; i < old->ndata; i++)
            out[0].data[i] = d[i];
        out[0].ndata = out[0].ndata_field = old->ndata;
        break;
    }
    for (int i = 0; i < *n; i++)
        if (out[i].ndata == 0)
            out[i].desc = 0;
    return RT_OK;
}

/* Shortest text that reads back as the same double ("%.17g" trimmed to what suffices). */
static int fmt_num(char *buf, size_t cap, double v)
{
    if (v == (double)(long long)v && fabs(v) < 1e15)
        return snprintf(buf, cap, "%lld", (long long)v);
    for (int prec = 6; prec <= 17; prec++) {
        char tmp[40];
        snprintf(tmp, sizeof tmp, "%.*f", prec, v);
        if (strtod(tmp, NULL) == v)
            return snprintf(buf, cap, "%s", tmp);
    }
    return snprintf(buf, cap, "%.17g", v);
}

int rt_picl_format_new(const rt_picl_record *rec, char *buf, size_t cap)
{
    char tmp[64];
    size_t n = 0;
    char line[4096];
    fmt_num(tmp, sizeof tmp, rec->time);
    n += (size_t)snprintf(line + n, sizeof line - n, "%d %d %s %d %d %d", rec->rectype, rec->event,
                          tmp, rec->proc, rec->task, rec->fmt[0] ? rec->ndata_field : rec->ndata);
    if (rec->ndata > 0 || rec->desc || rec->fmt[0]) {
        if (rec->fmt[0])
            n += (size_t)snprintf(line + n, sizeof line - n, " \"%s\"", rec->fmt);
        else
            n += (size_t)snprintf(line + n, sizeof line - n, " %d", rec->desc ? rec->desc : 2);
    }
    for (int i = 0; i < rec->ndata && n < sizeof line - 64; i++) {
        fmt_num(tmp, sizeof tmp, rec->data[i]);
        n += (size_t)snprintf(line + n, sizeof line - n, " %s", tmp);
    }
    n += (size_t)snprintf(line + n, sizeof line - n, "\n");
    if (n < cap)
        memcpy(buf, line, n + 1);
    return (int)n;
}

const char *rt_picl_rectype_kind(int rectype)
{
    switch (rectype) {
    case RT_PICL_MARK: return "mark";
    case RT_PICL_ENTRY: return "entry";
    case RT_PICL_EXIT: return "exit";
    case RT_PICL_LABEL: return "label";
    case RT_PICL_DATADESC: return "descriptor";
    case RT_PICL_MESSAGE: return "message";
    default:
        if (rectype <= -101 && rectype >= -105)
            return "statistics";
        if (rectype <= -201 && rectype >= -203)
            return "subset";
        return "other";
    }
}

int rt_picl_describe(const rt_picl_record *rec, char *buf, size_t size)
{
    size_t n = 0;
    int w;
#define PUT(...)                                                                       \
    do {                                                                               \
        w = snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, __VA_ARGS__); \
        if (w > 0)                                                                     \
            n += (size_t)w;                                                            \
    } while (0)
    char words[64];
    int named = rec->rectype == RT_PICL_ENTRY || rec->rectype == RT_PICL_EXIT || rec->rectype == RT_PICL_MARK;
    PUT("%.9g  P%d  %s", rec->time, rec->proc, rt_picl_rectype_kind(rec->rectype));
    if (named)
        PUT("  %s", rt_picl_event_words(rec->event, words, sizeof words));
    else
        PUT("  event %d", rec->event);
    double bytes;
    long tag, peer;
    int m = rt_picl_message_fields(rec, &bytes, &tag, &peer);
    if (m) {
        PUT("  %g B  %s %ld  tag %ld", bytes, m == 1 ? "to" : "from", peer, tag);
    }
    if (rec->rectype == RT_PICL_MARK && rec->ndata > 0) {
        PUT("  [");
        for (int i = 0; i < rec->ndata && i < 8; i++) {
            double v = rec->data[i];
            if (v == (double)(long long)v && v > -9e15 && v < 9e15)
                PUT(i ? " %lld" : "%lld", (long long)v);
            else
                PUT(i ? " %.14g" : "%.14g", v);
        }
        PUT("]");
    }
#undef PUT
    return (int)n;
}
