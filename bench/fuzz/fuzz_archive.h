/*
 * fuzz_archive.h - inputs that are several files: Paraver's .prv with its .pcf and
 * .row, an OTF2 archive (anchor, global definitions, per-location definitions and
 * events). The fuzzer's bytes are cut at the separator RT_FUZZ_SEP into parts, part
 * i written to names[i] in a fresh folder under /dev/shm (missing parts are files
 * left out, so the readers' "missing companion" paths are fuzzed too). Seeds are
 * real traces packed the same way (bench/fuzz/run.sh). Header only; `make fuzz`.
 */
#ifndef RT_FUZZ_ARCHIVE_H
#define RT_FUZZ_ARCHIVE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RT_FUZZ_SEP "\n@@RETRACE-FUZZ-FILE@@\n"

/* Unpack data into a new folder (its path to dir); returns 0, -1 when it cannot. */
static inline int rt_fuzz_unpack(const uint8_t *data, size_t n, const char *const *names, int nnames,
                                 char *dir, size_t cap)
{
    snprintf(dir, cap, "/dev/shm/retrace-fuzz-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    const size_t seplen = strlen(RT_FUZZ_SEP);
    const uint8_t *p = data, *end = data + n;
    for (int i = 0; i < nnames && p <= end; i++) {
        const uint8_t *q = p;
        while (q + seplen <= end && memcmp(q, RT_FUZZ_SEP, seplen) != 0)
            q++;
        if (q + seplen > end)
            q = end;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *slash = strrchr(path, '/');
        if (slash && slash > path + strlen(dir)) { /* a sub-folder (OTF2's traces/) */
            *slash = '\0';
            mkdir(path, 0700);
            *slash = '/';
        }
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(p, 1, (size_t)(q - p), f);
            fclose(f);
        }
        p = q + seplen;
    }
    return 0;
}

/* Remove what rt_fuzz_unpack made (the named files, their sub-folders, the folder). */
static inline void rt_fuzz_cleanup(const char *dir, const char *const *names, int nnames)
{
    char path[512];
    for (int i = 0; i < nnames; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    for (int i = 0; i < nnames; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        if (strcmp(path, dir) != 0)
            rmdir(path);
    }
    if (rmdir(dir) != 0)
        abort(); /* something else was left: a fuzzer must not fill /dev/shm */
}

#endif
