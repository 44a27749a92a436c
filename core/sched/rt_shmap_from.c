/*
 * rt_shmap_from.c - a SHMAP trace from a program capture: see rt_shmap_from.h.
 *
 * Both passes walk the memory trace and the allocation log in lockstep: a log
 * record stamped @SEQ is applied just before data reference SEQ, so that a heap
 * range means the allocation live at that moment (an address reused by a later
 * malloc is another bin). The bins live in a range map (rt_rangemap, as MemSpy's);
 * the code ranges in another, for the function of each reference's PC.
 */
#include "rt_shmap_from.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_memtrace.h"
#include "rt_msp.h"
#include "rt_out.h"
#include "rt_rangemap.h"

/* ---- DWARF: the shape of a global array ---------------------------------------- */

/* The DIE's type with typedefs and qualifiers peeled; 0 when there is none. */
static int peel(Dwarf_Die *die, Dwarf_Die *out)
{
    Dwarf_Attribute at;
    Dwarf_Die t;
    if (!dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
        return 0;
    for (int guard = 0; guard < 16; guard++) {
        int tag = dwarf_tag(&t);
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type
            && tag != DW_TAG_restrict_type)
            break;
        if (!dwarf_attr_integrate(&t, DW_AT_type, &at) || !dwarf_formref_die(&at, &t))
            return 0;
    }
    *out = t;
    return 1;
}

/* Look at one variable DIE of the CU: 1 when it is a 2-D array (shape set). */
static int array_shape(Dwarf_Die *var, int fortran, int *rows, int *cols, int *col_major, int *elem, int *dims,
                       char *decl, size_t decl_cap)
{
    Dwarf_Die arr, sub, et;
    if (!peel(var, &arr) || dwarf_tag(&arr) != DW_TAG_array_type)
        return 0;
    long n[8];
    int k = 0;
    if (dwarf_child(&arr, &sub) == 0) {
        do {
            if (dwarf_tag(&sub) != DW_TAG_subrange_type)
                continue;
            Dwarf_Word cnt = 0, ub = 0, lb = fortran ? 1 : 0;
            Dwarf_Attribute at;
            if (dwarf_attr(&sub, DW_AT_count, &at) && dwarf_formudata(&at, &cnt) == 0) {
                /* count given */
            } else if (dwarf_attr(&sub, DW_AT_upper_bound, &at) && dwarf_formudata(&at, &ub) == 0) {
                if (dwarf_attr(&sub, DW_AT_lower_bound, &at))
                    dwarf_formudata(&at, &lb);
                cnt = ub - lb + 1;
            } else {
                return 0; /* a flexible or variable-length dimension */
            }
            if (k < 8)
                n[k] = (long)cnt;
            k++;
        } while (dwarf_siblingof(&sub, &sub) == 0);
    }
    *dims = k;
    Dwarf_Word ord = fortran ? DW_ORD_col_major : DW_ORD_row_major;
    Dwarf_Attribute at;
    if (dwarf_attr(&arr, DW_AT_ordering, &at))
        dwarf_formudata(&at, &ord);
    int es = 0;
    if (peel(&arr, &et))
        es = dwarf_bytesize(&et);
    if (decl) {
        const char *tn = dwarf_diename(&et);
        int w = snprintf(decl, decl_cap, "%s", tn ? tn : "?");
        for (int i = 0; i < k && i < 8 && w > 0 && (size_t)w < decl_cap; i++)
            w += snprintf(decl + w, decl_cap - (size_t)w, "[%ld]", n[i]);
    }
    if (k != 2 || es <= 0 || n[0] < 1 || n[1] < 1 || n[0] > (1L << 30) || n[1] > (1L << 30))
        return 0;
    /* C's a[N][M]: N rows of M; Fortran's a(N, M) (column-major): N rows, M columns */
    *rows = (int)n[0];
    *cols = (int)n[1];
    *col_major = ord == DW_ORD_col_major;
    *elem = es;
    return 1;
}

