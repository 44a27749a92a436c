/*
 * rt_policy.c - the six built-in replacement policies as operations tables.
 *
 * Each keeps one 64-bit word per way (a time stamp, a count or a use bit) and,
 * for Clock and Random, one word per set (the hand, the generator state).
 * Victim scans are linear in the associativity; they run on misses in full
 * sets only. Ties go to the lowest way number.
 */
#include <assert.h>
#include <stddef.h>
#include <stdio.h>

#include "rt_cache.h"

/* lowest way whose word is smallest */
static unsigned min_way(const rt_policy_set *s)
{
    unsigned best = 0;
    uint64_t v = s->way_data[0];
    for (unsigned w = 1; w < s->ways; w++)
        if (s->way_data[w] < v) {
            v = s->way_data[w];
            best = w;
        }
    return best;
}

static int stamp_now(void *ud, rt_policy_set *s, unsigned way, uint64_t now)
{
    (void)ud;
    s->way_data[way] = now;
    return RT_OK;
}

static int victim_min(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    (void)ud;
    (void)now;
    *way = min_way(s);
    return RT_OK;
}

/* LRU: the word is the time of the last reference (fill or hit). */
const rt_policy_ops rt_policy_lru = {
    .name = "lru", .way_words = 1, .hit = stamp_now, .fill = stamp_now, .victim = victim_min,
};

/* LFU: the word counts references since the load (the load is one). */
static int lfu_hit(void *ud, rt_policy_set *s, unsigned way, uint64_t now)
{
    (void)ud;
    (void)now;
    s->way_data[way]++;
    return RT_OK;
}

static int lfu_fill(void *ud, rt_policy_set *s, unsigned way, uint64_t now)
{
    (void)ud;
    (void)now;
    s->way_data[way] = 1;
    return RT_OK;
}

const rt_policy_ops rt_policy_lfu = {
    .name = "lfu", .way_words = 1, .hit = lfu_hit, .fill = lfu_fill, .victim = victim_min,
};

/* FIFO: the word is the load time; hits change nothing. */
const rt_policy_ops rt_policy_fifo = {
    .name = "fifo", .way_words = 1, .fill = stamp_now, .victim = victim_min,
};

/* LIFO: the most recently loaded line goes (largest load time, lowest way on ties). */
static int lifo_victim(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    (void)ud;
    (void)now;
    unsigned best = 0;
    uint64_t v = s->way_data[0];
    for (unsigned w = 1; w < s->ways; w++)
        if (s->way_data[w] > v) {
            v = s->way_data[w];
            best = w;
        }
    *way = best;
    return RT_OK;
}

const rt_policy_ops rt_policy_lifo = {
    .name = "lifo", .way_words = 1, .fill = stamp_now, .victim = lifo_victim,
};

/* Clock: the word is the use bit; set_data[0] is the hand. */
static int clock_use(void *ud, rt_policy_set *s, unsigned way, uint64_t now)
{
    (void)ud;
    (void)now;
    s->way_data[way] = 1;
    return RT_OK;
}

static int clock_victim(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    (void)ud;
    (void)now;
    uint64_t hand = s->set_data[0];
    while (s->way_data[hand]) {
        s->way_data[hand] = 0;
        hand = (hand + 1) % s->ways;
    }
    *way = (unsigned)hand;
    s->set_data[0] = (hand + 1) % s->ways; /* the fill hook sets the bit of *way */
    return RT_OK;
}

const rt_policy_ops rt_policy_clock = {
    .name = "clock", .way_words = 1, .set_words = 1,
    .hit = clock_use, .fill = clock_use, .victim = clock_victim,
};

/* Random: splitmix64 per set, seeded from the cache's seed and the set number. */
static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int random_init(void *ud, rt_policy_set *s)
{
    (void)ud;
    uint64_t x = s->seed ^ ((uint64_t)s->index * 0xD1B54A32D192ED03ull);
    s->set_data[0] = splitmix(&x);
    return RT_OK;
}

static int random_victim(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    (void)ud;
    (void)now;
    *way = (unsigned)(splitmix(&s->set_data[0]) % s->ways);
    return RT_OK;
}

const rt_policy_ops rt_policy_random = {
    .name = "random", .set_words = 1, .init = random_init, .victim = random_victim,
};

const char *const rt_policy_names[] = {"lru", "lfu", "fifo", "lifo", "clock", "random", NULL};

static const rt_policy_ops *const builtins[] = {
    &rt_policy_lru, &rt_policy_lfu, &rt_policy_fifo,
    &rt_policy_lifo, &rt_policy_clock, &rt_policy_random,
};

const rt_policy_ops *rt_policy_builtin(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        const char *a = builtins[i]->name, *b = name;
        while (*a && *a == *b) {
            a++;
            b++;
        }
        if (*a == 0 && *b == 0)
            return builtins[i];
    }
    return NULL;
}

int rt_policy_lookup(const char *name, const rt_policy_ops **out, rt_err *err)
{
    assert(out);
    *out = rt_policy_builtin(name);
    if (*out)
        return RT_OK;
    /* the list in the message is built from the table, so it cannot go stale */
    char names[128] = "";
    size_t used = 0;
    for (int i = 0; rt_policy_names[i]; i++) {
        int n = snprintf(names + used, sizeof names - used, "%s%s", i ? " " : "", rt_policy_names[i]);
        if (n < 0 || (size_t)n >= sizeof names - used)
            break;
        used += (size_t)n;
    }
    return rt_err_set(err, RT_EINVAL, "policy: unknown '%s' (built-ins: %s)", name ? name : "(none)",
                      names);
}
