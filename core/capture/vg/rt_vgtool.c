/*
 * rt_vgtool.c - the `retrace` Valgrind tool (retrace-amd64-linux), the engine of
 * `retrace capture`. Built against Debian's valgrind (libcoregrind, libvex and
 * the pub_tool_*.h headers), like cachegrind and lackey; no libc.
 *
 * It writes one binary stream of 64-bit words (host order) to the descriptor
 * given by --retrace-fd=N, which the capture turns into RTMB and the
 * allocation log as it arrives (core/capture/rt_capture.c reads it):
 *
 *   a reference    ADDR | SIZE << 48 | KIND << 60     KIND 0 load, 1 store,
 *                                                     2 instruction fetch
 *   a block's run  3 << 60 | ID, then one word per load or store of block ID:
 *                  its address (all 64 bits); the block's entries, in order, are
 *                  its references (the fetches' addresses are in the entries)
 *   a record       0xF << 60 | TYPE << 48 | N, then N payload words:
 *     RT_VG_ALLOC  ADDR SIZE RET1 RET2 ...   return addresses, innermost first
 *     RT_VG_FREE   ADDR
 *     RT_VG_THREAD T                         the thread now running (1 the main thread,
 *                                            then in order of creation)
 *     RT_VG_REF    ADDR META                 a reference whose address has bits
 *                                            above 47 (META: SIZE << 48 | KIND << 60)
 *     RT_VG_OBJECT LO HI BIAS LEN BYTES...   a loaded object's text and path
 *     RT_VG_STACK  LO HI                     the main thread's stack
 *     RT_VG_BLOCK  ID E1 E2 ...              block ID (0, 1, 2 ... in order), sent once
 *                                            when first instrumented, before any run of
 *                                            it: up to RT_VG_BLOCK_MAX entries, each a
 *                                            reference word, a load's or store's with
 *                                            address 0 (code translated again reuses the
 *                                            ID of the same entries)
 *
 * Counting follows cachegrind: one fetch per guest instruction; an instruction
 * that loads and then stores the same address with the same size (inc, add to
 * memory) is one load; an atomic compare-and-swap is one load; a helper's memory
 * effect is at most 16 bytes. Loads, stores and fetches of one superblock are
 * queued (up to a side exit, a guarded load or store, or 16 events) and each
 * queue becomes a block: its fetches, sizes and kinds are sent once, and each
 * time it runs one helper call writes the block's word and the addresses of
 * its loads and stores (more calls past six words). Instruction fetches, most
 * of the references, thus cost no word at run time. A guarded load or store
 * is a plain reference word, written only when its guard holds.
 *
 * Allocations: the tool's preload (rt_vgpreload.c) wraps the C library's
 * allocator; the program's own malloc runs and is traced as cachegrind traces
 * it, while the wrapper's instructions are never instrumented (the recorder
 * leaves no reference) and the call stack is walked here, outside the program.
 * The wrapper brackets each call with RT_VG_REQ_BEGIN and RT_VG_REQ_END; only
 * the outermost call of a thread is recorded (realloc calling malloc is one).
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "valgrind.h"

#include "rt_vgproto.h"

/* valgrind's own: moves a descriptor into the range the client cannot touch */
extern Int VG_(safe_fd)(Int oldfd);

/* ---- options ---- */
static Long clo_fd = -1;
static Long clo_frames = 8; /* return addresses kept per allocation */

static Bool rt_process_cmd_line_option(const HChar *arg)
{
    if VG_INT_CLO (arg, "--retrace-fd", clo_fd) {
    } else if VG_BINT_CLO (arg, "--retrace-frames", clo_frames, 1, RT_VG_MAX_FRAMES) {
    } else
        return False;
    return True;
}

static void rt_print_usage(void)
{
    VG_(printf)("    --retrace-fd=N          write the reference stream to descriptor N\n"
                "    --retrace-frames=N      return addresses kept per allocation [8]\n");
}

static void rt_print_debug_usage(void)
{
    VG_(printf)("    (none)\n");
}

/* ---- the output buffer ---- */
#define BUF_WORDS (1 << 16)
static UWord *buf;
static UInt pos;
static Int out_fd = -1;
static Bool out_broken;

static void flush_buf(void)
{
    const HChar *p = (const HChar *)buf;
    Long left = (Long)pos * (Long)sizeof(UWord);
    while (left > 0 && !out_broken) {
        Int n = VG_(write)(out_fd, p, (Int)(left > (1 << 30) ? (1 << 30) : left));
        if (n <= 0) {
            out_broken = True; /* the reader went away: keep running the program */
            break;
        }
        p += n;
        left -= n;
    }
    pos = 0;
}

