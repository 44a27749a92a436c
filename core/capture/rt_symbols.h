/*
 * rt_symbols.h - symbols and source lines of one ELF object (elfutils libdw),
 * for naming what a capture saw: the function and file:line of a PC, and the
 * object's function and data symbols with their sizes.
 *
 * Addresses are the object's own (link-time) addresses: subtract the load
 * bias (the load map's third field) from a runtime address first.
 */
#ifndef RT_SYMBOLS_H
#define RT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef struct rt_symbols rt_symbols;

/* Open path; NULL with err when it is not a readable ELF object. */
rt_symbols *rt_symbols_open(const char *path, rt_err *err);

/* The function holding addr (NULL when none) and its source file and line
 * (*file NULL and *line 0 without line information). The strings live as
 * long as s. */
void rt_symbols_lookup(rt_symbols *s, uint64_t addr, const char **func, const char **file, int *line);

/* The frames at addr when inlining put code of one function inside another:
 * out[0] the innermost (the inlined function, and addr's own file and line),
 * then each function it was inlined into, with the file and line of the
 * inlined call, up to the real function. Returns how many were written (at
 * most cap; 0 without DWARF, 1 when addr is in no inlined code). Strings live
 * as long as s. */
typedef struct rt_symframe {
    const char *func, *file;
    int line;
} rt_symframe;
int rt_symbols_frames(rt_symbols *s, uint64_t addr, rt_symframe *out, int cap);

/* The variable that holds a call's result at its return address ret (DWARF
 * says the variable lives in the return-value register there, as optimised
 * code often does for p = malloc(...)): 1 with its name and its type ("double*")
 * written into name and type, 0 when DWARF does not tell. */
int rt_symbols_result_var(rt_symbols *s, uint64_t ret, char *name, size_t name_cap, char *type, size_t type_cap);

/* Call fn for each function (is_func 1) and data object (0) symbol of
 * nonzero size; fn returning nonzero stops the walk. */
typedef int (*rt_symbols_fn)(void *ud, int is_func, uint64_t addr, uint64_t size, const char *name);
void rt_symbols_each(rt_symbols *s, rt_symbols_fn fn, void *ud);

/* Call fn for each stretch of code that the line table gives to one source line
 * and one function (the innermost, inlined ones included): its address, size,
 * function (NULL when unknown) and line, in the order of the line table;
 * fn returning nonzero stops the walk. Nothing without DWARF lines. */
typedef int (*rt_symbols_line_fn)(void *ud, uint64_t addr, uint64_t size, const char *func, int line);
void rt_symbols_lines(rt_symbols *s, rt_symbols_line_fn fn, void *ud);

void rt_symbols_free(rt_symbols *s);

#endif
