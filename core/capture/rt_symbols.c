/* rt_symbols.c - ELF symbols and DWARF lines through elfutils (see rt_symbols.h). */
#include "rt_symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdio.h>
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

/* the name of a DIE (its source name, else its linkage name), through its abstract
 * origin or specification */
static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute at;
    const char *nm = NULL;
    if (dwarf_attr_integrate(die, DW_AT_name, &at))
        nm = dwarf_formstring(&at);
    if (!nm && dwarf_attr_integrate(die, DW_AT_linkage_name, &at))
        nm = dwarf_formstring(&at);
    return nm;
}

int rt_symbols_frames(rt_symbols *s, uint64_t addr, rt_symframe *out, int cap)
{
    if (cap < 1)
        return 0;
    const char *fn, *file;
    int line;
    rt_symbols_lookup(s, addr, &fn, &file, &line);
    out[0].func = fn;
    out[0].file = file;
    out[0].line = line;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(s->mod, (Dwarf_Addr)addr, &bias);
    if (!cu)
        return fn ? 1 : 0;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, (Dwarf_Addr)addr - bias, &scopes);
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0)
        files = NULL;
    int k = 1;
    for (int i = 0; i < n; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
            continue;
        const char *nm = die_name(&scopes[i]);
        if (nm)
            out[k - 1].func = nm; /* the function this frame's code belongs to */
        if (tag == DW_TAG_subprogram || k == cap)
            break;
        /* an inlined call: the next frame is its caller, at the call's place */
        Dwarf_Attribute at;
        Dwarf_Word cl = 0, cf = 0;
        if (dwarf_attr(&scopes[i], DW_AT_call_line, &at))
            dwarf_formudata(&at, &cl);
        const char *cfile = NULL;
        if (files && dwarf_attr(&scopes[i], DW_AT_call_file, &at) && dwarf_formudata(&at, &cf) == 0 && cf < nfiles)
            cfile = dwarf_filesrc(files, cf, NULL, NULL);
        out[k].func = fn; /* until its own scope names it */
        out[k].file = cfile;
        out[k].line = (int)cl;
        k++;
    }
    free(scopes);
    return k;
}

/* the C spelling of a type DIE, shortened: base and named types by name, a
 * pointer as its target and '*', qualifiers and typedef chains left as named */
static void type_name(Dwarf_Die *die, char *out, size_t cap, int depth)
{
    out[0] = '\0';
    if (depth > 8)
        return;
    int tag = dwarf_tag(die);
    const char *nm = dwarf_diename(die);
    Dwarf_Attribute at;
    Dwarf_Die target;
    int has_target = dwarf_attr(die, DW_AT_type, &at) && dwarf_formref_die(&at, &target);
    if (tag == DW_TAG_pointer_type) {
        char inner[96];
        if (has_target)
            type_name(&target, inner, sizeof inner, depth + 1);
        else
            snprintf(inner, sizeof inner, "void");
        snprintf(out, cap, "%s*", inner[0] ? inner : "?");
    } else if ((tag == DW_TAG_const_type || tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type) && has_target) {
        type_name(&target, out, cap, depth + 1);
    } else if (nm) {
        snprintf(out, cap, "%s", nm);
    }
}

int rt_symbols_result_var(rt_symbols *s, uint64_t ret, char *name, size_t name_cap, char *type, size_t type_cap)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(s->mod, (Dwarf_Addr)ret, &bias);
    if (!cu)
        return 0;
    Dwarf_Addr pc = (Dwarf_Addr)ret - bias;
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, pc, &scopes);
    int found = 0;
    for (int i = 0; i < n && !found; i++) {
        Dwarf_Die child;
        if (dwarf_child(&scopes[i], &child) == 0) {
            do {
                if (dwarf_tag(&child) != DW_TAG_variable)
                    continue;
                Dwarf_Attribute at;
                if (!dwarf_attr(&child, DW_AT_location, &at))
                    continue;
                Dwarf_Op *expr;
                size_t len;
                if (dwarf_getlocation_addr(&at, pc, &expr, &len, 1) != 1 || len != 1 || expr[0].atom != DW_OP_reg0)
                    continue;
                const char *nm = dwarf_diename(&child);
                if (!nm)
                    continue;
                snprintf(name, name_cap, "%s", nm);
                Dwarf_Attribute ta;
                Dwarf_Die tdie;
                type[0] = '\0';
                if (dwarf_attr(&child, DW_AT_type, &ta) && dwarf_formref_die(&ta, &tdie))
                    type_name(&tdie, type, type_cap, 0);
                found = 1;
                break;
            } while (dwarf_siblingof(&child, &child) == 0);
        }
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
            break; /* the calling function's own scopes only */
    }
    free(scopes);
    return found;
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

void rt_symbols_lines(rt_symbols *s, rt_symbols_line_fn fn, void *ud)
{
    Dwarf_Addr bias = 0;
    Dwarf *dw = dwfl_module_getdwarf(s->mod, &bias);
    if (!dw)
        return;
    Dwarf_Off off = 0, next;
    size_t hsize;
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        Dwarf_Lines *lines;
        size_t n;
        if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
            /* runs of rows of one line and one function; a run ends at the next row */
            uint64_t lo = 0;
            const char *cur_fn = NULL;
            int cur_line = -1, open_run = 0;
            for (size_t i = 0; i < n; i++) {
                Dwarf_Line *l = dwarf_onesrcline(lines, i);
                Dwarf_Addr a;
                int ln = 0;
                bool end = false;
                if (!l || dwarf_lineaddr(l, &a) != 0)
                    continue;
                dwarf_lineno(l, &ln);
                dwarf_lineendsequence(l, &end);
                uint64_t at = (uint64_t)a + bias;
                const char *f = NULL;
                if (!end) {
                    rt_symframe fr[1];
                    if (rt_symbols_frames(s, at, fr, 1) == 1)
                        f = fr[0].func;
                }
                int same = open_run && !end && ln == cur_line &&
                           (f == cur_fn || (f && cur_fn && strcmp(f, cur_fn) == 0));
                if (open_run && !same && at > lo) {
                    if (fn(ud, lo, at - lo, cur_fn, cur_line))
                        return;
                }
                if (!same) {
                    open_run = !end;
                    lo = at;
                    cur_fn = f;
                    cur_line = ln;
                }
            }
        }
        off = next;
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
