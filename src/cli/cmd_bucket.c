/* mb and rb: create and remove buckets, as `aws s3 mb` / `aws s3 rb [--force]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cmd.h"
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
        out_error(op, &e);
    else
        out_line("make_bucket: %s", u.bucket);
out:
    s3_uri_release(&u);
    return rc;
}

/* Delete every object of 'bucket', a listing page (<= 1000 keys) per DeleteObjects. */
static enum s3c_err empty_bucket(struct store_s3 *s, const char *bucket, const char *op)
{
    struct s3_list_objects page = S3_LIST_OBJECTS_INIT;
    struct s3_delete_result res = S3_DELETE_RESULT_INIT;
    struct s3_delete_object *objs = NULL;
    struct s3c_error e = S3C_ERROR_INIT;
    struct store_s3_list_args a = { bucket, NULL, NULL, NULL, NULL, 0 };
    enum s3c_err rc, failed = S3C_OK;
    char *token = NULL;
    size_t i;

    objs = calloc(S3_DELETE_MAX_KEYS, sizeof(*objs));
    if (!objs)
        return s3c_fail(&e, S3C_ENOMEM, "out of memory");
    do {
        a.token = token;
        rc = store_s3_list_objects(s, &a, &page, &e);
        free(token);
        token = NULL;
        if (rc) {
            out_error(op, &e);
            break;
        }
        if (page.n_objects) {
            for (i = 0; i < page.n_objects; i++)
                objs[i].key = page.objects[i].key;
            rc = store_s3_delete_objects(s, bucket, objs, page.n_objects, false, &res, &e);
            if (rc) {
                out_error(op, &e);
                break;
            }
            for (i = 0; i < res.n_deleted; i++)
                out_line("delete: s3://%s/%s", bucket, res.deleted[i].key);
            for (i = 0; i < res.n_errors; i++) {
                struct s3c_error de = S3C_ERROR_INIT;
                char dop[2048];

                snprintf(dop, sizeof(dop), "delete s3://%s/%s", bucket, res.errors[i].key);
                str_copy(de.s3_code, sizeof(de.s3_code), res.errors[i].code);
                de.http_status = 200;
                s3c_fail(&de, S3C_EHTTP, "%s", res.errors[i].message[0] ? res.errors[i].message : "delete failed");
                out_error(dop, &de);
                failed = S3C_EHTTP;
            }
        }
        if (page.is_truncated && page.next_continuation_token[0])
            token = strdup(page.next_continuation_token);
    } while (token);
    s3_list_objects_release(&page);
    s3_delete_result_release(&res);
    free(objs);
    return rc ? rc : failed;
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
        rc = empty_bucket(s, u.bucket, op);
        if (rc)
            goto out;
    }
    rc = store_s3_delete_bucket(s, u.bucket, &e);
    if (rc)
        out_error(op, &e);
    else
        out_line("remove_bucket: %s", u.bucket);
out:
    s3_uri_release(&u);
    return rc;
}
