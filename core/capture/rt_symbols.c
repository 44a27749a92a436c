/* rt_symbols.c - ELF symbols and DWARF lines through elfutils (see rt_symbols.h). */
#include "rt_symbols.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rt_symbols {
    Dwfl *dwfl;
    Dwfl_Module *mod;
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

rt_symbols *rt_symbols_open(const char *path, rt_err *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return (void)rt_err_set(err, RT_EIO, "%s: %s", path, strerror(errno)), NULL;
    rt_symbols *s = calloc(1, sizeof *s);
    if (!s) {
        close(fd);
        return (void)rt_err_set(err, RT_ENOMEM, "symbols: out of memory"), NULL;
    }
    s->dwfl = dwfl_begin(&offline_callbacks);
    if (s->dwfl) {
        dwfl_report_begin(s->dwfl);
        /* at bias 0: the object's link-time addresses; dwfl owns fd from here */
        s->mod = dwfl_report_elf(s->dwfl, path, path, fd, 0, false);
        dwfl_report_end(s->dwfl, NULL, NULL);
    } else {
        close(fd);
    }
    if (!s->mod) {
        rt_err_set(err, RT_EFORMAT, "%s: not an ELF object (%s)", path, dwfl_errmsg(-1));
        rt_symbols_free(s);
        return NULL;
    }
    return s;
}

void rt_symbols_lookup(rt_symbols *s, uint64_t addr, const char **func, const char **file, int *line)
{
    *func = dwfl_module_addrname(s->mod, (Dwarf_Addr)addr);
    *file = NULL;
    *line = 0;
    Dwfl_Line *l = dwfl_module_getsrc(s->mod, (Dwarf_Addr)addr);
    if (l) {
        Dwarf_Addr a;
        int ln = 0;
        const char *f = dwfl_lineinfo(l, &a, &ln, NULL, NULL, NULL);
        if (f) {
            *file = f;
            *line = ln;
        }
    }
}

void rt_symbols_each(rt_symbols *s, rt_symbols_fn fn, void *ud)
{
    int n = dwfl_module_getsymtab(s->mod);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *name = dwfl_module_getsym_info(s->mod, i, &sym, &addr, NULL, NULL, NULL);
        if (!name || !*name || sym.st_size == 0 || sym.st_shndx == SHN_UNDEF)
            continue;
        int t = GELF_ST_TYPE(sym.st_info);
        if (t != STT_FUNC && t != STT_OBJECT)
            continue;
        if (fn(ud, t == STT_FUNC, (uint64_t)addr, (uint64_t)sym.st_size, name))
            break;
    }
}

void rt_symbols_free(rt_symbols *s)
{
    if (!s)
        return;
    if (s->dwfl)
        dwfl_end(s->dwfl);
    free(s);
}
