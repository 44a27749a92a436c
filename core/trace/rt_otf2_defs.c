/*
 * rt_otf2_defs.c - the OTF2 reader's definitions (see rt_otf2_defs.h): the
 * global definitions of an archive become rt_tdefs (regions with a class,
 * processors with names and paths, communicators, the clock) and the maps the
 * event callbacks need; also the library's error messages.
 *
 * Definitions arrive in the file's order, which need not be the order they
 * refer to each other (a region may name a string defined later), so they are
 * first collected in tables indexed by id and only then turned into rt_tdefs.
 * Ids are dense in practice (Score-P numbers each kind from 0); a table is
 * refused past MAX_DEF_ID entries rather than grown without bound on a bad file.
 *
 * The library reports its errors through one process-wide callback; we keep
 * the last message (per thread) so the reader can put it into a one-line
 * rt_err naming the archive and the part, instead of letting it go to stderr.
 */
#include "rt_otf2_defs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

/* Definition ids above this are refused: the tables are indexed by id. */
#define MAX_DEF_ID (1u << 24)

/* ---- the library's error messages ---- */

static _Thread_local char lib_msg[256];  /* the last message, per thread */

static OTF2_ErrorCode on_lib_error(void *ud, const char *file, uint64_t line, const char *func,
                                   OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud;
    (void)file;
    (void)line;
    (void)func;
    char text[200] = "";
    if (fmt && *fmt)
        vsnprintf(text, sizeof text, fmt, va);
    snprintf(lib_msg, sizeof lib_msg, "%s%s%s", OTF2_Error_GetDescription(code), *text ? ": " : "",
             text);
    for (char *p = lib_msg; *p; p++) /* one line, whatever the library wrote */
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    return code;
}

const char *rt_otf2_error(OTF2_ErrorCode code)
{
    if (!lib_msg[0])
        snprintf(lib_msg, sizeof lib_msg, "%s", OTF2_Error_GetDescription(code));
    return lib_msg;
}

void rt_otf2_error_clear(void)
{
    lib_msg[0] = '\0';
}

void rt_otf2_errors_init(void)
{
    OTF2_Error_RegisterCallback(on_lib_error, NULL);
}

/* ---- definition tables indexed by id ---- */

/* A growing array of elem-byte slots, zeroed when they appear, indexed by id. */
typedef struct idtab {
    char *data;
    size_t n, cap, elem;
} idtab;

/* The slot of id (zeroed when new); NULL when id is too large or memory runs out. */
static void *idtab_at(idtab *t, uint64_t id)
{
    if (id >= MAX_DEF_ID)
        return NULL;
    if (id >= t->n) {
        if (rt_grow((void **)&t->data, &t->cap, (size_t)id + 1, t->elem) != RT_OK)
            return NULL;
        memset(t->data + t->n * t->elem, 0, ((size_t)id + 1 - t->n) * t->elem);
        t->n = (size_t)id + 1;
    }
    return t->data + (size_t)id * t->elem;
}

/* The slot of id when it exists, else NULL (no growth). */
static void *idtab_get(const idtab *t, uint64_t id)
{
    return id < t->n ? t->data + (size_t)id * t->elem : NULL;
}

typedef struct def_node {   /* system tree node */
    int used;
    uint32_t name, parent;
} def_node;

typedef struct def_lgroup { /* location group (an MPI rank, a process) */
    int used;
    uint32_t name, parent;  /* parent: system tree node */
} def_lgroup;

typedef struct def_region {
    int used;
    uint32_t name;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
} def_region;

typedef struct def_group {
    int used;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint32_t n;
    uint64_t *members;
} def_group;

typedef struct def_comm {
    int used;
    uint32_t name, group;
} def_comm;

typedef struct def_loc {
    uint64_t id;
    uint32_t name, group;
    uint64_t nevents;
    OTF2_LocationType type;
} def_loc;

typedef struct def_member { /* a metric member: one counter */
    int used;
    uint32_t name, unit;
} def_member;

