/*
 * rt_tsource_open.c - the dispatcher: recognise a message-passing trace by
 * content and open it with its reader (see rt_tsource_open.h).
 *
 * The readers are one table, `readers` below. The optional ones (OTF2,
 * Paraver, Pajé: core/trace/rt_FMT.c with rt_FMT_open and rt_FMT_sniff) come
 * from RT_TREADERS, a list CMake generates from the reader sources present
 * (CMakeLists.txt: the `foreach(f otf2 paraver paje)` line); adding a reader is
 * adding its name there. PICL is always built in and asked last: its sniffer
 * only looks at numbers.
 */
#include "rt_tsource_open.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_input.h"
#include "rt_pes_source.h"
#include "rt_picl_source.h"
#include "rt_treaders.h"

typedef struct reader {
    const char *name;
    int (*sniff)(const char *path, const unsigned char *head, size_t n);
    rt_tsource *(*open)(const char *path, rt_err *err);
} reader;

#define RT_DECLARE_READER(f)                                                   \
    rt_tsource *rt_##f##_open(const char *path, rt_err *err);                  \
    int rt_##f##_sniff(const char *path, const unsigned char *head, size_t n);
RT_TREADERS(RT_DECLARE_READER)

static rt_tsource *picl_open(const char *path, rt_err *err) { return rt_picl_source_open(path, NULL, err); }

static const reader readers[] = {
#define RT_READER_ENTRY(f) {#f, rt_##f##_sniff, rt_##f##_open},
    RT_TREADERS(RT_READER_ENTRY)
    {"pes", rt_pes_source_sniff, rt_pes_source_open}, /* by name only: a Chitra sequence */
    {"picl", rt_picl_sniff, picl_open},
};
#define NREADERS ((int)(sizeof readers / sizeof readers[0]))

const char *rt_tsource_format_name(int i)
{
    return i >= 0 && i < NREADERS ? readers[i].name : NULL;
}

int rt_tsource_format_by_content(int i)
{
    return i >= 0 && i < NREADERS && readers[i].sniff != rt_pes_source_sniff;
}

static const reader *find_reader(const char *name)
{
    for (int i = 0; i < NREADERS; i++)
        if (strcmp(readers[i].name, name) == 0)
            return &readers[i];
    return NULL;
}

/* ---- what a file is, by content ---- */

static int starts(const unsigned char *h, size_t n, const char *s)
{
    size_t k = strlen(s);
    return n >= k && memcmp(h, s, k) == 0;
}

/* The first line that is neither blank nor a '#' comment, within the head: *len its length. */
static const char *first_line(const unsigned char *head, size_t n, size_t *len)
{
    const char *p = (const char *)head, *end = p + n;
    while (p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e)
            e = end;
        const char *q = p;
        while (q < e && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < e && *q != '#') {
            *len = (size_t)(e - q);
            return q;
        }
        p = e + 1;
    }
    *len = 0;
    return NULL;
}

/* The line is word alone (trailing blanks allowed), as a .pcf section header is. */
static int line_is(const char *l, size_t len, const char *word)
{
    size_t k = strlen(word);
    if (len < k || memcmp(l, word, k) != 0)
        return 0;
    for (size_t i = k; i < len; i++)
        if (l[i] != ' ' && l[i] != '\t' && l[i] != '\r')
            return 0;
    return 1;
}

/* A .row header: "LEVEL <name> SIZE <n>". */
static int row_header(const char *l, size_t len)
{
    if (len < 12 || memcmp(l, "LEVEL ", 6) != 0)
        return 0;
    for (size_t i = 6; i + 6 <= len; i++)
        if (memcmp(l + i, " SIZE ", 6) == 0)
            return 1;
    return 0;
}

/* OTF2 files start with 0x03 and the byte order ('B' or 'L'); the anchor then says "OTF2". */
static int otf2_magic(const unsigned char *h, size_t n)
{
    return n >= 2 && h[0] == 0x03 && (h[1] == 'B' || h[1] == 'L');
}

