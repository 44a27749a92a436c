/*
 * rt_vgproto.h - what the `retrace` Valgrind tool, its preload and the capture
 * that reads the tool's stream agree on (see rt_vgtool.c for the stream).
 * Plain macros only: included by code built without libc.
 */
#ifndef RT_VGPROTO_H
#define RT_VGPROTO_H

/* reference kinds: the numbering of rt_ref_kind (rt_memtrace.h) */
#define RT_VG_KIND_READ 0
#define RT_VG_KIND_WRITE 1
#define RT_VG_KIND_IFETCH 2
#define RT_VG_KIND_BLOCK 3 /* a run of a described block: not a reference kind */
#define RT_VG_KIND_RECORD 0xF

/* record types (bits 48-59 of a record's first word; its low 48 bits: payload words) */
#define RT_VG_ALLOC 1
#define RT_VG_FREE 2
#define RT_VG_THREAD 3
#define RT_VG_REF 4
#define RT_VG_OBJECT 5
#define RT_VG_STACK 6
#define RT_VG_BLOCK 7

/* the entries of one RT_VG_BLOCK record at most (the tool's queue of events) */
#define RT_VG_BLOCK_MAX 16

#define RT_VG_MAX_FRAMES 32

/* client requests of the preload: VG_USERREQ_TOOL_BASE('R','T') + n */
#define RT_VG_REQ_BASE (((unsigned)'R' & 0xff) << 24 | ((unsigned)'T' & 0xff) << 16)
#define RT_VG_REQ_BEGIN (RT_VG_REQ_BASE + 0)
#define RT_VG_REQ_END (RT_VG_REQ_BASE + 1)
#define RT_VG_WHAT_ALLOC 0
#define RT_VG_WHAT_FREE 1
#define RT_VG_WHAT_REALLOC 2

#endif