typedef struct def_metric { /* a metric class (its members) or an instance (its class) */
    int used;
    uint32_t cls;           /* an instance's class; a class's own id */
    uint32_t n;
    uint32_t *members;
} def_metric;

/* Everything the global definitions say, before it becomes rt_tdefs. */
typedef struct gdefs {
    idtab strings;          /* char * by string id */
    idtab nodes, lgroups, regions, groups, comms;
    idtab members, metrics; /* def_member, def_metric */
    def_loc *locs;
    size_t nlocs, caplocs;
    int have_clock;
    uint64_t resolution, offset;
    int failed;             /* RT_ENOMEM or RT_ERANGE from a callback */
    uint64_t bad_id;        /* the id that was out of range */
} gdefs;

static void gdefs_free(gdefs *g)
{
    /* (a table is as long as the largest id defined: most slots of a sparse one are empty,
     * and not handed to free, which a sanitizer makes slow) */
    for (size_t i = 0; i < g->strings.n; i++)
        if (((char **)g->strings.data)[i])
            free(((char **)g->strings.data)[i]);
    for (size_t i = 0; i < g->groups.n; i++)
        if (((def_group *)g->groups.data)[i].members)
            free(((def_group *)g->groups.data)[i].members);
    free(g->strings.data);
    free(g->nodes.data);
    free(g->lgroups.data);
    free(g->regions.data);
    free(g->groups.data);
    free(g->comms.data);
    for (size_t i = 0; i < g->metrics.n; i++)
        free(((def_metric *)g->metrics.data)[i].members);
    free(g->members.data);
    free(g->metrics.data);
    free(g->locs);
}

/* Slot of id in t, or NULL with g->failed set (the callback then interrupts reading). */
static void *gdefs_slot(gdefs *g, idtab *t, uint64_t id)
{
    void *p = idtab_at(t, id);
    if (!p) {
        g->failed = id >= MAX_DEF_ID ? RT_ERANGE : RT_ENOMEM;
        g->bad_id = id;
    }
    return p;
}

static const char *gstr(const gdefs *g, uint32_t id)
{
    char **p = idtab_get(&g->strings, id);
    return p && *p ? *p : "";
}

/* Keep reading unless a callback failed (g->failed). */
static OTF2_CallbackCode def_status(const gdefs *g)
{
    return g->failed ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_string(void *ud, OTF2_StringRef self, const char *s)
{
    gdefs *g = ud;
    char **p = gdefs_slot(g, &g->strings, self);
    if (p) {
        free(*p);
        if (!(*p = strdup(s ? s : "")))
            g->failed = RT_ENOMEM;
    }
    return def_status(g);
}

static OTF2_CallbackCode on_clock(void *ud, uint64_t resolution, uint64_t offset, uint64_t length,
                                  uint64_t realtime)
{
    (void)length;
    (void)realtime;
    gdefs *g = ud;
    g->have_clock = 1;
    g->resolution = resolution;
    g->offset = offset;
    return def_status(g);
}

static OTF2_CallbackCode on_node(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                  OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    (void)cls;
    gdefs *g = ud;
    def_node *p = gdefs_slot(g, &g->nodes, self);
    if (p)
        *p = (def_node){1, name, parent};
    return def_status(g);
}

static OTF2_CallbackCode on_lgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                    OTF2_LocationGroupRef creator)
{
    (void)type;
    (void)creator;
    gdefs *g = ud;
    def_lgroup *p = gdefs_slot(g, &g->lgroups, self);
    if (p)
        *p = (def_lgroup){1, name, parent};
    return def_status(g);
}

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t nevents,
                                      OTF2_LocationGroupRef group)
{
    gdefs *g = ud;
    if (rt_grow((void **)&g->locs, &g->caplocs, g->nlocs + 1, sizeof *g->locs) != RT_OK)
        g->failed = RT_ENOMEM;
    else
        g->locs[g->nlocs++] = (def_loc){self, name, group, nevents, type};
    return def_status(g);
}

