/* rt_hier_conf.c - configuring a hierarchy (Dinero IV's options, the short
 * form), printing it back, and Dinero IV's report (see rt_hier.h). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt_hier.h"

/* a size: decimal with an optional k, m or g (powers of 1024), as Dinero IV reads it */
static int parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno)
        return 0;
    unsigned shift = 0;
    switch (*end) {
    case 0: break;
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    default: return 0;
    }
    if (*end && end[1])
        return 0;
    if (shift && (x >> (64 - shift)))
        return 0;
    *out = (uint64_t)x << shift;
    return 1;
}

static int parse_uint(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return 0;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end)
        return 0;
    *out = x;
    return 1;
}

/* a policy letter of Dinero IV (l f r p) or a name */
static const char *policy_name(const char *v)
{
    if (!strcmp(v, "l"))
        return "lru";
    if (!strcmp(v, "f"))
        return "fifo";
    if (!strcmp(v, "r"))
        return "d4random";
    if (!strcmp(v, "p"))
        return "plru";
    return NULL;
}

static const char *const fetch_letters = "damtls";
static const char *const fetch_names[] = {"demand", "always", "miss", "tagged", "load-forward",
                                          "sub-block"};
static const char *const wpol_letters = "anf";
static const char *const wpol_names[] = {"always", "never", "nofetch"};

static int letter(const char *v, const char *letters, const char *const *names, int n)
{
    if (v[0] && !v[1]) {
        const char *p = strchr(letters, v[0]);
        if (p)
            return (int)(p - letters);
    }
    for (int i = 0; i < n; i++)
        if (!strcmp(v, names[i]))
            return i;
    return -1;
}

/* the strings the config points to (policy names given in full) live here */
static const char *intern_policy(const char *v)
{
    const char *p = policy_name(v);
    if (p)
        return p;
    static const char *const known[] = {"lru", "lfu", "fifo", "lifo", "clock", "random",
                                        "plru", "d4random"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(v, known[i]))
            return known[i];
    return NULL;
}

/* set one key of a cache; RT_OK or RT_EINVAL naming it */
static int set_key(rt_hcache_config *c, const char *key, const char *v, const char *who,
                   rt_err *err)
{
    uint64_t x;
    int k;
    if (!strcmp(key, "size")) {
        if (!parse_size(v, &c->size))
            goto bad;
    } else if (!strcmp(key, "bsize")) {
        if (!parse_size(v, &c->block))
            goto bad;
    } else if (!strcmp(key, "sbsize")) {
        if (!parse_size(v, &c->subblock))
            goto bad;
    } else if (!strcmp(key, "assoc")) {
        if (!parse_uint(v, &c->assoc))
            goto bad;
    } else if (!strcmp(key, "repl")) {
        if (!(c->policy = intern_policy(v)))
            goto bad;
    } else if (!strcmp(key, "fetch")) {
        if ((k = letter(v, fetch_letters, fetch_names, 6)) < 0)
            goto bad;
        c->fetch = k;
    } else if (!strcmp(key, "pfdist")) {
        if (!parse_uint(v, &c->pfdist) || c->pfdist == 0)
            goto bad;
    } else if (!strcmp(key, "pfabort")) {
        if (!parse_uint(v, &x) || x > 100)
            goto bad;
        c->pfabort = (unsigned)x;
    } else if (!strcmp(key, "walloc") || !strcmp(key, "wa")) {
        if ((k = letter(v, wpol_letters, wpol_names, 3)) < 0)
            goto bad;
        c->walloc = k;
    } else if (!strcmp(key, "wback") || !strcmp(key, "wb")) {
        if ((k = letter(v, wpol_letters, wpol_names, 3)) < 0)
            goto bad;
        c->wback = k;
    } else if (!strcmp(key, "private") && !v) {
        c->sharing = RT_SHARE_PRIVATE;
    } else if (!strcmp(key, "ccc") || !strcmp(key, "inclusive") || !strcmp(key, "shared")
               || !strcmp(key, "exclusive")) {
        int flag;
        if (!v)
            flag = 1;
        else if (!parse_uint(v, &x) || x > 1)
            goto bad;
        else
            flag = (int)x;
        if (key[0] == 'c')
            c->ccc = flag;
        else if (key[0] == 'i')
            c->inclusive = flag;
        else if (key[0] == 'e')
            c->exclusive = flag;
        else
            c->sharing = flag ? RT_SHARE_SHARED : RT_SHARE_PRIVATE;
    } else {
        return rt_err_set(err, RT_EINVAL, "%sunknown option '%s'", who, key);
    }
    return RT_OK;
bad:
    return rt_err_set(err, RT_EINVAL, "%s%s: bad value '%s'", who, key, v ? v : "(none)");
}

