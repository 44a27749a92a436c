/*
 * rt_strmap.h - a hash map from (scope, byte string) keys to 64-bit values,
 * with deletion.
 *
 * For the name tables of text trace readers: container, type and value
 * identifiers of a Pajé trace, pending link keys that come and go once per
 * message. Keys are copied; a scope (any integer) separates name spaces that
 * share one table, so "3" as a container and "3" as a type do not collide.
 * Linear probing, backward-shift deletion, load kept under 3/4; lookups cost
 * one hash of the key and, on average, about one comparison.
 */
#ifndef RT_STRMAP_H
#define RT_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct rt_strmap rt_strmap;

/* An empty map; NULL on allocation failure. */
rt_strmap *rt_strmap_new(void);
/* Free the map and its key copies; NULL allowed. */
void rt_strmap_free(rt_strmap *m);

/*
 * The value stored under (scope, key[0..n)), or NULL when absent. The pointer
 * is valid until the next put or remove.
 */
int64_t *rt_strmap_get(const rt_strmap *m, int64_t scope, const char *key, size_t n);
/*
 * The value under (scope, key[0..n)), inserting it with value 0 when absent
 * (*created, when not NULL, tells which). NULL when memory runs out (the map
 * is unchanged). Same pointer validity as rt_strmap_get.
 */
int64_t *rt_strmap_put(rt_strmap *m, int64_t scope, const char *key, size_t n, int *created);
/* Remove a key; 1 when it was present, else 0. */
int rt_strmap_remove(rt_strmap *m, int64_t scope, const char *key, size_t n);
/* Keys present. */
size_t rt_strmap_count(const rt_strmap *m);

#endif
