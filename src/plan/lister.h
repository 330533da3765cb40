/*
 * lister: an S3 listing (ListObjectsV2) as a stream of objects in key
 * order. Used by cp/mv/rm/sync for every "all keys under a prefix" source.
 *
 * Parallel: the prefix's key space is cut into ranges (plan/ranges.h),
 * first at the common prefixes under '/' (one delimiter request), then,
 * whenever a range's page comes back full, at points guessed from its keys;
 * up to 'width' ranges are listed at once (StartAfter, then continuation
 * tokens), each a page or two ahead, and read back strictly in order: range
 * i to its end before range i+1. At most LISTER_PAGES_PER_WIDTH x width
 * pages are held or in flight, so memory does not grow with the listing.
 * A range that ends where its page is cut off has listed past its end:
 * those keys are dropped (they belong to the next range), so every key is
 * yielded once.
 *
 * The requests run on the store's loop: submitted and answered while
 * lister_next() waits and while anyone else steps the loop (the engine),
 * so pages arrive while the engine works. width 1 (S3C_LIST_WIDTH=1, and
 * S3 Express directory buckets, which list in no order and take no
 * StartAfter) is one page after another, with continuation tokens only.
 *
 * Every key passes plan/listcheck.h before lister_next() yields it: one the
 * store listed outside the prefix, or one holding a NUL, is skipped and
 * told to the opener's 'skip' callback, never to a verb. A page whose keys
 * do not rise past where it was asked to start (a store ignoring
 * start-after, a token that repeats or cycles) or whose next token was
 * followed before ends the listing with an error.
 *
 * Not thread-safe: the thread of the store's loop.
 */
#ifndef S3C_PLAN_LISTER_H
#define S3C_PLAN_LISTER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "plan/listcheck.h"
#include "plan/ranges.h"
#include "s3/xml.h"
#include "store/store_s3.h"

#define LISTER_WIDTH_DEFAULT 32     /* list requests in flight per listing */
#define LISTER_WIDTH_MAX 256
#define LISTER_PAGES_PER_WIDTH 4    /* pages held or in flight, per unit of width */
#define LISTER_RANGES_MAX 100000    /* ranges known at once; past it no more cuts */

struct lister_range;
struct lister_page;

/*
 * A listed key kept from the verbs: 'key' as listcheck_shown() shows it,
 * 'why' its verdict. Called from lister_next(), once per such key.
 */
typedef void lister_skip_fn(void *ctx, const char *key, enum listcheck_verdict why);

struct lister {
    struct store_s3 *s3;
    lister_skip_fn *skip;           /* NULL: skipped keys go untold */
    void *skip_ctx;
    bool ordered;                   /* keys come in S3's order (not a directory bucket) */
    uint64_t skipped;               /* keys kept from the verbs */
    char *bucket;
    char *prefix;
    int width;                      /* list requests in flight at most */
    struct lister_range *head;      /* ranges in key order; the head is being read */
    struct lister_page *cur;        /* the page being read (taken off the head) */
    size_t i;                       /* its next object */
    struct ranges_alphabet alphabet; /* bytes seen in keys, for the cuts */
    int inflight;                   /* requests out */
    int pages;                      /* pages held (cur included) */
    int n_ranges;
    bool opened;
    bool closing;                   /* lister_close waits for the requests out */
    bool failed;                    /* a page failed: the listing is over */
    struct s3c_error err;           /* why */
    uint64_t requests, cuts;        /* for --debug */
    uint64_t full_pages, page_cuts; /* full pages read, ranges they cut: the cuts' allowance */
    uint64_t answered, hedges, hedge_wins; /* pages answered; asked again when overdue; twins first */
    double wait_ms;                 /* moving average of a page's wait, submit to answer */
    struct lister_req *lost;        /* twins whose other answered first, still out */
    bool nonblock;                  /* lister_next answers LISTER_LATER instead of stepping the loop */
    int page_size;                  /* max-keys of each page (--page-size); 0: the store's (1000) */
    bool v1;                        /* ListObjects: 'marker' where V2 says start-after, never a token;
                                       also set once a V2 page failed (lister.c: v2_failed) */
};

/* Start a listing of 'bucket' under 'prefix' (copied); 'skip' (may be NULL)
 * hears of each key kept from the verbs. No request yet. */
enum s3c_err lister_open(struct lister *l, struct store_s3 *s3, const char *bucket, const char *prefix,
                         lister_skip_fn *skip, void *skip_ctx, struct s3c_error *e);

#define LISTER_LATER 2

/*
 * The next object: 1 with *out pointing into the current page (valid until
 * the next call), 0 at the end, -1 with 'e' set when a page failed (the
 * listing is over then). No page yet: steps the store's loop until one
 * comes; with 'nonblock' set, returns LISTER_LATER instead, and the caller
 * steps the loop (the engine: its transfers and the pages go on together;
 * no loop is stepped from inside another's step) and asks again soon (the
 * engine: within XFER_LATER_MS), so an overdue page is asked again and a
 * retry sent in time.
 */
int lister_next(struct lister *l, const struct s3_object **out, struct s3c_error *e);

/* Send nothing more: no page is asked for from now on, and those out are dropped as they come
 * (never waits; lister_next must not be called again). lister_close still frees it. */
void lister_stop(struct lister *l);

/* Stop: waits for the requests in flight (steps the store's loop), frees all. */
void lister_close(struct lister *l);

#endif
