/*
 * rt_file.h - small questions about files that several modules ask.
 *
 * The converters stream a trace into another file; writing onto the file being
 * read would truncate it before it is read. They ask rt_same_file first.
 */
#ifndef RT_FILE_H
#define RT_FILE_H

/*
 * 1 when paths a and b name the same existing file (same device and inode,
 * whatever the spelling: links, "./x", "../d/x"), else 0 (also when either is
 * missing).
 */
int rt_same_file(const char *a, const char *b);

#endif
