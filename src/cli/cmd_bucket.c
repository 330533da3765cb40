/* mb and rb: create and remove buckets, as `aws s3 mb` / `aws s3 rb [--force]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
#include "cli/listing.h"
#include "cli/output.h"
#include "s3/uri.h"
#include "s3/xml.h"

/*
 * The command line of mb and rb: flags from 'specs', then one s3://BUCKET
 * (a key is a usage error). Prints the usage error itself; fills 'op' with
 * the operation's name for later error lines.
 */
static enum s3c_err bucket_args(const char *verb, const struct arg_spec *specs, int argc, char **argv,
                                struct s3_uri *u, char *op, size_t op_size)
{
    struct s3c_error e = S3C_ERROR_INIT;
    const char *pos[1];
    int n_pos = 0;
    enum s3c_err rc;

    rc = args_parse(verb, specs, argc, argv, pos, 1, &n_pos, &e);
    if (!rc && n_pos != 1)
        rc = s3c_fail(&e, S3C_EUSAGE, "%s: expected one argument, s3://BUCKET", verb);
    if (!rc)
        rc = s3_uri_parse(pos[0], u, &e);
    if (!rc && (!u->bucket[0] || u->key[0]))
        rc = s3c_fail(&e, S3C_EUSAGE, "%s: \"%s\" must name a bucket only (s3://BUCKET)", verb, pos[0]);
    if (rc) {
        out_usage_error(&e);
        return rc;
    }
    cli_op_name(op, op_size, verb, n_pos, pos);
    return S3C_OK;
}

/* mb's or rb's request failed: the AWS CLI's line ("make_bucket failed: s3://B An error occurred
 * (BucketAlreadyOwnedByYou) when calling the CreateBucket operation: ..."); 'word' NULL (no store:
 * the configuration's error) is s3c's own line. */
static void bucket_failed(const char *word, const struct s3_uri *u, const char *op, const struct s3c_error *e)
{
    char shown[1024];
    struct out_result r = { word, shown, NULL, 0, false, NULL, false, false, NULL };

    if (!word) {
        out_error(op, e);
        return;
    }
    snprintf(shown, sizeof(shown), "s3://%s", u->bucket);
    out_result(&r, e);
}

/* mb or rb done: the AWS CLI's "make_bucket: B", or a --json record. */
static void bucket_done(const char *word, const struct s3_uri *u)
{
    char shown[1024];
    struct out_result r = { word, shown, NULL, 0, false, NULL, false, false, NULL };

    if (!out_opts()->json) {
        out_line("%s: %s", word, u->bucket);
        return;
    }
    snprintf(shown, sizeof(shown), "s3://%s", u->bucket);
    out_result(&r, NULL);
}

enum s3c_err cmd_mb(struct cli_ctx *c, int argc, char **argv)
{
    const struct arg_spec specs[] = { { NULL, NULL, 0, NULL } };
    struct s3_uri u = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct store_s3 *s;
    char op[1024];
    enum s3c_err rc;

    rc = bucket_args("mb", specs, argc, argv, &u, op, sizeof(op));
    if (rc)
        goto out;
    s = cli_s3(c, &e);
    rc = s ? store_s3_create_bucket(s, u.bucket, store_s3_region(s), &e) : e.code;
    if (rc)
        bucket_failed(s ? "make_bucket" : NULL, &u, op, &e);
    else
        bucket_done("make_bucket", &u);
out:
    s3_uri_release(&u);
    return rc;
}

/* One DeleteObjects request for 'n' keys (or versions); a line per deleted key, an error line per failed one. */
static enum s3c_err delete_batch(struct store_s3 *s, const char *bucket, const struct s3_delete_object *objs,
                                 size_t n, struct s3_delete_result *res, const char *op)
{
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3c_err failed = S3C_OK;
    size_t i;

    if (store_s3_delete_objects(s, bucket, objs, n, false, res, &e)) {
        out_error(op, &e);
        return e.code;
    }
    for (i = 0; i < res->n_deleted; i++) {
        const struct s3_deleted *d = &res->deleted[i];

        if (d->version_id[0] && strcmp(d->version_id, "null"))
            out_line("delete: s3://%s/%s (version %s)", bucket, d->key, d->version_id);
        else
            out_line("delete: s3://%s/%s", bucket, d->key);
    }
    for (i = 0; i < res->n_errors; i++) {
        struct s3c_error de = S3C_ERROR_INIT;
        char dop[2048];

        snprintf(dop, sizeof(dop), "delete s3://%s/%s", bucket, res->errors[i].key);
        str_copy(de.s3_code, sizeof(de.s3_code), res->errors[i].code);
        de.http_status = 200;
        s3c_fail(&de, S3C_EHTTP, "%s", res->errors[i].message[0] ? res->errors[i].message : "delete failed");
        out_error(dop, &de);
        failed = S3C_EHTTP;
    }
    return failed;
}