static inline void put(UWord w)
{
    buf[pos++] = w;
    if (UNLIKELY(pos == BUF_WORDS))
        flush_buf();
}

static void put_record(UWord type, const UWord *payload, UWord n)
{
    put(((UWord)0xF << 60) | (type << 48) | n);
    for (UWord i = 0; i < n; i++)
        put(payload[i]);
}

#define LOW_ADDR(a) (((a) >> 48) == 0)

static void put_data(UWord addr, UWord meta)
{
    if (LIKELY(LOW_ADDR(addr))) {
        put(addr | meta);
    } else {
        UWord p[2] = {addr, meta};
        put_record(RT_VG_REF, p, 2);
    }
}

/* ---- the helpers called from instrumented code ---- */
static VG_REGPARM(2) void h_d(UWord addr, UWord meta)
{
    put_data(addr, meta);
}

/* n (at most 6) words at once: one check of the buffer's room */
static inline void put_words(const UWord *w, UInt n)
{
    if (UNLIKELY(pos + n > BUF_WORDS))
        flush_buf();
    for (UInt i = 0; i < n; i++)
        buf[pos + i] = w[i];
    pos += n;
}

/* a block's word and the addresses of its loads and stores, up to six words a call */
static VG_REGPARM(1) void h_w1(UWord a)
{
    put_words(&a, 1);
}

static VG_REGPARM(2) void h_w2(UWord a, UWord b)
{
    put_words((UWord[]){a, b}, 2);
}

static VG_REGPARM(3) void h_w3(UWord a, UWord b, UWord c)
{
    put_words((UWord[]){a, b, c}, 3);
}

static VG_REGPARM(3) void h_w4(UWord a, UWord b, UWord c, UWord d)
{
    put_words((UWord[]){a, b, c, d}, 4);
}

static VG_REGPARM(3) void h_w5(UWord a, UWord b, UWord c, UWord d, UWord e)
{
    put_words((UWord[]){a, b, c, d, e}, 5);
}

static VG_REGPARM(3) void h_w6(UWord a, UWord b, UWord c, UWord d, UWord e, UWord f)
{
    put_words((UWord[]){a, b, c, d, e, f}, 6);
}

/* ---- threads ----
 * Valgrind reuses the slot of a thread that ended: each thread gets its own number
 * (1 the main thread, then in order of creation), written with each switch. */
static ThreadId cur_tid;
static UInt *thread_no; /* per slot: the number of the thread in it */
static UInt n_threads = 1;

static void rt_thread_create(ThreadId parent, ThreadId child)
{
    if (parent == VG_INVALID_THREADID) { /* the main thread, at start-up */
        thread_no[child] = 1;
        return;
    }
    thread_no[child] = ++n_threads;
    if (child == cur_tid)
        cur_tid = 0; /* the slot's new thread: its first run is a switch */
}
static UInt *depth; /* allocator calls under way, per thread */
static Bool stack_sent;

static void rt_start_client_code(ThreadId tid, ULong blocks)
{
    (void)blocks;
    if (tid == cur_tid)
        return;
    cur_tid = tid;
    UWord p = thread_no[tid] ? thread_no[tid] : tid;
    put_record(RT_VG_THREAD, &p, 1);
    if (!stack_sent && tid == 1) {
        stack_sent = True;
        Addr hi = VG_(thread_get_stack_max)(1);
        SizeT sz = VG_(thread_get_stack_size)(1);
        UWord s[2] = {hi - sz, hi};
        put_record(RT_VG_STACK, s, 2);
    }
}

/* ---- the preload's text: never instrumented, skipped in call stacks ---- */
static Addr pre_lo, pre_hi; /* [lo, hi) once found */

static void find_preload(void)
{
    if (pre_hi)
        return;
    for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
        const HChar *f = VG_(DebugInfo_get_filename)(di);
        if (f && VG_(strstr)(f, "vgpreload_retrace")) {
            pre_lo = VG_(DebugInfo_get_text_avma)(di);
            pre_hi = pre_lo + VG_(DebugInfo_get_text_size)(di);
            return;
        }
    }
}

static inline Bool in_preload(Addr a)
{
    return a >= pre_lo && a < pre_hi;
}

