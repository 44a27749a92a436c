/*
 * rt_paje_fmt.h - the text layer of the Pajé reader (internal to
 * rt_paje.c): %EventDef definitions, and event lines decoded into their
 * definition and fields, checked for count and numbers.
 *
 * A Pajé file defines its own line formats: `%EventDef PajeSetState 11`
 * followed by `% FIELD TYPE` lines in any order and `%EndEventDef`. This
 * layer keeps those definitions by numeric id and turns each event line into
 * spans of its fields, so the reader above it looks fields up by meaning
 * (F_TIME, F_CONTAINER...) and never by position.
 */
#ifndef RT_PAJE_FMT_H
#define RT_PAJE_FMT_H

#include <stddef.h>

#include "rt_error.h"
#include "rt_lines.h"

/* The event kinds of the format, in the order of rt_pj_kind_names; K_UNKNOWN for any other name. */
enum {
    K_CTYPE, K_STYPE, K_ETYPE, K_VTYPE, K_LTYPE, K_VALUE, K_CREATE, K_DESTROY, K_SET, K_PUSH,
    K_POP, K_RESET, K_EVENT, K_SETVAR, K_ADDVAR, K_SUBVAR, K_START, K_END, K_UNKNOWN
};

/* The fields the reader uses (others are allowed and ignored). */
enum {
    F_TIME, F_NAME, F_TYPE, F_CONTAINER, F_STARTCT, F_ENDCT, F_START, F_END, F_VALUE, F_KEY,
    F_ALIAS, F_COLOR, F_SIZE, F_COUNT
};

/* What a field must parse as: string and color fields are free text. */
enum { T_STRING, T_NUMBER, T_INT, T_HEX };

#define RT_PJ_MAXFIELDS 64
#define RT_PJ_MAXID (1 << 20)

typedef struct rt_pjdef {
    int kind;                            /* K_* */
    int nfields;                         /* fields after the event id */
    unsigned long line;                  /* of its %EventDef */
    char *name;                          /* the event's name as written */
    signed char pos[F_COUNT];            /* index of each known field, -1 when absent */
    unsigned char type[RT_PJ_MAXFIELDS]; /* T_* of each field */
} rt_pjdef;

/* The definitions read so far. Zero-initialise; free with rt_pj_fmt_free. */
typedef struct rt_pjfmt {
    rt_pjdef **defs;      /* by event id; NULL where undefined */
    size_t ndefs;
    rt_pjdef *open;       /* the %EventDef being read, or NULL */
} rt_pjfmt;

void rt_pj_fmt_free(rt_pjfmt *f);

/*
 * A header line (p points at its '%', e at its end) of file's line `line`.
 * RT_OK, RT_EFORMAT ("FILE:LINE: %EventDef NAME: what") or RT_ENOMEM.
 */
int rt_pj_header_line(rt_pjfmt *f, const char *file, unsigned long line, const char *p,
                      const char *e, rt_err *err);
/* The end of the file: RT_EFORMAT when a %EventDef is still open, else RT_OK. */
int rt_pj_fmt_end(const rt_pjfmt *f, const char *file, unsigned long line, rt_err *err);

/*
 * Decode an event line (p at its first character, e at its end) into its
 * definition *def and its fields fld[0 .. (*def)->nfields) (quotes removed,
 * pointing into the line). Checks that the id is defined, the field count
 * and every int / hex / double / date field; *time receives the Time field
 * (0 when the definition has none). RT_OK or RT_EFORMAT with
 * "FILE:LINE: event id N: not defined", "FILE:LINE: NAME: 5 fields after the
 * event id, its %EventDef (line L) has 4", "FILE:LINE: Time: bad number 'x' (field 1)"...
 */
int rt_pj_decode(const rt_pjfmt *f, const char *file, unsigned long line, const char *p,
                 const char *e, const rt_pjdef **def, rt_span *fld, double *time, rt_err *err);

/* A decimal number (exactly as strtod would give it); 1 on success, 0 when s is not a number. */
int rt_pj_number(rt_span s, double *out);
/* A NUL-terminated copy of the span (malloc'd), NULL when memory runs out. */
char *rt_pj_span_dup(rt_span s);
/* 1 when the span is exactly the text lit. */
int rt_pj_span_is(rt_span s, const char *lit);

#endif
