/*
 * rt_paraver_defs.c - header, communicators, .pcf and .row of a Paraver
 * trace (see rt_paraver_defs.h). Small text read once at open: clarity over
 * speed here.
 */
#include "rt_paraver_defs.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rt_mem.h"
#include "rt_paraver.h"

/* ---- the process model ---- */

int prv_model_find(const prv_model *m, int64_t appl, int64_t task, int64_t thread, int *proc)
{
    if (appl < 1 || appl > m->nappl)
        return 1;
    int first = m->appl_first[appl - 1];
    if (task < 1 || task > m->appl_first[appl] - first)
        return 2;
    int t = first + (int)task - 1;
    if (thread < 1 || thread > m->task_first[t + 1] - m->task_first[t])
        return 3;
    *proc = m->task_first[t] + (int)thread - 1;
    return 0;
}

void prv_model_free(prv_model *m)
{
    free(m->appl_first);
    free(m->task_first);
    m->appl_first = m->task_first = NULL;
}

/* ---- the header line ---- */

/* A cursor over the header line, for messages naming the field. */
typedef struct hcur {
    const char *p, *end;
    const char *path;
    unsigned long line;
    rt_err *err;
} hcur;

static int hfail(hcur *h, const char *field, const char *what)
{
    char near[24];
    size_t n = (size_t)(h->end - h->p) < sizeof near - 1 ? (size_t)(h->end - h->p) : sizeof near - 1;
    memcpy(near, h->p, n);
    near[n] = '\0';
    return rt_err_at(h->err, RT_EFORMAT, h->path, h->line, "header: %s: %s at '%s'", field, what, near);
}

static int hnum(hcur *h, const char *field, long long lo, long long hi, long long *out)
{
    const char *s = h->p;
    int neg = s < h->end && *s == '-';
    if (neg)
        s++;
    long long v = 0;
    const char *d = s;
    while (s < h->end && isdigit((unsigned char)*s)) {
        if (v > (LLONG_MAX - 9) / 10)
            return hfail(h, field, "out of range");
        v = v * 10 + (*s++ - '0');
    }
    if (s == d)
        return hfail(h, field, "expected an integer");
    if (neg)
        v = -v;
    if (v < lo || v > hi)
        return hfail(h, field, "out of range");
    h->p = s;
    *out = v;
    return RT_OK;
}

static int hchar(hcur *h, char c, const char *field)
{
    if (h->p >= h->end || *h->p != c) {
        char what[24];
        snprintf(what, sizeof what, "expected '%c'", c);
        return hfail(h, field, what);
    }
    h->p++;
    return RT_OK;
}

/* "FTIME[_unit]": sets the clock (no unit = microseconds, as the Paraver kernel reads it). */
static int header_time(hcur *h, prv_model *m, rt_tdefs *defs)
{
    long long ft;
    int st = hnum(h, "ftime", 0, INT64_MAX / 10, &ft);
    if (st != RT_OK)
        return st;
    m->ftime = ft;
    uint64_t res = 1000000;
    if (h->p < h->end && *h->p == '_') {
        static const struct { const char *u; uint64_t res; } units[] = {
            {"_ns", 1000000000u}, {"_us", 1000000u}, {"_ms", 1000u}, {"_s", 1u}};
        size_t i;
        for (i = 0; i < sizeof units / sizeof *units; i++) {
            size_t n = strlen(units[i].u);
            if ((size_t)(h->end - h->p) >= n && memcmp(h->p, units[i].u, n) == 0 &&
                (h->p + n == h->end || h->p[n] == ':')) {
                res = units[i].res;
                h->p += n;
                break;
            }
        }
        if (i == sizeof units / sizeof *units)
            return hfail(h, "ftime", "unknown time unit");
    }
    rt_tdefs_set_clock(defs, res, 0);
    return RT_OK;
}

