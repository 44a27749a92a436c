/*
 * rt_pes_source.h - a program execution sequence (Chitra's PES) as a trace source:
 * one processor whose regions are the sequence's states (see rt_pes_source.c).
 * Opened by name (format "pes"), never by content: the sniffer says no.
 */
#ifndef RT_PES_SOURCE_H
#define RT_PES_SOURCE_H
#include "rt_tevent.h"

rt_tsource *rt_pes_source_open(const char *path, rt_err *err);
int rt_pes_source_sniff(const char *path, const unsigned char *head, size_t n);

#endif
