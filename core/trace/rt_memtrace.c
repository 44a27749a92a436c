/*
 * rt_memtrace.c - the text readers (din, extended din, lackey) and the
 * dispatcher over every memory-reference format (see rt_memtrace.h).
 *
 * The readers are on the hot path of `retrace cache` (tens of millions of
 * lines per second): rt_memtrace_read hands whole buffers to the block
 * parsers of rt_memtrace_fast.c and comes back here, to rt_X_next, only for
 * the lines they leave (blank, CRLF, odd or malformed ones), so both paths
 * give the same references and the same messages.
 */
#include "rt_memtrace.h"

#include <stdlib.h>
#include <string.h>

#include "rt_din_ahead.h"
#include "rt_lines.h"
#include "rt_memtrace_fast.h"

/* all three text readers are a line reader plus, for lackey, a pending store */
typedef struct memtext {
    rt_lines *lines;
    int pending_store;   /* lackey M: the store half is still to come */
    rt_memref pending;   /* that store */
} memtext;

struct rt_din {
    memtext t;
};
struct rt_xdin {
    memtext t;
};
struct rt_lackey {
    memtext t;
};

static int memtext_open(memtext *t, const char *path, rt_err *err)
{
    memset(t, 0, sizeof *t);
    t->lines = rt_lines_open(path, err);
    return t->lines ? RT_OK : RT_EIO;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Parse hex digits at *p (an optional 0x first); advances *p. 1 ok, 0 when none,
 * -1 when the value needs more than 64 bits (leading zeros do not count). */
static int scan_hex(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    const char *start = s, *sig = NULL; /* sig: first non-zero digit */
    uint64_t v = 0;
    while (s < end) {
        unsigned d = rt_hexval[(unsigned char)*s];
        if (d > 15)
            break;
        if (d && !sig)
            sig = s;
        v = (v << 4) | d;
        s++;
    }
    if (s == start)
        return 0;
    if (sig && s - sig > 16) { /* all digits, but more than 64 bits of them */
        *p = s;
        return -1;
    }
    *p = s;
    *out = v;
    return 1;
}

/* the token at p, escaped and cut short for messages (into a caller's buffer) */
#define TOK(p, end, buf) rt_excerpt((p), (size_t)((end) - (p)), 1, (buf), sizeof(buf))

/* open and free of the three text readers, which are a memtext each */
#define RT_TEXT_READER(name)                                                   \
    rt_##name *rt_##name##_open(const char *path, rt_err *err)                 \
    {                                                                          \
        rt_##name *r = malloc(sizeof *r);                                      \
        if (!r) {                                                              \
            rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);             \
            return NULL;                                                       \
        }                                                                      \
        if (memtext_open(&r->t, path, err) != RT_OK) {                         \
            free(r);                                                           \
            return NULL;                                                       \
        }                                                                      \
        return r;                                                              \
    }                                                                          \
    void rt_##name##_free(rt_##name *r)                                        \
    {                                                                          \
        if (!r)                                                                \
            return;                                                            \
        rt_lines_free(r->t.lines);                                             \
        free(r);                                                               \
    }

RT_TEXT_READER(din)
RT_TEXT_READER(xdin)
RT_TEXT_READER(lackey)

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    return p;
}

/* ---- what the three text parsers share ---- */

/* A line being parsed: the cursor, its end, and the file and line number
 * for messages. */
typedef struct cursor {
    const char *p, *end;
    const char *name;
    unsigned long no;
} cursor;

/* The next line with something on it (after leading blanks); lines starting
 * "==", "--" or "**" are skipped too when valgrind is set (its own messages,
 * its scheduler lines and the client's requests in a lackey log). */
static int next_line(memtext *t, cursor *c, int valgrind, rt_err *err)
{
    const char *line;
    size_t len;
    int st;
    for (;;) {
        if ((st = rt_lines_next(t->lines, &line, &len, err)) != RT_OK)
            return st;
        if (valgrind && len >= 2 && line[0] == line[1] && (line[0] == '=' || line[0] == '-' || line[0] == '*'))
            continue; /* ==PID== messages, --PID-- debug lines, **PID** client output */
        c->end = line + len;
        c->p = skip_blank(line, c->end);
        if (c->p == c->end)
            continue; /* blank line */
        c->name = rt_lines_name(t->lines);
        c->no = rt_lines_lineno(t->lines);
        return RT_OK;
    }
}