static OTF2_CallbackCode on_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef descr,
                                    OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                    uint32_t end)
{
    (void)canonical;
    (void)descr;
    (void)flags;
    (void)file;
    (void)begin;
    (void)end;
    gdefs *g = ud;
    def_region *p = gdefs_slot(g, &g->regions, self);
    if (p)
        *p = (def_region){1, name, role, paradigm};
    return def_status(g);
}

static OTF2_CallbackCode on_metric_member(void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                          OTF2_StringRef descr, OTF2_MetricType type, OTF2_MetricMode mode,
                                          OTF2_Type vtype, OTF2_Base base, int64_t exponent, OTF2_StringRef unit)
{
    (void)descr, (void)type, (void)mode, (void)vtype, (void)base, (void)exponent;
    gdefs *g = ud;
    def_member *p = gdefs_slot(g, &g->members, self);
    if (p)
        *p = (def_member){1, name, unit};
    return def_status(g);
}

static OTF2_CallbackCode on_metric_class(void *ud, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *members,
                                         OTF2_MetricOccurrence occ, OTF2_RecorderKind kind)
{
    (void)occ, (void)kind;
    gdefs *g = ud;
    def_metric *p = gdefs_slot(g, &g->metrics, self);
    if (p) {
        free(p->members);
        *p = (def_metric){1, self, n, malloc((n ? n : 1) * sizeof *p->members)};
        if (!p->members)
            g->failed = RT_ENOMEM;
        else
            for (uint32_t i = 0; i < n; i++)
                p->members[i] = members[i];
    }
    return def_status(g);
}

static OTF2_CallbackCode on_metric_instance(void *ud, OTF2_MetricRef self, OTF2_MetricRef cls, OTF2_LocationRef rec,
                                            OTF2_MetricScope scope, uint64_t sref)
{
    (void)rec, (void)scope, (void)sref;
    gdefs *g = ud;
    def_metric *p = gdefs_slot(g, &g->metrics, self);
    if (p) {
        free(p->members);
        *p = (def_metric){1, cls, 0, NULL};
    }
    return def_status(g);
}

/* Metric members become counters (in id order); each metric's members become their counters'
 * numbers (map->metrics), an instance taking its class's. */
static int build_metrics(rt_otf2_map *s, const gdefs *g, rt_tdefs *d)
{
    s->fanout = 1;
    for (size_t i = 0; i < g->members.n; i++) {
        const def_member *m = (const def_member *)g->members.data + i;
        if (m->used && rt_tdefs_add_counter(d, (int)i, gstr(g, m->name), gstr(g, m->unit)) < 0)
            return RT_ENOMEM;
    }
    if (!g->metrics.n)
        return RT_OK;
    s->metrics = calloc(g->metrics.n, sizeof *s->metrics);
    if (!s->metrics)
        return RT_ENOMEM;
    s->nmetrics = g->metrics.n;
    for (size_t i = 0; i < g->metrics.n; i++) {
        const def_metric *m = (const def_metric *)g->metrics.data + i;
        if (m->used && !m->members) /* an instance: its class */
            m = idtab_get(&g->metrics, m->cls);
        if (!m || !m->used || !m->members)
            continue;
        int *c = malloc((m->n ? m->n : 1) * sizeof *c);
        if (!c)
            return RT_ENOMEM;
        for (uint32_t k = 0; k < m->n; k++)
            c[k] = rt_tdefs_counter_find(d, (int)m->members[k]);
        s->metrics[i].n = m->n;
        s->metrics[i].counter = c;
        if (m->n > s->fanout)
            s->fanout = m->n;
    }
    return RT_OK;
}

static OTF2_CallbackCode on_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name;
    (void)flags;
    gdefs *g = ud;
    def_group *p = gdefs_slot(g, &g->groups, self);
    if (p) {
        uint64_t *m = n ? malloc(n * sizeof *m) : NULL;
        if (n && !m) {
            g->failed = RT_ENOMEM;
        } else {
            if (n)
                memcpy(m, members, n * sizeof *m);
            free(p->members);
            *p = (def_group){1, type, paradigm, n, m};
        }
    }
    return def_status(g);
}