/* "NNODES[(CPUS,...)]": checked, not kept (processors are threads). */
static int header_resources(hcur *h)
{
    long long n, c;
    int st = hnum(h, "nodes", 0, 1 << 24, &n);
    if (st != RT_OK || h->p >= h->end || *h->p != '(')
        return st;
    h->p++;
    for (long long i = 0; i < n; i++) {
        if ((i > 0 && (st = hchar(h, ',', "cpus")) != RT_OK) || (st = hnum(h, "cpus", 0, 1 << 24, &c)) != RT_OK)
            return st;
    }
    return hchar(h, ')', "cpus");
}

static int push_int(int **a, size_t *cap, int n, int v)
{
    if (rt_grow((void **)a, cap, (size_t)n + 1, sizeof **a) != RT_OK)
        return RT_ENOMEM;
    (*a)[n] = v;
    return RT_OK;
}

/* At h->p: ',' then digits then '(' - the next application after a ',' separator, as
 * Paraver's own writer puts it - rather than ',NCOMM'. */
static int comma_starts_appl(const hcur *h)
{
    const char *q = h->p + 1;
    if (h->p >= h->end || *h->p != ',' || q >= h->end || !isdigit((unsigned char)*q))
        return 0;
    while (q < h->end && isdigit((unsigned char)*q))
        q++;
    return q < h->end && *q == '(';
}

/*
 * "NAPPL:APPL[SEP APPL...][,NCOMM]" with APPL = "NTASKS(NTHREADS:NODE,...)": the
 * process model. Between applications one separator, ':' or ',' (Paraver's
 * writer puts ',', Extrae ':'), as the Paraver kernel reads it; a communicator
 * count ",NCOMM" may follow any application (Extrae) or the last (Paraver).
 */
static int header_appls(hcur *h, prv_model *m, long long *ncomm)
{
    long long nappl, ntasks, nthr, node, nc;
    size_t capa = 0, capt = 0;
    int st = hnum(h, "applications", 1, 1 << 16, &nappl);
    if (st != RT_OK)
        return st;
    m->nappl = (int)nappl;
    *ncomm = 0;
    if (push_int(&m->appl_first, &capa, 0, 0) != RT_OK || push_int(&m->task_first, &capt, 0, 0) != RT_OK)
        return RT_ENOMEM;
    if ((st = hchar(h, ':', "tasks")) != RT_OK)
        return st;
    for (int a = 0; a < m->nappl; a++) {
        if (a > 0) { /* the separator before this application */
            if (h->p < h->end && (*h->p == ':' || *h->p == ','))
                h->p++;
            else
                return hchar(h, ':', "tasks");
        }
        if ((st = hnum(h, "tasks", 1, RT_TE_MAXPROC, &ntasks)) != RT_OK || (st = hchar(h, '(', "threads")) != RT_OK)
            return st;
        for (long long t = 0; t < ntasks; t++) {
            if ((t > 0 && (st = hchar(h, ',', "threads")) != RT_OK) ||
                (st = hnum(h, "threads", 1, RT_TE_MAXPROC, &nthr)) != RT_OK ||
                (st = hchar(h, ':', "node")) != RT_OK || (st = hnum(h, "node", 0, 1 << 24, &node)) != RT_OK)
                return st;
            if (m->nthreads + nthr > RT_TE_MAXPROC)
                return hfail(h, "threads", "more than the reader's limit in all");
            m->nthreads += (int)nthr;
            if (push_int(&m->task_first, &capt, ++m->ntasks, m->nthreads) != RT_OK)
                return RT_ENOMEM;
        }
        if ((st = hchar(h, ')', "threads")) != RT_OK)
            return st;
        if (h->p < h->end && *h->p == ',' && !(a + 1 < m->nappl && comma_starts_appl(h))) {
            h->p++;
            if ((st = hnum(h, "communicators", 0, 1 << 24, &nc)) != RT_OK)
                return st;
            *ncomm += nc;
        }
        if (push_int(&m->appl_first, &capa, a + 1, m->ntasks) != RT_OK)
            return RT_ENOMEM;
    }
    return RT_OK;
}

