/*
 * The table of request builders (src/xfer/build.c): every kind has one, and
 * each says the method, object, query and headers of its request. Pins what
 * the engine sent before the builders left req_submit's switch, so a swapped
 * or missing entry of the table shows here and not only against a store.
 * The object has no options (o.opts NULL): that is also the case that once
 * read a dead compound literal (44 headers of stack garbage at -O2).
 */
#include "t.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xfer/engine.h"

/* "METHOD bucket/key?query | name: value; ..." of a request of 'kind' for a fixed object. */
static const char *built(enum req_kind kind, enum xfer_op op, uint32_t n_parts)
{
    static struct req_ops kinds[RK_COUNT];
    static char out[1024];
    struct engine *g = calloc(1, sizeof(*g));
    struct xfer_obj o = { .op = op, .src = "sk", .dst = "dk", .etag = "\"e\"", .version_id = "v1" };
    /* The family the engine would give the operation (obj_start), its upload's ids where it has one. */
    static const struct mpu_state ids = { .upload_id = "U", .stale_upload_id = "S", .list_marker = 3 };
    struct obj_upload up = { .head = { .family = FAM_UPLOAD }, .mpu = ids };
    struct obj_copy cp = { .head = { .family = FAM_COPY }, .mpu = ids };
    struct obj_dl_file dl = { .head = { .family = FAM_DL_FILE } };
    struct xfer_obj_state *os = op == XFER_UPLOAD ? &up.head : op == XFER_COPY ? &cp.head : &dl.head;
    struct req r = { .os = os, .kind = kind, .part = 2, .off = 10,
                     .len = kind == RK_PUT ? 0 : 5 }; /* a PutObject from memory, the others 5 bytes */
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_req q;
    size_t i, n;

    os->o = &o;
    os->n_parts = n_parts;
    o.src_bucket = "sb";
    o.dst_bucket = "db";
    r.query = (struct buf)BUF_INIT(1024);
    r.hdr_copy_src = (struct buf)BUF_INIT(1024);
    r.mem = (struct buf)BUF_INIT(1024);
    buf_adds(&r.hdr_copy_src, "sb/sk");
    snprintf(r.hdr_md5, sizeof(r.hdr_md5), "M");
    memset(&q, 0, sizeof(q));
    if (!g)
        return "out of memory";
    g->kinds = kinds;
    if (req_builders[kind].build(g, &r, &q, &e))
        snprintf(out, sizeof(out), "failed: %s", e.msg);
    else {
        n = (size_t)snprintf(out, sizeof(out), "%s %s/%s?%s |", q.method, q.bucket ? q.bucket : "-",
                             q.key ? q.key : "-", q.query ? q.query : "");
        for (i = 0; i < q.n_headers && n < sizeof(out); i++)
            n += (size_t)snprintf(out + n, sizeof(out) - n, " %s: %s;", q.headers[i].name, q.headers[i].value);
    }
    buf_release(&r.query);
    buf_release(&r.hdr_copy_src);
    buf_release(&r.mem);
    free(g);
    return out;
}

TEST(xfer_build_every_kind_has_a_builder)
{
    int k;

    for (k = 0; k < RK_COUNT; k++)
        CHECK(req_builders[k].build != NULL);
}

/* The object names a version (v1, xfer_obj.version_id): every request about its source carries it
 * (?versionId=), those about the destination never. */