int rt_shmap_dwarf_shape(const char *program, const char *name, int *rows, int *cols, int *col_major, int *elem,
                         int *dims, char *decl, size_t decl_cap)
{
    *dims = 0;
    if (decl && decl_cap)
        decl[0] = '\0';
    if (!program || !name)
        return 0;
    int fd = open(program, O_RDONLY);
    if (fd < 0)
        return 0;
    Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
    int found = 0;
    if (dw) {
        Dwarf_Off off = 0, next;
        size_t hsize;
        while (!found && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
            Dwarf_Die cu, d;
            if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &d) == 0) {
                Dwarf_Word lang = 0;
                Dwarf_Attribute at;
                if (dwarf_attr(&cu, DW_AT_language, &at))
                    dwarf_formudata(&at, &lang);
                int fortran = lang == DW_LANG_Fortran77 || lang == DW_LANG_Fortran90 || lang == DW_LANG_Fortran95
                              || lang == DW_LANG_Fortran03 || lang == DW_LANG_Fortran08;
                do {
                    const char *nm = dwarf_diename(&d);
                    if (dwarf_tag(&d) == DW_TAG_variable && nm && strcmp(nm, name) == 0) {
                        int dm = 0;
                        found = array_shape(&d, fortran, rows, cols, col_major, elem, &dm, decl, decl_cap);
                        if (dm)
                            *dims = dm;
                        if (found || dm)
                            break;
                    }
                } while (dwarf_siblingof(&d, &d) == 0);
            }
            off = next;
        }
        dwarf_end(dw);
    }
    close(fd);
    return found;
}

/* ---- the bins ------------------------------------------------------------------- */

typedef struct bin {
    uint64_t lo, hi;
    char *name;
    int heap;
    uint64_t refs;
    uint64_t sizes[5];   /* references of 1, 2, 4, 8, 16+ bytes */
    int matrix;          /* index in the result, or -1 */
    uint64_t first;      /* the first reference to it (pass 1): IDs follow it */
    int rows, cols, col_major, elem;
} bin;

typedef struct conv {
    const rt_shmap_from_opts *o;
    rt_err *err;
    bin *bins;
    size_t nbins, capbins;
    char **code;         /* names of code ranges */
    size_t ncode, capcode;
    rt_rangemap data, text;
    rt_msp *log;
    rt_msp_rec rec;
    int have_rec;        /* rec holds the next log record */
    uint64_t rec_seq;    /* its stamp (or the previous one) */
    int proc, nprocs;
    int pass;            /* 1: count, 2: write */
    /* pass 2 */
    FILE **outs;         /* one per thread */
    uint32_t *last_code; /* per thread, the code range of the last access written */
    uint64_t pc;         /* the instruction before the current reference */
    uint64_t accesses;
    int failed;
} conv;

static int push_bin(conv *c, uint64_t lo, uint64_t hi, const char *name, int heap)
{
    if (c->nbins == c->capbins) {
        size_t cap = c->capbins ? 2 * c->capbins : 64;
        bin *nb = realloc(c->bins, cap * sizeof *nb);
        if (!nb)
            return -1;
        c->bins = nb;
        c->capbins = cap;
    }
    bin *b = &c->bins[c->nbins];
    memset(b, 0, sizeof *b);
    b->lo = lo;
    b->hi = hi;
    b->heap = heap;
    b->matrix = -1;
    b->name = strdup(name ? name : "?");
    if (!b->name)
        return -1;
    return (int)c->nbins++;
}

static int push_code(conv *c, const char *name)
{
    if (c->ncode == c->capcode) {
        size_t cap = c->capcode ? 2 * c->capcode : 256;
        char **nc = realloc(c->code, cap * sizeof *nc);
        if (!nc)
            return -1;
        c->code = nc;
        c->capcode = cap;
    }
    c->code[c->ncode] = strdup(name ? name : "?");
    if (!c->code[c->ncode])
        return -1;
    return (int)c->ncode++;
}

/* Apply one log record (the bins are made in pass 1 and found again, in the same
   order, in pass 2: the n-th A or N record is bin n). */