/* The one-character token at the cursor: its character, or 0 when the token
 * is longer. The cursor moves past it and the blanks after it. */
static char type_char(cursor *c)
{
    const char *p = c->p;
    if (p + 1 < c->end && !is_blank(p[1]))
        return 0;
    c->p = skip_blank(p + 1, c->end);
    return *p;
}

/* A hexadecimal field ([0x]HEX, up to 16 digits, then a blank or the end)
 * named `field` in messages; the cursor moves past it and the blanks after it. */
static int hex_field(cursor *c, const char *field, uint64_t *out, rt_err *err)
{
    char tb[RT_EXCERPT_CAP];
    if (c->p == c->end)
        return rt_err_at(err, RT_EFORMAT, c->name, c->no, "%s: missing", field);
    const char *a = c->p;
    int h = scan_hex(&c->p, c->end, out);
    if (h < 0 && (c->p == c->end || is_blank(*c->p)))
        return rt_err_at(err, RT_ERANGE, c->name, c->no, "%s: '%s' is out of range (more than 64 bits)", field,
                         TOK(a, c->end, tb));
    if (h <= 0 || (c->p < c->end && !is_blank(*c->p)))
        return rt_err_at(err, RT_EFORMAT, c->name, c->no, "%s: '%s' is not hexadecimal", field,
                         TOK(a, c->end, tb));
    c->p = skip_blank(c->p, c->end);
    return RT_OK;
}

/* ---- din ---- */

/* one din line from its first non-blank character */
static int din_parse(cursor c, rt_memref *ref, rt_err *err)
{
    char tb[RT_EXCERPT_CAP];
    int st;
    const char *tok = c.p;
    char label = type_char(&c);
    if (label < '0' || label > '4')
        return rt_err_at(err, RT_EFORMAT, c.name, c.no, "label: '%s' is not 0-4",
                         TOK(tok, c.end, tb));
    ref->kind = label - '0';
    if ((st = hex_field(&c, "address", &ref->addr, err)) != RT_OK)
        return st;
    /* din has no sizes: like Dinero IV, 4 bytes at a 4-byte aligned
     * address, a flush (4) included: the line holding them */
    ref->addr &= ~(uint64_t)3;
    ref->size = 4;
    return RT_OK; /* the rest of the line is a comment */
}

int rt_din_next(rt_din *r, rt_memref *ref, rt_err *err)
{
    cursor c;
    int st;
    if ((st = next_line(&r->t, &c, 0, err)) != RT_OK)
        return st;
    return din_parse(c, ref, err);
}

/* a cursor on one line given by the caller: RT_OK, or an error for a blank line */
static int line_cursor(cursor *c, const char *line, size_t len, const char *name, unsigned long no,
                       rt_err *err)
{
    c->end = line + len;
    while (c->end > line && (c->end[-1] == '\n' || c->end[-1] == '\r'))
        c->end--;
    c->p = skip_blank(line, c->end);
    c->name = name;
    c->no = no;
    if (c->p == c->end)
        return rt_err_at(err, RT_EFORMAT, name, no, "label: missing (a blank line)");
    return RT_OK;
}

int rt_din_parse_line(const char *line, size_t len, const char *name, unsigned long no,
                      rt_memref *ref, rt_err *err)
{
    cursor c;
    int st = line_cursor(&c, line, len, name, no, err);
    return st != RT_OK ? st : din_parse(c, ref, err);
}

/* ---- extended din ---- */

/* one xdin line from its first non-blank character */
static int xdin_parse(cursor c, rt_memref *ref, rt_err *err)
{
    char tb[RT_EXCERPT_CAP];
    static const char kinds[] = "rwimcv";
    static const int kind_of[] = {RT_REF_READ, RT_REF_WRITE, RT_REF_IFETCH,
                                  RT_REF_MISC, RT_REF_FLUSH, RT_REF_INVALIDATE};
    int st;
    const char *tok = c.p;
    char type = type_char(&c);
    const char *k = type ? strchr(kinds, type) : NULL;
    if (!k)
        return rt_err_at(err, RT_EFORMAT, c.name, c.no,
                         "access type: '%s' is not one of r w i m c v", TOK(tok, c.end, tb));
    ref->kind = kind_of[k - kinds];
    if ((st = hex_field(&c, "address", &ref->addr, err)) != RT_OK ||
        (st = hex_field(&c, "size", &ref->size, err)) != RT_OK)
        return st;
    if (c.p != c.end)
        return rt_err_at(err, RT_EFORMAT, c.name, c.no, "unexpected field '%s' after the size",
                         TOK(c.p, c.end, tb));
    if (ref->size == 0 && ref->kind < RT_REF_FLUSH)
        ref->size = 1; /* (for c and v, 0 means the whole cache) */
    const char *why = rt_memref_bad_size(ref);
    if (why)
        return rt_err_at(err, RT_EFORMAT, c.name, c.no, "size: 0x%llx: %s",
                         (unsigned long long)ref->size, why);
    if (ref->size > 0 && ref->addr + (ref->size - 1) < ref->addr)
        return rt_err_at(err, RT_ERANGE, c.name, c.no,
                         "size: 0x%llx bytes from address 0x%llx run past the top of the address space",
                         (unsigned long long)ref->size, (unsigned long long)ref->addr);
    return RT_OK;
}