static int name_threads(const prv_model *m, rt_tdefs *defs)
{
    char name[96], path[96];
    for (int a = 1; a <= m->nappl; a++)
        for (int t = 1; t <= m->appl_first[a] - m->appl_first[a - 1]; t++) {
            int k = m->appl_first[a - 1] + t - 1;
            for (int h = 1; h <= m->task_first[k + 1] - m->task_first[k]; h++) {
                if (m->nappl == 1)
                    snprintf(name, sizeof name, "task %d thread %d", t, h);
                else
                    snprintf(name, sizeof name, "appl %d task %d thread %d", a, t, h);
                snprintf(path, sizeof path, "appl %d/task %d/thread %d", a, t, h);
                if (rt_tdefs_set_proc(defs, m->task_first[k] + h - 1, name, path) != RT_OK)
                    return RT_ENOMEM;
            }
        }
    return RT_OK;
}

/* "c:APPL:ID:N:TASK...": a communicator; members are each task's first thread
 * (unknown, NULL, when a task is not in the header, as Dimemas's "-1"). */
static int read_comm_line(hcur *h, const prv_model *m, rt_tdefs *defs)
{
    long long appl, id, n, task;
    int st;
    h->p += 2; /* "c:" checked by the caller */
    if ((st = hnum(h, "communicator appl", 1, m->nappl, &appl)) != RT_OK || (st = hchar(h, ':', "communicator")) != RT_OK ||
        (st = hnum(h, "communicator id", INT32_MIN, INT32_MAX, &id)) != RT_OK ||
        (st = hchar(h, ':', "communicator")) != RT_OK ||
        (st = hnum(h, "communicator size", 0, RT_TE_MAXPROC, &n)) != RT_OK)
        return st;
    int *members = malloc(((size_t)n + 1) * sizeof *members), known = 1;
    if (!members)
        return RT_ENOMEM;
    for (long long i = 0; i < n; i++) {
        if ((st = hchar(h, ':', "communicator member")) != RT_OK ||
            (st = hnum(h, "communicator member", INT32_MIN, INT32_MAX, &task)) != RT_OK) {
            free(members);
            return st;
        }
        int proc;
        if (prv_model_find(m, appl, task, 1, &proc) == 0)
            members[i] = proc;
        else
            known = 0;
    }
    char name[32];
    snprintf(name, sizeof name, "comm %lld", id);
    st = rt_tdefs_add_comm(defs, (int)id, name, (int)n, known ? members : NULL);
    free(members);
    return st;
}