static OTF2_CallbackCode on_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)parent;
    (void)flags;
    gdefs *g = ud;
    def_comm *p = gdefs_slot(g, &g->comms, self);
    if (p)
        *p = (def_comm){1, name, group};
    return def_status(g);
}

/* ---- region classes ---- */

static const char *paradigm_name(OTF2_Paradigm p)
{
    static const char *const names[] = {
        "UNKNOWN", "USER", "COMPILER", "OPENMP", "MPI", "CUDA", "MEASUREMENT_SYSTEM", "PTHREAD",
        "HMPP", "OMPSS", "HARDWARE", "GASPI", "UPC", "SHMEM", "WINTHREAD", "QTTHREAD",
        "ACETHREAD", "TBBTHREAD", "OPENACC", "OPENCL", "MTAPI", "SAMPLING", "NONE", "HIP",
        "KOKKOS"};
    return p < sizeof names / sizeof *names ? names[p] : "OTHER";
}

static int is_accelerator(OTF2_Paradigm p)
{
    return p == OTF2_PARADIGM_CUDA || p == OTF2_PARADIGM_HIP || p == OTF2_PARADIGM_OPENCL ||
           p == OTF2_PARADIGM_OPENACC || p == OTF2_PARADIGM_HMPP || p == OTF2_PARADIGM_KOKKOS;
}

/* A call into an accelerator's runtime (cudaMemcpy, hipMalloc, clEnqueue..., acc_...), as opposed
 * to a kernel, which runs on its stream and is the stream's work. */
static int accelerator_api(const char *name)
{
    static const char *const prefix[] = {"cuda", "cu", "hip", "hsa", "cl", "acc_", "Kokkos::", "nvtx",
                                         "roctx", "MEMCPY", "MEMSET", "ALLOC"};
    for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++) {
        size_t n = strlen(prefix[i]);
        /* "cu" and "cl" only before an upper-case letter (cuLaunchKernel, clFinish), not a kernel "cube" */
        if (strncmp(name, prefix[i], n) == 0 &&
            (n > 2 || (name[n] >= 'A' && name[n] <= 'Z')))
            return 1;
    }
    return 0;
}

/*
 * The class of a region. The role decides where it is specific (collectives,
 * barriers, file I/O, waits); MPI calls of a general role (point-to-point,
 * function: MPI_Recv and MPI_Wait are both) are told apart by name; the tracer's
 * own regions are TRACING; outside MPI, a region named like a wait (rt_tclass_runtime_wait:
 * *Synchronize*, barriers, waits, joins, locks) waits; on accelerators a runtime call is SYSTEM
 * and anything else is a kernel (USER, busy on its stream); runtime calls of other paradigms are
 * SYSTEM; code of the user or the compiler is USER unless its name is an MPI call.
 */
static int region_class(OTF2_RegionRole role, OTF2_Paradigm par, const char *name)
{
    if (par == OTF2_PARADIGM_MEASUREMENT_SYSTEM || role == OTF2_REGION_ROLE_ARTIFICIAL)
        return RT_TC_TRACING;
    switch (role) {
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
    case OTF2_REGION_ROLE_COLL_OTHER:
        return RT_TC_COLLECTIVE;
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
    case OTF2_REGION_ROLE_TASK_WAIT:
    case OTF2_REGION_ROLE_THREAD_WAIT:
        return RT_TC_SYNC;
    case OTF2_REGION_ROLE_FILE_IO:
    case OTF2_REGION_ROLE_FILE_IO_METADATA:
        return RT_TC_IO;
    default:
        break;
    }
    int guess = rt_tclass_guess(name);
    if (par != OTF2_PARADIGM_MPI && guess == RT_TC_USER) {
        int wait = rt_tclass_runtime_wait(name);
        if (wait >= 0)
            return wait;
    }
    if (is_accelerator(par))
        return accelerator_api(name) ? RT_TC_SYSTEM : RT_TC_USER;
    switch (par) {
    case OTF2_PARADIGM_MPI:
        return guess == RT_TC_USER ? RT_TC_SYSTEM : guess;
    case OTF2_PARADIGM_UNKNOWN:
    case OTF2_PARADIGM_USER:
    case OTF2_PARADIGM_COMPILER:
    case OTF2_PARADIGM_SAMPLING:
    case OTF2_PARADIGM_NONE:
        return guess;
    default:
        break;
    }
    if (role == OTF2_REGION_ROLE_POINT2POINT)
        return RT_TC_SEND;
    if (role == OTF2_REGION_ROLE_FUNCTION || role == OTF2_REGION_ROLE_WRAPPER ||
        role == OTF2_REGION_ROLE_RMA || role == OTF2_REGION_ROLE_DATA_TRANSFER ||
        role == OTF2_REGION_ROLE_ALLOCATE || role == OTF2_REGION_ROLE_DEALLOCATE ||
        role == OTF2_REGION_ROLE_REALLOCATE || role == OTF2_REGION_ROLE_THREAD_CREATE ||
        role == OTF2_REGION_ROLE_TASK_CREATE || role == OTF2_REGION_ROLE_FLUSH)
        return RT_TC_SYSTEM;
    return RT_TC_USER; /* parallel regions, loops, sections, tasks: the threads' own work */
}

