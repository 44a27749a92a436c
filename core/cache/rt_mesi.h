/*
 * rt_mesi.h - the coherence rule among private caches (MESI), kept once.
 *
 * Two engines apply it: rt_hier, whose cores snoop each other's private
 * caches as on a bus, and MemSpy, which keeps a directory of the lines every
 * processor holds. Each keeps the states its own way; what a reference does
 * to the other cores' copies is decided here:
 *  - a core whose copy is in state M, or in E or S for a load, needs nobody;
 *  - otherwise every other core is asked (a snoop): a copy held dirty (M) is
 *    written back first, and for a store every other copy is removed;
 *  - the asking core ends in M after a store, else S when another core kept a
 *    copy, E when none did.
 * States are the letters 'M', 'E', 'S' and 'I'.
 */
#ifndef RT_MESI_H
#define RT_MESI_H

enum { RT_MESI_WRITEBACK = 1, RT_MESI_INVALIDATE = 2 };

/* 1 when a reference (a store when write) by a core whose copy is in state
 * mine must be seen by the other cores */
static inline int rt_mesi_snoops(int mine, int write)
{
    return mine == 'I' || (write && mine != 'M');
}

/* what the snoop of a reference (a store when write) does at a core holding
 * the block in state theirs: RT_MESI_WRITEBACK and / or RT_MESI_INVALIDATE */
static inline unsigned rt_mesi_answer(int theirs, int write)
{
    return (theirs == 'M' ? RT_MESI_WRITEBACK : 0u) | (write && theirs != 'I' ? RT_MESI_INVALIDATE : 0u);
}

/* the asking core's state once its reference is done */
static inline int rt_mesi_after(int write, int others_keep)
{
    return write ? 'M' : others_keep ? 'S' : 'E';
}

#endif
