/* The S3 operations the verbs use, each one request built, sent and parsed. */
#include <stdio.h>
#include <string.h>

#include "base/hash.h"
#include "base/str.h"
#include "s3/xml.h"
#include "store/store_s3.h"

/* Send 'r' and parse a 2xx XML reply of kind 'kind' into 'out'. */
static enum s3c_err send_parse(struct store_s3 *s, const struct s3_req *r, enum s3_reply kind,
                               void *out, struct s3c_error *e)
{
    struct http_xfer x;
    enum s3c_err rc;

    memset(&x, 0, sizeof(x));
    x.body_max = STORE_S3_LIST_BODY_MAX_BYTES;
    rc = store_s3_send(s, r, &x, e);
    if (!rc && out)
        rc = s3_xml_parse(kind, buf_sv(&x.resp.body), out, NULL, e);
    http_xfer_release(&x);
    return rc;
}

enum s3c_err store_s3_list_buckets(struct store_s3 *s, const char *token,
                                   struct s3_list_buckets *out, struct s3c_error *e)
{
    struct s3_req r = { .method = "GET" };
    struct buf q = BUF_INIT(8192);
    enum s3c_err rc = S3C_OK;

    if (token && token[0])
        rc = s3_query_add(&q, "continuation-token", token);
    if (rc)
        return s3c_fail(e, rc, "out of memory");
    r.query = buf_cstr(&q);
    rc = send_parse(s, &r, S3_REPLY_LIST_BUCKETS, out, e);
    buf_release(&q);
    return rc;
}

/* Keep the entries of a page that start with 'prefix' (in place, order kept). */
static void keep_prefixed(struct s3_list_objects *out, const char *prefix)
{
    size_t n = strlen(prefix), i, k;

    for (i = k = 0; i < out->n_objects; i++)
        if (!strncmp(out->objects[i].key, prefix, n))
            out->objects[k++] = out->objects[i];
    out->n_objects = k;
    for (i = k = 0; i < out->n_prefixes; i++)
        if (!strncmp(out->prefixes[i], prefix, n))
            out->prefixes[k++] = out->prefixes[i];
    out->n_prefixes = k;
}

enum s3c_err store_s3_list_objects(struct store_s3 *s, const struct store_s3_list_args *a,
                                   struct s3_list_objects *out, struct s3c_error *e)
{
    struct s3_req r = { .method = "GET", .bucket = a->bucket };
    struct buf q = BUF_INIT(16384), parent = BUF_INIT(16384);
    const char *prefix = a->prefix;
    bool narrow = false;
    char max[16];
    enum s3c_err rc;

    /* A directory bucket takes, with a delimiter, only prefixes that end in
     * '/': list the directory above and keep what starts with the prefix. */
    if (s3_bucket_is_express(a->bucket) && a->delimiter && a->delimiter[0] && prefix && prefix[0] &&
        prefix[strlen(prefix) - 1] != '/') {
        const char *slash = strrchr(prefix, '/');

        if (buf_add(&parent, prefix, slash ? (size_t)(slash - prefix) + 1 : 0) || buf_addc(&parent, '\0')) {
            buf_release(&parent);
            return s3c_fail(e, S3C_ENOMEM, "out of memory");
        }
        prefix = parent.data;
        narrow = true;
    }
    rc = a->v1 ? S3C_OK : s3_query_add(&q, "list-type", "2");
    if (!rc && a->token && a->token[0])
        rc = s3_query_add(&q, a->v1 ? "marker" : "continuation-token", a->token);
    if (!rc && a->delimiter && a->delimiter[0])
        rc = s3_query_add(&q, "delimiter", a->delimiter);
    if (!rc)
        rc = s3_query_add(&q, "encoding-type", "url");
    if (!rc && a->max_keys > 0) {
        snprintf(max, sizeof(max), "%d", a->max_keys);
        rc = s3_query_add(&q, "max-keys", max);
    }
    if (!rc && prefix && prefix[0])
        rc = s3_query_add(&q, "prefix", prefix);
    if (!rc && !a->v1 && a->start_after && a->start_after[0])
        rc = s3_query_add(&q, "start-after", a->start_after);
    if (rc) {
        buf_release(&parent);
        return s3c_fail(e, rc, "out of memory");
    }
    r.query = buf_cstr(&q);
    /* Directory buckets have no archived objects, and S3 says they take no such attribute. */
    if (a->restore_status && !a->v1 && !s3_bucket_is_express(a->bucket))
        s3_req_header(&r, "x-amz-optional-object-attributes", "RestoreStatus");
    rc = send_parse(s, &r, S3_REPLY_LIST_OBJECTS, out, e);
    if (!rc && narrow)
        keep_prefixed(out, a->prefix);
    buf_release(&q);
    buf_release(&parent);
    return rc;
}

