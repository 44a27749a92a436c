/*
 * rt_memtrace_fast.c - block parsers of din, extended din and lackey lines
 * (see rt_memtrace_fast.h): the hot path of `retrace cache` on text traces
 * and of `retrace capture` on lackey's log, tens of millions of lines per
 * second. Hex fields are read eight characters at a time (SWAR) rather than
 * with a table lookup per digit; din's plain load and store lines are read
 * sixteen characters at once in an SSE register.
 */
#include "rt_memtrace_fast.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* hexadecimal digit values by character, 0xff (X) for the others: constant,
 * so readers opened on several threads share it with nothing to set up */
#define X 0xff
const unsigned char rt_hexval[256] = {
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, X, X, X, X, X, X,
    X, 10, 11, 12, 13, 14, 15, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, 10, 11, 12, 13, 14, 15, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
    X, X, X, X, X, X, X, X, X, X, X, X, X, X, X, X,
};
#undef X

/* ---- SWAR hexadecimal: eight characters per step, no branch per digit ---- */

/* the per-character helpers must be inlined into the loops (-O2 left hex_at
 * out of line, which cost a third of the time) */
#define HOT static inline __attribute__((always_inline))

#define B8(x) (0x0101010101010101ull * (x))

/* high bit of each byte of w (bytes < 0x80) that is a hex digit */
HOT uint64_t hex_bytes(uint64_t w)
{
    uint64_t lc = w | B8(0x20);
    uint64_t dig = ((w | B8(0x80)) - B8(0x30)) & ((B8(0x39) | B8(0x80)) - w);
    uint64_t alp = ((lc | B8(0x80)) - B8(0x61)) & ((B8(0x66) | B8(0x80)) - lc);
    return (dig | alp) & B8(0x80);
}

/* value of the first n (1..8) hex digits in w (first character lowest) */
HOT uint64_t hex_value(uint64_t w, unsigned n)
{
    uint64_t v = (w & B8(0x0f)) + ((w >> 6) & B8(0x01)) * 9; /* digit values */
    v <<= 8 * (8 - n);                                        /* leading zeros */
    v = ((v << 4) | (v >> 8)) & 0x00FF00FF00FF00FFull;
    v = ((v << 8) | (v >> 16)) & 0x0000FFFF0000FFFFull;
    return ((v << 16) | (v >> 32)) & 0xFFFFFFFFull;
}

/* Hex digits at q (at least 17 readable bytes): their count (0..16) and value,
 * or -1 when the careful loop must decide (bytes >= 0x80, more than 16 digits). */
HOT int hex_swar(const char *q, uint64_t *out)
{
    uint64_t w0, w1;
    memcpy(&w0, q, 8);
    memcpy(&w1, q + 8, 8);
    if ((w0 | w1) & B8(0x80))
        return -1;
    uint64_t non0 = ~hex_bytes(w0) & B8(0x80);
    if (non0) {
        unsigned n = (unsigned)__builtin_ctzll(non0) >> 3;
        *out = n ? hex_value(w0, n) : 0;
        return (int)n;
    }
    uint64_t non1 = ~hex_bytes(w1) & B8(0x80);
    unsigned n = non1 ? (unsigned)__builtin_ctzll(non1) >> 3 : 8;
    if (n == 8 && rt_hexval[(unsigned char)q[16]] <= 15)
        return -1;
    uint64_t hi = hex_value(w0, 8);
    *out = n ? (hi << (4 * n)) | hex_value(w1, n) : hi;
    return (int)(8 + n);
}

/* [0x]HEX at q: the end of its digits, with their value in *out; NULL when
 * there is no digit or more than 16 of them (leading zeros too: the slow
 * path sorts those out). swar: eight digits a step, for addresses; without,
 * one a step, quicker for the one or two digits of a size. */