int prv_read_header(rt_lines *in, const char *path, prv_model *m, rt_tdefs *defs, rt_err *err)
{
    const char *line;
    size_t len;
    memset(m, 0, sizeof *m);
    int st = rt_lines_next(in, &line, &len, err);
    if (st == RT_OK && strcmp(line, "new format") == 0)
        st = rt_lines_next(in, &line, &len, err);
    if (st == RT_EEOF)
        return rt_err_at(err, RT_EFORMAT, path, 1, "header: missing (empty file)");
    if (st != RT_OK)
        return st;
    hcur h = {line, line + len, path, rt_lines_lineno(in), err};
    while (h.end > h.p && isspace((unsigned char)h.end[-1]))
        h.end--;
    static const char magic[] = "#Paraver (";
    if (len < sizeof magic - 1 || memcmp(line, magic, sizeof magic - 1) != 0)
        return hfail(&h, "magic", "not a Paraver trace (expected '#Paraver (')");
    const char *close = memchr(line, ')', (size_t)(h.end - line));
    if (!close)
        return hfail(&h, "date", "no ')' closing the date");
    h.p = close + 1;
    long long ncomm;
    if ((st = hchar(&h, ':', "ftime")) != RT_OK || (st = header_time(&h, m, defs)) != RT_OK ||
        (st = hchar(&h, ':', "nodes")) != RT_OK || (st = header_resources(&h)) != RT_OK ||
        (st = hchar(&h, ':', "applications")) != RT_OK || (st = header_appls(&h, m, &ncomm)) != RT_OK)
        goto done;
    if (h.p < h.end) {
        st = hfail(&h, "header", "unexpected text");
        goto done;
    }
    snprintf(m->summary, sizeof m->summary, "%d application%s, %d task%s, %d thread%s", m->nappl,
             m->nappl == 1 ? "" : "s", m->ntasks, m->ntasks == 1 ? "" : "s", m->nthreads,
             m->nthreads == 1 ? "" : "s");
    if ((st = name_threads(m, defs)) != RT_OK)
        goto done;
    for (long long c = 0; c < ncomm; c++) {
        st = rt_lines_next(in, &line, &len, err);
        if (st == RT_EEOF) {
            st = rt_err_at(err, RT_EFORMAT, path, rt_lines_lineno(in) + 1,
                           "communicator: missing (the header announces %lld)", ncomm);
            goto done;
        }
        if (st != RT_OK)
            goto done;
        h = (hcur){line, line + len, path, rt_lines_lineno(in), err};
        while (h.end > h.p && isspace((unsigned char)h.end[-1]))
            h.end--;
        if (len >= 2 && (line[0] == 'i' || line[0] == 'I') && line[1] == ':')
            continue; /* an intercommunicator: not modelled */
        if (len < 2 || (line[0] != 'c' && line[0] != 'C') || line[1] != ':') {
            st = hfail(&h, "communicator", "expected a 'c:' line");
            goto done;
        }
        if ((st = read_comm_line(&h, m, defs)) != RT_OK)
            goto done;
    }
    return RT_OK;
done:
    if (st == RT_ENOMEM)
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    return st;
}

/* ---- state classes ---- */

/* The state names Extrae and Dimemas write, with their class (the README's
 * table). Both spellings of the ones they misspell. */
static const struct { const char *name; int cls; } state_classes[] = {
    {"Running", RT_TC_USER},
    {"Idle", RT_TC_IDLE},
    {"Not created", RT_TC_IDLE},
    {"Waiting a message", RT_TC_WAIT},
    {"Blocking Send", RT_TC_WAIT},
    {"Bloking Send", RT_TC_WAIT},
    {"Blocked", RT_TC_WAIT},
    {"Wait/WaitAll", RT_TC_WAIT},
    {"Send Receive", RT_TC_WAIT},
    {"Waiting links", RT_TC_WAIT},
    {"Thd. Synchr.", RT_TC_SYNC},
    {"Synchronization", RT_TC_SYNC},
    {"Test/Probe", RT_TC_RECV},
    {"Immediate Receive", RT_TC_RECV},
    {"Inmediate Receive", RT_TC_RECV},
    {"Immediate Send", RT_TC_SEND},
    {"Inmediate Send", RT_TC_SEND},
    {"Group Communication", RT_TC_COLLECTIVE},
    {"I/O", RT_TC_IO},
    {"Sched. and Fork/Join", RT_TC_SYSTEM},
    {"Scheduling and Fork/Join", RT_TC_SYSTEM},
    {"Tracing Disabled", RT_TC_TRACING},
    {"Others", RT_TC_SYSTEM},
};

int rt_paraver_state_class(const char *name)
{
    if (!name)
        return RT_TC_SYSTEM;
    for (size_t i = 0; i < sizeof state_classes / sizeof *state_classes; i++)
        if (strcasecmp(name, state_classes[i].name) == 0)
            return state_classes[i].cls;
    int c = rt_tclass_guess(name);
    return c == RT_TC_USER ? RT_TC_SYSTEM : c;
}

/* Extrae's standard state numbering, for traces that come without their .pcf. */
static const char *const standard_states[] = {
    "Idle", "Running", "Not created", "Waiting a message", "Blocking Send", "Synchronization",
    "Test/Probe", "Scheduling and Fork/Join", "Wait/WaitAll", "Blocked", "Immediate Send",
    "Immediate Receive", "I/O", "Group Communication", "Tracing Disabled", "Others", "Send Receive"};

