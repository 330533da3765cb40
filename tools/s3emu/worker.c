/*
 * worker: what a worker thread keeps for itself and finds without being
 * handed it: its counters (emu_stats_mine) and its random generator. And
 * the monotonic clock. It uses no other file of s3emu: net.c, the store,
 * auth and the model all stand on it.
 */
#include "emu.h"

#include <string.h>

static _Thread_local struct emu_worker *self;   /* NULL outside the workers */
static _Thread_local uint64_t rng;

void emu_worker_enter(struct emu_worker *w)
{
    self = w;
    rng = w->srv->rng ^ (0xD1B54A32D192ED03ull * (uint64_t)(w->idx + 1));
    if (!rng)
        rng = 1;
}

struct emu_stats *emu_stats_mine(struct emu_server *s)
{
    static struct emu_stats before_start; /* counts nothing anyone reads: flags parse before workers exist */

    return self ? &self->stats : s && s->workers ? &s->workers[0].stats : &before_start;
}

void emu_stats_sum(struct emu_server *s, uint64_t *out, size_t n)
{
    size_t i;
    int w;

    memset(out, 0, n * sizeof(*out));
    for (w = 0; s->workers && w < s->n_workers; w++) {
        _Atomic uint64_t *v = (_Atomic uint64_t *)&s->workers[w].stats;

        for (i = 0; i < n && i < EMU_STATS_N; i++)
            out[i] += atomic_load_explicit(&v[i], memory_order_relaxed);
    }
}

int64_t emu_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double emu_rand01(struct emu_server *s)
{
    uint64_t x = rng ? rng : (s->rng ? s->rng : 1);

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    rng = x;
    return (double)(x >> 11) / 9007199254740992.0;
}

void emu_random_hex(struct emu_server *s, char *out, size_t n_hex)
{
    static const char hex[] = "0123456789abcdef";
    size_t i;

    for (i = 0; i < n_hex; i++)
        out[i] = hex[(int)(emu_rand01(s) * 16) & 15];
    out[n_hex] = 0;
}
