/*
 * rt_detect.c - the one format detector (see rt_detect.h).
 *
 * Order of the questions, most certain first: an OTF2 anchor's name; what
 * the message-passing dispatcher recognises by content (OTF2, Paraver and its
 * companions, Pajé, an OTF2 archive's folder); the RTMB, index and MemSpy magic
 * numbers; then a vote of the first 50 lines, each line classified alone. Per
 * line the order matters where formats overlap: a din line ("LABEL ADDR",
 * anything after it a comment) could also start a SHMAP or old-PICL record,
 * so a din reading of more than two fields counts only when no SHMAP or PICL
 * rule takes the line.
 */
#include "rt_detect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_index.h"
#include "rt_input.h"
#include "rt_memtrace.h"
#include "rt_tsource_open.h"

#define VOTE_LINES 50
#define MAX_FIELDS 8

/* what the dispatcher's names mean here (its "directory" is handled apart) */
static const char *const dispatcher_names[][2] = {
    {"otf2", "otf2"},       {"otf2-noreader", "otf2"},       {"otf2-part", "otf2-part"},
    {"paraver", "paraver"}, {"paraver-noreader", "paraver"}, {"paraver-pcf", "paraver-pcf"},
    {"paraver-row", "paraver-row"}, {"paje", "paje"},        {"paje-noreader", "paje"},
};

/* The formats that vote, in the order of their names for ties. */
enum { V_DIN, V_LACKEY, V_PES, V_PICL_NEW, V_PICL_OLD, V_SHMAP, V_XDIN, V_COUNT };
static const char *const vote_names[V_COUNT] = {"din", "lackey", "pes", "picl-new", "picl-old", "shmap", "xdin"};

/* The memory readers asked about each line, and what each objected to first. */
typedef struct memask {
    int fmt;               /* RT_MEMFMT_* */
    const char *name;
    char objection[200];   /* "line N: ..." from the reader's own message */
} memask;

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/*
 * Does the memory reader m accept line (len bytes, number no)? The reader's
 * own parser runs on it: the line is lent to rt_input under path, so the
 * reader opens "path" and reads just that line (a line cut short by the end
 * of the head has its last field replaced by "0"). 1 yes, 0 no (objection noted
 * when it is the reader's first), -1 when the line holds nothing for it.
 */
static int mem_accepts(const char *path, memask *m, const char *line, size_t len, unsigned long no, int cut)
{
    char buf[RT_INPUT_HEAD + 3];
    if (cut) { /* a line cut by the end of the head: its last field is a stand-in "0" */
        while (len > 0 && line[len - 1] != ' ' && line[len - 1] != '\t')
            len--;
        memcpy(buf, line, len);
        buf[len++] = '0';
    } else {
        memcpy(buf, line, len);
    }
    buf[len] = '\n';
    rt_input_lend(path, buf, len + 1);
    rt_err e;
    rt_memref ref;
    int st = RT_EIO;
    rt_memtrace *t = rt_memtrace_open(path, m->fmt, &e);
    if (t) {
        st = rt_memtrace_next(t, &ref, &e);
        rt_memtrace_free(t);
    }
    rt_input_unlend();
    if (st == RT_OK)
        return 1;
    if (st == RT_EEOF)
        return -1;
    if (!m->objection[0]) { /* "PATH:1: why" -> "line NO: why" */
        size_t k = strlen(path);
        const char *why = strncmp(e.msg, path, k) == 0 && e.msg[k] == ':' ? strchr(e.msg + k + 1, ':') : NULL;
        why = why ? why + 1 : e.msg;
        while (*why == ' ')
            why++;
        snprintf(m->objection, sizeof m->objection, "line %lu: %.160s", no, why);
    }
    return 0;
}

/* A field as a number: 1 and *v when the whole field is one (an integer sets *isint). */
static int number(const char *f, double *v, int *isint)
{
    char *end;
    const char *h = f + (*f == '-' || *f == '+');
    int hex = h[0] == '0' && (h[1] == 'x' || h[1] == 'X');
    long long i = strtoll(f, &end, hex ? 16 : 10);
    if (*f && *end == '\0') {
        *v = (double)i;
        *isint = 1;
        return 1;
    }
    *isint = 0;
    *v = strtod(f, &end);
    return *f && *end == '\0';
}