/* "l2-d" -> level 1 (0-based), which 2; the rest after the letter in *rest */
static int level_which(const char *s, unsigned *lev, int *which, const char **rest)
{
    if (s[0] != 'l' || !isdigit((unsigned char)s[1]))
        return 0;
    char *end;
    unsigned long l = strtoul(s + 1, &end, 10);
    if (l < 1 || l > RT_HIER_MAX_LEVELS)
        return 0;
    if (*end == '-')
        end++;
    switch (*end) {
    case 'u': *which = RT_HIER_UNIFIED; break;
    case 'i': *which = RT_HIER_INSTR; break;
    case 'd': *which = RT_HIER_DATA; break;
    default: return 0;
    }
    *lev = (unsigned)l - 1;
    *rest = end + 1;
    return 1;
}

static rt_hcache_config *cache_at(rt_hier_config *cfg, unsigned lev, int which)
{
    rt_hcache_config *c = &cfg->c[lev][which];
    if (!c->present) {
        *c = rt_hcache_defaults(0, 0);
        c->subblock = 0;
    }
    if (lev + 1 > cfg->levels)
        cfg->levels = lev + 1;
    return c;
}

int rt_hier_parse_dinero(rt_hier_config *cfg, int argc, const char *const *argv, rt_err *err)
{
    for (int i = 0; i < argc; i++) {
        const char *opt = argv[i], *o = opt;
        while (*o == '-')
            o++;
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned lev;
        int which;
        const char *key;
        if (level_which(o, &lev, &which, &key)) {
            rt_hcache_config *c = cache_at(cfg, lev, which);
            const char *v = NULL;
            if (strcmp(key, "ccc") != 0 && strcmp(key, "inclusive") != 0 && strcmp(key, "shared") != 0
                && strcmp(key, "private") != 0 && strcmp(key, "exclusive") != 0) {
                if (!next)
                    return rt_err_set(err, RT_EINVAL, "%s: needs a value", opt);
                v = next;
                i++;
            }
            char who[48];
            snprintf(who, sizeof who, "%.30s", opt);
            int st = set_key(c, key, v, "", err);
            if (st != RT_OK)
                return rt_hier_err_prefix(err, st, who);
            continue;
        }
        uint64_t *count = !strcmp(o, "skipcount") ? &cfg->skipcount
                          : !strcmp(o, "flushcount") ? &cfg->flushcount
                          : !strcmp(o, "maxcount") ? &cfg->maxcount : NULL;
        if (count) {
            if (!next || !parse_size(next, count))
                return rt_err_set(err, RT_EINVAL, "%s: bad value '%s'", opt, next ? next : "(none)");
            i++;
            continue;
        }
        if (!strcmp(o, "cores")) { /* retrace's, not Dinero IV's */
            uint64_t n;
            if (!next || !parse_uint(next, &n) || n < 1 || n > RT_HIER_MAX_CORES)
                return rt_err_set(err, RT_EINVAL, "%s: bad value '%s' (1 to %d)", opt,
                                  next ? next : "(none)", RT_HIER_MAX_CORES);
            cfg->cores = (unsigned)n;
            i++;
            continue;
        }
        if (!strcmp(o, "informat") || !strcmp(o, "stat-interval")) {
            if (!next)
                return rt_err_set(err, RT_EINVAL, "%s: needs a value", opt);
            i++;
            continue;
        }
        if (!strcmp(o, "stat-idcombine"))
            continue;
        return rt_err_set(err, RT_EINVAL, "%s: not a Dinero IV option retrace knows", opt);
    }
    /* Dinero IV's defaults: sub-block = block */
    for (unsigned l = 0; l < RT_HIER_MAX_LEVELS; l++)
        for (int k = 0; k < 3; k++)
            if (cfg->c[l][k].present && !cfg->c[l][k].subblock)
                cfg->c[l][k].subblock = cfg->c[l][k].block;
    return RT_OK;
}