/* ---- allocation records ---- */
static void record_alloc(ThreadId tid, UWord addr, UWord size)
{
    Addr ips[RT_VG_MAX_FRAMES + 8];
    UInt want = (UInt)clo_frames + 4;
    UInt n = VG_(get_StackTrace)(tid, ips, want, NULL, NULL, 0);
    UWord p[RT_VG_MAX_FRAMES + 2];
    UWord k = 2;
    p[0] = addr;
    p[1] = size;
    find_preload();
    for (UInt i = 0; i < n && k < (UWord)clo_frames + 2; i++) {
        if (in_preload(ips[i]))
            continue;
        /* frames past the first are the calling instruction (return address - 1) */
        p[k++] = i == 0 ? ips[i] : ips[i] + 1;
    }
    put_record(RT_VG_ALLOC, p, k);
}

static Bool rt_handle_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
    if (!VG_IS_TOOL_USERREQ('R', 'T', arg[0]))
        return False;
    *ret = 0;
    switch (arg[0]) {
    case RT_VG_REQ_BEGIN:
        depth[tid]++;
        return True;
    case RT_VG_REQ_END: /* arg[1] what, arg[2] new block, arg[3] size, arg[4] old block */
        if (depth[tid] > 0)
            depth[tid]--;
        if (depth[tid] > 0)
            return True;
        if ((arg[1] == RT_VG_WHAT_FREE || arg[1] == RT_VG_WHAT_REALLOC) && arg[4]) {
            /* realloc: the old block is gone once a new one came (or size 0 freed it) */
            if (arg[1] == RT_VG_WHAT_FREE || arg[2] || arg[3] == 0) {
                UWord a = arg[4];
                put_record(RT_VG_FREE, &a, 1);
            }
        }
        if ((arg[1] == RT_VG_WHAT_ALLOC || arg[1] == RT_VG_WHAT_REALLOC) && arg[2])
            record_alloc(tid, arg[2], arg[3]);
        return True;
    default:
        return False;
    }
}

/* ---- instrumentation ---- */
typedef enum { EV_I, EV_DR, EV_DW } ev_kind;

typedef struct {
    ev_kind kind;
    Int size;
    IRExpr *addr; /* data events */
    Addr iaddr;   /* instruction events */
    Int inode;    /* which guest instruction of the superblock */
} event;

#define N_EVENTS RT_VG_BLOCK_MAX
static event events[N_EVENTS];
static Int n_events;

static UWord meta_of(ev_kind k, Int size)
{
    return ((UWord)size << 48) | ((UWord)(k == EV_DR ? RT_VG_KIND_READ : RT_VG_KIND_WRITE) << 60);
}

static IRExpr *word(UWord w)
{
    return mkIRExpr_HWord(w);
}

