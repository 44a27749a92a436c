/*
 * rt_otf2_cb.c - the OTF2 event callbacks shared by both OTF2 readers (see
 * rt_otf2_cb.h).
 */
#include "rt_otf2_cb.h"

#include <stddef.h>

/* The local event readers' callbacks: (location, time, position in the location, user data, attributes, ...). */
#define EV_HEAD OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *ud, OTF2_AttributeList *al
#define EV_UNUSED ((void)loc, (void)pos, (void)al)

/* An event of kind at t on the processor read, every other field at its neutral value. */
static inline rt_tevent blank(const rt_otf2_cb *c, int kind, OTF2_TimeStamp t)
{
    rt_tevent ev;
    ev.kind = kind;
    ev.proc = c->cur;
    ev.ticks = (int64_t)t;
    ev.time = 0;
    ev.region = -1;
    ev.task = 0;
    ev.peer = -1;
    ev.tag = 0;
    ev.comm = -1;
    ev.bytes = ev.bytes_in = 0;
    ev.ndata = 0;
    ev.line = 0;
    ev.raw = NULL;
    return ev;
}

static inline OTF2_CallbackCode hand(rt_otf2_cb *c, rt_tevent *ev)
{
    return c->event(c, ev) ? OTF2_CALLBACK_INTERRUPT : OTF2_CALLBACK_SUCCESS;
}

/* The processor holding rank in communicator comm, seen from the processor read; -1 when unknown. */
static int rank_proc(rt_otf2_cb *c, uint32_t comm, uint32_t rank, const char *what)
{
    if (rank == OTF2_UNDEFINED_UINT32)
        return -1;
    const rt_otf2_comm *m = rt_otf2_comm_of(c->map, comm);
    if (m && m->self && rank == 0)
        return c->cur;
    if (m && rank < (uint32_t)m->size && m->procs[rank] >= 0)
        return m->procs[rank];
    if (c->bad_rank)
        c->bad_rank(c, comm, rank, what);
    return -1;
}

static OTF2_CallbackCode region_event(rt_otf2_cb *c, int kind, OTF2_TimeStamp t, OTF2_RegionRef region)
{
    rt_tevent ev = blank(c, kind, t);
    ev.region = (int)region;
    return hand(c, &ev);
}

static OTF2_CallbackCode ev_enter(EV_HEAD, OTF2_RegionRef region)
{
    EV_UNUSED;
    return region_event(ud, RT_TE_ENTER, t, region);
}

static OTF2_CallbackCode ev_leave(EV_HEAD, OTF2_RegionRef region)
{
    EV_UNUSED;
    return region_event(ud, RT_TE_LEAVE, t, region);
}

/* SEND or RECV: peer is a rank in comm. */
static OTF2_CallbackCode message(rt_otf2_cb *c, int kind, OTF2_TimeStamp t, uint32_t peer, OTF2_CommRef comm,
                                 uint32_t tag, uint64_t len)
{
    rt_tevent ev = blank(c, kind, t);
    ev.peer = rank_proc(c, comm, peer, kind == RT_TE_SEND ? "MPI_SEND receiver" : "MPI_RECV sender");
    ev.comm = comm == OTF2_UNDEFINED_COMM ? -1 : (int)comm;
    ev.tag = tag;
    ev.bytes = (double)len;
    return hand(c, &ev);
}

static OTF2_CallbackCode ev_send(EV_HEAD, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_UNUSED;
    return message(ud, RT_TE_SEND, t, to, comm, tag, len);
}

static OTF2_CallbackCode ev_isend(EV_HEAD, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_UNUSED;
    (void)req;
    return message(ud, RT_TE_SEND, t, to, comm, tag, len);
}

static OTF2_CallbackCode ev_recv(EV_HEAD, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_UNUSED;
    return message(ud, RT_TE_RECV, t, from, comm, tag, len);
}

/* An MpiIrecv record marks the completion of a non-blocking receive: the message arrives there. */
static OTF2_CallbackCode ev_irecv(EV_HEAD, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_UNUSED;
    (void)req;
    return message(ud, RT_TE_RECV, t, from, comm, tag, len);
}

static OTF2_CallbackCode ev_coll_begin(EV_HEAD)
{
    EV_UNUSED;
    rt_tevent ev = blank(ud, RT_TE_COLL_BEGIN, t);
    return hand(ud, &ev);
}

static OTF2_CallbackCode ev_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                     uint64_t received)
{
    EV_UNUSED;
    (void)op;
    rt_otf2_cb *c = ud;
    rt_tevent ev = blank(c, RT_TE_COLL_END, t);
    ev.comm = comm == OTF2_UNDEFINED_COMM ? -1 : (int)comm;
    ev.peer = rank_proc(c, comm, root, "MPI_COLLECTIVE_END root");
    ev.bytes = (double)sent;
    ev.bytes_in = (double)received;
    return hand(c, &ev);
}

/* ---- the sends table: the other modelled records leave only their time ---- */

