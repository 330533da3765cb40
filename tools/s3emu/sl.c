#include "sl.h"

#include <stdlib.h>
#include <string.h>

static int key_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);

    if (c)
        return c;
    return an < bn ? -1 : an > bn;
}

static struct emu_sl_node *node_new(int level, const char *key, size_t klen)
{
    struct emu_sl_node *n = malloc(sizeof(*n) + (size_t)level * sizeof(n->next[0]) + klen + 1);

    if (!n)
        return NULL;
    n->val = NULL;
    n->klen = klen;
    n->level = level;
    n->key = (char *)&n->next[level];
    if (klen)
        memcpy(n->key, key, klen);
    n->key[klen] = 0;
    memset(n->next, 0, (size_t)level * sizeof(n->next[0]));
    return n;
}

int emu_sl_init(struct emu_sl *s)
{
    s->head = node_new(EMU_SL_MAX_LEVEL, "", 0);
    memset(s->tail, 0, sizeof(s->tail));
    s->level = 1;
    s->count = 0;
    s->rng = 0x9E3779B97F4A7C15ull ^ (unsigned long long)(size_t)s;
    return s->head ? 0 : -1;
}

void emu_sl_release(struct emu_sl *s, void (*free_val)(void *))
{
    struct emu_sl_node *n, *nx;

    if (!s->head)
        return;
    for (n = s->head->next[0]; n; n = nx) {
        nx = n->next[0];
        if (free_val)
            free_val(n->val);
        free(n);
    }
    free(s->head);
    s->head = NULL;
    memset(s->tail, 0, sizeof(s->tail));
    s->count = 0;
}

/* Level with P(level >= k) = 4^-(k-1): fewer links than p = 1/2, same O(log n). */
static int random_level(struct emu_sl *s)
{
    unsigned long long x = s->rng;
    int level = 1;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    s->rng = x;
    while (level < EMU_SL_MAX_LEVEL && (x & 3) == 0) {
        level++;
        x >>= 2;
    }
    return level;
}

/* Fill update[] with the last node before 'key' at each level. */
static struct emu_sl_node *find_before(const struct emu_sl *s, const char *key, size_t klen,
                                       struct emu_sl_node **update, int after)
{
    struct emu_sl_node *x = s->head;
    int i;

    if (s->tail[0]) {
        /* Past the last key: the predecessors are the tails, no search. */
        int c = key_cmp(s->tail[0]->key, s->tail[0]->klen, key, klen);

        if (c < 0 || (after && c == 0)) {
            for (i = 0; update && i < s->level; i++)
                update[i] = s->tail[i] ? s->tail[i] : s->head;
            return NULL;
        }
    }
    for (i = s->level - 1; i >= 0; i--) {
        while (x->next[i]) {
            int c = key_cmp(x->next[i]->key, x->next[i]->klen, key, klen);
            if (c < 0 || (after && c == 0))
                x = x->next[i];
            else
                break;
        }
        if (update)
            update[i] = x;
    }
    return x->next[0];
}

void *emu_sl_get(const struct emu_sl *s, const char *key, size_t klen)
{
    struct emu_sl_node *n = find_before(s, key, klen, NULL, 0);

    if (n && n->klen == klen && memcmp(n->key, key, klen) == 0)
        return n->val;
    return NULL;
}

int emu_sl_put(struct emu_sl *s, const char *key, size_t klen, void *val, void **old)
{
    struct emu_sl_node *update[EMU_SL_MAX_LEVEL];
    struct emu_sl_node *n = find_before(s, key, klen, update, 0);
    int level, i;

    if (old)
        *old = NULL;
    if (n && n->klen == klen && memcmp(n->key, key, klen) == 0) {
        if (old)
            *old = n->val;
        n->val = val;
        return 0;
    }
    level = random_level(s);
    n = node_new(level, key, klen);
    if (!n)
        return -1;
    n->val = val;
    if (level > s->level) {
        for (i = s->level; i < level; i++)
            update[i] = s->head;
        s->level = level;
    }
    for (i = 0; i < level; i++) {
        n->next[i] = update[i]->next[i];
        update[i]->next[i] = n;
        if (!n->next[i])
            s->tail[i] = n;
    }
    s->count++;
    return 0;
}

void *emu_sl_del(struct emu_sl *s, const char *key, size_t klen)
{
    struct emu_sl_node *update[EMU_SL_MAX_LEVEL];
    struct emu_sl_node *n = find_before(s, key, klen, update, 0);
    void *val;
    int i;

    if (!n || n->klen != klen || memcmp(n->key, key, klen) != 0)
        return NULL;
    for (i = 0; i < n->level; i++) {
        if (update[i]->next[i] == n)
            update[i]->next[i] = n->next[i];
        if (s->tail[i] == n)
            s->tail[i] = update[i] == s->head ? NULL : update[i];
    }
    while (s->level > 1 && !s->head->next[s->level - 1])
        s->level--;
    val = n->val;
    free(n);
    s->count--;
    return val;
}

struct emu_sl_node *emu_sl_seek(const struct emu_sl *s, const char *key, size_t klen, int after)
{
    return find_before(s, key, klen, NULL, after);
}

struct emu_sl_node *emu_sl_first(const struct emu_sl *s)
{
    return s->head->next[0];
}