static void call(IRSB *sb, const HChar *name, void *fn, Int nargs, IRExpr **args)
{
    /* regparms (x86 only): at most three */
    IRDirty *d = unsafeIRDirty_0_N(nargs > 3 ? 3 : nargs, name, VG_(fnptr_to_fnentry)(fn), args);
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* The blocks described so far, by their entries: code translated again (after
 * Valgrind discarded it) runs under the id it had, so the converter's table of
 * blocks grows with the distinct code run, not with the translations. */
typedef struct block_node {
    struct block_node *next;
    UWord key; /* a hash of n and entry */
    UWord id;
    UInt n;
    UWord entry[RT_VG_BLOCK_MAX];
} block_node;

static VgHashTable *blocks;
static UWord n_blocks; /* blocks described so far: the next one's id */

static Word block_cmp(const void *a, const void *b)
{
    const block_node *x = a, *y = b;
    return x->n != y->n || VG_(memcmp)(x->entry, y->entry, x->n * sizeof(UWord)) != 0;
}

/* The id of the block of entries q->entry[0, q->n): described now when new. */
static UWord block_id(block_node *q)
{
    UWord h = 1469598103934665603ull ^ q->n;
    for (UInt i = 0; i < q->n; i++)
        h = (h ^ q->entry[i]) * 1099511628211ull;
    q->key = h;
    const block_node *old = VG_(HT_gen_lookup)(blocks, q, block_cmp);
    if (old)
        return old->id;
    if (n_blocks >> 48)
        VG_(tool_panic)("more than 2^48 blocks");
    block_node *b = VG_(malloc)("retrace.block", sizeof *b);
    *b = *q;
    b->id = n_blocks++;
    VG_(HT_add_node)(blocks, b);
    UWord desc[1 + RT_VG_BLOCK_MAX];
    desc[0] = b->id;
    VG_(memcpy)(desc + 1, b->entry, b->n * sizeof(UWord));
    put_record(RT_VG_BLOCK, desc, 1 + (UWord)b->n);
    return b->id;
}

/* The queued events become a block: described when new, written when run. */
static void flush_events(IRSB *sb)
{
    if (n_events == 0)
        return;
    block_node q;
    IRExpr *w[1 + N_EVENTS];
    Int nw = 1; /* w[0]: the block's word, once its id is known */
    q.n = (UInt)n_events;
    for (Int i = 0; i < n_events; i++) {
        event *e = &events[i];
        if (e->kind == EV_I) {
            q.entry[i] = e->iaddr | ((UWord)e->size << 48) | ((UWord)RT_VG_KIND_IFETCH << 60);
        } else {
            q.entry[i] = meta_of(e->kind, e->size);
            w[nw++] = e->addr;
        }
    }
    w[0] = word(((UWord)RT_VG_KIND_BLOCK << 60) | block_id(&q));
    for (Int k = 0; k < nw; k += 6) {
        IRExpr **a = w + k;
        switch (nw - k) {
        case 1:
            call(sb, "h_w1", h_w1, 1, mkIRExprVec_1(a[0]));
            break;
        case 2:
            call(sb, "h_w2", h_w2, 2, mkIRExprVec_2(a[0], a[1]));
            break;
        case 3:
            call(sb, "h_w3", h_w3, 3, mkIRExprVec_3(a[0], a[1], a[2]));
            break;
        case 4:
            call(sb, "h_w4", h_w4, 4, mkIRExprVec_4(a[0], a[1], a[2], a[3]));
            break;
        case 5:
            call(sb, "h_w5", h_w5, 5, mkIRExprVec_5(a[0], a[1], a[2], a[3], a[4]));
            break;
        default:
            call(sb, "h_w6", h_w6, 6, mkIRExprVec_6(a[0], a[1], a[2], a[3], a[4], a[5]));
            break;
        }
    }
    n_events = 0;
}

static Bool skipping; /* the current instruction is the preload's */
static Int cur_inode;

static void add_event(IRSB *sb, ev_kind k, Int size, IRExpr *addr, Addr iaddr)
{
    if (skipping)
        return;
    if (k == EV_DW && n_events > 0) {
        /* cachegrind's modify: a load then a store of the same address and size
         * by one instruction counts as the load alone */
        event *last = &events[n_events - 1];
        if (last->kind == EV_DR && last->size == size && last->inode == cur_inode && eqIRAtom(last->addr, addr))
            return;
    }
    if (n_events == N_EVENTS)
        flush_events(sb);
    event *e = &events[n_events++];
    e->kind = k;
    e->size = size;
    e->addr = addr;
    e->iaddr = iaddr;
    e->inode = cur_inode;
}

/* A load or store that happens only when guard holds: flushed alone, guarded. */
static void add_guarded(IRSB *sb, ev_kind k, Int size, IRExpr *addr, IRExpr *guard)
{
    if (skipping)
        return;
    flush_events(sb);
    IRDirty *d = unsafeIRDirty_0_N(2, "h_d", VG_(fnptr_to_fnentry)(h_d),
                                   mkIRExprVec_2(addr, word(meta_of(k, size))));
    d->guard = guard;
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

#define MIN_LINE 16 /* cachegrind's cap on a helper's memory effect */

static IRSB *rt_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
                           const VexGuestExtents *vge, const VexArchInfo *archinfo, IRType gWordTy,
                           IRType hWordTy)
{
    (void)closure;
    (void)layout;
    (void)vge;
    (void)archinfo;
    if (gWordTy != hWordTy)
        VG_(tool_panic)("host/guest word size mismatch");
    find_preload();
    IRSB *sb = deepCopyIRSBExceptStmts(in);
    Int i = 0;
    while (i < in->stmts_used && in->stmts[i]->tag != Ist_IMark) /* the preamble */
        addStmtToIRSB(sb, in->stmts[i++]);
    n_events = 0;
    skipping = False;
    cur_inode = -1;
    IRTypeEnv *tyenv = in->tyenv;
    for (; i < in->stmts_used; i++) {
        IRStmt *st = in->stmts[i];
        if (!st || st->tag == Ist_NoOp)
            continue;
        switch (st->tag) {
        case Ist_IMark:
            cur_inode++;
            skipping = in_preload((Addr)st->Ist.IMark.addr);
            add_event(sb, EV_I, (Int)st->Ist.IMark.len, NULL, (Addr)st->Ist.IMark.addr);
            break;
        case Ist_WrTmp:
            if (st->Ist.WrTmp.data->tag == Iex_Load) {
                IRExpr *e = st->Ist.WrTmp.data;
                add_event(sb, EV_DR, sizeofIRType(e->Iex.Load.ty), e->Iex.Load.addr, 0);
            }
            break;
        case Ist_Store:
            add_event(sb, EV_DW, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)), st->Ist.Store.addr, 0);
            break;
        case Ist_StoreG: {
            IRStoreG *sg = st->Ist.StoreG.details;
            add_guarded(sb, EV_DW, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->addr, sg->guard);
            break;
        }
        case Ist_LoadG: {
            IRLoadG *lg = st->Ist.LoadG.details;
            IRType ty = Ity_INVALID, arg = Ity_INVALID;
            typeOfIRLoadGOp(lg->cvt, &ty, &arg);
            add_guarded(sb, EV_DR, sizeofIRType(arg), lg->addr, lg->guard);
            break;
        }
        case Ist_Dirty: {
            IRDirty *d = st->Ist.Dirty.details;
            if (d->mFx != Ifx_None) {
                Int sz = d->mSize > MIN_LINE ? MIN_LINE : d->mSize;
                if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
                    add_event(sb, EV_DR, sz, d->mAddr, 0);
                if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
                    add_event(sb, EV_DW, sz, d->mAddr, 0);
            }
            break;
        }
        case Ist_CAS: {
            IRCAS *cas = st->Ist.CAS.details;
            Int sz = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
            if (cas->dataHi)
                sz *= 2;
            add_event(sb, EV_DR, sz, cas->addr, 0);
            add_event(sb, EV_DW, sz, cas->addr, 0);
            break;
        }
        case Ist_LLSC:
            if (st->Ist.LLSC.storedata == NULL)
                add_event(sb, EV_DR, sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)), st->Ist.LLSC.addr, 0);
            else
                add_event(sb, EV_DW, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)),
                          st->Ist.LLSC.addr, 0);
            break;
        case Ist_Exit:
            flush_events(sb); /* what came before a taken side exit is counted */
            break;
        default:
            break;
        }
        addStmtToIRSB(sb, st);
    }
    flush_events(sb);
    return sb;
}