int rt_xdin_next(rt_xdin *r, rt_memref *ref, rt_err *err)
{
    cursor c;
    int st;
    if ((st = next_line(&r->t, &c, 0, err)) != RT_OK)
        return st;
    return xdin_parse(c, ref, err);
}

int rt_xdin_parse_line(const char *line, size_t len, const char *name, unsigned long no,
                       rt_memref *ref, rt_err *err)
{
    cursor c;
    int st = line_cursor(&c, line, len, name, no, err);
    return st != RT_OK ? st : xdin_parse(c, ref, err);
}

/* ---- lackey ---- */

static int lackey_parse(cursor c, rt_memref *ref, int *modify_out, rt_err *err);

int rt_lackey_next(rt_lackey *r, rt_memref *ref, rt_err *err)
{
    if (r->t.pending_store) {
        *ref = r->t.pending;
        r->t.pending_store = 0;
        return RT_OK;
    }
    cursor c;
    int st, modify;
    if ((st = next_line(&r->t, &c, 1, err)) != RT_OK)
        return st;
    if ((st = lackey_parse(c, ref, &modify, err)) != RT_OK)
        return st;
    if (modify) {
        r->t.pending = *ref;
        r->t.pending.kind = RT_REF_WRITE;
        r->t.pending_store = 1;
    }
    return RT_OK;
}

int rt_lackey_parse_line(const char *line, size_t len, const char *name, unsigned long no, rt_memref *ref,
                         int *modify, rt_err *err)
{
    cursor c;
    c.end = line + len;
    c.p = skip_blank(line, c.end);
    c.name = name;
    c.no = no;
    if (c.p == c.end)
        return rt_err_at(err, RT_EFORMAT, name, no, "access type: missing (a blank line)");
    return lackey_parse(c, ref, modify, err);
}

/* One lackey line from its first non-blank character: the reference, and for
 * an M, *modify_out set (the store half is the caller's to make). */
static int lackey_parse(cursor c, rt_memref *ref, int *modify_out, rt_err *err)
{
    char tb[RT_EXCERPT_CAP];
    const char *tok = c.p;
    int kind, modify = 0;
    switch (type_char(&c)) {
    case 'I': kind = RT_REF_IFETCH; break;
    case 'L': kind = RT_REF_READ; break;
    case 'S': kind = RT_REF_WRITE; break;
    case 'M': kind = RT_REF_READ; modify = 1; break;
    default:
        return rt_err_at(err, RT_EFORMAT, c.name, c.no, "access type: '%s' is not I, L, S or M",
                         TOK(tok, c.end, tb));
    }
    const char *p = c.p, *end = c.end;
    const char *a = p;
    int h = scan_hex(&p, end, &ref->addr);
    if (h < 0 && p < end && *p == ',')
        return rt_err_at(err, RT_ERANGE, c.name, c.no, "address: '%s' is out of range (more than 64 bits)",
                         TOK(a, end, tb));
    if (h <= 0 || p == end || *p != ',')
        return rt_err_at(err, RT_EFORMAT, c.name, c.no, "address: '%s' is not HEXADDR,SIZE",
                         TOK(a, end, tb));
    p++;
    a = p;
    uint64_t size = 0;
    while (p < end && *p >= '0' && *p <= '9' && size < (1ull << 40))
        size = size * 10 + (uint64_t)(*p++ - '0');
    const char *rest = skip_blank(p, end);
    if (p != a && size > 0 && rest != end && rest != p) /* "L 10,1 00001010": one field too many */
        return rt_err_at(err, RT_EFORMAT, c.name, c.no,
                         "unexpected field '%s' after the size (a lackey line is TYPE ADDRESS,SIZE)",
                         TOK(rest, end, tb));
    if (p == a || size == 0 || rest != end)
        return rt_err_at(err, RT_EFORMAT, c.name, c.no, "size: '%s' is not a positive number",
                         TOK(a, end, tb));
    ref->kind = kind;
    ref->size = size;
    const char *why = rt_memref_bad_size(ref);
    if (why)
        return rt_err_at(err, RT_EFORMAT, c.name, c.no, "size: %llu: %s", (unsigned long long)size, why);
    if (ref->addr + (size - 1) < ref->addr)
        return rt_err_at(err, RT_ERANGE, c.name, c.no,
                         "size: %llu bytes from address 0x%llx run past the top of the address space",
                         (unsigned long long)size, (unsigned long long)ref->addr);
    *modify_out = modify;
    return RT_OK;
}

