/*
 * rt_anchor_check.h - an OTF2 anchor file's counts checked against what its
 * files can hold, before the OTF2 library sizes its tables by them: a damaged
 * anchor whose property count reads as 10^9 made the library clear 13 GB.
 */
#ifndef RT_ANCHOR_CHECK_H
#define RT_ANCHOR_CHECK_H

#include "rt_error.h"

/*
 * RT_OK when the anchor at path is one this check does not know the layout of, or
 * when its counts fit its files: the properties (two strings each, at least two
 * bytes) within the anchor's remaining bytes, the locations and global definitions
 * (a record each, at least one byte) within the global definitions file. Otherwise
 * RT_EFORMAT: "PATH: anchor: what does not fit".
 */
int rt_otf2_anchor_check(const char *path, rt_err *err);

#endif
