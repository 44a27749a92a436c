/*
 * gen_memory.c - the bodies of bench/memory.lua's inputs, written fast enough for
 * 10^8 events (the Lua generators write the same bytes, slower):
 *
 *     gen_memory FORMAT N FILE     (appends N lines to FILE; the caller writes any head)
 *
 * FORMAT: picl, picl_tags, paje, paraver, din, shmap, pes (bench/memory.lua says what
 * each stresses).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int rectype[8] = {-3, -3, -3, -4, -4, -3, -4, -4};
static const int event[8] = {1, 2, -21, -21, 2, -52, -52, 1};
static const char *const pes_names[7] = {"compute", "send", "wait", "recv", "compute", "io", "idle"};

static void picl(FILE *f, long long k, int tags)
{
    long long cyc = k / 16, proc = k % 16;
    int i = (int)(cyc % 8);
    int rt = rectype[i], ev = event[i];
    double time = (double)cyc * 1e-5 + (double)proc * 1e-7;
    if ((ev == -21 && rt == -3) || (ev == -52 && rt == -4)) {
        long long tag = tags ? cyc / 8 : 7;
        fprintf(f, "%d %d %.6f %lld 0 3 2 1024 %lld %lld\n", rt, ev, time, proc, tag,
                rt == -3 ? (proc + 1) % 16 : (proc + 15) % 16);
    } else {
        fprintf(f, "%d %d %.6f %lld 0 0\n", rt, ev, time, proc);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_memory FORMAT N FILE\n");
        return 2;
    }
    const char *fmt = argv[1];
    long long n = atoll(argv[2]);
    FILE *f = fopen(argv[3], "a");
    if (!f || n < 0) {
        perror(argv[3]);
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    for (long long k = 0; k < n; k++) {
        if (!strcmp(fmt, "picl") || !strcmp(fmt, "picl_tags")) {
            picl(f, k, fmt[4] == '_');
        } else if (!strcmp(fmt, "paje")) {
            long long step = k / 4;
            int i = (int)(k % 4);
            double t = (double)step * 1e-3 + i * 1e-4;
            if (i == 0)
                fprintf(f, "10 comp p0 S %.4f\n", t);
            else if (i == 1)
                fprintf(f, "15 k%lld p0 1024 n1 L %.4f\n", step, t);
            else if (i == 2)
                fprintf(f, "16 %.4f k%lld p1 L 1024 n1\n", t, step);
            else
                fprintf(f, "10 recv p1 S %.4f\n", t);
        } else if (!strcmp(fmt, "paraver")) {
            if (k % 2 == 0)
                fprintf(f, "1:1:1:1:1:%lld:%lld:%lld\n", k, k + 1000, 1 + k % 5);
            else
                fprintf(f, "1:2:1:2:1:%lld:%lld:%lld\n", n - k, n - k + 1, 1 + k % 5);
        } else if (!strcmp(fmt, "din")) {
            fprintf(f, "%d %llx\n", k % 3 == 0 ? 1 : 0, 0x100000 + (k * 40) % 0x100000);
        } else if (!strcmp(fmt, "shmap")) {
            long long r = k % 61 + 1;
            fprintf(f, "%d 1 %lld %lld %lld %lld %lld\n", k % 4 == 3 ? 2 : 1, r, r + 3, r, r + 3, k + 1);
        } else if (!strcmp(fmt, "pes")) {
            fprintf(f, "%s %lld\n", pes_names[k % 7], k);
        } else {
            fprintf(stderr, "gen_memory: unknown format '%s'\n", fmt);
            return 2;
        }
    }
    if (fclose(f) != 0) {
        perror(argv[3]);
        return 1;
    }
    return 0;
}