HOT const char *hex_at(const char *q, const char *end, uint64_t *out, int swar)
{
    /* 0x: tested on the x first, which is all but never there, so the
     * branch is foreseen (a first digit 0 or not is a coin toss) */
    if (end - q >= 2 && (q[1] | 0x20) == 'x' && q[0] == '0')
        q += 2;
    const char *h = q;
    uint64_t v = 0;
    int nd = swar && end - q >= 17 ? hex_swar(q, &v) : -1;
    if (nd >= 0) {
        q += nd;
    } else {
        unsigned d;
        while ((d = rt_hexval[(unsigned char)*q]) <= 15) {
            v = (v << 4) | d;
            q++;
        }
    }
    if ((size_t)(q - h) - 1 > 15) /* none, or more than 16 */
        return NULL;
    *out = v;
    return q;
}

/* the blanks of the plain shapes; '\r', '\v' and '\f' are the slow path's */
HOT int sp(char c)
{
    static const unsigned char blank[256] = {[' '] = 1, ['\t'] = 1}; /* one test, not two */
    return blank[(unsigned char)c];
}

HOT const char *skip_sp(const char *q)
{
    while (sp(*q))
        q++;
    return q;
}

/* At q, after a record's last field and blanks: 1 when the line ends there
 * (its newline, or the file's end without one). */
HOT int line_ends(const char *q, const char *end)
{
    return *q == '\n' || (q == end && *q == '\0');
}

/* the start of the line after the one ending at q ('\n' or end) */
HOT const char *after(const char *q, const char *end)
{
    return q < end ? q + 1 : end;
}

/* din: [blanks] LABEL blanks [0x]HEX ['\n' | blank comment '\n'] */
const char *rt_din_block(const char *p, const char *end, rt_memref *out, size_t cap, size_t *kp,
                         unsigned long *lines)
{
    size_t k = *kp;
    unsigned long nl = 0;
    while (k < cap && p < end) {
        const char *q = skip_sp(p);
        unsigned label = (unsigned)(*q - '0');
        if (label > 4 || !sp(q[1]))
            break;
        uint64_t v;
        if (!(q = hex_at(skip_sp(q + 2), end, &v, 1)))
            break;
        if (!line_ends(q, end)) {
            if (!sp(*q))
                break;
            const char *c = memchr(q, '\n', (size_t)(end - q)); /* the rest is a comment */
            q = c ? c : end;
        }
        out[k].addr = v & ~(uint64_t)3; /* as rt_din_next: 4 aligned bytes */
        out[k].size = 4;
        out[k].kind = (int)label;
        k++;
        nl++;
        p = after(q, end);
    }
    *kp = k;
    *lines += nl;
    return p;
}

#if defined(__SSE2__)
/* One plain load or store line at p ("L HEX\n", L 0 or 1, one space, 1-15
 * hex digits; at least 18 bytes readable from p): the start of the next line,
 * with the reference in *word (the address, 4-aligned, with bit 0 set for a
 * store); NULL for any other line. The sixteen characters after the blank
 * are handled at once in one SSE register: the newline found by a compare,
 * the digits checked and packed into a word by a few vector operations, so
 * the only chain from one line to the next is where its newline is. */
HOT const char *din_plain(const char *p, uint64_t *word)
{
    unsigned label = (unsigned)(unsigned char)p[0] - '0';
    __m128i x = _mm_loadu_si128((const __m128i *)(p + 2));
    unsigned nlm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('\n')));
    unsigned n = (unsigned)__builtin_ctz(nlm | 0x10000); /* digits before the newline (16: none seen) */
    /* hex digits: c - '0' <= 9, or (c | 0x20) - 'a' <= 5, unsigned */
    __m128i d = _mm_sub_epi8(x, _mm_set1_epi8('0'));
    __m128i a = _mm_sub_epi8(_mm_or_si128(x, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
    __m128i ok = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d),
                              _mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(5)), a));
    unsigned okm = (unsigned)_mm_movemask_epi8(ok);
    if (label > 1 || p[1] != ' ' || n - 1 > 14 || (~okm & ((1u << n) - 1)))
        return NULL;
    /* digit values (letters: low nibble + 9), masked so none spills over */
    __m128i v = _mm_and_si128(
        _mm_add_epi8(x, _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8(0x40)), _mm_set1_epi8(9))),
        _mm_set1_epi8(0x0f));
    /* pairs of digits into bytes, the first digit high, then the bytes into a word */
    __m128i pr = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(v, 4), _mm_srli_epi16(v, 8)), _mm_set1_epi16(0xff));
    uint64_t all = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pr, pr)));
    *word = ((all >> (4 * (16 - n))) & ~(uint64_t)3) | label; /* as rt_din_next: 4 aligned bytes */
    return p + 3 + n;
}
#endif

