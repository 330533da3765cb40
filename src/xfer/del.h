/*
 * xfer/del: the engine's DeleteObjects batching, as bookkeeping only (no
 * I/O, no engine types), so it is unit-tested alone.
 *
 * Pending deletes are grouped per bucket and request payer into batches of
 * up to S3_DELETE_MAX_KEYS keys. A batch closes when it is full, when the
 * engine flushes (its source has nothing more for now), or when more than
 * 'max_open' buckets have a batch being filled (the fullest one goes). Closed
 * batches wait in arrival order until the engine has room to send them;
 * the engine then owns the batch it took and frees it.
 *
 * Keys and version ids are borrowed from the caller (the engine's objects),
 * which keeps them alive until the batch is freed.
 */
#ifndef S3C_XFER_DEL_H
#define S3C_XFER_DEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "s3/xml.h"

/* One key of a batch. */
struct xfer_del_item {
    const char *key;                        /* borrowed */
    const char *version_id;                 /* borrowed; NULL or "": the current version */
    const char *etag;                       /* borrowed; NULL: any, else only while it has this ETag */
    void *ctx;                              /* the caller's (the engine's object) */
    const struct s3_delete_error *err;      /* set by xfer_del_match; points into its result */
};

struct xfer_del_batch {
    char *bucket;
    char *payer;                            /* x-amz-request-payer, or NULL */
    struct xfer_del_item items[S3_DELETE_MAX_KEYS];
    size_t n;
    struct xfer_del_batch *next;            /* in the open list or the ready queue */
};

struct xfer_del_queue {
    struct xfer_del_batch *open;            /* being filled, one per bucket and payer */
    int n_open;
    int max_open;                           /* more open batches than this: close the fullest */
    struct xfer_del_batch *ready;           /* closed, oldest first */
    struct xfer_del_batch **ready_tail;
    size_t n_ready_keys;                    /* keys in the ready queue */
};

#define XFER_DEL_QUEUE_INIT(max_open) { NULL, 0, (max_open), NULL, NULL, 0 }

/*
 * Queue one delete. S3C_EUSAGE when the key is empty or the bucket missing
 * (nothing queued); S3C_ENOMEM on OOM. The key must pass s3_xml_key_ok (the
 * caller deletes other keys one by one): S3C_EPARSE otherwise.
 */
enum s3c_err xfer_del_add(struct xfer_del_queue *q, const char *bucket, const char *payer,
                          const char *key, const char *version_id, const char *etag, void *ctx,
                          struct s3c_error *e);

/* Close every open batch (the source paused or ended). */
void xfer_del_flush(struct xfer_del_queue *q);

/* The oldest closed batch, now the caller's (free it with xfer_del_batch_free), or NULL. */
struct xfer_del_batch *xfer_del_take(struct xfer_del_queue *q);

/* True when nothing is open or ready. */
bool xfer_del_idle(const struct xfer_del_queue *q);

/* Take every batch, open or closed, for the caller to fail (cancel): one at a time, NULL at the end. */
struct xfer_del_batch *xfer_del_take_any(struct xfer_del_queue *q);

/* The DeleteObjects body of 'b' (quiet: the store lists only failures), appended to 'out'. */
enum s3c_err xfer_del_body(const struct xfer_del_batch *b, struct buf *out, struct s3c_error *e);

/*
 * Point each item that 'res' names in an <Error> (same key, and same version
 * id when both have one) at that error; other items' err stays NULL (deleted).
 * Returns how many errors named no item of the batch.
 */
size_t xfer_del_match(struct xfer_del_batch *b, const struct s3_delete_result *res);

/* NULL is a no-op. */
void xfer_del_batch_free(struct xfer_del_batch *b);

#endif
