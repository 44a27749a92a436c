/*
 * rt_replay_int.h - the replay engine's state, shared by its own files
 * (replay.c: events, states, messages; rt_critpath.c: the critical path).
 * Not a public header.
 */
#ifndef RT_REPLAY_INT_H
#define RT_REPLAY_INT_H

#include "rt_chanmap.h"
#include "rt_replay.h"

/* An open region on a processor's stack. */
typedef struct open_ev {
    int event;            /* region id */
    int cls;              /* its rt_tclass */
    int task;
    int tracing;          /* tracing regions do not decide states or nest others */
    double entry;
    double bytes_out, bytes_in;
    int64_t id, parent;
    int parent_event, depth, user_depth, sys_depth;
    int entry_ndata;
    double entry_data[RT_INTERVAL_DATA];
    int had_coll;         /* a COLL_BEGIN came inside it (the COLL events make the instance) */
} open_ev;

/* A collective instance being gathered. */
typedef struct coll_inst {
    int n, cap;
    int *procs;
    double *begin, *end, *bytes;
} coll_inst;

/* The occurrences of one collective (region, communicator). */
typedef struct coll_series {
    int region, comm;
    int64_t *next_k;      /* per processor: its next occurrence index */
    int nk;
    int64_t base;         /* index of inst[0] */
    coll_inst *inst;      /* instances base .. base + ninst - 1 in flight */
    int ninst, capinst;
} coll_series;

/* A wait ended by the arrival of a message (critical path). */
typedef struct cp_wait {
    double recv_time, send_time, bytes;
    long tag;
    int src, comm;
    int64_t prev1;        /* 1 + store index of the same processor's previous wait, 0 none */
    int64_t far1;         /* 1 + store index of its anchor (rt_critpath.c), 0 none; set by rt_cp_add */
} cp_wait;

/*
 * The waits of every processor in one append-only store (rt_critpath.c): the
 * latest block in memory, older blocks in a temporary file, so the replay's
 * memory stays flat however many waits the trace has.
 */
typedef struct cp_store cp_store;
/* Add processor proc's wait w; *last1 becomes 1 + its index. RT_OK or RT_ENOMEM / RT_EIO. */
int rt_cp_add(rt_replay *rp, int proc, int64_t *last1, const cp_wait *w);
void rt_cp_free(cp_store *st);

/* A receive waiting for the LEAVE that follows it (it knows which region it ends); its
 * message was paired when it came. */
typedef struct held_recv {
    double time, bytes;
    long tag;
    int src, comm;
    int paired;           /* the receive was paired at once with a send made at ts of sb bytes */
    double ts, sb;
} held_recv;

typedef struct proc_state {
    rt_replay_proc pub;
    open_ev *stack;
    int nstack;
    size_t capstack;
    int n_user, n_sys;    /* open user / non-tracing other regions */
    rt_event_stat *ev;    /* sorted by region id */
    size_t capev;
    int last_ev;
    double since;         /* state accounted up to this time */
    int64_t last_wait1;   /* 1 + store index of its latest wait (critical path), 0 none */
    held_recv *held;
    int nheld;
    size_t capheld;
    int *stack_events;    /* scratch for rt_replay_proc_stack */
    double coll_begin;    /* time of the open COLL_BEGIN */
    rt_tevent deferred;   /* a LEAVE waiting for inner LEAVEs of the same time (has_deferred) */
    int has_deferred;
} proc_state;

/* A FIFO of (time, bytes) per channel (src, dst, comm, tag). */
typedef struct fifo {
    double *t, *b;
    int head, n, cap;
} fifo;

typedef struct chan {
    rt_chankey k;         /* source, destination, communicator, tag (rt_chanmap's key) */
    fifo sends;           /* sent, not yet received */
    fifo recvs;           /* received before their send (tachyons in waiting) */
} chan;

/* A slot of the region-class cache. */
typedef struct region_slot {
    int id;
    const rt_tregion *r;  /* NULL: empty */
} region_slot;
#define RT_REPLAY_RCACHE 256

struct rt_replay {
    rt_replay_opts o;
    rt_tsource *src;       /* may be NULL (events fed by the caller) */
    rt_tdefs *defs;        /* src's definitions, or own_defs */
    rt_tdefs *own_defs;
    /* look-ahead of one event from the source */
    rt_tevent la;
    int has_la, eof;
    int la_status;         /* a read error met while looking ahead, returned by the next pull */
    rt_err la_err;
    const void *last_raw;  /* raw of the previous event fed (record boundaries) */
    int last_proc;
    proc_state *procs;
    int nprocs;
    rt_chanmap chans;     /* chan items (empty ones swept out before the table grows) */
    size_t chan_sweep_at; /* sweep when the table is full and holds this many channels */
    rt_task_stat *tasks;
    int ntasks;
    size_t captasks;
    int64_t next_id, records, events;
    double now, t0, t1;
    int past_start;       /* 1 once an event at or after the window's start was replayed */
    int finished;
    int unordered;         /* warned once that the file is not sorted by time */
    rt_replay_totals tot;
    region_slot rcache[RT_REPLAY_RCACHE];
    rt_replay_tap taps[RT_REPLAY_MAXTAPS];
    int ntaps;
    int64_t *ends;         /* opts.proc_events copied */
    int nends;
    coll_series *colls;
    int ncolls;
    size_t capcolls;
    int mat_n;             /* matrix side (0: none yet) */
    int64_t *mat_pc, *mat_tc;
    double *mat_pb, *mat_tb;
    char *warn[RT_REPLAY_KEEP_WARNINGS];
    rt_tkey warn_key[RT_REPLAY_KEEP_WARNINGS]; /* serial-order key of each (rt_replay_warning_key) */
    int nwarn;
    rt_tkey la_key, cur_key; /* keys of the look-ahead event and of the event being replayed */
    cp_store *cps;         /* critical-path waits (NULL until the first) */
};

#endif