int rt_hier_parse_short(rt_hier_config *cfg, const char *spec, rt_err *err)
{
    char buf[1024];
    if (strlen(spec) >= sizeof buf)
        return rt_err_set(err, RT_EINVAL, "hierarchy: description too long");
    strcpy(buf, spec);
    char *save = NULL;
    if (buf[strspn(buf, " \t")] == '-') { /* Dinero IV's options, as written for dineroIV */
        const char *argv[256];
        int argc = 0;
        for (char *w = strtok_r(buf, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
            if (argc == (int)(sizeof argv / sizeof *argv))
                return rt_err_set(err, RT_EINVAL, "hierarchy: more than %d options", argc);
            argv[argc++] = w;
        }
        return rt_hier_parse_dinero(cfg, argc, argv, err);
    }
    for (char *tok = strtok_r(buf, " \t;,", &save); tok; tok = strtok_r(NULL, " \t;,", &save)) {
        /* LEVEL:size/block[/sub]:assoc[:key=value...]; a bare "l1" is unified */
        if (!strncmp(tok, "cores=", 6)) {
            uint64_t n;
            if (!parse_uint(tok + 6, &n) || n < 1 || n > RT_HIER_MAX_CORES)
                return rt_err_set(err, RT_EINVAL, "'%s': cores: expected 1 to %d", tok,
                                  RT_HIER_MAX_CORES);
            cfg->cores = (unsigned)n;
            continue;
        }
        char *fields[16];
        int nf = 0;
        char *s2 = NULL;
        for (char *f = strtok_r(tok, ":", &s2); f && nf < 16; f = strtok_r(NULL, ":", &s2))
            fields[nf++] = f;
        if (nf < 2)
            return rt_err_set(err, RT_EINVAL, "'%s': expected LEVEL:size/block[:assoc]", tok);
        unsigned lev;
        int which = RT_HIER_UNIFIED;
        const char *rest;
        char lv[16];
        snprintf(lv, sizeof lv, "%s%s", fields[0],
                 (fields[0][0] == 'l' && strlen(fields[0]) >= 2
                  && isdigit((unsigned char)fields[0][strlen(fields[0]) - 1])) ? "u" : "");
        if (!level_which(lv, &lev, &which, &rest) || *rest)
            return rt_err_set(err, RT_EINVAL, "'%s': level: expected l1, l1i, l1d, l2 ...",
                              fields[0]);
        rt_hcache_config *c = cache_at(cfg, lev, which);
        char *sizes = fields[1], *sl = strchr(sizes, '/');
        if (!sl)
            return rt_err_set(err, RT_EINVAL, "'%s': expected size/block", sizes);
        *sl++ = 0;
        char *sb = strchr(sl, '/');
        if (sb)
            *sb++ = 0;
        int st;
        if ((st = set_key(c, "size", sizes, "", err)) != RT_OK
            || (st = set_key(c, "bsize", sl, "", err)) != RT_OK
            || (sb && (st = set_key(c, "sbsize", sb, "", err)) != RT_OK))
            return rt_hier_err_prefix(err, st, fields[0]);
        int first = 2;
        if (nf > 2 && !strchr(fields[2], '=')) {
            if (!strcmp(fields[2], "full"))
                c->assoc = 0;
            else if ((st = set_key(c, "assoc", fields[2], "", err)) != RT_OK)
                return rt_hier_err_prefix(err, st, fields[0]);
            first = 3;
        }
        for (int k = first; k < nf; k++) {
            char *eq = strchr(fields[k], '=');
            if (eq)
                *eq++ = 0;
            if ((st = set_key(c, fields[k], eq, "", err)) != RT_OK)
                return rt_hier_err_prefix(err, st, fields[0]);
        }
        if (!c->subblock)
            c->subblock = c->block;
    }
    return RT_OK;
}

/* ---- printing ---- */

typedef struct out {
    char *buf;
    size_t cap, len;
} out;

static void say(out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->len < o->cap ? o->buf + o->len : NULL, o->len < o->cap ? o->cap - o->len : 0,
                      fmt, ap);
    va_end(ap);
    if (n > 0)
        o->len += (size_t)n;
}

static void human(char *b, size_t n, uint64_t x)
{
    if (x >= (1ull << 30) && !(x & ((1ull << 30) - 1)))
        snprintf(b, n, "%lluG", (unsigned long long)(x >> 30));
    else if (x >= (1ull << 20) && !(x & ((1ull << 20) - 1)))
        snprintf(b, n, "%lluM", (unsigned long long)(x >> 20));
    else if (x >= (1ull << 10) && !(x & ((1ull << 10) - 1)))
        snprintf(b, n, "%lluK", (unsigned long long)(x >> 10));
    else
        snprintf(b, n, "%llu", (unsigned long long)x);
}