static int apply(conv *c, const rt_msp_rec *r, size_t *nth)
{
    switch (r->kind) {
    case 'N':
    case 'A': {
        if (r->size == 0)
            return RT_OK;
        int idx;
        if (c->pass == 1) {
            idx = push_bin(c, r->addr, r->addr + r->size, r->name, r->kind == 'A');
            if (idx < 0)
                return rt_err_set(c->err, RT_ENOMEM, "out of memory");
        } else {
            idx = (int)(*nth);
        }
        (*nth)++;
        /* the main thread's stack is no array */
        if (r->kind == 'N' && r->name && strcmp(r->name, "stack") == 0)
            return RT_OK;
        if (rt_rangemap_insert(&c->data, r->addr, r->addr + r->size, (uint32_t)idx, NULL) != RT_OK)
            return rt_err_set(c->err, RT_ENOMEM, "out of memory");
        return RT_OK;
    }
    case 'F':
        rt_rangemap_remove(&c->data, r->addr);
        return RT_OK;
    case 'C': {
        if (r->size == 0 || c->pass == 2)
            return RT_OK; /* the code map is made once */
        int idx = push_code(c, r->name);
        if (idx < 0 || rt_rangemap_insert(&c->text, r->addr, r->addr + r->size, (uint32_t)idx, NULL) != RT_OK)
            return rt_err_set(c->err, RT_ENOMEM, "out of memory");
        return RT_OK;
    }
    case 'S':
        c->proc = r->proc;
        if (r->proc + 1 > c->nprocs)
            c->nprocs = r->proc + 1;
        return RT_OK;
    default:
        return RT_OK;
    }
}

static int next_rec(conv *c)
{
    int st = rt_msp_next(c->log, &c->rec, c->err);
    if (st == RT_EEOF) {
        c->have_rec = 0;
        rt_err_clear(c->err);
        return RT_OK;
    }
    if (st != RT_OK)
        return st;
    if (c->rec.kind == 'R' || c->rec.kind == 'W')
        return rt_err_at(c->err, RT_EFORMAT, c->o->log, rt_msp_lineno(c->log),
                         "record: a reference in an allocation log");
    if (c->rec.has_seq) {
        if (c->rec.seq < c->rec_seq)
            return rt_err_at(c->err, RT_EFORMAT, c->o->log, rt_msp_lineno(c->log), "stamp: decreasing");
        c->rec_seq = c->rec.seq;
    }
    c->have_rec = 1;
    return RT_OK;
}

/* Apply the log records due before data reference k (every one when k is UINT64_MAX). */
static int catch_up(conv *c, uint64_t k, size_t *nth)
{
    while (c->have_rec && c->rec_seq <= k) {
        int st = apply(c, &c->rec, nth);
        if (st == RT_OK)
            st = next_rec(c);
        if (st != RT_OK)
            return st;
    }
    return RT_OK;
}

static int size_slot(uint64_t size)
{
    return size >= 16 ? 4 : size >= 8 ? 3 : size >= 4 ? 2 : size >= 2 ? 1 : 0;
}

/* pass 2: the element accesses of one reference */
static void write_ref(conv *c, const bin *b, const rt_memref *ref, uint64_t time)
{
    int p = c->proc < c->nprocs ? c->proc : 0;
    FILE *f = c->outs[p];
    uint64_t n = (uint64_t)b->rows * (uint64_t)b->cols;
    uint64_t e0 = (ref->addr - b->lo) / (uint64_t)b->elem;
    uint64_t e1 = (ref->addr + (ref->size ? ref->size : 1) - 1 - b->lo) / (uint64_t)b->elem;
    if (e0 >= n)
        return;
    if (e1 >= n)
        e1 = n - 1;
    int id = b->matrix + 1;
    uint32_t code = rt_rangemap_find(&c->text, c->pc, NULL);
    if (code != c->last_code[p]) {
        c->last_code[p] = code;
        if (fprintf(f, "5 %d 0 %s\n", id, code == RT_RANGEMAP_NONE ? "(unknown)" : c->code[code]) < 0)
            c->failed = 1;
    }
    int op = ref->kind == RT_REF_WRITE ? 2 : 1;
    uint64_t R = (uint64_t)b->rows, C = (uint64_t)b->cols;
    for (uint64_t e = e0; e <= e1;) {
        uint64_t r, col, last = e;
        if (b->col_major) {
            r = e % R;
            col = e / R;
            while (last + 1 <= e1 && (last + 1) / R == col) /* down the same column */
                last++;
            if (fprintf(f, "%d %d %llu %llu %llu %llu %llu\n", op, id, (unsigned long long)r + 1,
                        (unsigned long long)(r + last - e) + 1, (unsigned long long)col + 1,
                        (unsigned long long)col + 1, (unsigned long long)time) < 0)
                c->failed = 1;
        } else {
            r = e / C;
            col = e % C;
            while (last + 1 <= e1 && (last + 1) / C == r) /* along the same row */
                last++;
            if (fprintf(f, "%d %d %llu %llu %llu %llu %llu\n", op, id, (unsigned long long)r + 1,
                        (unsigned long long)r + 1, (unsigned long long)col + 1,
                        (unsigned long long)(col + last - e) + 1, (unsigned long long)time) < 0)
                c->failed = 1;
        }
        c->accesses += last - e + 1;
        e = last + 1;
    }
}

