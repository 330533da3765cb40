#include "plan/listcheck.h"

#include <stdlib.h>
#include <string.h>

#include "base/pct.h"
#include "plan/shard.h"

#define TOKEN_SHOWN_MAX 64          /* bytes of a token a message shows */

enum listcheck_verdict listcheck_key(const char *prefix, const char *key, bool common)
{
    size_t pl = prefix ? strlen(prefix) : 0;

    if (!key[0])
        return LISTCHECK_UNNAMABLE; /* S3 has no empty key: a NUL key's mark (s3/xml.h) */
    if (pl && strncmp(key, prefix, pl) != 0)
        return LISTCHECK_OUTSIDE;
    if (common && !key[pl])
        return LISTCHECK_OUTSIDE;
    return LISTCHECK_OK;
}

const char *listcheck_why(enum listcheck_verdict v)
{
    switch (v) {
    case LISTCHECK_OK: return "";
    case LISTCHECK_OUTSIDE: return "the store listed it outside the prefix asked for (it ignored the prefix?)";
    case LISTCHECK_UNNAMABLE: return "the key holds a NUL byte (%00), which no request or file name can carry";
    }
    return "";
}

const char *listcheck_shown(const char *key)
{
    return key[0] ? key : key + 1;
}

int listcheck_cmp(const char *key, const char *other)
{
    const unsigned char *o = (const unsigned char *)other;
    const char *enc;

    if (key[0])
        return strcmp(key, other); /* bytes as unsigned char: S3's UTF-8 binary order */
    /* A marked key: walk its encoded form, decoded, up to its first NUL. */
    for (enc = key + 1;; o++) {
        int c = (unsigned char)*enc, hi, lo;

        if (c == '+') {
            c = ' ';
            enc++;
        } else if (c == '%' && (hi = pct_hexval(enc[1])) >= 0 && (lo = pct_hexval(enc[2])) >= 0) {
            c = hi * 16 + lo;
            enc += 3;
        } else {
            enc++;
        }
        if (c == 0)
            /* The key's NUL against 'other''s byte: the end of 'other' means
             * the key is longer, any byte there is greater than NUL. */
            return *o ? -1 : 1;
        if (!*o)
            return 1;
        if (c != *o)
            return c - *o;
    }
}

bool listcheck_rises(const char *prev, const char *key, bool or_equal)
{
    int c;

    if (!prev || !prev[0])
        return true;
    c = listcheck_cmp(key, prev);
    return c > 0 || (or_equal && c == 0);
}

static bool tokens_grow(struct listcheck_tokens *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64, i;
    uint64_t *h = calloc(cap, sizeof(*h));

    if (!h)
        return false;
    for (i = 0; i < t->cap; i++) {
        size_t j;

        if (!t->h[i])
            continue;
        for (j = t->h[i] & (cap - 1); h[j]; j = (j + 1) & (cap - 1))
            ;
        h[j] = t->h[i];
    }
    free(t->h);
    t->h = h;
    t->cap = cap;
    return true;
}

/* A token shown in a message: its first bytes (put_clean escapes the rest). */
static int shown_len(const char *token)
{
    size_t n = strlen(token);
    return (int)(n > TOKEN_SHOWN_MAX ? TOKEN_SHOWN_MAX : n);
}

enum s3c_err listcheck_token(struct listcheck_tokens *t, const char *op, const char *token, size_t entries,
                             struct s3c_error *e)
{
    uint64_t h = shard_hash(sv_from(token));
    size_t j;

    t->empty_pages = entries ? 0 : t->empty_pages + 1;
    if (t->empty_pages >= LISTCHECK_EMPTY_PAGES_MAX)
        return s3c_fail(e, S3C_EPARSE, "%s: %u pages in a row brought no key, only another continuation token: "
                        "the listing makes no progress", op, t->empty_pages);
    if (!h)
        h = 1; /* 0 marks a free slot */
    if ((t->n + 1) * 2 > t->cap && !tokens_grow(t))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    for (j = h & (t->cap - 1); t->h[j]; j = (j + 1) & (t->cap - 1)) {
        if (t->h[j] == h)
            return s3c_fail(e, S3C_EPARSE, "%s: the store sent the continuation token \"%.*s%s\" a second time: "
                            "the listing would never end", op, shown_len(token), token,
                            strlen(token) > TOKEN_SHOWN_MAX ? "..." : "");
    }
    t->h[j] = h;
    t->n++;
    return S3C_OK;
}

void listcheck_tokens_release(struct listcheck_tokens *t)
{
    free(t->h);
    memset(t, 0, sizeof(*t));
}