/* ---- dispatcher ---- */

static const char *const fmt_names[RT_MEMFMT_COUNT] = {"din", "xdin", "lackey", "bin"};

int rt_memfmt_from_name(const char *name)
{
    for (int i = 0; i < RT_MEMFMT_COUNT; i++)
        if (name && strcmp(name, fmt_names[i]) == 0)
            return i;
    return -1;
}

const char *rt_memfmt_name(int fmt)
{
    return fmt >= 0 && fmt < RT_MEMFMT_COUNT ? fmt_names[fmt] : "?";
}

struct rt_memtrace {
    int fmt;
    void *r;          /* the format's reader */
    int ahead;        /* din parsed on its own thread (r is an rt_din_ahead) */
    int pending;      /* status of an error met inside a batch, reported next */
    rt_err pending_err;
};

rt_memtrace *rt_memtrace_open(const char *path, int fmt, rt_err *err)
{
    rt_memtrace *t = malloc(sizeof *t);
    if (!t) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    t->fmt = fmt;
    t->pending = 0;
    /* din files are parsed ahead on a second thread unless RETRACE_READ_AHEAD=0 */
    const char *ra = getenv("RETRACE_READ_AHEAD");
    t->ahead = fmt == RT_MEMFMT_DIN && !(ra && !strcmp(ra, "0"));
    if (t->ahead && (t->r = rt_din_ahead_open(path)))
        return t;
    t->ahead = 0;
    switch (fmt) {
    case RT_MEMFMT_DIN: t->r = rt_din_open(path, err); break;
    case RT_MEMFMT_XDIN: t->r = rt_xdin_open(path, err); break;
    case RT_MEMFMT_LACKEY: t->r = rt_lackey_open(path, err); break;
    case RT_MEMFMT_RTMB: t->r = rt_rtmb_open(path, err); break;
    default:
        rt_err_set(err, RT_EINVAL, "format: unknown memory trace format %d", fmt);
        t->r = NULL;
    }
    if (!t->r) {
        free(t);
        return NULL;
    }
    return t;
}

int rt_memtrace_next(rt_memtrace *t, rt_memref *ref, rt_err *err)
{
    if (t->pending) {
        int st = t->pending;
        t->pending = 0;
        if (err)
            *err = t->pending_err;
        return st;
    }
    if (t->ahead) {
        size_t n;
        return rt_din_ahead_read(t->r, ref, 1, &n, err);
    }
    switch (t->fmt) {
    case RT_MEMFMT_DIN: return rt_din_next(t->r, ref, err);
    case RT_MEMFMT_XDIN: return rt_xdin_next(t->r, ref, err);
    case RT_MEMFMT_LACKEY: return rt_lackey_next(t->r, ref, err);
    default: return rt_rtmb_next(t->r, ref, err);
    }
}

/*
 * Up to cap references of a text trace: whole buffers of lines through the
 * format's block parser; a line it leaves goes through the format's rt_X_next
 * (the reader r), which gives the same reference or the error. *n references
 * come back with RT_OK, RT_EEOF or the error met after them.
 */