enum s3c_err store_s3_list_versions_req(const struct store_s3_list_versions_args *a, struct s3_req *r,
                                        struct buf *q, struct s3c_error *e)
{
    char max[16];
    enum s3c_err rc;

    memset(r, 0, sizeof(*r));
    r->method = "GET";
    r->bucket = a->bucket;
    buf_reset(q);
    rc = s3_query_add(q, "versions", "");
    if (!rc && a->delimiter && a->delimiter[0])
        rc = s3_query_add(q, "delimiter", a->delimiter);
    if (!rc)
        rc = s3_query_add(q, "encoding-type", "url");
    if (!rc && a->key_marker && a->key_marker[0])
        rc = s3_query_add(q, "key-marker", a->key_marker);
    if (!rc && a->max_keys > 0) {
        snprintf(max, sizeof(max), "%d", a->max_keys);
        rc = s3_query_add(q, "max-keys", max);
    }
    if (!rc && a->prefix && a->prefix[0])
        rc = s3_query_add(q, "prefix", a->prefix);
    /* A version-id-marker without a key-marker is an error on S3. */
    if (!rc && a->key_marker && a->key_marker[0] && a->version_id_marker && a->version_id_marker[0])
        rc = s3_query_add(q, "version-id-marker", a->version_id_marker);
    if (rc)
        return s3c_fail(e, rc, "out of memory");
    r->query = buf_cstr(q);
    return S3C_OK;
}

enum s3c_err store_s3_list_object_versions(struct store_s3 *s, const struct store_s3_list_versions_args *a,
                                           struct s3_list_versions *out, struct s3c_error *e)
{
    struct s3_req r;
    struct buf q = BUF_INIT(16384);
    enum s3c_err rc = store_s3_list_versions_req(a, &r, &q, e);

    if (!rc)
        rc = send_parse(s, &r, S3_REPLY_LIST_VERSIONS, out, e);
    buf_release(&q);
    return rc;
}

enum s3c_err store_s3_head(struct store_s3 *s, const char *bucket, const char *key,
                           struct http_xfer *x, struct s3c_error *e)
{
    return store_s3_head_sse_c(s, bucket, key, NULL, x, e);
}

enum s3c_err store_s3_head_sse_c(struct store_s3 *s, const char *bucket, const char *key,
                                 const struct s3_sse_c *k, struct http_xfer *x, struct s3c_error *e)
{
    return store_s3_head_ck(s, bucket, key, k, false, x, e);
}

/* A HEAD of the object (of one version: 'version_id', else NULL or "") into 'r', its strings
 * borrowed, its query in 'q'. */
static enum s3c_err head_req(struct store_s3 *s, const char *bucket, const char *key, const char *version_id,
                             const struct s3_sse_c *k, bool ck_mode, struct s3_req *r, struct buf *q)
{
    memset(r, 0, sizeof(*r));
    r->method = "HEAD";
    r->bucket = bucket;
    r->key = key;
    /* Ask for the stored checksums too (stores without them ignore this), unless
     * response_checksum_validation = when_required says not to (and no --checksum-mode). */
    if (key && (ck_mode || store_s3_checksum_mode(s)))
        s3_req_header(r, "x-amz-checksum-mode", "ENABLED");
    if (k)
        s3_req_sse_c(r, k, false);
    if (key && version_id && version_id[0]) {
        if (s3_query_add(q, "versionId", version_id))
            return S3C_ENOMEM;
        r->query = buf_cstr(q);
    }
    return S3C_OK;
}

enum s3c_err store_s3_head_ck(struct store_s3 *s, const char *bucket, const char *key, const struct s3_sse_c *k,
                              bool ck_mode, struct http_xfer *x, struct s3c_error *e)
{
    return store_s3_head_version(s, bucket, key, NULL, k, ck_mode, x, e);
}