int prv_define_state(rt_tdefs *defs, int s, const char *name, int standard)
{
    char buf[32];
    int cls = RT_TC_SYSTEM;
    if (name) {
        cls = rt_paraver_state_class(name);
    } else {
        snprintf(buf, sizeof buf, "state %d", s);
        name = buf;
        if (standard && s >= 0 && (size_t)s < sizeof standard_states / sizeof *standard_states)
            cls = rt_paraver_state_class(standard_states[s]);
    }
    return rt_tdefs_add_region(defs, RT_PARAVER_STATE_REGION(s), name, "Paraver state", cls);
}

/* ---- companions ---- */

/* path with its ".prv" suffix (if any) replaced by ext; malloc'd. */
static char *companion(const char *path, const char *ext)
{
    size_t n = strlen(path);
    if (n >= 4 && strcmp(path + n - 4, ".prv") == 0)
        n -= 4;
    char *c = malloc(n + strlen(ext) + 1);
    if (c) {
        memcpy(c, path, n);
        strcpy(c + n, ext);
    }
    return c;
}

/* The line without leading and trailing white space, in place. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* "NUMBER rest": the number into *v and the trimmed rest into *rest; 0 when not a number. */
static int number_then_text(char *s, long long *v, char **rest)
{
    char *e;
    *v = strtoll(s, &e, 10);
    if (e == s || (*e && !isspace((unsigned char)*e)))
        return 0;
    *rest = trim(e);
    return 1;
}

enum { PCF_NONE, PCF_STATES, PCF_TYPES, PCF_OTHER };

/*
 * The event types of one EVENT_TYPE section, until it ends: a section followed by VALUES names
 * its values (an enumeration: the values stay markers); one without them carries quantities,
 * and its types are counters.
 */
typedef struct pcf_group {
    int *types;
    size_t n, cap;
} pcf_group;

static int pcf_group_add(pcf_group *g, int type)
{
    if (rt_grow((void **)&g->types, &g->cap, g->n + 1, sizeof *g->types) != RT_OK)
        return RT_ENOMEM;
    g->types[g->n++] = type;
    return RT_OK;
}

/* The section ended: its types are counters unless values were named (RT_OK or RT_ENOMEM). */
static int pcf_group_end(rt_tdefs *defs, pcf_group *g, int named)
{
    int st = RT_OK;
    for (size_t i = 0; i < g->n && !named && st == RT_OK; i++) {
        const rt_tregion *r = rt_tdefs_region(defs, g->types[i]);
        if (rt_tdefs_add_counter(defs, g->types[i], r ? r->name : NULL, NULL) < 0)
            st = RT_ENOMEM;
    }
    g->n = 0;
    return st;
}