/* ---- building the definitions ---- */

static int cmp_loc(const void *a, const void *b)
{
    uint64_t x = ((const def_loc *)a)->id, y = ((const def_loc *)b)->id;
    return x < y ? -1 : x > y;
}

static int cmp_comm(const void *a, const void *b)
{
    uint32_t x = ((const rt_otf2_comm *)a)->id, y = ((const rt_otf2_comm *)b)->id;
    return x < y ? -1 : x > y;
}

/* Append s to buf (cap bytes, NUL-terminated), with sep first when buf is not empty. */
static void append(char *buf, size_t cap, const char *sep, const char *s)
{
    size_t n = strlen(buf);
    if (n && n + 1 < cap)
        n += (size_t)snprintf(buf + n, cap - n, "%s", sep);
    if (n + 1 < cap)
        snprintf(buf + n, cap - n, "%s", s);
}

/* The system tree from the root down to node id, '/'-separated, into buf. */
static void node_path(const gdefs *g, uint32_t id, char *buf, size_t cap, int depth)
{
    const def_node *n = idtab_get(&g->nodes, id);
    if (!n || !n->used || depth > 64) /* depth: a cycle in a broken file */
        return;
    if (n->parent != id)
        node_path(g, n->parent, buf, cap, depth + 1);
    append(buf, cap, "/", gstr(g, n->name));
}

/* The location ids of a group that lists locations (NULL with *n = 0 for other groups). */
static const uint64_t *group_locations(const def_group *gr, uint32_t *n)
{
    *n = 0;
    if (gr->type == OTF2_GROUP_TYPE_COMM_LOCATIONS || gr->type == OTF2_GROUP_TYPE_LOCATIONS) {
        *n = gr->n;
        return gr->members;
    }
    return NULL;
}