/* Positive integer field. */
static int positive_int(const char *f)
{
    double v;
    int isint;
    return number(f, &v, &isint) && isint && v >= 1;
}

/*
 * The format one line reads as (a V_* index, or -1), and its weight in the
 * vote (*weight). SHMAP's matrix definitions ("0 ID ROWS COLS") weigh 5 and
 * its named operations 2: they are rare and sure.
 */
static int classify(const char *path, const char *line, size_t len, unsigned long no, int cut, memask mem[3],
                    int *weight)
{
    *weight = 1;
    if (len >= 3 && line[0] == '=' && line[1] == '=' && line[2] >= '0' && line[2] <= '9')
        return V_LACKEY; /* valgrind's own "==PID==" lines */
    int lk = mem_accepts(path, &mem[1], line, len, no, cut);
    if (lk == 1)
        return V_LACKEY;
    if (mem_accepts(path, &mem[2], line, len, no, cut) == 1)
        return V_XDIN;
    char copy[RT_INPUT_HEAD + 1], *f[MAX_FIELDS], *save = NULL;
    memcpy(copy, line, len);
    copy[len] = '\0';
    int nf = 0, total = 0;
    for (char *w = strtok_r(copy, " \t\r", &save); w; w = strtok_r(NULL, " \t\r", &save), total++)
        if (nf < MAX_FIELDS)
            f[nf++] = w;
    if (total == 0)
        return -1;
    double first;
    int fint, fnum = number(f[0], &first, &fint);
    int din = mem_accepts(path, &mem[0], line, len, no, cut) == 1;
    if (fnum && fint && first <= -2 && total >= 6)
        return V_PICL_NEW;
    if (din && total == 2)
        return V_DIN;
    if (fnum && first == 0 && total == 4) {
        *weight = 5;
        return V_SHMAP;
    }
    if (fnum && (first == 1 || first == 2) && total == 7 && positive_int(f[2]) && positive_int(f[3]) &&
        positive_int(f[4]) && positive_int(f[5]))
        return V_SHMAP;
    double v;
    int vint;
    if (fnum && first >= 3 && first <= 9 && total >= 2 && !number(f[1], &v, &vint)) {
        *weight = 2;
        return V_SHMAP;
    }
    if (fnum && fint && first >= 1 && first <= 30 && total >= 4 && number(f[1], &v, &vint) &&
        number(f[2], &v, &vint) && number(f[3], &v, &vint))
        return V_PICL_OLD;
    if (din)
        return V_DIN;
    if (total == 2 && !fnum && number(f[1], &v, &vint))
        return V_PES;
    const char *open = memchr(line, '(', len);
    if (open && memchr(open, ')', len - (size_t)(open - line))) {
        const char *q = line;
        while (q < open && (*q == ' ' || *q == '\t'))
            q++;
        if (q == open)
            return V_PES;
    }
    return -1;
}

/* A comment line ('#' first after blanks), which the vote skips; "#Paraver" is not one. */
static int is_comment(const char *l, size_t len)
{
    size_t i = 0;
    while (i < len && (l[i] == ' ' || l[i] == '\t'))
        i++;
    return i < len && l[i] == '#' && !(len - i >= 8 && memcmp(l + i, "#Paraver", 8) == 0);
}

/* The vote over the head's lines: complete lines only (the last, unfinished one
 * counts when the head is the whole input or holds no other line). */
static const char *vote(const char *path, const unsigned char *head, size_t n, int whole, char *why, size_t whycap)
{
    memask mem[3] = {{RT_MEMFMT_DIN, "din", ""}, {RT_MEMFMT_LACKEY, "lackey", ""}, {RT_MEMFMT_XDIN, "xdin", ""}};
    int votes[V_COUNT] = {0};
    const char *p = (const char *)head, *end = p + n;
    unsigned long no = 0;
    int counted = 0;
    while (p < end && counted < VOTE_LINES) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        if (!e && !whole && no > 0)
            break;
        const char *le = e ? e : end;
        size_t len = (size_t)(le - p);
        if (len > 0 && p[len - 1] == '\r')
            len--;
        no++;
        if (!is_comment(p, len)) {
            counted++;
            int w, k = classify(path, p, len, no, !e && !whole, mem, &w);
            if (k >= 0)
                votes[k] += w;
        }
        if (!e)
            break;
        p = e + 1;
    }
    int best = -1;
    for (int k = 0; k < V_COUNT; k++)
        if (votes[k] > 0 && (best < 0 || votes[k] > votes[best]))
            best = k;
    if (best >= 0) {
        snprintf(why, whycap, "its first lines read as %s", vote_names[best]);
        return vote_names[best];
    }
    size_t k = (size_t)snprintf(why, whycap, "no line recognised");
    const char *sep = " (";
    for (int i = 0; i < 3 && k < whycap; i++) {
        if (!mem[i].objection[0])
            continue;
        k += (size_t)snprintf(why + k, whycap - k, "%s%s: %s", sep, mem[i].name, mem[i].objection);
        sep = "; ";
    }
    if (k < whycap && sep[0] == ';')
        snprintf(why + k, whycap - k, "; nor PICL, SHMAP, PES, OTF2, Paraver or Paje)");
    return "unknown";
}

