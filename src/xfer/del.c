/*
 * DeleteObjects batching: open batches per bucket, a FIFO of closed ones.
 * A handful of buckets at most is open at once, so lookups are linear.
 */
#include "xfer/del.h"

#include <stdlib.h>
#include <string.h>

static bool same_str(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static void batch_close(struct xfer_del_queue *q, struct xfer_del_batch *b)
{
    struct xfer_del_batch **pp;

    for (pp = &q->open; *pp; pp = &(*pp)->next) {
        if (*pp == b) {
            *pp = b->next;
            q->n_open--;
            break;
        }
    }
    b->next = NULL;
    if (!q->ready)
        q->ready_tail = &q->ready;
    *q->ready_tail = b;
    q->ready_tail = &b->next;
    q->n_ready_keys += b->n;
}

static struct xfer_del_batch *batch_new(const char *bucket, const char *payer)
{
    struct xfer_del_batch *b = calloc(1, sizeof(*b));

    if (!b)
        return NULL;
    b->bucket = strdup(bucket);
    b->payer = payer ? strdup(payer) : NULL;
    if (!b->bucket || (payer && !b->payer)) {
        xfer_del_batch_free(b);
        return NULL;
    }
    return b;
}

enum s3c_err xfer_del_add(struct xfer_del_queue *q, const char *bucket, const char *payer,
                          const char *key, const char *version_id, const char *etag, void *ctx,
                          struct s3c_error *e)
{
    struct xfer_del_batch *b;
    struct xfer_del_item *it;

    if (!bucket || !bucket[0])
        return s3c_fail(e, S3C_EUSAGE, "delete: no bucket");
    if (!key || !key[0])
        return s3c_fail(e, S3C_EUSAGE, "delete: no key");
    if (!s3_xml_key_ok(sv_from(key)) || (version_id && !s3_xml_key_ok(sv_from(version_id))) ||
        (etag && !s3_xml_key_ok(sv_from(etag))))
        return s3c_fail(e, S3C_EPARSE, "delete: the key cannot travel in XML");
    for (b = q->open; b; b = b->next)
        if (!strcmp(b->bucket, bucket) && same_str(b->payer, payer))
            break;
    if (!b) {
        if (q->max_open > 0 && q->n_open >= q->max_open) {
            struct xfer_del_batch *fullest = q->open, *x;
            for (x = q->open; x; x = x->next)
                if (x->n > fullest->n)
                    fullest = x;
            batch_close(q, fullest);
        }
        b = batch_new(bucket, payer);
        if (!b)
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        b->next = q->open;
        q->open = b;
        q->n_open++;
    }
    it = &b->items[b->n++];
    it->key = key;
    it->version_id = version_id && version_id[0] ? version_id : NULL;
    it->etag = etag && etag[0] ? etag : NULL;
    it->ctx = ctx;
    it->err = NULL;
    if (b->n == S3_DELETE_MAX_KEYS)
        batch_close(q, b);
    return S3C_OK;
}

void xfer_del_flush(struct xfer_del_queue *q)
{
    while (q->open)
        batch_close(q, q->open);
}

struct xfer_del_batch *xfer_del_take(struct xfer_del_queue *q)
{
    struct xfer_del_batch *b = q->ready;

    if (!b)
        return NULL;
    q->ready = b->next;
    if (!q->ready)
        q->ready_tail = &q->ready;
    q->n_ready_keys -= b->n;
    b->next = NULL;
    return b;
}

struct xfer_del_batch *xfer_del_take_any(struct xfer_del_queue *q)
{
    xfer_del_flush(q);
    return xfer_del_take(q);
}

bool xfer_del_idle(const struct xfer_del_queue *q)
{
    return !q->open && !q->ready;
}

enum s3c_err xfer_del_body(const struct xfer_del_batch *b, struct buf *out, struct s3c_error *e)
{
    struct s3_delete_object objs[S3_DELETE_MAX_KEYS];
    size_t i;

    for (i = 0; i < b->n; i++) {
        objs[i].key = b->items[i].key;
        objs[i].version_id = b->items[i].version_id;
        objs[i].etag = b->items[i].etag;
    }
    return s3_build_delete(objs, b->n, true, out, e);
}

size_t xfer_del_match(struct xfer_del_batch *b, const struct s3_delete_result *res)
{
    size_t i, j, unmatched = 0;

    for (j = 0; j < b->n; j++)
        b->items[j].err = NULL;
    for (i = 0; i < res->n_errors; i++) {
        const struct s3_delete_error *de = &res->errors[i];
        bool found = false;

        for (j = 0; j < b->n; j++) {
            struct xfer_del_item *it = &b->items[j];
            /* A version id on both sides must agree; the same key twice gets the error twice. */
            if (!de->key || strcmp(de->key, it->key) != 0)
                continue;
            if (it->version_id && de->version_id && de->version_id[0] &&
                strcmp(it->version_id, de->version_id) != 0)
                continue;
            it->err = de;
            found = true;
        }
        if (!found)
            unmatched++;
    }
    return unmatched;
}

void xfer_del_batch_free(struct xfer_del_batch *b)
{
    if (!b)
        return;
    free(b->bucket);
    free(b->payer);
    free(b);
}