static int build_comms(rt_otf2_map *s, const gdefs *g, rt_tdefs *d, const char *anchor, rt_err *err)
{
    size_t count = 0;
    for (size_t i = 0; i < g->comms.n; i++)
        count += ((def_comm *)g->comms.data)[i].used;
    s->comms = calloc(count ? count : 1, sizeof *s->comms);
    if (!s->comms)
        goto nomem;
    for (size_t i = 0; i < g->comms.n; i++) {
        const def_comm *c = (def_comm *)g->comms.data + i;
        if (!c->used)
            continue;
        rt_otf2_comm *m = &s->comms[s->ncomms++];
        m->id = (uint32_t)i;
        const def_group *gr = idtab_get(&g->groups, c->group);
        if (gr && gr->used && gr->type == OTF2_GROUP_TYPE_COMM_SELF) {
            m->self = 1;
            m->size = 1;
        } else if (gr && gr->used) {
            /* COMM_GROUP members are ranks into the COMM_LOCATIONS group of the same paradigm */
            const def_group *base = NULL;
            if (gr->type == OTF2_GROUP_TYPE_COMM_GROUP)
                for (size_t k = 0; k < g->groups.n && !base; k++) {
                    const def_group *b = (def_group *)g->groups.data + k;
                    if (b->used && b->type == OTF2_GROUP_TYPE_COMM_LOCATIONS && b->paradigm == gr->paradigm)
                        base = b;
                }
            uint32_t nbase = 0;
            const uint64_t *locs = base ? group_locations(base, &nbase) : group_locations(gr, &nbase);
            m->size = (int)gr->n;
            m->procs = malloc((gr->n ? gr->n : 1) * sizeof *m->procs);
            if (!m->procs)
                goto nomem;
            for (uint32_t r = 0; r < gr->n; r++) {
                uint64_t loc = base ? (gr->members[r] < nbase ? locs[gr->members[r]] : UINT64_MAX)
                                    : (locs ? locs[r] : UINT64_MAX);
                m->procs[r] = rt_otf2_proc(s, loc);
            }
        }
        if (rt_tdefs_add_comm(d, (int)m->id, gstr(g, c->name), m->size, m->procs) != RT_OK)
            goto nomem;
    }
    qsort(s->comms, s->ncomms, sizeof *s->comms, cmp_comm);
    return RT_OK;
nomem:
    return rt_err_set(err, RT_ENOMEM, "%s: out of memory", anchor);
}

static int build_defs(rt_otf2_map *s, gdefs *g, rt_tdefs *d, const char *anchor, rt_err *err)
{
    for (size_t i = 0; i < g->regions.n; i++) {
        const def_region *r = (def_region *)g->regions.data + i;
        if (!r->used)
            continue;
        const char *name = gstr(g, r->name);
        if (rt_tdefs_add_region(d, (int)i, name, paradigm_name(r->paradigm),
                                region_class(r->role, r->paradigm, name)) != RT_OK)
            goto nomem;
    }
    qsort(g->locs, g->nlocs, sizeof *g->locs, cmp_loc);
    s->locs = malloc((g->nlocs ? g->nlocs : 1) * sizeof *s->locs);
    s->nevents = malloc((g->nlocs ? g->nlocs : 1) * sizeof *s->nevents);
    if (!s->locs || !s->nevents)
        goto nomem;
    s->dense = 1;
    s->nlocs = 0;
    for (size_t i = 0; i < g->nlocs; i++) {
        if (i && g->locs[i].id == g->locs[i - 1].id)
            return rt_err_set(err, RT_EFORMAT, "%s: definitions: location %llu defined twice",
                              anchor, (unsigned long long)g->locs[i].id);
        if (!rt_otf2_is_processor(g->locs[i].type)) {
            s->metric_locs++;
            continue;
        }
        size_t p = s->nlocs++;
        s->locs[p] = g->locs[i].id;
        s->nevents[p] = g->locs[i].nevents;
        s->dense &= g->locs[i].id == p;
        char name[512] = "", path[1024] = "";
        const def_lgroup *lg = idtab_get(&g->lgroups, g->locs[i].group);
        if (lg && lg->used) {
            append(name, sizeof name, "", gstr(g, lg->name));
            node_path(g, lg->parent, path, sizeof path, 0);
            append(path, sizeof path, "/", gstr(g, lg->name));
        }
        append(name, sizeof name, " / ", gstr(g, g->locs[i].name));
        append(path, sizeof path, "/", gstr(g, g->locs[i].name));
        int st = rt_tdefs_set_proc(d, (int)p, name, path);
        if (st == RT_ERANGE)
            return rt_err_set(err, st, "%s: definitions: %zu locations, more than %d", anchor,
                              g->nlocs, RT_TE_MAXPROC);
        if (st != RT_OK)
            goto nomem;
    }
    if (s->nlocs == 0)
        return rt_err_set(err, RT_EFORMAT, "%s: global definitions: no thread or stream locations (%zu metric)",
                          anchor, s->metric_locs);
    s->have_clock = g->have_clock;
    if (g->have_clock)
        rt_tdefs_set_clock(d, g->resolution, (int64_t)g->offset);
    if (build_metrics(s, g, d) != RT_OK)
        goto nomem;
    return build_comms(s, g, d, anchor, err);
nomem:
    return rt_err_set(err, RT_ENOMEM, "%s: out of memory", anchor);
}

