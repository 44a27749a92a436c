/*
 * listwalk.c - a linked list of N nodes linked in a shuffled order, walked R
 * times: nearly every step lands on another cache line once the list outgrows
 * the cache. `listwalk N R` (defaults 20000 and 20).
 */
#include <stdio.h>
#include <stdlib.h>

struct node {
    struct node *next;
    long value;
};

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    int rounds = argc > 2 ? atoi(argv[2]) : 20;
    if (n < 1 || rounds < 1)
        return 2;
    struct node **nodes = malloc((size_t)n * sizeof *nodes);
    if (!nodes)
        return 1;
    for (int i = 0; i < n; i++) {
        nodes[i] = malloc(sizeof(struct node));
        if (!nodes[i])
            return 1;
        nodes[i]->value = i;
    }
    unsigned long x = 12345; /* a fixed shuffle (xorshift): the same list every run */
    for (int i = n - 1; i > 0; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int j = (int)(x % (unsigned long)(i + 1));
        struct node *t = nodes[i];
        nodes[i] = nodes[j];
        nodes[j] = t;
    }
    for (int i = 0; i + 1 < n; i++)
        nodes[i]->next = nodes[i + 1];
    nodes[n - 1]->next = NULL;
    struct node *head = nodes[0];
    free(nodes);
    long sum = 0;
    for (int r = 0; r < rounds; r++)
        for (struct node *p = head; p; p = p->next)
            sum += p->value;
    printf("%ld\n", sum);
    while (head) {
        struct node *next = head->next;
        free(head);
        head = next;
    }
    return 0;
}