/* The built-in classification (independent of the readers present). */
static const char *classify(const unsigned char *h, size_t n)
{
    if (otf2_magic(h, n))
        return n >= 6 && memcmp(h + 2, "OTF2", 4) == 0 ? "otf2" : "otf2-part";
    if (starts(h, n, "#Paraver"))
        return "paraver";
    size_t len;
    const char *l = first_line(h, n, &len);
    if (!l)
        return NULL;
    static const char *const pcf[] = {"DEFAULT_OPTIONS", "DEFAULT_SEMANTIC", "STATES", "STATES_COLOR",
                                      "EVENT_TYPE", "GRADIENT_COLOR", "GRADIENT_NAMES"};
    for (size_t i = 0; i < sizeof pcf / sizeof pcf[0]; i++)
        if (line_is(l, len, pcf[i]))
            return "paraver-pcf";
    if (row_header(l, len))
        return "paraver-row";
    if (len >= 2 && l[0] == '%') {
        const char *q = l + 1, *e = l + len;
        while (q < e && (*q == ' ' || *q == '\t'))
            q++;
        if ((size_t)(e - q) >= 8 && memcmp(q, "EventDef", 8) == 0)
            return "paje";
    }
    return NULL;
}

/* path without its extension, plus ext. */
static void swap_ext(const char *path, const char *ext, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    size_t k = dot && (!slash || dot > slash) ? (size_t)(dot - path) : strlen(path);
    snprintf(out, cap, "%.*s%s", (int)k, path, ext);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* The anchor of the OTF2 archive a part belongs to: DIR/NAME.def -> DIR/NAME.otf2,
 * DIR/NAME/0.evt -> DIR/NAME.otf2; "" when not found. */
static void otf2_anchor_of(const char *path, char *out, size_t cap)
{
    char buf[4096];
    swap_ext(path, ".otf2", buf, sizeof buf);
    if (exists(buf)) {
        snprintf(out, cap, "%s", buf);
        return;
    }
    const char *slash = strrchr(path, '/');
    if (slash && slash > path) {
        snprintf(buf, sizeof buf, "%.*s.otf2", (int)(slash - path), path);
        if (exists(buf)) {
            snprintf(out, cap, "%s", buf);
            return;
        }
    }
    out[0] = '\0';
}

/* *.otf2 files directly in dir: how many, and the first name (in out). */
static int otf2_anchors(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t k = strlen(e->d_name);
        if (k > 5 && strcmp(e->d_name + k - 5, ".otf2") == 0) {
            if (n++ == 0)
                snprintf(out, cap, "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    return n;
}

/* Read the head of path (n = 0, *isdir = 1 for a directory) through rt_input, which keeps a
 * FIFO's or pipe's bytes for the reader. RT_OK, or RT_EIO / RT_EINTR (why filled). */
static int read_head(const char *path, unsigned char *head, size_t *n, int *isdir, char *why, size_t whycap)
{
    rt_err e;
    int st = rt_input_head(path, head, RT_TSOURCE_HEAD, n, isdir, &e);
    if (st != RT_OK)
        snprintf(why, whycap, "%s", e.msg);
    return st;
}

/*
 * The detection proper on a head already read: a reader's name (reader set), or a
 * non-trace name with why explaining it. Readers are asked first, in table order;
 * companion files are refused before any reader sees them.
 */
static const char *detect(const char *path, const unsigned char *head, size_t n, int isdir, const reader **rd,
                          char *why, size_t whycap)
{
    *rd = NULL;
    char other[4096];
    const char *what = isdir ? NULL : classify(head, n);
    if (what && strcmp(what, "otf2-part") == 0) {
        otf2_anchor_of(path, other, sizeof other);
        snprintf(why, whycap, "%s: part of an OTF2 archive, not a trace by itself; open %s instead", path,
                 other[0] ? other : "the archive's .otf2 anchor file");
        return what;
    }
    if (what && (strcmp(what, "paraver-pcf") == 0 || strcmp(what, "paraver-row") == 0)) {
        swap_ext(path, ".prv", other, sizeof other);
        snprintf(why, whycap, "%s: a Paraver companion file (%s), not a trace; open %s instead", path,
                 what[8] == 'p' ? "state and event names" : "processor names", exists(other) ? other : "its .prv trace");
        return what;
    }
    for (int i = 0; i < NREADERS; i++) {
        if (readers[i].sniff(path, isdir ? NULL : head, isdir ? 0 : n)) {
            *rd = &readers[i];
            if (strcmp(readers[i].name, "picl") == 0)
                return rt_picl_sniff(path, head, n) == RT_PICL_OLD ? "picl-old" : "picl-new";
            snprintf(why, whycap, "%s: %s (content)", path, readers[i].name);
            return readers[i].name;
        }
    }
    if (isdir) {
        int k = otf2_anchors(path, other, sizeof other);
        if (k == 1) {
            snprintf(why, whycap, "%s: an OTF2 archive (anchor %s), but this build has no OTF2 reader", path, other);
            return "otf2-noreader";
        }
        if (k > 1)
            snprintf(why, whycap, "%s: a directory holding %d OTF2 anchors; open one of them (%s, ...)", path, k,
                     other);
        else
            snprintf(why, whycap, "%s: a directory without an OTF2 anchor (.otf2 file), not a trace", path);
        return "directory";
    }
    if (what) { /* a format recognised whose reader is not in this build */
        const char *shown = what[0] == 'o' ? "OTF2" : what[2] == 'r' ? "Paraver" : "Paje";
        snprintf(why, whycap, "%s: a%s %s trace, but this build has no %s reader", path, what[0] == 'o' ? "n" : "",
                 shown, shown);
        return what[0] == 'o' ? "otf2-noreader" : what[1] == 'a' && what[2] == 'r' ? "paraver-noreader"
                                                                                   : "paje-noreader";
    }
    if (n == 0)
        snprintf(why, whycap, "%s: empty file, not a trace", path);
    else
        snprintf(why, whycap, "%s: not a message-passing trace retrace reads (PICL, OTF2, Paraver, Paje)", path);
    return NULL;
}

const char *rt_tsource_detect_head(const char *path, const unsigned char *head, size_t n, int isdir, char *why,
                                   size_t whycap)
{
    const reader *rd;
    const char *name = detect(path, head, n, isdir, &rd, why, whycap);
    if (rd && strcmp(rd->name, "picl") == 0)
        snprintf(why, whycap, "%s: PICL %s format (first record)", path, name[5] == 'o' ? "old" : "new");
    return name;
}

int rt_tsource_detect(const char *path, const char **name, char *why, size_t whycap)
{
    unsigned char head[RT_TSOURCE_HEAD];
    char w[1024];
    size_t n;
    int isdir;
    if (!why) {
        why = w;
        whycap = sizeof w;
    }
    *name = NULL;
    int st = read_head(path, head, &n, &isdir, why, whycap);
    if (st != RT_OK)
        return st;
    *name = rt_tsource_detect_head(path, head, n, isdir, why, whycap);
    return RT_OK;
}

static rt_tsource *open_picl(const char *path, int fmt, rt_err *err)
{
    rt_picl_opts o = {0};
    o.format = fmt;
    return rt_picl_source_open(path, &o, err);
}

rt_tsource *rt_tsource_open(const char *path, const char *format, rt_err *err)
{
    if (format) {
        if (strcmp(format, "picl") == 0)
            return open_picl(path, RT_PICL_AUTO, err);
        if (strcmp(format, "picl-old") == 0 || strcmp(format, "old") == 0)
            return open_picl(path, RT_PICL_OLD, err);
        if (strcmp(format, "picl-new") == 0 || strcmp(format, "new") == 0)
            return open_picl(path, RT_PICL_NEW, err);
        const reader *rd = find_reader(format);
        if (!rd) {
            char known[256] = "picl, picl-old, picl-new";
            for (int i = 0; i < NREADERS; i++)
                if (strcmp(readers[i].name, "picl") != 0)
                    snprintf(known + strlen(known), sizeof known - strlen(known), ", %s", readers[i].name);
            rt_err_set(err, RT_EINVAL, "unknown trace format '%s' (this build reads: %s)", format, known);
            return NULL;
        }
        return rd->open(path, err);
    }
    unsigned char *head = malloc(RT_TSOURCE_HEAD);
    char why[RT_ERR_MSG_MAX];
    if (!head) {
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    size_t n;
    int isdir;
    int st = read_head(path, head, &n, &isdir, why, sizeof why);
    if (st != RT_OK) {
        free(head);
        rt_err_set(err, st, "%s", why);
        return NULL;
    }
    const reader *rd;
    const char *name = detect(path, head, n, isdir, &rd, why, sizeof why);
    free(head);
    if (!rd) {
        rt_err_set(err, RT_EFORMAT, "%s", why);
        return NULL;
    }
    if (strcmp(rd->name, "picl") == 0)
        return open_picl(path, strcmp(name, "picl-old") == 0 ? RT_PICL_OLD : RT_PICL_NEW, err);
    return rd->open(path, err);
}