/* ---- start and end ---- */
static void rt_post_clo_init(void)
{
    if (clo_fd < 0) {
        VG_(fmsg_bad_option)("--retrace-fd", "the retrace tool needs --retrace-fd=N (run it by 'retrace capture')\n");
    }
    out_fd = VG_(safe_fd)((Int)clo_fd);
    buf = VG_(malloc)("retrace.buf", BUF_WORDS * sizeof(UWord));
    depth = VG_(calloc)("retrace.depth", VG_N_THREADS + 1, sizeof(UInt));
    thread_no = VG_(calloc)("retrace.threads", VG_N_THREADS + 1, sizeof(UInt));
    blocks = VG_(HT_construct)("retrace.blocks");
    thread_no[1] = 1;
}

static void send_objects(void)
{
    for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di)) {
        const HChar *f = VG_(DebugInfo_get_filename)(di);
        SizeT tsize = VG_(DebugInfo_get_text_size)(di);
        if (!f || tsize == 0)
            continue;
        UWord len = VG_(strlen)(f);
        UWord nw = (len + sizeof(UWord) - 1) / sizeof(UWord);
        UWord p[4];
        p[0] = VG_(DebugInfo_get_text_avma)(di);
        p[1] = p[0] + tsize;
        p[2] = (UWord)VG_(DebugInfo_get_text_bias)(di);
        p[3] = len;
        put(((UWord)0xF << 60) | ((UWord)RT_VG_OBJECT << 48) | (4 + nw));
        for (Int k = 0; k < 4; k++)
            put(p[k]);
        for (UWord w = 0; w < nw; w++) {
            UWord v = 0;
            for (UWord b = 0; b < sizeof(UWord) && w * sizeof(UWord) + b < len; b++)
                v |= (UWord)(UChar)f[w * sizeof(UWord) + b] << (8 * b);
            put(v);
        }
    }
}

static void rt_fini(Int exitcode)
{
    (void)exitcode;
    send_objects();
    flush_buf();
    VG_(close)(out_fd);
}

static void rt_pre_clo_init(void)
{
    VG_(details_name)("retrace");
    VG_(details_version)("1");
    VG_(details_description)("memory references and allocations for retrace capture");
    VG_(details_copyright_author)("the retrace authors");
    VG_(details_bug_reports_to)("the retrace project");
    VG_(details_avg_translation_sizeB)(300);
    VG_(basic_tool_funcs)(rt_post_clo_init, rt_instrument, rt_fini);
    VG_(needs_command_line_options)(rt_process_cmd_line_option, rt_print_usage, rt_print_debug_usage);
    VG_(needs_client_requests)(rt_handle_client_request);
    VG_(track_start_client_code)(rt_start_client_code);
    VG_(track_pre_thread_ll_create)(rt_thread_create);
}

VG_DETERMINE_INTERFACE_VERSION(rt_pre_clo_init)