/* din loads and stores as words (see the header). With SSE2 each plain line
 * goes through din_plain; any other line goes once through rt_din_block,
 * which knows every shape, and a reference other than a load or a store ends
 * the run there. */
const char *rt_din_words(const char *p, const char *end, uint64_t *word, size_t cap, size_t *kp,
                         unsigned long *lines)
{
    size_t k = *kp;
    unsigned long nl = 0;
    while (k < cap && p < end) {
#if defined(__SSE2__)
        const char *q;
        size_t k0 = k;
        while (k < cap && end - p >= 18 && (q = din_plain(p, &word[k]))) {
            p = q;
            k++;
        }
        nl += k - k0;
        if (k == cap || p >= end)
            break;
#endif
        rt_memref ref; /* the line at p, any shape */
        size_t one = 0;
        unsigned long l1 = 0;
        const char *r = rt_din_block(p, end, &ref, 1, &one, &l1);
        if (!one || ref.kind > RT_REF_WRITE)
            break; /* the slow path's line, or an instruction fetch, misc or flush */
        word[k++] = ref.addr | (uint64_t)ref.kind;
        nl += l1;
        p = r;
    }
    *kp = k;
    *lines += nl;
    return p;
}

const char *rt_din_lines(const char *p, const char *end, unsigned line_shift, uint64_t *addr,
                         uint8_t *is_write, size_t cap, size_t *kp, unsigned long *lines)
{
    (void)line_shift; /* 4 aligned bytes stay within any line of 4 bytes or more */
    size_t k = *kp;
    while (k < cap && p < end) {
        uint64_t w[256];
        size_t m = 0, want = cap - k < 256 ? cap - k : 256;
        p = rt_din_words(p, end, w, want, &m, lines);
        for (size_t i = 0; i < m; i++) {
            addr[k + i] = w[i] & ~(uint64_t)3;
            is_write[k + i] = (uint8_t)(w[i] & 1);
        }
        k += m;
        if (m < want)
            break;
    }
    *kp = k;
    return p;
}

/* xdin: [blanks] TYPE blanks [0x]HEX blanks [0x]HEX [blanks] '\n', with a
 * size that rt_xdin_next accepts as it is */
const char *rt_xdin_block(const char *p, const char *end, rt_memref *out, size_t cap, size_t *kp,
                          unsigned long *lines)
{
    size_t k = *kp;
    unsigned long nl = 0;
    while (k < cap && p < end) {
        /* kind + 1 by access type, 0 for the others: a load, not a jump table */
        static const unsigned char kind_of[256] = {
            ['r'] = RT_REF_READ + 1,  ['w'] = RT_REF_WRITE + 1, ['i'] = RT_REF_IFETCH + 1,
            ['m'] = RT_REF_MISC + 1,  ['c'] = RT_REF_FLUSH + 1, ['v'] = RT_REF_INVALIDATE + 1};
        const char *q = skip_sp(p);
        int kind = kind_of[(unsigned char)*q] - 1;
        if (kind < 0 || !sp(q[1]))
            break;
        uint64_t a, size;
        if (!(q = hex_at(skip_sp(q + 2), end, &a, 1)) || !sp(*q))
            break;
        q = skip_sp(q + 1);
        size = rt_hexval[(unsigned char)q[0]];
        if (size <= 15 && rt_hexval[(unsigned char)q[1]] > 15) /* one digit, the usual */
            q++;
        else if (!(q = hex_at(q, end, &size, 0)))
            break;
        if (*q != '\n') { /* blanks before the newline, or the file's end: rare */
            q = skip_sp(q);
            if (!line_ends(q, end))
                break;
        }
        if (size == 0 && kind < RT_REF_FLUSH)
            size = 1; /* as rt_xdin_next */
        rt_memref ref = {a, size, kind};
        if (rt_memref_bad_size(&ref) || (size > 0 && a + (size - 1) < a))
            break; /* the slow path says what is wrong */
        out[k++] = ref;
        nl++;
        p = after(q, end);
    }
    *kp = k;
    *lines += nl;
    return p;
}