enum s3c_err store_s3_head_version(struct store_s3 *s, const char *bucket, const char *key, const char *version_id,
                                   const struct s3_sse_c *k, bool ck_mode, struct http_xfer *x, struct s3c_error *e)
{
    struct s3_req r;
    struct buf q = BUF_INIT(4096);
    enum s3c_err rc = head_req(s, bucket, key, version_id, k, ck_mode, &r, &q);

    rc = rc ? s3c_fail(e, rc, "out of memory") : store_s3_send(s, &r, x, e);
    buf_release(&q);
    return rc;
}

void store_s3_head_async_start(struct store_s3 *s, const char *bucket, const char *key, const char *version_id,
                               const struct s3_sse_c *k, bool ck_mode, struct store_s3_head_async *h)
{
    struct s3_req r;

    *h = (struct store_s3_head_async)STORE_S3_HEAD_ASYNC_INIT;
    h->bucket = bucket;
    h->version_id = version_id;
    if (head_req(s, bucket, key, version_id, k, ck_mode, &r, &h->q)) {
        h->rc = s3c_fail(&h->err, S3C_ENOMEM, "out of memory");
        h->done = true;
        return;
    }
    store_s3_async_start(s, &r, &h->x, &h->a);
}

bool store_s3_head_async_poll(struct store_s3 *s, struct store_s3_head_async *h)
{
    if (h->done)
        return true;
    if (!store_s3_async_poll(s, &h->a))
        return false;
    if (h->explaining) {
        /* The HeadBucket's answer says which of the two is missing (store_s3_explain_head_404). */
        store_s3_head_404_explain(&h->err, !h->a.rc ? 200 : h->a.err.http_status);
        if (h->version_id && h->version_id[0] && !strcmp(h->err.s3_code, "NoSuchKey")) {
            str_copy(h->err.s3_code, sizeof(h->err.s3_code), "NoSuchVersion");
            s3c_fail(&h->err, S3C_ENOTFOUND, "The specified version does not exist.");
        }
    } else {
        h->rc = h->a.rc;
        h->err = h->a.err;
        if (h->rc && store_s3_head_404_unexplained(&h->err)) {
            struct s3_req r = { .method = "HEAD", .bucket = h->bucket };

            store_s3_async_release(s, &h->a);
            h->explaining = true;
            h->bx.body_max = 64 << 10;
            store_s3_async_start(s, &r, &h->bx, &h->a);
            return false;
        }
    }
    store_s3_async_release(s, &h->a);
    h->done = true;
    return true;
}

enum s3c_err store_s3_head_async_wait(struct store_s3 *s, struct store_s3_head_async *h)
{
    while (!store_s3_head_async_poll(s, h))
        store_s3_async_wait(s, &h->a);
    return h->rc;
}

void store_s3_head_async_release(struct store_s3 *s, struct store_s3_head_async *h)
{
    store_s3_async_release(s, &h->a);
    http_xfer_release(&h->x);
    http_xfer_release(&h->bx);
    buf_release(&h->q);
    *h = (struct store_s3_head_async)STORE_S3_HEAD_ASYNC_INIT;
}

bool store_s3_head_404_unexplained(const struct s3c_error *e)
{
    return e->http_status == 404 && !strcmp(e->op, "HeadObject") && (!e->s3_code[0] || !strcmp(e->s3_code, "NotFound"));
}

void store_s3_head_404_explain(struct s3c_error *e, long head_bucket_status)
{
    if (head_bucket_status >= 200 && head_bucket_status < 300) {
        str_copy(e->s3_code, sizeof(e->s3_code), "NoSuchKey");
        s3c_fail(e, S3C_ENOTFOUND, "The specified key does not exist.");
    } else if (head_bucket_status == 404) {
        str_copy(e->s3_code, sizeof(e->s3_code), "NoSuchBucket");
        s3c_fail(e, S3C_ENOTFOUND, "The specified bucket does not exist");
    }
}

