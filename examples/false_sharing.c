#include <pthread.h>
#include <stdio.h>
/* two counters on one 64-byte line, each bumped by its own thread */
static struct { volatile long a, b; } __attribute__((aligned(64))) c;
static pthread_barrier_t start;
static void *bump(void *p)
{
    volatile long *x = p;
    pthread_barrier_wait(&start);
    for (int i = 0; i < 20000; i++)
        (*x)++;
    return NULL;
}
int main(void)
{
    pthread_t x, y;
    pthread_barrier_init(&start, NULL, 2);
    pthread_create(&x, NULL, bump, (void *)&c.a);
    pthread_create(&y, NULL, bump, (void *)&c.b);
    pthread_join(x, NULL);
    pthread_join(y, NULL);
    printf("%ld %ld\n", c.a, c.b);
    return 0;
}