size_t rt_hier_describe_buf(const rt_hier_config *cfg, char *buf, size_t cap)
{
    out o = {buf, cap, 0};
    if (cap)
        buf[0] = 0;
    unsigned np = rt_hier_private_levels(cfg);
    if (cfg->cores > 1)
        say(&o, "%u cores, MESI among their private caches\n", cfg->cores);
    for (unsigned l = 0; l < cfg->levels; l++)
        for (int k = 0; k < 3; k++) {
            const rt_hcache_config *c = &cfg->c[l][k];
            if (!c->present)
                continue;
            char sz[24], bs[24], sbs[24];
            human(sz, sizeof sz, c->size);
            human(bs, sizeof bs, c->block);
            human(sbs, sizeof sbs, c->subblock ? c->subblock : c->block);
            uint64_t lines = c->block ? c->size / c->block : 0;
            uint64_t assoc = c->assoc ? c->assoc : lines;
            say(&o, "l%u-%s: %s, %s-byte blocks", l + 1,
                k == 0 ? "unified" : k == 1 ? "instruction" : "data", sz, bs);
            if (c->subblock && c->subblock != c->block)
                say(&o, " of %s-byte sub-blocks", sbs);
            if (assoc == lines)
                say(&o, ", fully associative (%llu ways)", (unsigned long long)assoc);
            else
                say(&o, ", %llu-way, %llu sets", (unsigned long long)assoc,
                    (unsigned long long)(assoc ? lines / assoc : 0));
            say(&o, ", %s", c->ops ? c->ops->name : c->policy ? c->policy : "lru");
            say(&o, ", fetch %s", fetch_names[c->fetch]);
            if (c->fetch != RT_FETCH_DEMAND)
                say(&o, " (distance %llu sub-block%s)", (unsigned long long)(c->pfdist ? c->pfdist : 1),
                    c->pfdist > 1 ? "s" : "");
            if (c->pfabort)
                say(&o, ", %u%% of prefetches aborted", c->pfabort);
            say(&o, ", write-allocate %s, write-back %s", wpol_names[c->walloc],
                wpol_names[c->wback]);
            if (c->ccc)
                say(&o, ", misses classified");
            if (c->inclusive)
                say(&o, ", inclusive (back-invalidates the caches above)");
            if (c->exclusive)
                say(&o, ", exclusive (holds what the caches above evict)");
            if (cfg->cores > 1)
                say(&o, l < np ? ", private (one per core)" : ", shared");
            say(&o, "\n");
        }
    if (cfg->skipcount)
        say(&o, "skip the first %llu records\n", (unsigned long long)cfg->skipcount);
    if (cfg->maxcount)
        say(&o, "at most %llu records\n", (unsigned long long)cfg->maxcount);
    if (cfg->flushcount)
        say(&o, "flush every %llu records\n", (unsigned long long)cfg->flushcount);
    return o.len;
}

void rt_hier_describe(const rt_hier_config *cfg, FILE *f)
{
    char buf[4096];
    rt_hier_describe_buf(cfg, buf, sizeof buf);
    fputs(buf, f);
}

/* one row of six columns: total, instruction, data, read, write, misc */
static void row(FILE *f, const char *label, const uint64_t *v, int off)
{
    uint64_t data = v[off + 0] + v[off + 1] + v[off + 3];
    fprintf(f, " %-22s %12llu %12llu %12llu %12llu %12llu %12llu\n", label,
            (unsigned long long)(data + v[off + 2]), (unsigned long long)v[off + 2],
            (unsigned long long)data, (unsigned long long)v[off + 0],
            (unsigned long long)v[off + 1], (unsigned long long)v[off + 3]);
}

/* misses / fetches per column, 4 decimals (0 when nothing was fetched) */
static void rate_row(FILE *f, const char *label, const uint64_t *miss, const uint64_t *fetch, int off)
{
    uint64_t m[6], n[6];
    const uint64_t *v[2] = {miss, fetch};
    uint64_t *o[2] = {m, n};
    for (int i = 0; i < 2; i++) {
        const uint64_t *x = v[i] + off;
        o[i][2] = x[0] + x[1] + x[3];
        o[i][0] = o[i][2] + x[2];
        o[i][1] = x[2];
        o[i][3] = x[0];
        o[i][4] = x[1];
        o[i][5] = x[3];
    }
    fprintf(f, " %-22s", label);
    for (int i = 0; i < 6; i++)
        fprintf(f, " %12.4f", n[i] ? (double)m[i] / (double)n[i] : 0.0);
    fprintf(f, "\n");
}

static void sum_row(FILE *f, const char *label, const uint64_t *v)
{
    uint64_t s[4];
    for (int i = 0; i < 4; i++)
        s[i] = v[i] + v[i + RT_HIER_PF];
    row(f, label, s, 0);
}

