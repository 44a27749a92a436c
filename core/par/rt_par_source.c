/*
 * rt_par_source.c - this rank's part of a trace (rt_par_source.h).
 */
#include <string.h>

#include "rt_par.h"
#include "rt_par_source.h"
#include "rt_tsource_open.h"

int rt_par_source_is_par(const rt_tsource *src)
{
    return src != NULL && src->has_key && rt_par_size() > 1;
}

rt_tsource *rt_par_source_open(const char *path, const char *format, rt_err *err)
{
    return rt_tsource_open(path, format, err);
}