TEST(xfer_build_each_kind_says_its_request)
{
    CHECK_STR(built(RK_PUT, XFER_UPLOAD, 0), "PUT db/dk? | Content-Type: binary/octet-stream; Content-MD5: M;");
    CHECK_STR(built(RK_CREATE, XFER_UPLOAD, 0), "POST db/dk?uploads= | Content-Type: binary/octet-stream;");
    CHECK_STR(built(RK_PART, XFER_UPLOAD, 1), "PUT db/dk?partNumber=2&uploadId=U |");
    CHECK_STR(built(RK_COMPLETE, XFER_UPLOAD, 1), "POST db/dk?uploadId=U | Content-Type: application/xml;");
    CHECK_STR(built(RK_ABORT, XFER_UPLOAD, 1), "DELETE db/dk?uploadId=U |");
    CHECK_STR(built(RK_ABORT_STALE, XFER_UPLOAD, 1), "DELETE db/dk?uploadId=S |");
    CHECK_STR(built(RK_LIST_PARTS, XFER_UPLOAD, 1), "GET db/dk?part-number-marker=3&uploadId=U |");
    CHECK_STR(built(RK_HEAD_DST, XFER_UPLOAD, 1), "HEAD db/dk? |");
    CHECK_STR(built(RK_GET, XFER_DOWNLOAD, 0), "GET sb/sk?versionId=v1 |");
    CHECK_STR(built(RK_GET, XFER_DOWNLOAD, 2), "GET sb/sk?versionId=v1 | Range: bytes=10-14; If-Match: \"e\";");
    CHECK_STR(built(RK_HEAD_INFO, XFER_DOWNLOAD, 0), "HEAD sb/sk?versionId=v1 | x-amz-checksum-mode: ENABLED; If-Match: \"e\";");
    CHECK_STR(built(RK_HEAD_PART1, XFER_DOWNLOAD, 0), "HEAD sb/sk?versionId=v1&partNumber=1 | If-Match: \"e\";");
    CHECK_STR(built(RK_COPY, XFER_COPY, 0),
              "PUT db/dk? | x-amz-copy-source: sb/sk; x-amz-metadata-directive: REPLACE;");
    CHECK_STR(built(RK_COPY_PART, XFER_COPY, 1),
              "PUT db/dk?partNumber=2&uploadId=U | x-amz-copy-source: sb/sk; x-amz-copy-source-range: bytes=10-14;");
    CHECK_STR(built(RK_HEAD_SRC, XFER_COPY, 0), "HEAD sb/sk?versionId=v1 |");
    /* A key list's source, before anything else: the family takes it as its own HEAD (RK_HEAD_INFO's
     * checksum mode; no If-Match: its ETag is what it learns). */
    CHECK_STR(built(RK_HEAD_SOURCE, XFER_DOWNLOAD, 0), "HEAD sb/sk?versionId=v1 | x-amz-checksum-mode: ENABLED;");
    CHECK_STR(built(RK_HEAD_SOURCE, XFER_COPY, 0), "HEAD sb/sk?versionId=v1 | x-amz-checksum-mode: ENABLED;");
    CHECK_STR(built(RK_HEAD_BUCKET, XFER_DOWNLOAD, 0), "HEAD sb/-? |");
    /* sync's same-second proof: each end's stored checksums, always asked for. */
    CHECK_STR(built(RK_PROVE_SRC, XFER_DOWNLOAD, 0), "HEAD sb/sk?versionId=v1 | x-amz-checksum-mode: ENABLED;");
    CHECK_STR(built(RK_PROVE_SRC, XFER_COPY, 0), "HEAD sb/sk?versionId=v1 | x-amz-checksum-mode: ENABLED;");
    CHECK_STR(built(RK_PROVE_DST, XFER_UPLOAD, 0), "HEAD db/dk? | x-amz-checksum-mode: ENABLED;");
    CHECK_STR(built(RK_GET_TAGS, XFER_COPY, 0), "GET sb/sk?versionId=v1&tagging= |");
    CHECK_STR(built(RK_PUT_TAGS, XFER_COPY, 0),
              "PUT db/dk?tagging= | Content-Type: application/xml; Content-MD5: M;");
    CHECK_STR(built(RK_CHECK_TAGS, XFER_COPY, 0), "GET db/dk?tagging= |");
    CHECK_STR(built(RK_DELETE, XFER_DELETE, 0),
              "POST sb/-?delete= | Content-Type: application/xml; Content-MD5: M;");
    CHECK_STR(built(RK_DELETE_ONE, XFER_DELETE, 0), "DELETE sb/sk?versionId=v1 |");
}

/* A copy's source names its version in x-amz-copy-source (CopyObject and UploadPartCopy), encoded. */
TEST(xfer_build_copy_source_names_the_version)
{
    struct xfer_obj o = { .op = XFER_COPY, .src = "a b/k", .src_bucket = "sb" };
    struct buf out = BUF_INIT(1024);

    CHECK(copy_source(&o, &out) == S3C_OK);
    CHECK_STR(buf_cstr(&out), "/sb/a%20b/k");
    buf_reset(&out);
    o.version_id = "v+1/2";
    CHECK(copy_source(&o, &out) == S3C_OK);
    CHECK_STR(buf_cstr(&out), "/sb/a%20b/k?versionId=v%2B1%2F2");
    buf_release(&out);
}

/* The SSE-C keys 'kind' carries for an object of 'op' with its own key "A..." and a copy source's "B...":
 * which key (A or B, by its MD5's first letters) under which header prefix. */