/* one cache's figures under its name */
static void report_cache(FILE *f, const rt_hier *h, const rt_hier_stats *s, unsigned l, int k, int core)
{
    const rt_hier_config *cfg = rt_hier_config_get(h);
    const rt_hcache_config *c = &cfg->c[l][k];
    int pf = c->fetch != RT_FETCH_DEMAND;
    int sub = c->subblock && c->subblock != c->block;
    if (core >= 0)
        fprintf(f, "l%u-%ccache core %d\n", l + 1, "uid"[k], core);
    else
        fprintf(f, "l%u-%ccache\n", l + 1, "uid"[k]);
    fprintf(f, " %-22s %12s %12s %12s %12s %12s %12s\n", "Metrics", "Total", "Instrn",
            "Data", "Read", "Write", "Misc");
    row(f, "Demand Fetches", s->fetch, 0);
    if (pf) {
        row(f, "Prefetch Fetches", s->fetch, RT_HIER_PF);
        sum_row(f, "Total Fetches", s->fetch);
    }
    row(f, "Demand Misses", s->miss, 0);
    rate_row(f, "Demand miss rate", s->miss, s->fetch, 0);
    if (c->ccc) {
        row(f, "Compulsory misses", s->comp, 0);
        row(f, "Capacity misses", s->cap, 0);
        row(f, "Conflict misses", s->conf, 0);
    }
    if (pf) {
        row(f, "Prefetch Misses", s->miss, RT_HIER_PF);
        if (c->ccc) {
            row(f, "PF compulsory misses", s->comp, RT_HIER_PF);
            row(f, "PF capacity misses", s->cap, RT_HIER_PF);
            row(f, "PF conflict misses", s->conf, RT_HIER_PF);
        }
        sum_row(f, "Total Misses", s->miss);
    }
    if (sub) {
        row(f, "Demand Block Misses", s->blockmiss, 0);
        if (c->ccc) {
            row(f, "DB compulsory misses", s->comp_block, 0);
            row(f, "DB capacity misses", s->cap_block, 0);
            row(f, "DB conflict misses", s->conf_block, 0);
        }
        if (pf) {
            row(f, "Prefetch Block Misses", s->blockmiss, RT_HIER_PF);
            if (c->ccc) {
                row(f, "PFB comp misses", s->comp_block, RT_HIER_PF);
                row(f, "PFB cap misses", s->cap_block, RT_HIER_PF);
                row(f, "PFB conf misses", s->conf_block, RT_HIER_PF);
            }
            sum_row(f, "Total Block Misses", s->blockmiss);
        }
    }
    fprintf(f, " %-22s %12llu\n", "Multi-block refs", (unsigned long long)s->multiblock);
    if (s->back_invalidations)
        fprintf(f, " %-22s %12llu\n", "Back-invalidated lines",
                (unsigned long long)s->back_invalidations);
    if (c->exclusive)
        fprintf(f, " %-22s %12llu\n", "Clean victims in", (unsigned long long)s->victim_fills);
    if (core >= 0) {
        fprintf(f, " %-22s %12llu\n", "Invalidations sent", (unsigned long long)s->inval_sent);
        fprintf(f, " %-22s %12llu\n", "Invalidations recv", (unsigned long long)s->inval_recv);
        fprintf(f, " %-22s %12llu\n", "Coherence misses", (unsigned long long)s->coh_miss);
        fprintf(f, " %-22s %12llu\n", "Snoop write-backs", (unsigned long long)s->snoop_wb);
    }
    fprintf(f, " %-22s %12llu\n", "Bytes From Memory", (unsigned long long)s->bytes_read);
    fprintf(f, " %-22s %12llu\n", "Bytes To Memory", (unsigned long long)s->bytes_written);
    fprintf(f, " %-22s %12llu\n", "Total Bytes r/w Mem",
            (unsigned long long)(s->bytes_read + s->bytes_written));
    fprintf(f, "\n");
}

void rt_hier_report(const rt_hier *h, FILE *f)
{
    const rt_hier_config *cfg = rt_hier_config_get(h);
    unsigned cores = rt_hier_cores(h), np = cores > 1 ? rt_hier_private_levels(cfg) : 0;
    for (unsigned l = 0; l < cfg->levels; l++)
        for (int k = 0; k < 3; k++) {
            if (!rt_hier_stats_get(h, l, k))
                continue;
            if (l < np)
                for (unsigned p = 0; p < cores; p++)
                    report_cache(f, h, rt_hier_stats_core(h, p, l, k), l, k, (int)p);
            else
                report_cache(f, h, rt_hier_stats_get(h, l, k), l, k, -1);
        }
}