void store_s3_explain_head_404_version(struct store_s3 *s, const char *bucket, const char *version_id,
                                      struct s3c_error *e)
{
    store_s3_explain_head_404(s, bucket, e);
    if (version_id && version_id[0] && !strcmp(e->s3_code, "NoSuchKey")) {
        str_copy(e->s3_code, sizeof(e->s3_code), "NoSuchVersion");
        s3c_fail(e, S3C_ENOTFOUND, "The specified version does not exist.");
    }
}

void store_s3_explain_head_404(struct store_s3 *s, const char *bucket, struct s3c_error *e)
{
    struct s3_req r = { .method = "HEAD", .bucket = bucket };
    struct s3c_error be = S3C_ERROR_INIT;
    struct http_xfer x;
    enum s3c_err rc;

    if (!store_s3_head_404_unexplained(e))
        return;
    memset(&x, 0, sizeof(x));
    x.body_max = 64 << 10;
    rc = store_s3_send(s, &r, &x, &be);
    http_xfer_release(&x);
    store_s3_head_404_explain(e, !rc ? 200 : be.http_status);
}

enum s3c_err store_s3_list_directory_buckets(struct store_s3 *s, const char *token,
                                             struct s3_list_buckets *out, struct s3c_error *e)
{
    struct s3_req r = { .method = "GET", .control = true };
    struct buf q = BUF_INIT(8192);
    enum s3c_err rc = S3C_OK;

    if (token && token[0])
        rc = s3_query_add(&q, "continuation-token", token);
    if (!rc)
        rc = s3_query_add(&q, "max-directory-buckets", "1000");
    if (rc)
        return s3c_fail(e, rc, "out of memory");
    r.query = buf_cstr(&q);
    rc = send_parse(s, &r, S3_REPLY_LIST_BUCKETS, out, e);
    buf_release(&q);
    return rc;
}

enum s3c_err store_s3_create_bucket(struct store_s3 *s, const char *bucket, const char *region,
                                    struct s3c_error *e)
{
    struct s3_req r = { .method = "PUT", .bucket = bucket, .control = s3_bucket_is_express(bucket) };
    struct buf body = BUF_INIT(4096);
    char zone[64];
    enum s3c_err rc;

    if (r.control)
        rc = s3_express_zone(bucket, zone, sizeof(zone)) ? s3_build_create_directory_bucket(zone, &body, e)
                                                         : s3c_fail(e, S3C_EUSAGE, "bad directory bucket name");
    else
        rc = s3_build_create_bucket(region, &body, e);
    if (!rc) {
        r.body = body.data;
        r.body_len = body.len;
        if (body.len)
            s3_req_header(&r, "Content-Type", "application/xml");
        rc = send_parse(s, &r, S3_REPLY_ERROR, NULL, e);
    }
    buf_release(&body);
    return rc;
}

enum s3c_err store_s3_delete_bucket(struct store_s3 *s, const char *bucket, struct s3c_error *e)
{
    struct s3_req r = { .method = "DELETE", .bucket = bucket, .control = s3_bucket_is_express(bucket) };

    return send_parse(s, &r, S3_REPLY_ERROR, NULL, e);
}

enum s3c_err store_s3_delete_objects(struct store_s3 *s, const char *bucket,
                                     const struct s3_delete_object *objs, size_t n, bool quiet,
                                     struct s3_delete_result *out, struct s3c_error *e)
{
    struct s3_req r = { .method = "POST", .bucket = bucket, .query = "delete=" };
    struct buf body = BUF_INIT(8u << 20), md5b64 = BUF_INIT(64);
    unsigned char md5[MD5_LEN];
    enum s3c_err rc;

    rc = s3_build_delete(objs, n, quiet, &body, e);
    if (rc)
        goto out;
    /* DeleteObjects requires an integrity header; Content-MD5 is the one every store knows. */
    hash_md5(body.data, body.len, md5);
    rc = base64_encode(md5, MD5_LEN, &md5b64);
    if (rc) {
        s3c_fail(e, rc, "out of memory");
        goto out;
    }
    r.body = body.data;
    r.body_len = body.len;
    s3_req_header(&r, "Content-Type", "application/xml");
    s3_req_header(&r, "Content-MD5", buf_cstr(&md5b64));
    rc = send_parse(s, &r, S3_REPLY_DELETE_RESULT, out, e);
out:
    buf_release(&body);
    buf_release(&md5b64);
    return rc;
}
