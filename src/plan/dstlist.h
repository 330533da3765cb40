/*
 * dstlist: what one listing of the destination prefix says about each
 * object's destination, in place of a HeadObject each (cp/mv --no-clobber,
 * --if-size-differ, --if-source-newer from a listing or a walk to S3).
 *
 * The source yields its objects in key order (a listing's S3 order, a
 * walk's byte order of names), and their destination keys, the same names
 * under one prefix, rise the same way. So the destination's listing is read
 * beside them as a merge: each key asked is looked for by reading the
 * listing up to it, never further, and nothing is kept but the listing's
 * current page. A key the listing passes is not there; one it lists is there
 * with its size and time.
 *
 * Decided by count. A HEAD costs a request per object, a page one per
 * thousand keys. The listing stays on while its requests are no more than
 * the keys asked plus what the lister may send ahead (dstlist.c); a destination prefix far larger than
 * the source (ten files into a million keys) turns it off, and so does
 * anything that stops it from answering for sure: keys asked out of order
 * (a manifest's), a directory bucket (it lists in no order), a page that
 * failed (no s3:ListBucket, say). Off, every later key is DSTLIST_ASK: the
 * caller HEADs it, as it would have without the listing. Never a wrong
 * answer, at worst the HEADs it replaced.
 *
 * The race is not this module's: a destination written between the listing
 * and the write is the same as one written between a HEAD and the write
 * (If-None-Match: * on a PutObject under -n is the race's end).
 *
 * Not thread-safe: the thread of the store's loop.
 */
#ifndef S3C_PLAN_DSTLIST_H
#define S3C_PLAN_DSTLIST_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "plan/lister.h"

#define DSTLIST_WIDTH 2     /* list requests in flight: 100,000 keys a second at 20 ms, past any
                               copy's pace, and little read ahead of it */

struct dstlist {
    struct store_s3 *s3;
    char *bucket, *prefix;
    struct lister l;
    bool open;              /* the listing was started */
    bool off;               /* every answer is DSTLIST_ASK from now on */
    bool done;              /* the listing is at its end: keys past 'cur' are not there */
    bool have;              /* 'cur' holds the listing's next key not yet passed */
    struct buf cur;         /* that key */
    uint64_t cur_size;
    int64_t cur_mtime;
    struct buf last;        /* the key asked before, for the order */
    bool pending;           /* 'last' was answered DSTLIST_LATER: it is asked again */
    uint64_t asked;         /* keys asked while on */
};

/* Set up a listing of 'bucket' under 'prefix' (both copied); no request until the first key is asked. */
void dstlist_init(struct dstlist *d, struct store_s3 *s3, const char *bucket, const char *prefix);

enum dstlist_says {
    DSTLIST_ASK,        /* the listing cannot say: look yourself (HEAD) */
    DSTLIST_ABSENT,     /* not there */
    DSTLIST_THERE,      /* there, with *size and *mtime (seconds since 1970) */
    DSTLIST_LATER,      /* 'nonblock': the page is not here yet; step the loop and ask again */
};

/*
 * Whether 'key' (under the prefix) is there. With 'nonblock' a page not yet
 * here is DSTLIST_LATER, and the same key must be asked again; without it the
 * store's loop is stepped until it comes.
 */
enum dstlist_says dstlist_find(struct dstlist *d, const char *key, bool nonblock, uint64_t *size, int64_t *mtime);

/* Waits for the listing's requests in flight, frees all. */
void dstlist_release(struct dstlist *d);

#endif