static const char *sse_c_sent(enum req_kind kind, enum xfer_op op)
{
    static char out[512];
    struct xfer_obj_opts oo = { .sse_c_key = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                                .sse_c_copy_source_key = "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" };
    struct xfer_obj o = { .op = op, .src = "sk", .src_bucket = "sb", .opts = &oo };
    struct xfer_obj_state os = { .o = &o };
    struct req r = { .os = &os, .kind = kind };
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_sse_c a, b;
    struct s3_req q;
    size_t i, n = 0;

    memset(&q, 0, sizeof(q));
    out[0] = 0;
    if (add_sse_c(&r, &q, &oo, &e) || s3_sse_c_init(&a, NULL, oo.sse_c_key, &e) ||
        s3_sse_c_init(&b, NULL, oo.sse_c_copy_source_key, &e))
        return "failed";
    for (i = 0; i < q.n_headers && n < sizeof(out); i++)
        if (strstr(q.headers[i].name, "key-MD5"))
            n += (size_t)snprintf(out + n, sizeof(out) - n, "%s=%s;", q.headers[i].name,
                                  !strcmp(q.headers[i].value, a.key_md5_b64) ? "A" :
                                  !strcmp(q.headers[i].value, b.key_md5_b64) ? "B" : "?");
    return out;
}

/* A key list's source HEAD carries the source's key: a download's own, a copy's source's, plain. */
TEST(xfer_build_head_source_carries_the_sources_sse_c_key)
{
    CHECK_STR(sse_c_sent(RK_HEAD_SOURCE, XFER_DOWNLOAD), "x-amz-server-side-encryption-customer-key-MD5=A;");
    CHECK_STR(sse_c_sent(RK_HEAD_SOURCE, XFER_COPY), "x-amz-server-side-encryption-customer-key-MD5=B;");
    CHECK_STR(sse_c_sent(RK_HEAD_SRC, XFER_COPY), "x-amz-server-side-encryption-customer-key-MD5=B;");
    CHECK_STR(sse_c_sent(RK_CHECK_DST, XFER_COPY), "x-amz-server-side-encryption-customer-key-MD5=A;");
    CHECK_STR(sse_c_sent(RK_COPY, XFER_COPY), "x-amz-server-side-encryption-customer-key-MD5=A;"
                                              "x-amz-copy-source-server-side-encryption-customer-key-MD5=B;");
    CHECK_STR(sse_c_sent(RK_HEAD_BUCKET, XFER_DOWNLOAD), "");
}

/* The SSE-C key of a same-second proof's HEAD (built by its builder, plain): 'A' the own key, 'B' a
 * copy source's; "" none. */
static const char *prove_key(enum req_kind kind, enum xfer_op op, bool src_key)
{
    static char out[8];
    struct xfer_obj_opts oo = { .sse_c_key = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                                .sse_c_copy_source_key = src_key ? "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" : NULL };
    struct xfer_obj o = { .op = op, .src = "sk", .src_bucket = "sb", .dst = "dk", .dst_bucket = "db", .opts = &oo };
    struct xfer_obj_state os = { .o = &o };
    struct req r = { .os = &os, .kind = kind };
    struct s3c_error e = S3C_ERROR_INIT;
    struct s3_sse_c a, b;
    struct s3_req q;
    size_t i;

    memset(&q, 0, sizeof(q));
    out[0] = 0;
    if (req_builders[kind].build(NULL, &r, &q, &e) || s3_sse_c_init(&a, NULL, oo.sse_c_key, &e) ||
        s3_sse_c_init(&b, NULL, "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB", &e))
        return "failed";
    for (i = 0; i < q.n_headers; i++) {
        if (strstr(q.headers[i].name, "copy-source"))
            return "copy-source header";
        if (strstr(q.headers[i].name, "key-MD5"))
            snprintf(out, sizeof(out), "%s", !strcmp(q.headers[i].value, a.key_md5_b64) ? "A" :
                                             !strcmp(q.headers[i].value, b.key_md5_b64) ? "B" : "?");
    }
    return out;
}

/* As sync's own HEADs sent them: the destination with the own key; the source with a copy
 * source's key when given, else the own key. */
TEST(xfer_build_prove_heads_carry_each_ends_sse_c_key)
{
    CHECK_STR(prove_key(RK_PROVE_DST, XFER_UPLOAD, false), "A");
    CHECK_STR(prove_key(RK_PROVE_DST, XFER_COPY, true), "A");
    CHECK_STR(prove_key(RK_PROVE_SRC, XFER_COPY, true), "B");
    CHECK_STR(prove_key(RK_PROVE_SRC, XFER_COPY, false), "A");
    CHECK_STR(prove_key(RK_PROVE_SRC, XFER_DOWNLOAD, false), "A");
}
