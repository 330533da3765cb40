/*
 * lister: an S3 listing (ListObjectsV2) as a stream of objects in key
 * order, one page held at a time. Used by cp/mv/rm/sync/du for every
 * "all keys under a prefix" source.
 *
 * Not thread-safe; blocking (each page is one request on the store).
 */
#ifndef S3C_PLAN_LISTER_H
#define S3C_PLAN_LISTER_H

#include <stdbool.h>

#include "base/err.h"
#include "s3/xml.h"
#include "store/store_s3.h"

struct lister {
    struct store_s3 *s3;
    char *bucket;
    char *prefix;
    char *token;
    struct s3_list_objects page;
    size_t i;
    bool started, done;
};

/* Start a listing of 'bucket' under 'prefix' (copied). No request yet. */
enum s3c_err lister_open(struct lister *l, struct store_s3 *s3, const char *bucket, const char *prefix,
                         struct s3c_error *e);

/*
 * The next object: 1 with *out pointing into the current page (valid until
 * the next call), 0 at the end, -1 with 'e' set when a page failed (the
 * listing is over then).
 */
int lister_next(struct lister *l, const struct s3_object **out, struct s3c_error *e);

void lister_close(struct lister *l);

#endif