/*
 * Delete every object of 'bucket', 1,000 entries per DeleteObjects. With
 * 'versions', every version and delete marker (ListObjectVersions, deletes
 * by version id): on a versioned bucket a plain delete only adds a delete
 * marker and the bucket stays non-empty. Each round lists from the start
 * again rather than resuming after the last entry: the resume point was
 * just deleted, and a version-id-marker naming a deleted version is not
 * something every store resumes from correctly. *unsupported is set when
 * the store does not implement ListObjectVersions (nothing was deleted then
 * and no error printed).
 */
static enum s3c_err empty_bucket(struct store_s3 *s, const char *bucket, bool versions, bool *unsupported,
                                 const char *op)
{
    struct listing_opts lo = { .bucket = bucket, .versions = versions, .page_size = S3_DELETE_MAX_KEYS };
    struct s3_delete_result res = S3_DELETE_RESULT_INIT;
    struct s3_delete_object *objs = NULL;
    struct s3c_error e = S3C_ERROR_INIT;
    enum s3c_err rc = S3C_OK;
    char *last_first = NULL;        /* "key\nversion" that opened the previous round */
    bool first = true;

    objs = calloc(S3_DELETE_MAX_KEYS, sizeof(*objs));
    if (!objs) {
        s3c_fail(&e, S3C_ENOMEM, "out of memory");
        out_error(op, &e);
        return S3C_ENOMEM;
    }
    while (!rc) {
        const struct listing_entry *en;
        struct listing l;
        size_t n = 0;
        int r = 0;

        /* One page: its entries stay valid until the listing moves on or closes. */
        listing_open(&l, s, &lo);
        while (n < S3_DELETE_MAX_KEYS && (r = listing_next(&l, &en, &e)) > 0) {
            objs[n].key = en->key;
            objs[n].version_id = versions ? en->version_id : NULL;
            n++;
            if (listing_page_done(&l))
                break;
        }
        if (r < 0 && first && versions && (e.http_status == 501 || !strcmp(e.s3_code, "NotImplemented"))) {
            *unsupported = true;
        } else if (r < 0) {
            out_error(op, &e);
            rc = e.code ? e.code : S3C_EHTTP;
        } else if (n) {
            struct buf id = BUF_INIT(1 << 16);

            buf_addf(&id, "%s\n%s", objs[0].key, objs[0].version_id ? objs[0].version_id : "");
            if (last_first && !strcmp(last_first, buf_cstr(&id))) {
                /* Acknowledged but still listed: looping would never end. */
                s3c_fail(&e, S3C_EHTTP, "the store still lists s3://%s/%s after deleting it", bucket, objs[0].key);
                out_error(op, &e);
                rc = S3C_EHTTP;
            } else {
                free(last_first);
                last_first = buf_detach(&id);
                /* A key that failed would be listed again: stop at the first failure. */
                rc = delete_batch(s, bucket, objs, n, &res, op);
            }
            buf_release(&id);
        }
        listing_close(&l);
        first = false;
        if (r < 0 || !n)
            break;
    }
    s3_delete_result_release(&res);
    free(last_first);
    free(objs);
    return rc;
}

enum s3c_err cmd_rb(struct cli_ctx *c, int argc, char **argv)
{
    bool force = false;
    const struct arg_spec specs[] = { { "--force", NULL, ARG_BOOL, &force }, { NULL, NULL, 0, NULL } };
    struct s3_uri u = S3_URI_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    struct store_s3 *s;
    char op[1024];
    enum s3c_err rc;

    rc = bucket_args("rb", specs, argc, argv, &u, op, sizeof(op));
    if (rc)
        goto out;
    s = cli_s3(c, &e);
    if (!s) {
        rc = e.code;
        out_error(op, &e);
        goto out;
    }
    if (force) {
        bool unsupported = false;

        rc = empty_bucket(s, u.bucket, true, &unsupported, op);
        if (!rc && unsupported)
            rc = empty_bucket(s, u.bucket, false, &unsupported, op);
        if (rc)
            goto out;
    }
    rc = store_s3_delete_bucket(s, u.bucket, &e);
    if (rc)
        bucket_failed("remove_bucket", &u, op, &e);
    else
        bucket_done("remove_bucket", &u);
out:
    s3_uri_release(&u);
    return rc;
}