static int read_pcf(rt_tsource *s, const char *pcf, rt_lines *in, rt_err *err)
{
    const char *cline;
    size_t len;
    int mode = PCF_NONE, st;
    char *buf = NULL;
    size_t cap = 0;
    pcf_group group = {NULL, 0, 0};
    while ((st = rt_lines_next(in, &cline, &len, err)) == RT_OK) {
        unsigned long ln = rt_lines_lineno(in);
        if (rt_grow((void **)&buf, &cap, len + 1, 1) != RT_OK) {
            st = RT_ENOMEM;
            break;
        }
        memcpy(buf, cline, len + 1);
        char *l = trim(buf), *rest;
        long long v, type;
        if (!*l) {
            mode = PCF_NONE;
            continue;
        }
        if (isalpha((unsigned char)*l)) { /* a section keyword */
            /* VALUES names the values of the types just read; the display sections are not used */
            int values = strcmp(l, "VALUES") == 0;
            if (pcf_group_end(s->defs, &group, values) != RT_OK) {
                st = RT_ENOMEM;
                break;
            }
            mode = strcmp(l, "STATES") == 0 ? PCF_STATES : strcmp(l, "EVENT_TYPE") == 0 ? PCF_TYPES : PCF_OTHER;
            continue;
        }
        if (mode == PCF_STATES) {
            if (!number_then_text(l, &v, &rest) || v < 0 || v > RT_PARAVER_MAXSTATE) {
                st = rt_err_at(err, RT_EFORMAT, pcf, ln, "state: expected 'VALUE NAME', got '%.40s'", l);
                break;
            }
            if (prv_define_state(s->defs, (int)v, *rest ? rest : NULL, 0) != RT_OK) {
                st = RT_ENOMEM;
                break;
            }
        } else if (mode == PCF_TYPES) {
            /* "GRADIENT TYPE NAME" */
            if (!number_then_text(l, &v, &rest) || !number_then_text(rest, &type, &rest)) {
                st = rt_err_at(err, RT_EFORMAT, pcf, ln, "event type: expected 'GRADIENT TYPE NAME', got '%.40s'",
                               l);
                break;
            }
            if (type >= 0 && type <= INT32_MAX &&
                (rt_tdefs_add_region(s->defs, (int)type, rest, "Paraver event", RT_TC_USER) != RT_OK ||
                 pcf_group_add(&group, (int)type) != RT_OK)) {
                st = RT_ENOMEM;
                break;
            }
        }
    }
    if (st == RT_EEOF && pcf_group_end(s->defs, &group, 0) != RT_OK)
        st = RT_ENOMEM;
    free(group.types);
    free(buf);
    if (st == RT_ENOMEM)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", pcf);
    return st == RT_EEOF ? RT_OK : st;
}

/* "LEVEL THREAD SIZE N" then N names: the threads' names when N matches the header. */
static int read_row(rt_tsource *s, const prv_model *m, const char *row, rt_lines *in, rt_err *err)
{
    const char *cline;
    size_t len;
    int st, left = 0, next = 0;
    while ((st = rt_lines_next(in, &cline, &len, err)) == RT_OK) {
        char level[32];
        int n;
        if (left > 0) {
            char *name = strdup(cline);
            if (!name)
                return rt_err_set(err, RT_ENOMEM, "%s: out of memory", row);
            const rt_tproc *p = rt_tdefs_proc(s->defs, next);
            char *path = strdup(p ? p->path : "");
            int ok = path && rt_tdefs_set_proc(s->defs, next, trim(name), path) == RT_OK;
            free(name);
            free(path);
            if (!ok)
                return rt_err_set(err, RT_ENOMEM, "%s: out of memory", row);
            next++;
            left--;
        } else if (sscanf(cline, "LEVEL %31s SIZE %d", level, &n) == 2 && strcmp(level, "THREAD") == 0) {
            if (n != m->nthreads) {
                rt_tsource_warn(s, "%s:%lu: THREAD level names %d threads, the trace has %d: names ignored", row,
                                rt_lines_lineno(in), n, m->nthreads);
                return RT_OK;
            }
            left = n;
        }
    }
    if (st == RT_EEOF && left > 0)
        rt_tsource_warn(s, "%s: THREAD level cut short: %d names missing", row, left);
    return st == RT_EEOF ? RT_OK : st;
}

int prv_read_companions(rt_tsource *s, const prv_model *m, int *has_pcf, int *has_row, rt_err *err)
{
    char *pcf = companion(s->path, ".pcf"), *row = companion(s->path, ".row");
    int st = RT_OK;
    *has_pcf = *has_row = 0;
    if (!pcf || !row) {
        st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->path);
        goto done;
    }
    rt_err ignored;
    rt_lines *in = rt_lines_open(pcf, &ignored);
    if (in) {
        *has_pcf = 1;
        st = read_pcf(s, pcf, in, err);
        rt_lines_free(in);
        if (st != RT_OK)
            goto done;
    } else {
        rt_tsource_warn(s, "%s: no .pcf (%s): states named 'state N' with Extrae's standard classes", s->path,
                        ignored.msg);
    }
    in = rt_lines_open(row, &ignored);
    if (in) {
        *has_row = 1;
        st = read_row(s, m, row, in, err);
        rt_lines_free(in);
    }
done:
    free(pcf);
    free(row);
    return st;
}