int rt_otf2_read_defs(OTF2_Reader *rd, const char *anchor, rt_tdefs *defs, rt_otf2_map *map,
                      rt_err *err)
{
    gdefs g = {.strings = {.elem = sizeof(char *)},
               .nodes = {.elem = sizeof(def_node)},
               .lgroups = {.elem = sizeof(def_lgroup)},
               .regions = {.elem = sizeof(def_region)},
               .groups = {.elem = sizeof(def_group)},
               .comms = {.elem = sizeof(def_comm)},
               .members = {.elem = sizeof(def_member)},
               .metrics = {.elem = sizeof(def_metric)}};
    int st = RT_OK;
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(rd);
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    if (!gdr || !cb) {
        st = rt_err_set(err, RT_EFORMAT, "%s: global definitions: cannot be opened: %s", anchor,
                        rt_otf2_error(OTF2_ERROR_FILE_CAN_NOT_OPEN));
        goto done;
    }
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, on_node);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_lgroup);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, on_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, on_comm);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_metric_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_metric_class);
    OTF2_GlobalDefReaderCallbacks_SetMetricInstanceCallback(cb, on_metric_instance);
    OTF2_Reader_RegisterGlobalDefCallbacks(rd, gdr, cb, &g);
    uint64_t n = 0;
    rt_otf2_error_clear();
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gdr, &n);
    if (g.failed == RT_ERANGE)
        st = rt_err_set(err, RT_EFORMAT, "%s: global definitions: id %llu too large (limit %u)",
                        anchor, (unsigned long long)g.bad_id, MAX_DEF_ID);
    else if (g.failed)
        st = rt_err_set(err, g.failed, "%s: out of memory", anchor);
    else if (rc != OTF2_SUCCESS)
        st = rt_err_set(err, RT_EFORMAT, "%s: global definitions: %s", anchor, rt_otf2_error(rc));
    else if (g.nlocs == 0)
        st = rt_err_set(err, RT_EFORMAT, "%s: global definitions: no locations", anchor);
    else
        st = build_defs(map, &g, defs, anchor, err);
done:
    if (cb)
        OTF2_GlobalDefReaderCallbacks_Delete(cb);
    if (gdr)
        OTF2_Reader_CloseGlobalDefReader(rd, gdr);
    gdefs_free(&g);
    return st;
}

void rt_otf2_map_free(rt_otf2_map *m)
{
    for (size_t i = 0; i < m->ncomms; i++)
        free(m->comms[i].procs);
    free(m->comms);
    for (size_t i = 0; i < m->nmetrics; i++)
        free(m->metrics[i].counter);
    free(m->metrics);
    free(m->locs);
    free(m->nevents);
    memset(m, 0, sizeof *m);
}

static int put_w(FILE *o, const void *v, size_t n) { return n == 0 || fwrite(v, n, 1, o) == 1; }

int rt_otf2_map_pack(const rt_otf2_map *m, FILE *o)
{
    int64_t h[8] = {(int64_t)m->nlocs, m->dense, (int64_t)m->ncomms, m->have_clock, (int64_t)m->metric_locs,
                    (int64_t)m->nmetrics, m->fanout, 0};
    int ok = put_w(o, h, sizeof h) && put_w(o, m->locs, m->nlocs * sizeof *m->locs) &&
             put_w(o, m->nevents, m->nlocs * sizeof *m->nevents);
    for (size_t i = 0; ok && i < m->ncomms; i++) {
        const rt_otf2_comm *c = &m->comms[i];
        int64_t ch[4] = {c->id, c->self, c->size, c->procs != NULL};
        ok = put_w(o, ch, sizeof ch) && (!c->procs || put_w(o, c->procs, (size_t)c->size * sizeof *c->procs));
    }
    for (size_t i = 0; ok && i < m->nmetrics; i++) {
        int64_t mh[2] = {m->metrics[i].n, m->metrics[i].counter != NULL};
        ok = put_w(o, mh, sizeof mh) &&
             (!m->metrics[i].counter || put_w(o, m->metrics[i].counter, m->metrics[i].n * sizeof(int)));
    }
    return ok ? RT_OK : RT_EIO;
}