/* One pass over the trace and the log. */
static int walk(conv *c, uint64_t *refs)
{
    rt_err *err = c->err;
    rt_rtmb *t = rt_rtmb_open(c->o->rtmb, err);
    if (!t)
        return err->status ? err->status : RT_EIO;
    c->log = rt_msp_open(c->o->log, err);
    if (!c->log) {
        rt_rtmb_free(t);
        return err->status ? err->status : RT_EIO;
    }
    c->have_rec = 0;
    c->rec_seq = 0;
    c->proc = 0;
    size_t nth = 0;
    int st = next_rec(c);
    rt_memref buf[4096];
    uint64_t k = 0;
    while (st == RT_OK) {
        size_t n = 0;
        st = rt_rtmb_read(t, buf, sizeof buf / sizeof buf[0], &n, err);
        if (st == RT_EEOF) {
            st = RT_OK;
            break;
        }
        for (size_t i = 0; i < n && st == RT_OK; i++) {
            const rt_memref *ref = &buf[i];
            if (ref->kind == RT_REF_IFETCH) {
                c->pc = ref->addr;
                continue;
            }
            if (ref->kind != RT_REF_READ && ref->kind != RT_REF_WRITE)
                continue;
            st = catch_up(c, k, &nth);
            if (st != RT_OK)
                break;
            uint32_t bi = rt_rangemap_find(&c->data, ref->addr, NULL);
            if (bi != RT_RANGEMAP_NONE) {
                bin *b = &c->bins[bi];
                if (c->pass == 1) {
                    if (b->refs == 0)
                        b->first = k;
                    b->refs++;
                    b->sizes[size_slot(ref->size)]++;
                } else if (b->matrix >= 0) {
                    write_ref(c, b, ref, k + 1);
                }
            }
            k++;
        }
    }
    if (st == RT_OK)
        st = catch_up(c, UINT64_MAX, &nth);
    rt_msp_free(c->log);
    c->log = NULL;
    rt_rtmb_free(t);
    *refs = k;
    return st;
}

/* Bytes per element from a heap bin's "TYPE.VAR@..." name, or 0. */
static int elem_of_type(const char *name)
{
    static const struct { const char *t; int size; } known[] = {
        {"double", 8}, {"float", 4}, {"int", 4}, {"unsigned", 4}, {"long", 8}, {"size_t", 8},
        {"int64_t", 8}, {"uint64_t", 8}, {"int32_t", 4}, {"uint32_t", 4}, {"short", 2}, {"char", 1},
    };
    const char *dot = strchr(name, '.');
    if (!dot || !strchr(name, '@'))
        return 0;
    char t[64];
    size_t n = (size_t)(dot - name);
    if (n >= sizeof t)
        return 0;
    memcpy(t, name, n);
    t[n] = '\0';
    if (n == 0 || t[n - 1] != '*') /* only pointers say what they point to */
        return 0;
    while (n > 0 && (t[n - 1] == '*' || t[n - 1] == ' '))
        t[--n] = '\0';
    const char *base = t;
    if (strncmp(base, "const ", 6) == 0)
        base += 6;
    if (strncmp(base, "unsigned ", 9) == 0)
        base += 9;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(base, known[i].t) == 0)
            return known[i].size;
    return 0;
}

typedef struct ranked {
    uint64_t refs;
    size_t bin;
} ranked;

/* most references first, then the earlier bin */
static int cmp_refs(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->refs != y->refs)
        return x->refs < y->refs ? 1 : -1;
    return (x->bin > y->bin) - (x->bin < y->bin);
}

/* earliest first (refs holds the first touch here) */
static int cmp_first(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    return (x->refs > y->refs) - (x->refs < y->refs);
}

