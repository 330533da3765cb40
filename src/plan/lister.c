#include "plan/lister.h"

#include <stdlib.h>
#include <string.h>

enum s3c_err lister_open(struct lister *l, struct store_s3 *s3, const char *bucket, const char *prefix,
                         struct s3c_error *e)
{
    memset(l, 0, sizeof(*l));
    l->s3 = s3;
    l->page = (struct s3_list_objects)S3_LIST_OBJECTS_INIT;
    l->bucket = strdup(bucket);
    l->prefix = strdup(prefix ? prefix : "");
    if (!l->bucket || !l->prefix) {
        lister_close(l);
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    }
    return S3C_OK;
}

/* Fetch pages until one has objects or the listing ends; 0 at the end, -1 on failure. */
static int lister_fill(struct lister *l, struct s3c_error *e)
{
    struct store_s3_list_args a = { l->bucket, l->prefix, NULL, l->token, NULL, 0 };

    while (!l->done) {
        if (store_s3_list_objects(l->s3, &a, &l->page, e)) {
            l->done = true;
            return -1;
        }
        l->started = true;
        l->i = 0;
        free(l->token);
        l->token = NULL;
        if (l->page.is_truncated && l->page.next_continuation_token[0]) {
            l->token = strdup(l->page.next_continuation_token);
            if (!l->token) {
                l->done = true;
                return s3c_fail(e, S3C_ENOMEM, "out of memory"), -1;
            }
            a.token = l->token;
        } else {
            /* A truncated page without a token would list forever: treat it as the end. */
            l->done = true;
        }
        if (l->page.n_objects)
            return 1;
    }
    return 0;
}

int lister_next(struct lister *l, const struct s3_object **out, struct s3c_error *e)
{
    if (!l->started || l->i >= l->page.n_objects) {
        int r = lister_fill(l, e);
        if (r <= 0)
            return r;
    }
    *out = &l->page.objects[l->i++];
    return 1;
}

void lister_close(struct lister *l)
{
    s3_list_objects_release(&l->page);
    free(l->bucket);
    free(l->prefix);
    free(l->token);
    l->bucket = l->prefix = l->token = NULL;
    l->done = true;
}