/* n bytes from *p into a new block (*out; NULL for n == 0). */
static int take(const char **p, const char *end, size_t n, void **out)
{
    *out = NULL;
    if ((size_t)(end - *p) < n)
        return RT_EFORMAT;
    if (n == 0)
        return RT_OK;
    if (!(*out = malloc(n)))
        return RT_ENOMEM;
    memcpy(*out, *p, n);
    *p += n;
    return RT_OK;
}

/* n words from *p into w; 0 when the bytes run short. */
static int words(const char **p, const char *end, int64_t *w, size_t n)
{
    if ((size_t)(end - *p) < n * sizeof *w)
        return 0;
    memcpy(w, *p, n * sizeof *w);
    *p += n * sizeof *w;
    return 1;
}

int rt_otf2_map_unpack(rt_otf2_map *m, const char **p, const char *end)
{
    int64_t h[8];
    if (!words(p, end, h, 8))
        return RT_EFORMAT;
    if (h[0] < 0 || h[2] < 0 || h[5] < 0)
        return RT_EFORMAT;
    m->nlocs = (size_t)h[0];
    m->dense = (int)h[1];
    m->have_clock = (int)h[3];
    m->metric_locs = (size_t)h[4];
    m->fanout = (uint32_t)h[6];
    int st = take(p, end, m->nlocs * sizeof *m->locs, (void **)&m->locs);
    if (st == RT_OK)
        st = take(p, end, m->nlocs * sizeof *m->nevents, (void **)&m->nevents);
    if (st == RT_OK && h[2] > 0 && !(m->comms = calloc((size_t)h[2], sizeof *m->comms)))
        st = RT_ENOMEM;
    for (int64_t i = 0; st == RT_OK && i < h[2]; i++) {
        int64_t ch[4];
        if (!words(p, end, ch, 4)) {
            st = RT_EFORMAT;
            break;
        }
        rt_otf2_comm *c = &m->comms[i];
        m->ncomms = (size_t)i + 1;
        c->id = (uint32_t)ch[0];
        c->self = (int)ch[1];
        c->size = (int)ch[2];
        if (ch[3] && ch[2] > 0)
            st = take(p, end, (size_t)ch[2] * sizeof *c->procs, (void **)&c->procs);
        else if (ch[3] && !(c->procs = malloc(sizeof *c->procs))) /* (a list, empty) */
            st = RT_ENOMEM;
    }
    if (st == RT_OK && h[5] > 0 && !(m->metrics = calloc((size_t)h[5], sizeof *m->metrics)))
        st = RT_ENOMEM;
    for (int64_t i = 0; st == RT_OK && i < h[5]; i++) {
        int64_t mh[2];
        if (!words(p, end, mh, 2)) {
            st = RT_EFORMAT;
            break;
        }
        m->nmetrics = (size_t)i + 1;
        m->metrics[i].n = (uint32_t)mh[0];
        if (mh[1] && mh[0] > 0)
            st = take(p, end, (size_t)mh[0] * sizeof(int), (void **)&m->metrics[i].counter);
        else if (mh[1] && !(m->metrics[i].counter = malloc(sizeof(int)))) /* (a metric, no member) */
            st = RT_ENOMEM;
    }
    return st;
}

const rt_otf2_comm *rt_otf2_comm_of(const rt_otf2_map *m, uint32_t id)
{
    if (id < m->ncomms && m->comms[id].id == id) /* the usual dense numbering */
        return &m->comms[id];
    size_t lo = 0, hi = m->ncomms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->comms[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->ncomms && m->comms[lo].id == id ? &m->comms[lo] : NULL;
}