static int text_read(int fmt, void *r, rt_memref *out, size_t cap, size_t *n, rt_err *err)
{
    memtext *t = r; /* the first member of each text reader */
    size_t k = 0;
    int st = RT_OK;
    while (k < cap) {
        if (t->pending_store) { /* the store half of a lackey M */
            out[k++] = t->pending;
            t->pending_store = 0;
            continue;
        }
        const char *blk, *stop;
        size_t len;
        if ((st = rt_lines_block(t->lines, &blk, &len, err)) != RT_OK)
            break;
        unsigned long lines = 0;
        switch (fmt) {
        case RT_MEMFMT_DIN: stop = rt_din_block(blk, blk + len, out, cap, &k, &lines); break;
        case RT_MEMFMT_XDIN: stop = rt_xdin_block(blk, blk + len, out, cap, &k, &lines); break;
        default:
            stop = rt_lackey_block(blk, blk + len, 1, out, cap, &k, &lines, &t->pending, &t->pending_store);
        }
        rt_lines_consume(t->lines, (size_t)(stop - blk), lines);
        if (stop < blk + len && k < cap) {
            /* the line at stop, the slow and careful way */
            switch (fmt) {
            case RT_MEMFMT_DIN: st = rt_din_next(r, &out[k], err); break;
            case RT_MEMFMT_XDIN: st = rt_xdin_next(r, &out[k], err); break;
            default: st = rt_lackey_next(r, &out[k], err);
            }
            if (st != RT_OK)
                break;
            k++;
        }
    }
    *n = k;
    return st;
}

int rt_memtrace_read(rt_memtrace *t, rt_memref *out, size_t cap, size_t *n, rt_err *err)
{
    if (t->fmt == RT_MEMFMT_RTMB)
        return rt_rtmb_read(t->r, out, cap, n, err);
    if (t->ahead)
        return rt_din_ahead_read(t->r, out, cap, n, err);
    *n = 0;
    if (t->pending)
        return rt_memtrace_next(t, out, err);
    size_t k = 0;
    int st = text_read(t->fmt, t->r, out, cap, &k, &t->pending_err);
    *n = k;
    if (k == 0) {
        if (st != RT_OK && st != RT_EEOF && err)
            *err = t->pending_err;
        return st == RT_OK ? RT_EEOF : st;
    }
    if (st != RT_OK && st != RT_EEOF)
        t->pending = st; /* reported after the references before it */
    return RT_OK;
}

int rt_memtrace_read_lines(rt_memtrace *t, unsigned line_shift, uint64_t *addr,
                           uint8_t *is_write, size_t cap, size_t *n)
{
    if (t->fmt == RT_MEMFMT_RTMB)
        return rt_rtmb_read_lines(t->r, line_shift, addr, is_write, cap, n);
    *n = 0;
    if (t->fmt != RT_MEMFMT_DIN || line_shift < 2)
        return RT_EINVAL;
    if (t->ahead)
        return rt_din_ahead_read_lines(t->r, addr, is_write, cap, n);
    /* din: whole buffers through rt_din_lines; the first line it leaves, a
     * pending error and the end of the file are rt_memtrace_read's */
    memtext *m = t->r;
    size_t k = 0;
    while (k < cap && !t->pending) {
        const char *blk;
        size_t len;
        rt_err ignored; /* met again by rt_memtrace_read, which reports it */
        if (rt_lines_block(m->lines, &blk, &len, &ignored) != RT_OK)
            break;
        unsigned long lines = 0;
        const char *stop = rt_din_lines(blk, blk + len, line_shift, addr, is_write, cap, &k, &lines);
        rt_lines_consume(m->lines, (size_t)(stop - blk), lines);
        if (stop < blk + len && k < cap)
            break;
    }
    *n = k;
    return RT_OK;
}

void rt_memtrace_free(rt_memtrace *t)
{
    if (!t)
        return;
    if (t->ahead) {
        rt_din_ahead_free(t->r);
        free(t);
        return;
    }
    switch (t->fmt) {
    case RT_MEMFMT_DIN: rt_din_free(t->r); break;
    case RT_MEMFMT_XDIN: rt_xdin_free(t->r); break;
    case RT_MEMFMT_LACKEY: rt_lackey_free(t->r); break;
    default: rt_rtmb_free(t->r);
    }
    free(t);
}

uint64_t rt_memtrace_offset(const rt_memtrace *t)
{
    if (t->fmt == RT_MEMFMT_RTMB)
        return rt_rtmb_offset(t->r);
    if (t->ahead)
        return rt_din_ahead_offset(t->r);
    return rt_lines_offset(((const memtext *)t->r)->lines);
}

uint64_t rt_memtrace_size(const rt_memtrace *t)
{
    if (t->fmt == RT_MEMFMT_RTMB)
        return rt_rtmb_size(t->r);
    if (t->ahead)
        return rt_din_ahead_size(t->r);
    return rt_lines_size(((const memtext *)t->r)->lines);
}