static inline OTF2_CallbackCode seen(rt_otf2_cb *c, OTF2_TimeStamp t)
{
    int64_t x = (int64_t)t;
    if (!c->seen++)
        c->first = c->latest = x;
    else if (x > c->latest)
        c->latest = x;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode seen_region(EV_HEAD, OTF2_RegionRef region)
{
    EV_UNUSED;
    (void)region;
    return seen(ud, t);
}

static OTF2_CallbackCode seen_recv(EV_HEAD, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_UNUSED;
    (void)from, (void)comm, (void)tag, (void)len;
    return seen(ud, t);
}

static OTF2_CallbackCode seen_irecv(EV_HEAD, uint32_t from, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_UNUSED;
    (void)from, (void)comm, (void)tag, (void)len, (void)req;
    return seen(ud, t);
}

static OTF2_CallbackCode seen_coll_begin(EV_HEAD)
{
    EV_UNUSED;
    return seen(ud, t);
}

static OTF2_CallbackCode seen_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                       uint64_t received)
{
    EV_UNUSED;
    (void)op, (void)comm, (void)root, (void)sent, (void)received;
    return seen(ud, t);
}

/* A send of the sends table: seen, then handed over at the latest time. */
static OTF2_CallbackCode seen_send(EV_HEAD, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len)
{
    EV_UNUSED;
    rt_otf2_cb *c = ud;
    seen(c, t);
    return message(c, RT_TE_SEND, (OTF2_TimeStamp)c->latest, to, comm, tag, len);
}

static OTF2_CallbackCode seen_isend(EV_HEAD, uint32_t to, OTF2_CommRef comm, uint32_t tag, uint64_t len, uint64_t req)
{
    EV_UNUSED;
    (void)req;
    rt_otf2_cb *c = ud;
    seen(c, t);
    return message(c, RT_TE_SEND, (OTF2_TimeStamp)c->latest, to, comm, tag, len);
}

/* A METRIC record's metric as the definitions give it; NULL (the record counted as skipped) when they do not. */
static const int *metric_counters(rt_otf2_cb *c, OTF2_MetricRef metric, uint8_t n, uint32_t *members)
{
    const rt_otf2_map *m = c->map;
    if (metric >= m->nmetrics || !m->metrics[metric].counter) {
        c->skipped[RT_OTF2_SK_METRIC_UNDEFINED]++;
        if (c->skipped_total)
            ++*c->skipped_total;
        return NULL;
    }
    *members = n < m->metrics[metric].n ? n : m->metrics[metric].n;
    return m->metrics[metric].counter;
}

/*
 * A METRIC record: one COUNTER event per member of its metric (class or instance), in the
 * members' order, the value as the record types it; a member without a counter is passed over.
 */
static OTF2_CallbackCode ev_metric(EV_HEAD, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                   const OTF2_MetricValue *values)
{
    EV_UNUSED;
    rt_otf2_cb *c = ud;
    uint32_t k = 0;
    const int *counter = metric_counters(c, metric, n, &k);
    for (uint32_t i = 0; counter && i < k; i++) {
        if (counter[i] < 0)
            continue;
        rt_tevent ev = blank(c, RT_TE_COUNTER, t);
        ev.region = counter[i];
        ev.ndata = 1;
        ev.data[0] = types[i] == OTF2_TYPE_DOUBLE  ? values[i].floating_point
                     : types[i] == OTF2_TYPE_INT64 ? (double)values[i].signed_int
                                                   : (double)values[i].unsigned_int;
        if (hand(c, &ev) != OTF2_CALLBACK_SUCCESS)
            return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* The sends pass counts a METRIC record's samples as events, as the full read gives them. */
static OTF2_CallbackCode seen_metric(EV_HEAD, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                     const OTF2_MetricValue *values)
{
    EV_UNUSED;
    (void)types, (void)values;
    rt_otf2_cb *c = ud;
    uint32_t k = 0;
    const int *counter = metric_counters(c, metric, n, &k);
    for (uint32_t i = 0; counter && i < k; i++)
        if (counter[i] >= 0)
            seen(c, t);
    return OTF2_CALLBACK_SUCCESS;
}

/* One counting callback per record type not modelled, with the exact signature the library calls. */
#define RT_UNPAREN(...) __VA_ARGS__
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define RT_X_SKIP(name, label, params)                                                          \
    static OTF2_CallbackCode skip_##name(EV_HEAD RT_UNPAREN params)                             \
    {                                                                                           \
        rt_otf2_cb *c = ud;                                                                     \
        c->skipped[RT_OTF2_SK_##name]++;                                                        \
        if (c->skipped_total)                                                                   \
            ++*c->skipped_total;                                                                \
        return OTF2_CALLBACK_SUCCESS;                                                           \
    }
RT_OTF2_SKIPPED_RECORDS(RT_X_SKIP)
#undef RT_X_SKIP
#pragma GCC diagnostic pop

static const char *const skip_names[RT_OTF2_SK_COUNT] = {
#define RT_X_NAME(name, label, params) label,
    RT_OTF2_SKIPPED_RECORDS(RT_X_NAME)
#undef RT_X_NAME
    "METRIC",
};

const char *rt_otf2_skipped_name(int i)
{
    return i >= 0 && i < RT_OTF2_SK_COUNT ? skip_names[i] : NULL;
}

OTF2_EvtReaderCallbacks *rt_otf2_callbacks(int count_skipped)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, ev_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll_end);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, ev_metric);
    if (count_skipped) {
#define RT_X_SET(name, label, params) OTF2_EvtReaderCallbacks_Set##name##Callback(cb, skip_##name);
        RT_OTF2_SKIPPED_RECORDS(RT_X_SET)
#undef RT_X_SET
    }
    return cb;
}

OTF2_EvtReaderCallbacks *rt_otf2_sends_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, seen_region);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, seen_region);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, seen_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, seen_isend);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, seen_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, seen_irecv);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, seen_coll_begin);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, seen_coll_end);
    OTF2_EvtReaderCallbacks_SetMetricCallback(cb, seen_metric);
    return cb;
}
