/*
 * rt_shmap_paje.c - a SHMAP run written as a Pajé trace (see rt_shmap_paje.h).
 */
#include "rt_shmap_paje.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header: only the kinds the file uses, each with the fields in the order written. */
static const char HEADER[] =
    "%EventDef PajeDefineContainerType 0\n%       Alias string\n%       Type string\n%       Name string\n"
    "%EndEventDef\n"
    "%EventDef PajeDefineStateType 1\n%       Alias string\n%       Type string\n%       Name string\n"
    "%EndEventDef\n"
    "%EventDef PajeDefineVariableType 2\n%       Alias string\n%       Type string\n%       Name string\n"
    "%EndEventDef\n"
    "%EventDef PajeCreateContainer 3\n%       Time date\n%       Alias string\n%       Type string\n"
    "%       Container string\n%       Name string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 4\n%       Time date\n%       Type string\n%       Name string\n"
    "%EndEventDef\n"
    "%EventDef PajeSetState 5\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 6\n%       Time date\n%       Type string\n%       Container string\n"
    "%       Value double\n%EndEventDef\n"
    "0 PE 0 \"PE\"\n"
    "1 S PE \"SHMAP step\"\n";

typedef struct {
    const rt_shmap *trace;
    int pes, counters;
    FILE *out;
    char (*state)[80];  /* per PE: the state set last ("" before the first step) */
    uint64_t *hits, *misses;            /* in the step under way */
    int64_t *last_hits, *last_misses;   /* set last (-1 before the first step) */
} writer;

/* The state a PE's event makes, into name (quotes in a subroutine's name become '). */
static void event_state(const writer *w, const rt_shmap_event *ev, char *name, size_t cap)
{
    if (!ev) {
        snprintf(name, cap, "idle");
        return;
    }
    switch (ev->op) {
    case RT_SHM_LOAD:
    case RT_SHM_STORE: {
        const rt_shmap_matrix *m = rt_shmap_matrix_at(w->trace, ev->matrix);
        snprintf(name, cap, "%s matrix %d", ev->op == RT_SHM_LOAD ? "load" : "store", m ? m->id : 0);
        return;
    }
    case RT_SHM_FLOPS:
        snprintf(name, cap, "%s", ev->text && ev->text[0] ? ev->text : "flops");
        for (char *c = name; *c; c++)
            if (*c == '"')
                *c = '\'';
        return;
    default:
        snprintf(name, cap, "message");
    }
}

static void on_access(void *ud, const rt_shmap_access *a)
{
    writer *w = ud;
    if (a->outcome == RT_SHM_HIT)
        w->hits[a->pe]++;
    else if (a->outcome == RT_SHM_MISS)
        w->misses[a->pe]++;
}

static void on_step(void *ud, const rt_shmap_sim *s)
{
    writer *w = ud;
    const rt_sched *sc = rt_shmap_sim_sched(s);
    uint64_t t = rt_sched_steps(sc) - 1; /* the step's start */
    char name[80];
    for (int p = 0; p < w->pes; p++) {
        event_state(w, rt_sched_event(sc, p), name, sizeof name);
        if (strcmp(name, w->state[p]) != 0) {
            fprintf(w->out, "5 %" PRIu64 " S pe%d \"%s\"\n", t, p, name);
            memcpy(w->state[p], name, sizeof name);
        }
        if (w->counters) {
            if ((int64_t)w->hits[p] != w->last_hits[p])
                fprintf(w->out, "6 %" PRIu64 " H pe%d %" PRIu64 "\n", t, p, w->hits[p]);
            if ((int64_t)w->misses[p] != w->last_misses[p])
                fprintf(w->out, "6 %" PRIu64 " M pe%d %" PRIu64 "\n", t, p, w->misses[p]);
            w->last_hits[p] = (int64_t)w->hits[p];
            w->last_misses[p] = (int64_t)w->misses[p];
            w->hits[p] = w->misses[p] = 0;
        }
    }
}

int rt_shmap_write_paje(rt_shmap_sim *s, const char *path, rt_err *err)
{
    writer w = {.trace = rt_shmap_sim_trace(s), .pes = rt_shmap_sim_pes(s), .counters = rt_shmap_sim_caches(s) > 0};
    size_t np = (size_t)w.pes;
    char *tmp = malloc(strlen(path) + 8);
    w.state = calloc(np, sizeof *w.state);
    w.hits = calloc(np, sizeof *w.hits);
    w.misses = calloc(np, sizeof *w.misses);
    w.last_hits = malloc(np * sizeof *w.last_hits);
    w.last_misses = malloc(np * sizeof *w.last_misses);
    int st = RT_OK;
    if (!tmp || !w.state || !w.hits || !w.misses || !w.last_hits || !w.last_misses) {
        st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    sprintf(tmp, "%s.part", path);
    for (int p = 0; p < w.pes; p++)
        w.last_hits[p] = w.last_misses[p] = -1;
    if (!(w.out = fopen(tmp, "w"))) {
        st = rt_err_set(err, RT_EIO, "%s: cannot write: %s", path, strerror(errno));
        goto done;
    }
    fputs(HEADER, w.out);
    if (w.counters)
        fputs("2 H PE \"cache hits in the step\"\n2 M PE \"cache misses in the step\"\n", w.out);
    for (int p = 0; p < w.pes; p++)
        fprintf(w.out, "3 0 pe%d PE 0 \"PE %d\"\n", p, p);
    if ((st = rt_shmap_sim_observe(s, on_access, on_step, &w)) != RT_OK) {
        st = rt_err_set(err, st, "%s: the simulation has too many observers", path);
        goto done;
    }
    st = rt_shmap_sim_step(s, 0, NULL, err);
    rt_shmap_sim_unobserve(s, &w);
    if (st == RT_EEOF)
        st = RT_OK;
    if (st != RT_OK)
        goto done;
    uint64_t steps = rt_sched_steps(rt_shmap_sim_sched(s));
    for (int p = 0; p < w.pes; p++)
        fprintf(w.out, "4 %" PRIu64 " PE pe%d\n", steps, p);
    int bad = ferror(w.out);
    bad |= fclose(w.out) != 0;
    w.out = NULL;
    if (bad || rename(tmp, path) != 0)
        st = rt_err_set(err, RT_EIO, "%s: cannot write: %s", path, strerror(errno ? errno : EIO));
done:
    if (w.out)
        fclose(w.out);
    if (st != RT_OK && tmp)
        remove(tmp);
    free(tmp);
    free(w.state);
    free(w.hits);
    free(w.misses);
    free(w.last_hits);
    free(w.last_misses);
    return st;
}
