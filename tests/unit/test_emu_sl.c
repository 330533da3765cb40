/*
 * The emulator's skip list (tools/s3emu/sl.c) has no dependencies, so it is
 * compiled into the unit tests directly: order, seek, replace and delete.
 */
#include "t.h"

#include <stdlib.h>

#include "../../tools/s3emu/sl.c"

static int is_sorted(const struct emu_sl *s, size_t *count)
{
    struct emu_sl_node *n, *prev = NULL;

    *count = 0;
    for (n = emu_sl_first(s); n; prev = n, n = emu_sl_next(n)) {
        (*count)++;
        if (prev && key_cmp(prev->key, prev->klen, n->key, n->klen) >= 0)
            return 0;
    }
    return 1;
}

TEST(emu_sl_order_seek_delete)
{
    struct emu_sl s;
    char key[32];
    size_t count = 0;
    void *old = NULL;
    int i;

    CHECK_INT(emu_sl_init(&s), 0);
    for (i = 0; i < 5000; i++) {
        int k = (i * 7919) % 5000; /* a permutation of 0..4999 */
        snprintf(key, sizeof(key), "k%05d", k);
        CHECK_INT(emu_sl_put(&s, key, strlen(key), (void *)(size_t)(k + 1), NULL), 0);
    }
    CHECK_INT(s.count, 5000);
    CHECK(is_sorted(&s, &count));
    CHECK_INT(count, 5000);
    CHECK(emu_sl_get(&s, "k04242", 6) == (void *)4243);
    CHECK(emu_sl_get(&s, "k4242", 5) == NULL);

    /* replace keeps the count and hands back the old value */
    CHECK_INT(emu_sl_put(&s, "k00010", 6, (void *)99, &old), 0);
    CHECK(old == (void *)11);
    CHECK_INT(s.count, 5000);

    /* seek: first >= key, or first > key with 'after' */
    CHECK_STR(emu_sl_seek(&s, "k0100", 5, 0)->key, "k01000");
    CHECK_STR(emu_sl_seek(&s, "k01000", 6, 0)->key, "k01000");
    CHECK_STR(emu_sl_seek(&s, "k01000", 6, 1)->key, "k01001");
    CHECK(emu_sl_seek(&s, "k99", 3, 0) == NULL);
    CHECK_STR(emu_sl_seek(&s, "", 0, 0)->key, "k00000");

    for (i = 0; i < 5000; i += 2) {
        snprintf(key, sizeof(key), "k%05d", i);
        CHECK(emu_sl_del(&s, key, strlen(key)) != NULL);
    }
    CHECK(emu_sl_del(&s, "k00000", 6) == NULL);
    CHECK_INT(s.count, 2500);
    CHECK(is_sorted(&s, &count));
    CHECK_INT(count, 2500);
    CHECK_STR(emu_sl_first(&s)->key, "k00001");
    emu_sl_release(&s, NULL);
}

/* Keys are bytes: embedded NULs and bytes >= 0x80 sort as unsigned. */
TEST(emu_sl_binary_keys)
{
    struct emu_sl s;

    CHECK_INT(emu_sl_init(&s), 0);
    CHECK_INT(emu_sl_put(&s, "a\0b", 3, (void *)1, NULL), 0);
    CHECK_INT(emu_sl_put(&s, "a", 1, (void *)2, NULL), 0);
    CHECK_INT(emu_sl_put(&s, "\xc3\xa9", 2, (void *)3, NULL), 0);
    CHECK_INT(emu_sl_put(&s, "z", 1, (void *)4, NULL), 0);
    CHECK(emu_sl_first(&s)->val == (void *)2);
    CHECK(emu_sl_next(emu_sl_first(&s))->val == (void *)1);
    CHECK(emu_sl_get(&s, "a\0b", 3) == (void *)1);
    CHECK(emu_sl_seek(&s, "z", 1, 1)->val == (void *)3);
    emu_sl_release(&s, NULL);
}

/* The tails are the true last node of every level: walk each level to its end. */
static int tails_ok(const struct emu_sl *s)
{
    int i;

    for (i = 0; i < EMU_SL_MAX_LEVEL; i++) {
        struct emu_sl_node *n = s->head;

        while (n->next[i])
            n = n->next[i];
        if ((n == s->head ? NULL : n) != s->tail[i])
            return 0;
    }
    return 1;
}

/* Keys in order take the append path; deletes at the end move the tails back. */
TEST(emu_sl_append_in_order)
{
    struct emu_sl s;
    char key[32];
    size_t count = 0;
    int i;

    CHECK_INT(emu_sl_init(&s), 0);
    CHECK(emu_sl_seek(&s, "a", 1, 0) == NULL);
    for (i = 0; i < 20000; i++) {
        snprintf(key, sizeof(key), "p%09d", i);
        CHECK_INT(emu_sl_put(&s, key, strlen(key), (void *)(size_t)(i + 1), NULL), 0);
        if (i % 997 == 0) {
            CHECK(tails_ok(&s));
            /* delete the last one and put it back: the tails follow */
            CHECK(emu_sl_del(&s, key, strlen(key)) == (void *)(size_t)(i + 1));
            CHECK(tails_ok(&s));
            CHECK_INT(emu_sl_put(&s, key, strlen(key), (void *)(size_t)(i + 1), NULL), 0);
        }
    }
    CHECK(tails_ok(&s));
    CHECK(is_sorted(&s, &count));
    CHECK_INT(count, 20000);
    /* past the end, at the end, and in the middle */
    CHECK(emu_sl_seek(&s, "q", 1, 0) == NULL);
    CHECK(emu_sl_seek(&s, "p000019999", 10, 1) == NULL);
    CHECK_STR(emu_sl_seek(&s, "p000019999", 10, 0)->key, "p000019999");
    CHECK(emu_sl_get(&s, "p000012345", 10) == (void *)12346);
    CHECK(emu_sl_get(&s, "p000099999", 10) == NULL);
    /* a key before the end after appends still lands in order */
    CHECK_INT(emu_sl_put(&s, "p000005000x", 11, (void *)7, NULL), 0);
    CHECK_STR(emu_sl_next(emu_sl_seek(&s, "p000005000", 10, 0))->key, "p000005000x");
    /* empty it from the end: every tail goes back to NULL */
    for (i = 19999; i >= 0; i--) {
        snprintf(key, sizeof(key), "p%09d", i);
        CHECK(emu_sl_del(&s, key, strlen(key)) != NULL);
    }
    CHECK(emu_sl_del(&s, "p000005000x", 11) == (void *)7);
    CHECK_INT(s.count, 0);
    CHECK(tails_ok(&s));
    CHECK(s.tail[0] == NULL);
    emu_sl_release(&s, NULL);
}
