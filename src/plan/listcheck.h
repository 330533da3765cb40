/*
 * listcheck: the rules every listing's answers pass before a verb sees a
 * key (DESIGN.md, "Trust rules"). A store or a proxy may ignore `prefix` or
 * `start-after`, repeat a continuation token, or send a key no request or
 * file can name; the listers (plan/lister.h for cp/mv/rm/sync, cli/listing.h
 * for ls/du/rm --all-versions) apply these checks in one place each, so no
 * verb acts outside what was asked and no listing loops forever.
 *
 * Pure, no I/O; not thread-safe (one struct per listing or range).
 */
#ifndef S3C_PLAN_LISTCHECK_H
#define S3C_PLAN_LISTCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Consecutive truncated pages that brought no entry before the listing is
 * judged stuck: a store handing out fresh tokens and nothing else. */
#define LISTCHECK_EMPTY_PAGES_MAX 1000

/* Why a listed key is kept from the verbs. */
enum listcheck_verdict {
    LISTCHECK_OK,           /* under the prefix, nameable: the verbs may act on it */
    LISTCHECK_OUTSIDE,      /* not under the prefix asked for (the store ignored it) */
    LISTCHECK_UNNAMABLE,    /* holds a NUL byte: no request, file name or C string carries it */
};

/*
 * The containment check: may the verbs see 'key', listed for 'prefix' (""
 * or NULL: the whole bucket)? A key is inside when it starts with the
 * prefix (the prefix itself included, as S3 lists it). With 'common' the
 * entry is a common prefix (a delimiter listing's CommonPrefixes), which S3
 * only ever sends longer than the prefix, so one equal to it is outside.
 */
enum listcheck_verdict listcheck_key(const char *prefix, const char *key, bool common);

/* A one-line reason for a verdict, for the warning ("" for LISTCHECK_OK). */
const char *listcheck_why(enum listcheck_verdict v);

/*
 * The form of 'key' to show: a key holding a NUL byte comes out of the XML
 * layer as "" followed by its URL-encoded form (s3/xml.h), shown as that;
 * any other key as itself.
 */
const char *listcheck_shown(const char *key);

/*
 * The continuation tokens (or marker pairs) one listing has followed, as
 * 64-bit hashes: a token sent again, at once or after others (a cycle),
 * means the next page would be one already read.
 */
struct listcheck_tokens {
    uint64_t *h;                /* open addressing, 0 = free */
    size_t n, cap;
    uint32_t empty_pages;       /* consecutive truncated pages without an entry */
};

#define LISTCHECK_TOKENS_INIT { NULL, 0, 0, 0 }

/*
 * About to follow 'token' (not empty) after a page that brought 'entries'
 * entries: S3C_EPARSE with a message naming 'op' (e.g. "ListObjectsV2") and
 * the token when it was followed before, or when LISTCHECK_EMPTY_PAGES_MAX
 * pages in a row brought nothing; S3C_ENOMEM. Else remembered, S3C_OK.
 */
enum s3c_err listcheck_token(struct listcheck_tokens *t, const char *op, const char *token, size_t entries,
                             struct s3c_error *e);

void listcheck_tokens_release(struct listcheck_tokens *t);

/*
 * Compare a listed key (which may hold a NUL: marked as s3/xml.h says) with
 * the C string 'other' in S3's order (bytewise, UTF-8 binary; a NUL is the
 * least byte): <0, 0 or >0 as strcmp. A marked key is never equal.
 */
int listcheck_cmp(const char *key, const char *other);

/*
 * Keys rise: 'key' (may be marked) must sort after 'prev' (a C string;
 * strictly, or equal allowed with 'or_equal', for versions of one key).
 * NULL or "" 'prev': anything goes.
 */
bool listcheck_rises(const char *prev, const char *key, bool or_equal);

#endif