/* lackey: [blanks] I|L|S|M blanks [0x]HEX,DECIMAL [blanks] '\n', and valgrind's own lines */
const char *rt_lackey_block(const char *p, const char *end, int valgrind, rt_memref *out, size_t cap,
                            size_t *kp, unsigned long *lines, rt_memref *pending, int *has_pending)
{
    size_t k = *kp;
    unsigned long nl = 0;
    while (k < cap && p < end) {
        /* kind + 1 by record type (M: a load, 8 marks its store), 0 for the others */
        static const unsigned char kind_of[256] = {['I'] = RT_REF_IFETCH + 1, ['L'] = RT_REF_READ + 1,
                                                   ['S'] = RT_REF_WRITE + 1, ['M'] = (RT_REF_READ + 1) | 8};
        /* What valgrind writes, "I  ADDR,N" and " L ADDR,N", has the address
         * at p + 3 either way: known without walking the blanks, which
         * would make the rest of the line wait for a guess at their count. */
        unsigned lead = p[0] == ' ';
        unsigned kv = kind_of[(unsigned char)p[lead]];
        const char *q = p + 3;
        if (!kv || p[lead + 1] != ' ' || p[2] != ' ' || sp(*q)) {
            if ((p[0] == '=' || p[0] == '-' || p[0] == '*') && p[1] == p[0]) {
                if (!valgrind)
                    break;
                const char *c = memchr(p, '\n', (size_t)(end - p)); /* as next_line: skipped */
                nl++;
                p = after(c ? c : end, end);
                continue;
            }
            q = skip_sp(p); /* any other spacing */
            kv = kind_of[(unsigned char)*q];
            if (!kv || !sp(q[1]))
                break;
            q = skip_sp(q + 2);
        }
        int kind = (int)(kv & 7) - 1, modify = (int)(kv >> 3);
        uint64_t a;
        if (!(q = hex_at(q, end, &a, 1)) || *q != ',')
            break;
        const char *d = ++q;
        unsigned d1 = (unsigned)(*q - '1'); /* 0-8 for 1-9 */
        uint64_t size;
        if (d1 <= 8 && (unsigned)(q[1] - '0') > 9) { /* one digit 1-9, the usual */
            size = d1 + 1;
            q++;
        } else {
            size = 0;
            while ((unsigned)(*q - '0') <= 9 && q - d < 9)
                size = size * 10 + (uint64_t)(*q++ - '0');
            if (size == 0 || size > RT_MEMREF_MAX_SIZE)
                break;
        }
        if (*q != '\n') { /* blanks before the newline, or the file's end: rare */
            q = skip_sp(q);
            if (!line_ends(q, end))
                break;
        }
        if (a + (size - 1) < a)
            break; /* past the top of the address space: the slow path says so */
        rt_memref ref = {a, size, kind}, store = {a, size, RT_REF_WRITE};
        if (k + 1 < cap) { /* room for an M's store: written whatever the type, kept for an M */
            out[k] = ref;
            out[k + 1] = store;
            k += 1 + (size_t)modify;
        } else if (!modify) {
            out[k++] = ref;
        } else if (pending) {
            out[k++] = ref;
            *pending = store;
            *has_pending = 1;
        } else {
            break; /* the whole M in the next call */
        }
        nl++;
        p = after(q, end);
    }
    *kp = k;
    *lines += nl;
    return p;
}

size_t rt_lackey_parse_block(const char *buf, size_t len, rt_memref *out, size_t cap, size_t *n,
                             unsigned long *lines)
{
    while (len > 0 && buf[len - 1] != '\n')
        len--; /* whole lines only: nothing past the last newline is read */
    size_t k = 0;
    *lines = 0;
    const char *stop = rt_lackey_block(buf, buf + len, 0, out, cap, &k, lines, NULL, NULL);
    *n = k;
    return (size_t)(stop - buf);
}
