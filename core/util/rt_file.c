/* rt_file.c - see rt_file.h. */
#include "rt_file.h"

#include <sys/stat.h>

int rt_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
