/*
 * fuzz_input.h - what the libFuzzer targets share: the readers take paths, so
 * each input is written to an anonymous in-memory file (memfd) and opened
 * through /proc/self/fd. Header only; built only by `make fuzz` (with _GNU_SOURCE
 * for memfd_create).
 */
#ifndef RT_FUZZ_INPUT_H
#define RT_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* Write data to a fresh memfd; its path goes to path. Returns the fd (-1 on failure). */
static inline int rt_fuzz_file(const uint8_t *data, size_t n, char *path, size_t cap)
{
    int fd = memfd_create("retrace-fuzz", 0);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, data + off, n - off);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        off += (size_t)w;
    }
    lseek(fd, 0, SEEK_SET);
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

/* Run fn on a file holding data[0..n) (the body of every target); returns 0. */
static inline int rt_fuzz_with_file(const uint8_t *data, size_t n, void (*fn)(const char *path))
{
    char path[64];
    int fd = rt_fuzz_file(data, n, path, sizeof path);
    if (fd >= 0) {
        fn(path);
        close(fd);
    }
    return 0;
}

#endif