/* Choose the bins kept and their shapes. */
static int shape_bins(conv *c, rt_shmap_from_result *res)
{
    const rt_shmap_from_opts *o = c->o;
    uint64_t min_el = o->min_elements ? o->min_elements : 4;
    int maxm = o->max_matrices > 0 ? o->max_matrices : 32;
    ranked *order = malloc((c->nbins + 1) * sizeof *order);
    if (!order)
        return rt_err_set(c->err, RT_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < c->nbins; i++) {
        bin *b = &c->bins[i];
        if (b->refs == 0)
            continue;
        /* element size: the type's, else the most frequent reference size */
        char decl[96] = "";
        int dims = 0, hinted = 0;
        b->elem = 0;
        for (int h = 0; h < o->nhints; h++)
            if (strcmp(o->hints[h].name, b->name) == 0) {
                b->rows = o->hints[h].rows;
                b->cols = o->hints[h].cols;
                b->col_major = o->hints[h].col_major;
                hinted = 1;
            }
        int dr = 0, dc = 0, dcm = 0, de = 0;
        int dwarf = !b->heap && rt_shmap_dwarf_shape(o->program, b->name, &dr, &dc, &dcm, &de, &dims, decl, sizeof decl);
        if (dwarf)
            b->elem = de;
        if (!b->elem && b->heap)
            b->elem = elem_of_type(b->name);
        if (!b->elem) {
            int best = 3;
            for (int s = 0; s < 5; s++)
                if (b->sizes[s] > b->sizes[best])
                    best = s;
            b->elem = best == 4 ? 8 : 1 << best;
        }
        uint64_t elems = (b->hi - b->lo) / (uint64_t)b->elem;
        char how[160];
        if (hinted) {
            snprintf(how, sizeof how, "hint %dx%d%s", b->rows, b->cols, b->col_major ? ",col" : "");
        } else if (dwarf) {
            b->rows = dr;
            b->cols = dc;
            b->col_major = dcm;
            snprintf(how, sizeof how, "DWARF %s", decl);
        } else {
            if (elems < 1)
                elems = 1;
            uint64_t cols = (uint64_t)ceil(sqrt((double)elems));
            while (cols * cols < elems)
                cols++;
            while (cols > 1 && (cols - 1) * (cols - 1) >= elems)
                cols--;
            b->cols = (int)cols;
            b->rows = (int)((elems + cols - 1) / cols);
            b->col_major = 0;
            if (decl[0])
                snprintf(how, sizeof how, "nearest square of %llu elements (DWARF %s)", (unsigned long long)elems, decl);
            else
                snprintf(how, sizeof how, "nearest square of %llu elements", (unsigned long long)elems);
        }
        if (!hinted && elems < min_el) {
            res->left_out++;
            continue;
        }
        /* keep how for later: stash in the name's slot via the result below */
        b->matrix = -2; /* a candidate */
        order[n].refs = b->refs;
        order[n++].bin = i;
        /* the name is kept with how after its NUL, for the result */
        char *keep = malloc(strlen(b->name) + strlen(how) + 2);
        if (!keep) {
            free(order);
            return rt_err_set(c->err, RT_ENOMEM, "out of memory");
        }
        sprintf(keep, "%s%c%s", b->name, '\0', how);
        free(b->name);
        b->name = keep;
    }
    qsort(order, n, sizeof *order, cmp_refs);
    size_t keep = n < (size_t)maxm ? n : (size_t)maxm;
    res->left_out += (int)(n - keep);
    for (size_t i = keep; i < n; i++)
        c->bins[order[i].bin].matrix = -1;
    /* IDs in the order of first touch */
    res->matrices = calloc(keep ? keep : 1, sizeof *res->matrices);
    if (!res->matrices) {
        free(order);
        return rt_err_set(c->err, RT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < keep; i++)
        order[i].refs = c->bins[order[i].bin].first;
    qsort(order, keep, sizeof *order, cmp_first);
    int id = 0;
    for (size_t j = 0; j < keep; j++) {
        bin *b = &c->bins[order[j].bin];
        rt_shmap_from_matrix *m = &res->matrices[id];
        b->matrix = id++;
        m->id = id;
        snprintf(m->name, sizeof m->name, "%s", b->name);
        snprintf(m->how, sizeof m->how, "%s", b->name + strlen(b->name) + 1);
        m->rows = b->rows;
        m->cols = b->cols;
        m->col_major = b->col_major;
        m->elem = b->elem;
        m->refs = b->refs;
    }
    res->nmatrices = id;
    free(order);
    return RT_OK;
}

static int copy_into(FILE *from, FILE *to)
{
    char buf[65536];
    size_t n;
    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        if (fwrite(buf, 1, n, to) != n)
            return -1;
    return ferror(from) ? -1 : 0;
}

int rt_shmap_from_capture(const rt_shmap_from_opts *o, rt_shmap_from_result *res, rt_err *err)
{
    memset(res, 0, sizeof *res);
    rt_err_clear(err);
    conv c = {.o = o, .err = err, .nprocs = 1};
    rt_rangemap_init(&c.data);
    rt_rangemap_init(&c.text);
    rt_out *out = NULL;
    uint64_t refs = 0;
    c.pass = 1;
    int st = walk(&c, &refs);
    if (st == RT_OK)
        st = shape_bins(&c, res);
    if (st == RT_OK && res->nmatrices == 0)
        st = rt_err_set(err, RT_EINVAL, "%s: no data bin of the capture was touched by a reference%s", o->rtmb,
                        res->left_out ? " (only bins smaller than the least number of elements)" : "");
    if (st == RT_OK) {
        /* pass 2 */
        res->threads = c.nprocs;
        out = rt_out_open(o->out, err);
        c.outs = calloc((size_t)c.nprocs, sizeof *c.outs);
        c.last_code = malloc((size_t)c.nprocs * sizeof *c.last_code);
        if (!out)
            st = err->status ? err->status : RT_EIO;
        else if (!c.outs || !c.last_code)
            st = rt_err_set(err, RT_ENOMEM, "out of memory");
        for (int p = 0; st == RT_OK && p < c.nprocs; p++) {
            c.last_code[p] = RT_RANGEMAP_NONE - 1;
            c.outs[p] = c.nprocs == 1 ? rt_out_fp(out) : tmpfile();
            if (!c.outs[p])
                st = rt_err_set(err, RT_EIO, "%s: cannot make a temporary file", o->out);
        }
        if (st == RT_OK) {
            FILE *f = rt_out_fp(out);
            for (int i = 0; i < res->nmatrices; i++) {
                const rt_shmap_from_matrix *m = &res->matrices[i];
                fprintf(f, "0 %d %d %d\n3 %d %s: %d x %d %s, %d-byte elements (%s)\n", m->id, m->rows, m->cols, m->id,
                        m->name, m->rows, m->cols, m->col_major ? "column-major" : "row-major", m->elem, m->how);
            }
            /* the bins and code ranges are made again from the log, in the same order */
            rt_rangemap_destroy(&c.data);
            rt_rangemap_init(&c.data);
            c.pass = 2;
            c.nprocs = res->threads;
            st = walk(&c, &refs);
        }
        if (st == RT_OK && c.failed)
            st = rt_err_set(err, RT_EIO, "%s: write failed", o->out);
        if (st == RT_OK && c.nprocs > 1) {
            FILE *f = rt_out_fp(out);
            fprintf(f, "6 threads\n");
            for (int p = 0; p < c.nprocs && st == RT_OK; p++) {
                fprintf(f, "8 thread %d\n", p);
                if (copy_into(c.outs[p], f) != 0)
                    st = rt_err_set(err, RT_EIO, "%s: write failed", o->out);
                fprintf(f, "9 thread %d\n", p);
            }
            fprintf(f, "7 threads\n");
        }
        if (c.outs && c.nprocs > 1)
            for (int p = 0; p < c.nprocs; p++)
                if (c.outs[p])
                    fclose(c.outs[p]);
        if (st == RT_OK) {
            st = rt_out_commit(out, err);
            out = NULL;
        }
        res->refs = refs;
        res->accesses = c.accesses;
    }
    rt_out_abort(out);
    free(c.outs);
    free(c.last_code);
    for (size_t i = 0; i < c.nbins; i++)
        free(c.bins[i].name);
    free(c.bins);
    for (size_t i = 0; i < c.ncode; i++)
        free(c.code[i]);
    free(c.code);
    rt_rangemap_destroy(&c.data);
    rt_rangemap_destroy(&c.text);
    if (st != RT_OK)
        rt_shmap_from_result_free(res);
    return st;
}

void rt_shmap_from_result_free(rt_shmap_from_result *res)
{
    if (!res)
        return;
    free(res->matrices);
    res->matrices = NULL;
    res->nmatrices = 0;
}
