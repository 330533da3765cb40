/*
 * ops_bucket: the buckets themselves: ListBuckets, CreateBucket (name rules,
 * LocationConstraint), HeadBucket, DeleteBucket, GetBucketLocation. Not what
 * is in them: listings are ops_list.c, versioning ops_version.c; directory
 * buckets' CreateBucket and ListDirectoryBuckets are ops_express.c.
 */
#include "ops.h"

#include <ctype.h>
#include <string.h>

static bool valid_bucket_name(const char *n)
{
    size_t len = strlen(n), i;

    if (len < 3 || len > 63)
        return false;
    for (i = 0; i < len; i++) {
        char ch = n[i];
        if (!(islower((unsigned char)ch) || isdigit((unsigned char)ch) || ch == '-' || ch == '.'))
            return false;
    }
    if (!isalnum((unsigned char)n[0]) || !isalnum((unsigned char)n[len - 1]) || strstr(n, ".."))
        return false;
    return true;
}

struct loc_ctx {
    char loc[32];
    bool bad;
};

static void loc_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct loc_ctx *l = ctx;

    if (!strcmp(name, "LocationConstraint") && !str_copy(l->loc, sizeof(l->loc), text))
        l->bad = true;
}

void ops_list_buckets(struct emu_server *s, struct emu_conn *c)
{
    struct buf *x = &c->resp.body;
    struct emu_sl_node *n;
    char t[48];

    ops_xml_open(x, "ListAllMyBucketsResult");
    ops_owner_xml(x, "Owner");
    buf_adds(x, "<Buckets>");
    for (n = emu_sl_first(&s->buckets); n; n = emu_sl_next(n)) {
        struct emu_bucket *b = n->val;

        if (b->directory)   /* ListDirectoryBuckets lists those */
            continue;
        ops_iso_time(b->created_ms, t);
        buf_adds(x, "<Bucket>");
        emu_xml_elem(x, "Name", b->name);
        emu_xml_elem(x, "CreationDate", t);
        emu_xml_elem(x, "BucketRegion", b->region);
        buf_adds(x, "</Bucket>");
    }
    buf_adds(x, "</Buckets></ListAllMyBucketsResult>");
    ops_ok_xml(c);
}

void ops_create_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct loc_ctx l = { "", false };
    struct emu_bucket *nb;
    char acl[32];

    if (q->body && q->body->len &&
        (emu_xml_walk(q->body->data, (size_t)q->body->len, loc_cb, &l) || l.bad)) {
        ops_error(s, c, 400, "MalformedXML",
                  "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        return;
    }
    if (!valid_bucket_name(q->bucket)) {
        ops_err_bucket(s, c, 400, "InvalidBucketName", "The specified bucket is not valid.");
        return;
    }
    if (!strcmp(l.loc, "us-east-1")) {
        struct buf x = BUF_INIT(256);
        emu_xml_elem(&x, "LocationConstraint", l.loc);
        ops_error(s, c, 400, "InvalidLocationConstraint", "The specified location-constraint is not valid",
                  buf_cstr(&x));
        buf_release(&x);
        return;
    }
    if (b) {
        ops_err_bucket(s, c, 409, "BucketAlreadyOwnedByYou",
                       "Your previous request to create the named bucket succeeded and you already own it.");
        return;
    }
    if (!ops_request_acl(s, c, acl))
        return;
    nb = emu_store_bucket_create(s, q->bucket, l.loc[0] ? l.loc : s->region);
    if (!nb) {
        ops_error(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    str_copy(nb->acl, sizeof(nb->acl), acl);
    nb->ssec_blocked = s->model.block_ssec != 0;
    emu_resp_header(&c->resp, "Location", "/%s", q->bucket);
    ops_ok_empty(c, 200);
}

void ops_head_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    emu_resp_header(&c->resp, "x-amz-bucket-region", "%s", b->region);
    if (b->directory) {
        emu_resp_header(&c->resp, "x-amz-bucket-location-name", "%s", b->zone);
        emu_resp_header(&c->resp, "x-amz-bucket-location-type", "%s", b->zone_type);
    }
    ops_ok_empty(c, 200);
}

void ops_delete_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    if (!emu_store_bucket_empty(b) || (b->directory && b->uploads.count)) {
        ops_err_bucket(s, c, 409, "BucketNotEmpty", "The bucket you tried to delete is not empty");
        return;
    }
    emu_store_bucket_delete(s, b);
    ops_ok_empty(c, 204);
}

void ops_get_location(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct buf *x = &c->resp.body;

    buf_adds(x, XML_DECL "<LocationConstraint xmlns=\"" XMLNS "\">");
    if (strcmp(b->region, "us-east-1") != 0)
        emu_xml_esc(x, b->region, strlen(b->region));
    buf_adds(x, "</LocationConstraint>");
    ops_ok_xml(c);
}

void ops_get_encryption(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct buf *x = &c->resp.body;

    ops_xml_open(x, "ServerSideEncryptionConfiguration");
    buf_adds(x, "<Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm>"
                "</ApplyServerSideEncryptionByDefault><BucketKeyEnabled>false</BucketKeyEnabled>"
                "<BlockedEncryptionTypes><EncryptionType>");
    buf_adds(x, b->ssec_blocked ? "SSE-C" : "NONE");
    buf_adds(x, "</EncryptionType></BlockedEncryptionTypes></Rule></ServerSideEncryptionConfiguration>");
    ops_ok_xml(c);
}

struct enc_ctx {
    bool block, unblock;        /* Rule/BlockedEncryptionTypes/EncryptionType SSE-C, or NONE */
};

static void enc_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct enc_ctx *v = ctx;

    /* Configuration (1), Rule (2), BlockedEncryptionTypes (3): the only EncryptionType at 4. */
    if (depth == 4 && !strcmp(name, "EncryptionType")) {
        v->block |= !strcmp(text, "SSE-C");
        v->unblock |= !strcmp(text, "NONE");
    }
}

void ops_put_encryption(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct enc_ctx v = { false, false };

    if (!q->body || emu_xml_walk(q->body->data, (size_t)q->body->len, enc_cb, &v) || (v.block && v.unblock)) {
        ops_error(s, c, 400, "MalformedXML",
                  "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        return;
    }
    if (v.block || v.unblock)
        b->ssec_blocked = v.block; /* a rule without BlockedEncryptionTypes leaves it as it is */
    ops_ok_empty(c, 200);
}
