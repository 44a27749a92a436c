/*
 * retrace_mpi.h - marks and regions of your own in an MPI program traced by
 * libretrace-mpi (retrace capture --mpi). Installed as <retrace/mpi.h>.
 *
 *   retrace_region_begin("solve");  ...  retrace_region_end("solve");
 *   retrace_mark("iteration", it);
 *
 * The calls do nothing when the program runs without the library (the symbols
 * are weak), so a program keeps them in every build. Regions nest; an end names
 * the region it closes. A mark is an OTF2 ParameterInt record: its text names
 * the parameter, value is its value.
 */
#ifndef RETRACE_MPI_H
#define RETRACE_MPI_H

#ifdef __cplusplus
extern "C" {
#endif

void retrace_mpi_region_begin(const char *name) __attribute__((weak));
void retrace_mpi_region_end(const char *name) __attribute__((weak));
void retrace_mpi_mark(const char *text, long long value) __attribute__((weak));

static inline void retrace_region_begin(const char *name)
{
    if (retrace_mpi_region_begin)
        retrace_mpi_region_begin(name);
}

static inline void retrace_region_end(const char *name)
{
    if (retrace_mpi_region_end)
        retrace_mpi_region_end(name);
}

static inline void retrace_mark(const char *text, long long value)
{
    if (retrace_mpi_mark)
        retrace_mpi_mark(text, value);
}

#ifdef __cplusplus
}
#endif

#endif