int rt_detect(const char *path, const char **name, char *why, size_t whycap)
{
    char w[1024];
    if (!why) {
        why = w;
        whycap = sizeof w;
    }
    *name = NULL;
    why[0] = '\0';
    if (ends_with(path, ".otf2")) {
        *name = "otf2";
        snprintf(why, whycap, "an OTF2 anchor (.otf2)");
        return RT_OK;
    }
    unsigned char *head = malloc(RT_INPUT_HEAD);
    if (!head) {
        snprintf(why, whycap, "%s: out of memory", path);
        return RT_ENOMEM;
    }
    size_t n;
    int isdir;
    rt_err e;
    int st = rt_input_head(path, head, RT_INPUT_HEAD, &n, &isdir, &e);
    if (st != RT_OK) {
        snprintf(why, whycap, "%s", e.msg);
        free(head);
        return st;
    }
    char mp[1024];
    const char *d = rt_tsource_detect_head(path, head, n, isdir, mp, sizeof mp);
    if (isdir || (d && strcmp(d, "directory") == 0)) {
        free(head);
        if (d && strcmp(d, "otf2") == 0) {
            *name = "otf2";
            snprintf(why, whycap, "an OTF2 archive's folder");
            return RT_OK;
        }
        snprintf(why, whycap, "%s", strstr(mp, "without an OTF2 anchor") ? "" : mp);
        if (!why[0])
            snprintf(why, whycap, "%s: Is a directory", path);
        return RT_EIO;
    }
    for (size_t i = 0; d && i < sizeof dispatcher_names / sizeof dispatcher_names[0]; i++)
        if (strcmp(d, dispatcher_names[i][0]) == 0) {
            *name = dispatcher_names[i][1];
            const char *ev = strstr(mp, ": ");
            snprintf(why, whycap, "%s", ev ? ev + 2 : mp);
            free(head);
            return RT_OK;
        }
    static const char index_magic[8] = RT_INDEX_MAGIC;
    if (n >= 8 && memcmp(head, RT_RTMB_MAGIC, 8) == 0) {
        *name = "bin";
        snprintf(why, whycap, "magic RTMB");
    } else if (n >= 8 && memcmp(head, index_magic, 8) == 0) {
        *name = "rtidx";
        snprintf(why, whycap, "magic RTINDEX");
    } else if (memchr(head, '\0', n)) {
        *name = "unknown";
        snprintf(why, whycap, "binary data (NUL bytes) and no known magic number");
    } else {
        /* MemSpy: the first record after comments is the magic "msp VERSION" */
        const char *p = (const char *)head, *end = p + n;
        for (;;) {
            while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
                p++;
            if (p < end && *p == '#') {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                p = nl ? nl + 1 : end;
                continue;
            }
            break;
        }
        const char *q = p + 3;
        int msp = end - p > 4 && memcmp(p, "msp", 3) == 0 && (*q == ' ' || *q == '\t');
        while (msp && q < end && (*q == ' ' || *q == '\t'))
            q++;
        const char *digits = q;
        while (msp && q < end && *q >= '0' && *q <= '9')
            q++;
        if (msp && q > digits && (q == end || *q == '\n' || *q == '\r' || *q == ' ' || *q == '\t')) {
            *name = "msp";
            snprintf(why, whycap, "magic msp");
        } else {
            *name = vote(path, head, n, n < RT_INPUT_HEAD, why, whycap);
        }
    }
    free(head);
    return RT_OK;
}
