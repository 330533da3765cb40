/*
 * sl: an ordered map from byte-string keys to pointers, as a skip list.
 * It is the emulator's index of buckets, of keys within a bucket and of
 * multipart uploads: O(log n) insert, find and seek, and in-order walks from
 * any point, which is what ListObjectsV2 over 1,000,000 keys needs (seek to
 * the prefix or the continuation point, then step). Keys arriving in order
 * (a bulk load, a sync of sorted names) are appended in O(1): the last node
 * of each level is kept, so a key past the end needs no search. Keys compare as bytes
 * (memcmp, shorter first), which is S3's UTF-8 binary order.
 *
 * Not thread-safe: the event loop is the only user. The map copies keys;
 * it never owns or frees values (emu_sl_release takes a callback for that).
 */
#ifndef S3EMU_SL_H
#define S3EMU_SL_H

#include <stddef.h>

#define EMU_SL_MAX_LEVEL 24

struct emu_sl_node {
    void *val;                  /* the caller's value */
    size_t klen;                /* key length in bytes */
    char *key;                  /* points just past next[]; NUL-terminated copy */
    int level;                  /* number of forward links */
    struct emu_sl_node *next[]; /* forward links, level of them */
};

struct emu_sl {
    struct emu_sl_node *head;   /* sentinel with EMU_SL_MAX_LEVEL links */
    struct emu_sl_node *tail[EMU_SL_MAX_LEVEL]; /* last node of each level (NULL: none) */
    int level;                  /* highest level in use */
    size_t count;               /* number of keys */
    unsigned long long rng;     /* xorshift state for node levels */
};

/* 0 on success, -1 on OOM. */
int emu_sl_init(struct emu_sl *s);
/* Free every node (and call free_val on each value if not NULL). */
void emu_sl_release(struct emu_sl *s, void (*free_val)(void *));

/* Value stored under key, or NULL. */
void *emu_sl_get(const struct emu_sl *s, const char *key, size_t klen);
/*
 * Store 'val' under key. If the key exists its value is replaced and the old
 * one returned in *old (may be NULL); otherwise *old = NULL. 0, or -1 on OOM.
 */
int emu_sl_put(struct emu_sl *s, const char *key, size_t klen, void *val, void **old);
/* Remove key; returns its value, or NULL if it was absent. */
void *emu_sl_del(struct emu_sl *s, const char *key, size_t klen);

/* First node whose key is >= key (or > key when 'after'), or NULL. */
struct emu_sl_node *emu_sl_seek(const struct emu_sl *s, const char *key, size_t klen, int after);
struct emu_sl_node *emu_sl_first(const struct emu_sl *s);
static inline struct emu_sl_node *emu_sl_next(const struct emu_sl_node *n)
{
    return n->next[0];
}

#endif
