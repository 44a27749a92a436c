/* rt_sched.c - the SHMAP PE scheduler over a streamed trace (see rt_sched.h). */
#include "rt_sched.h"

#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

/* The task a PE holds: its events, copied out of the stream, with their texts. */
typedef struct task {
    rt_shmap_event *ev;
    size_t *textoff;        /* offset of each event's text in text */
    size_t n, cap, pos;     /* events, capacity, next to execute */
    char *text;
    size_t ntext, captext;
    int64_t id;             /* task number, -1 when the PE holds none */
} task;

enum { PIECE_NONE, PIECE_SEQ, PIECE_PAR };

struct rt_sched {
    rt_shmap *trace;
    int npes;
    task *tasks;            /* one per PE */
    task pending;           /* a piece's first task, read when the piece starts (id -1: taken) */
    int piece;              /* PIECE_NONE: the current piece is finished (or none started) */
    int piece_left;         /* the current piece may still have tasks to hand out */
    int piece_parallel;     /* kind of the current (or last) piece */
    int64_t piece_no;
    int64_t next_task;
    int eof;
    uint64_t steps;
    int active;
    const rt_shmap_event **last;    /* per PE: the event of the last step */
    int64_t *last_task;
};

static void task_clear(task *t)
{
    t->n = t->pos = t->ntext = 0;
    t->id = -1;
}

static int task_push(task *t, const rt_shmap_event *ev)
{
    if (t->n == t->cap) {
        size_t nc = t->cap ? 2 * t->cap : 8;
        if (rt_resize((void **)&t->ev, nc, sizeof *t->ev) != RT_OK ||
            rt_resize((void **)&t->textoff, nc, sizeof *t->textoff) != RT_OK)
            return RT_ENOMEM;
        t->cap = nc;
    }
    size_t len = strlen(ev->text) + 1;
    if (rt_grow((void **)&t->text, &t->captext, t->ntext + len, 1) != RT_OK)
        return RT_ENOMEM;
    memcpy(t->text + t->ntext, ev->text, len);
    t->textoff[t->n] = t->ntext;
    t->ntext += len;
    t->ev[t->n++] = *ev;
    return RT_OK;
}

/* Point every event's text into the (now final) text buffer. */
static void task_seal(task *t)
{
    for (size_t i = 0; i < t->n; i++)
        t->ev[i].text = t->text + t->textoff[i];
}

static void task_swap(task *a, task *b)
{
    task x = *a;
    *a = *b;
    *b = x;
}

/* Markers (6-9) and matrix definitions (0) are not events: the definitions were
 * all taken in the first pass, before the run, so they make no task and no step. */
static int is_event(int op) { return op != RT_SHM_DEFINE && op < RT_SHM_PAR_START; }

