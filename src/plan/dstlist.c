/*
 * dstlist: the destination's listing read beside the source, in place of a
 * HeadObject per object (plan/dstlist.h). Calls plan/lister.c.
 */
#include <stdlib.h>
#include <string.h>

#include "plan/dstlist.h"

/* List requests allowed beyond one per key asked: what the lister may send ahead of the reader. */
#define DSTLIST_SLACK (2 * LISTER_PAGES_PER_WIDTH * DSTLIST_WIDTH)

/* From here on every key is DSTLIST_ASK, for the reason 'why' (told to --debug). */
static enum dstlist_says turn_off(struct dstlist *d, const char *why)
{
    d->off = true;
    if (d->open)
        lister_stop(&d->l);
    if (d->s3)
        store_s3_debugf(d->s3, "destination listing s3://%s/%s: off after %llu keys, %llu list requests: %s; "
                        "HEADs from here", d->bucket, d->prefix, (unsigned long long)d->asked,
                        (unsigned long long)d->l.requests, why);
    return DSTLIST_ASK;
}

void dstlist_init(struct dstlist *d, struct store_s3 *s3, const char *bucket, const char *prefix)
{
    memset(d, 0, sizeof(*d));
    d->s3 = s3;
    d->bucket = strdup(bucket);
    d->prefix = strdup(prefix);
    d->cur = (struct buf)BUF_INIT(65536);
    d->last = (struct buf)BUF_INIT(65536);
    if (!d->bucket || !d->prefix)
        turn_off(d, "out of memory");
}

/* Start the listing: NULL, or why it cannot be read in key order. */
static const char *start(struct dstlist *d)
{
    struct s3c_error e = S3C_ERROR_INIT;

    if (lister_open(&d->l, d->s3, d->bucket, d->prefix, NULL, NULL, &e))
        return "out of memory";
    d->open = true;
    if (!d->l.ordered)
        return "a directory bucket lists in no order";
    if (d->l.width > DSTLIST_WIDTH)
        d->l.width = DSTLIST_WIDTH;
    return NULL;
}

enum dstlist_says dstlist_find(struct dstlist *d, const char *key, bool nonblock, uint64_t *size, int64_t *mtime)
{
    const char *why;
    int c;

    if (d->off)
        return DSTLIST_ASK;
    if (!d->open && (why = start(d)) != NULL)
        return turn_off(d, why);
    /* Each key once, rising; asked again only after DSTLIST_LATER. */
    c = d->asked ? strcmp(key, buf_cstr(&d->last)) : 1;
    if (c < 0 || (c == 0 && !d->pending))
        return turn_off(d, "keys asked out of order");
    if (c > 0) {
        buf_reset(&d->last);
        if (buf_adds(&d->last, key))
            return turn_off(d, "out of memory");
        d->asked++;
    }
    d->pending = false;
    for (;;) {
        const struct s3_object *so;
        struct s3c_error e = S3C_ERROR_INIT;
        int r;

        if (d->have) {
            int k = strcmp(buf_cstr(&d->cur), key);
            if (k == 0) {
                *size = d->cur_size;
                *mtime = d->cur_mtime;
                return DSTLIST_THERE;
            }
            if (k > 0)
                return DSTLIST_ABSENT;
            d->have = false; /* passed: the next key asked is past it too */
        }
        if (d->done)
            return DSTLIST_ABSENT;
        if (d->l.requests > d->asked + DSTLIST_SLACK)
            return turn_off(d, "the prefix holds far more keys than are asked");
        d->l.nonblock = nonblock;
        r = lister_next(&d->l, &so, &e);
        if (r == 1) {
            buf_reset(&d->cur);
            if (buf_adds(&d->cur, so->key))
                return turn_off(d, "out of memory");
            d->cur_size = so->size;
            d->cur_mtime = so->mtime_epoch;
            d->have = true;
        } else if (r == LISTER_LATER) {
            d->pending = true;
            return DSTLIST_LATER;
        } else if (r == 0) {
            d->done = true;
        } else {
            return turn_off(d, e.msg[0] ? e.msg : "the listing failed");
        }
    }
}

void dstlist_release(struct dstlist *d)
{
    if (d->open && !d->off && d->s3)
        store_s3_debugf(d->s3, "destination listing s3://%s/%s: %llu keys answered by %llu list requests",
                        d->bucket, d->prefix, (unsigned long long)d->asked, (unsigned long long)d->l.requests);
    if (d->open)
        lister_close(&d->l);
    free(d->bucket);
    free(d->prefix);
    buf_release(&d->cur);
    buf_release(&d->last);
    memset(d, 0, sizeof(*d));
}