/* Read the events of a group (its start already read) into t. */
static int read_group(rt_sched *s, task *t, rt_err *err)
{
    rt_shmap_event ev;
    for (;;) {
        int st = rt_shmap_next(s->trace, &ev, err);
        if (st == RT_EEOF) /* the first pass guarantees closed groups */
            return rt_err_set(err, RT_EIO, "%s: trace changed while reading", rt_shmap_name(s->trace));
        if (st != RT_OK)
            return st;
        if (ev.op == RT_SHM_GROUP_END)
            break;
        if (!is_event(ev.op))
            continue; /* a definition inside the group */
        if (task_push(t, &ev) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    task_seal(t);
    return RT_OK;
}

/* Make t the task that starts with record ev: a group (read to its end) or a
 * lone event, numbered with the next task id. t->n stays 0 for what is no
 * task: a group without events, a definition (or a stray marker, impossible
 * after a valid first pass). */
static int fill_task(rt_sched *s, task *t, const rt_shmap_event *ev, rt_err *err)
{
    if (ev->op == RT_SHM_GROUP_START) {
        int st = read_group(s, t, err);
        if (st != RT_OK)
            return st;
    } else if (is_event(ev->op)) {
        if (task_push(t, ev) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "out of memory");
        task_seal(t);
    }
    if (t->n > 0)
        t->id = s->next_task++;
    return RT_OK;
}

/* The pending task opens a new piece: a parallel section or a sequential task. */
static void begin_piece(rt_sched *s, int parallel)
{
    s->piece = parallel ? PIECE_PAR : PIECE_SEQ;
    s->piece_parallel = parallel;
    s->piece_left = 1;
    s->piece_no++;
}

/* Read one record-level task from the stream into t: a group or a lone event.
 * *ended is set when the record was a parallel end (or the file ended). */
static int read_task_in_section(rt_sched *s, task *t, int *ended, rt_err *err)
{
    rt_shmap_event ev;
    *ended = 0;
    for (;;) {
        task_clear(t);
        int st = rt_shmap_next(s->trace, &ev, err);
        if (st == RT_EEOF) {
            *ended = 1;
            return RT_OK;
        }
        if (st != RT_OK)
            return st;
        if (ev.op == RT_SHM_PAR_END) {
            *ended = 1;
            return RT_OK;
        }
        if ((st = fill_task(s, t, &ev, err)) != RT_OK)
            return st;
        if (t->n == 0)
            continue; /* no task: an empty group or a definition */
        return RT_OK;
    }
}

/* Start the next piece; sets s->eof when there is none. */
static int start_piece(rt_sched *s, rt_err *err)
{
    rt_shmap_event ev;
    for (;;) {
        int st = rt_shmap_next(s->trace, &ev, err);
        if (st == RT_EEOF) {
            s->eof = 1;
            return RT_OK;
        }
        if (st != RT_OK)
            return st;
        task *t = &s->pending;
        task_clear(t);
        if (ev.op == RT_SHM_PAR_START) {
            int ended;
            if ((st = read_task_in_section(s, t, &ended, err)) != RT_OK)
                return st;
            if (ended)
                continue; /* a section without tasks is no piece */
            begin_piece(s, 1);
            return RT_OK;
        }
        if ((st = fill_task(s, t, &ev, err)) != RT_OK)
            return st;
        if (t->n == 0)
            continue; /* no task: an empty group or a definition */
        begin_piece(s, 0);
        return RT_OK;
    }
}

/* Give PE p the next task of the current piece if one is left. */
static int take_task(rt_sched *s, int p, rt_err *err)
{
    task *t = &s->tasks[p];
    if (!s->piece_left)
        return RT_OK;
    if (s->pending.id >= 0) { /* the piece's first task, read when it started */
        task_swap(t, &s->pending);
        task_clear(&s->pending);
        if (s->piece == PIECE_SEQ)
            s->piece_left = 0;
        return RT_OK;
    }
    int ended;
    int st = read_task_in_section(s, t, &ended, err);
    if (st != RT_OK)
        return st;
    if (ended)
        s->piece_left = 0;
    return RT_OK;
}

static int busy(const task *t) { return t->id >= 0 && t->pos < t->n; }

int rt_sched_step(rt_sched *s, rt_err *err)
{
    int st;
    s->active = 0;
    for (int p = 0; p < s->npes; p++) {
        s->last[p] = NULL;
        s->last_task[p] = -1;
    }
    for (;;) {
        int anybusy = 0;
        for (int p = 0; p < s->npes; p++)
            anybusy |= busy(&s->tasks[p]);
        if (!anybusy && !s->piece_left) {
            if (s->eof)
                return RT_EEOF;
            s->piece = PIECE_NONE;
            if ((st = start_piece(s, err)) != RT_OK)
                return st;
            if (s->eof)
                return RT_EEOF;
        }
        for (int p = 0; p < s->npes && s->piece_left; p++) {
            if (!busy(&s->tasks[p])) {
                task_clear(&s->tasks[p]);
                if ((st = take_task(s, p, err)) != RT_OK)
                    return st;
            }
        }
        anybusy = 0;
        for (int p = 0; p < s->npes; p++)
            anybusy |= busy(&s->tasks[p]);
        if (anybusy)
            break;
        /* the piece ran out of tasks before anyone got work: on to the next piece */
    }
    for (int p = 0; p < s->npes; p++) {
        task *t = &s->tasks[p];
        if (!busy(t))
            continue;
        s->last[p] = &t->ev[t->pos++];
        s->last_task[p] = t->id;
        s->active++;
    }
    s->steps++;
    return RT_OK;
}

rt_sched *rt_sched_new(rt_shmap *trace, int npes, rt_err *err)
{
    if (npes < 1 || npes > RT_SCHED_MAX_PES) {
        rt_err_set(err, RT_ERANGE, "pes: %d is outside 1..%d", npes, RT_SCHED_MAX_PES);
        return NULL;
    }
    rt_sched *s = calloc(1, sizeof *s);
    if (!s)
        goto nomem;
    s->tasks = calloc((size_t)npes, sizeof *s->tasks);
    s->last = calloc((size_t)npes, sizeof *s->last);
    s->last_task = calloc((size_t)npes, sizeof *s->last_task);
    if (!s->tasks || !s->last || !s->last_task)
        goto nomem;
    s->trace = trace;
    s->npes = npes;
    s->piece_no = -1;
    for (int p = 0; p < npes; p++) {
        task_clear(&s->tasks[p]);
        s->last_task[p] = -1;
    }
    task_clear(&s->pending);
    if (rt_shmap_rewind(trace, err) != RT_OK) {
        rt_sched_free(s);
        return NULL;
    }
    return s;
nomem:
    rt_sched_free(s);
    rt_err_set(err, RT_ENOMEM, "out of memory");
    return NULL;
}

static void task_free(task *t)
{
    free(t->ev);
    free(t->textoff);
    free(t->text);
}

void rt_sched_free(rt_sched *s)
{
    if (!s)
        return;
    if (s->tasks)
        for (int p = 0; p < s->npes; p++)
            task_free(&s->tasks[p]);
    task_free(&s->pending);
    free(s->tasks);
    free(s->last);
    free(s->last_task);
    free(s);
}

const rt_shmap_event *rt_sched_event(const rt_sched *s, int pe) { return s->last[pe]; }
int rt_sched_active(const rt_sched *s) { return s->active; }
int64_t rt_sched_task(const rt_sched *s, int pe) { return s->last_task[pe]; }
uint64_t rt_sched_steps(const rt_sched *s) { return s->steps; }
int64_t rt_sched_piece(const rt_sched *s) { return s->piece_no; }
int rt_sched_piece_parallel(const rt_sched *s) { return s->piece_parallel; }
int rt_sched_pes(const rt_sched *s) { return s->npes; }
