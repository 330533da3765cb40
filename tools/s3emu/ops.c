/*
 * ops: the S3 operations. on_head() names the operation as soon as the
 * request head is in (so faults and body caps apply before the body is
 * read); handle() runs it once the body is in: faults, rate limits, SigV4,
 * payload checks, then the operation against the store. Every answer is
 * built as S3 builds it: status, x-amz-* headers, XML body or error body.
 */
#include "emu.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth/sigv4.h"
#include "base/crc.h"
#include "base/hash.h"
#include "store.h"

#define XMLNS "http://s3.amazonaws.com/doc/2006-03-01/"
#define XML_DECL "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
#define OWNER_ID "75aa57f09aa0c8caeab4f8c24e99d10f8e7faeebf76c078efc7c6caea54ba06a"
#define OWNER_NAME "s3emu"
#define MAX_KEY_BYTES 1024

/* ---- small helpers ---- */

static void iso_time(int64_t ms, char out[48])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    snprintf(out, 48, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

static void http_time(int64_t ms, char out[40])
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 40, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

static int64_t parse_http_time(struct sv v)
{
    char tmp[64];
    struct tm tm;
    char *end;

    if (!v.p || v.n >= sizeof(tmp))
        return -1;
    memcpy(tmp, v.p, v.n);
    tmp[v.n] = 0;
    memset(&tm, 0, sizeof(tm));
    end = strptime(tmp, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (!end) {
        memset(&tm, 0, sizeof(tm));
        end = strptime(tmp, "%Y-%m-%dT%H:%M:%S", &tm);
    }
    if (!end)
        return -1;
    return (int64_t)timegm(&tm) * 1000;
}

static void md5_etag(const void *p, size_t n, char out[48])
{
    unsigned char d[MD5_LEN];
    char hex[2 * MD5_LEN + 1];

    hash_md5(p, n, d);
    str_hex(d, MD5_LEN, hex);
    snprintf(out, 48, "\"%s\"", hex);
}

/* Compare ETags ignoring quotes and a W/ prefix; "*" matches anything. */
static bool etag_match(struct sv want, const char *have)
{
    struct sv h = sv_from(have);

    if (h.n >= 2 && h.p[0] == '"')
        h.p++, h.n -= 2;
    while (want.n) {
        const char *comma = memchr(want.p, ',', want.n);
        size_t len = comma ? (size_t)(comma - want.p) : want.n;
        struct sv one = sv_trim((struct sv){ want.p, len });

        want.p += len;
        want.n -= len;
        if (comma)
            want.p++, want.n--;
        if (sv_starts(one, "W/"))
            one.p += 2, one.n -= 2;
        if (one.n == 1 && one.p[0] == '*')
            return true;
        if (one.n >= 2 && one.p[0] == '"')
            one.p++, one.n -= 2;
        if (sv_eq(one, h))
            return true;
    }
    return false;
}

/* S3's encoding-type=url: form-style, '/' kept, space as '+'. */
static void url_enc(struct buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t i;

    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/')
            buf_addc(b, (char)c);
        else if (c == ' ')
            buf_addc(b, '+');
        else
            buf_addf(b, "%%%c%c", hex[c >> 4], hex[c & 15]);
    }
}

static void xml_key(struct buf *b, const char *name, const char *s, size_t n, bool url)
{
    buf_addf(b, "<%s>", name);
    if (url) {
        struct buf t = BUF_INIT(1 << 16);
        url_enc(&t, s, n);
        emu_xml_esc(b, buf_cstr(&t), t.len);
        buf_release(&t);
    } else {
        emu_xml_esc(b, s, n);
    }
    buf_addf(b, "</%s>", name);
}

static void xml_open(struct buf *b, const char *root)
{
    buf_addf(b, XML_DECL "<%s xmlns=\"" XMLNS "\">", root);
}

static void owner_xml(struct buf *b, const char *tag)
{
    buf_addf(b, "<%s><ID>" OWNER_ID "</ID><DisplayName>" OWNER_NAME "</DisplayName></%s>", tag, tag);
}

/* ---- errors ---- */

static void error_x(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                    const char *msg, const char *extra_xml)
{
    struct emu_resp *r = &c->resp;
    struct emu_req *q = &c->req;
    char rid[17];

    buf_reset(&r->body);
    buf_reset(&r->hdrs);
    emu_blob_unref(r->blob);
    r->blob = NULL;
    snprintf(rid, sizeof(rid), "%016llX", (unsigned long long)q->id);
    buf_addf(&r->body, XML_DECL "<Error><Code>%s</Code><Message>", code);
    emu_xml_esc(&r->body, msg, strlen(msg));
    buf_adds(&r->body, "</Message>");
    if (extra_xml)
        buf_adds(&r->body, extra_xml);
    buf_addf(&r->body, "<RequestId>%s</RequestId><HostId>s3emu/%s</HostId></Error>", rid, rid);
    emu_resp_xml_body(r, status);
    if (sv_eqs(q->method, "HEAD")) {
        r->no_body = true;
        r->content_length = 0;
    }
    if (status == 503)
        emu_resp_header(r, "Retry-After", "1");
}

void emu_ops_error(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                   const char *msg)
{
    error_x(s, c, status, code, msg, NULL);
}

static void err_key(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                    const char *msg)
{
    struct buf x = BUF_INIT(1 << 16);

    if (c->req.key)
        xml_key(&x, "Key", c->req.key, c->req.klen, false);
    error_x(s, c, status, code, msg, buf_cstr(&x));
    buf_release(&x);
}

static void err_bucket(struct emu_server *s, struct emu_conn *c, int status, const char *code,
                       const char *msg)
{
    struct buf x = BUF_INIT(4096);

    if (c->req.bucket)
        emu_xml_elem(&x, "BucketName", c->req.bucket);
    error_x(s, c, status, code, msg, buf_cstr(&x));
    buf_release(&x);
}

static void no_such_bucket(struct emu_server *s, struct emu_conn *c)
{
    err_bucket(s, c, 404, "NoSuchBucket", "The specified bucket does not exist");
}

static void no_such_key(struct emu_server *s, struct emu_conn *c)
{
    err_key(s, c, 404, "NoSuchKey", "The specified key does not exist.");
}

static void no_such_upload(struct emu_server *s, struct emu_conn *c)
{
    struct buf x = BUF_INIT(4096);
    const char *id = emu_req_param(&c->req, "uploadId");

    emu_xml_elem(&x, "UploadId", id ? id : "");
    error_x(s, c, 404, "NoSuchUpload",
            "The specified upload does not exist. The upload ID may be invalid, or the upload may "
            "have been aborted or completed.", buf_cstr(&x));
    buf_release(&x);
}

static void ok_xml(struct emu_conn *c)
{
    emu_resp_xml_body(&c->resp, 200);
}

static void ok_empty(struct emu_conn *c, int status)
{
    c->resp.status = status;
    c->resp.content_length = 0;
}

/* ---- classification ---- */

static bool has_param(const struct emu_req *q, const char *name)
{
    return emu_req_param(q, name) != NULL;
}

static char *decode_path(struct sv in, size_t *len)
{
    struct buf b = BUF_INIT(1 << 16);
    size_t i;

    for (i = 0; i < in.n; i++) {
        unsigned int v;
        char h[3];

        if (in.p[i] == '%' && i + 2 < in.n + 0 && isxdigit((unsigned char)in.p[i + 1]) &&
            isxdigit((unsigned char)in.p[i + 2])) {
            h[0] = in.p[i + 1];
            h[1] = in.p[i + 2];
            h[2] = 0;
            v = (unsigned int)strtoul(h, NULL, 16);
            buf_addc(&b, (char)v);
            i += 2;
        } else {
            buf_addc(&b, in.p[i]);
        }
    }
    *len = b.len;
    return buf_detach(&b);
}

/* Bucket from a virtual-hosted Host ("b.localhost:9000", "b.s3.us-east-1.amazonaws.com"). */
static char *vhost_bucket(const struct emu_req *q)
{
    struct sv h = emu_req_header(q, "host");
    const char *colon, *cut = NULL;
    size_t i;

    if (!h.p)
        return NULL;
    colon = memchr(h.p, ':', h.n);
    if (colon)
        h.n = (size_t)(colon - h.p);
    if (h.n > 10 && strncasecmp(h.p + h.n - 10, ".localhost", 10) == 0)
        cut = h.p + h.n - 10;
    for (i = 1; !cut && i + 4 <= h.n; i++)
        if (h.p[i] == '.' && h.p[i + 1] == 's' && h.p[i + 2] == '3' &&
            (h.p[i + 3] == '.' || h.p[i + 3] == '-'))
            cut = h.p + i;
    if (!cut || cut == h.p)
        return NULL;
    return sv_dup((struct sv){ h.p, (size_t)(cut - h.p) });
}

/* Subresources S3 has and the emulator does not: answered 501, never mistaken for data ops. */
static const char *const unsupported[] = {
    "policy", "tagging", "lifecycle", "cors", "website", "logging", "notification",
    "replication", "encryption", "object-lock", "retention", "legal-hold", "torrent", "restore",
    "select", "analytics", "metrics", "inventory", "intelligent-tiering", "ownershipControls",
    "publicAccessBlock", "accelerate", "requestPayment", "attributes", "policyStatus", "session",
};

static enum emu_op classify(const struct emu_req *q)
{
    bool get = sv_eqs(q->method, "GET"), put = sv_eqs(q->method, "PUT");
    bool head = sv_eqs(q->method, "HEAD"), del = sv_eqs(q->method, "DELETE");
    bool post = sv_eqs(q->method, "POST");
    size_t i;

    for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
        if (has_param(q, unsupported[i]))
            return OP_UNKNOWN;
    if (!q->bucket)
        return get ? OP_LIST_BUCKETS : OP_UNKNOWN;
    if (has_param(q, "acl") && (get || put)) {
        if (!q->key)
            return get ? OP_GET_BUCKET_ACL : OP_PUT_BUCKET_ACL;
        return get ? OP_GET_OBJECT_ACL : OP_PUT_OBJECT_ACL;
    }
    if (!q->key) {
        if (put)
            return has_param(q, "versioning") ? OP_PUT_BUCKET_VERSIONING : OP_CREATE_BUCKET;
        if (head)
            return OP_HEAD_BUCKET;
        if (del)
            return OP_DELETE_BUCKET;
        if (post)
            return has_param(q, "delete") ? OP_DELETE_OBJECTS : OP_UNKNOWN;
        if (get) {
            if (has_param(q, "location"))
                return OP_GET_BUCKET_LOCATION;
            if (has_param(q, "versioning"))
                return OP_GET_BUCKET_VERSIONING;
            if (has_param(q, "uploads"))
                return OP_LIST_MPUS;
            if (has_param(q, "versions"))
                return OP_LIST_OBJECT_VERSIONS;
            {
                const char *lt = emu_req_param(q, "list-type");
                return lt && strcmp(lt, "2") == 0 ? OP_LIST_OBJECTS_V2 : OP_LIST_OBJECTS;
            }
        }
        return OP_UNKNOWN;
    }
    if (put) {
        bool copy = emu_req_header(q, "x-amz-copy-source").p != NULL;

        if (has_param(q, "uploadId"))
            return copy ? OP_UPLOAD_PART_COPY : OP_UPLOAD_PART;
        return copy ? OP_COPY_OBJECT : OP_PUT_OBJECT;
    }
    if (get)
        return has_param(q, "uploadId") ? OP_LIST_PARTS : OP_GET_OBJECT;
    if (head)
        return OP_HEAD_OBJECT;
    if (del)
        return has_param(q, "uploadId") ? OP_ABORT_MPU : OP_DELETE_OBJECT;
    if (post) {
        if (has_param(q, "uploads"))
            return OP_CREATE_MPU;
        if (has_param(q, "uploadId"))
            return OP_COMPLETE_MPU;
    }
    return OP_UNKNOWN;
}

void emu_ops_on_head(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct sv path = q->path_raw;

    if (sv_starts(path, "/_s3emu/")) {
        if (sv_eqs(path, "/_s3emu/stats"))
            q->op = sv_eqs(q->method, "DELETE") ? OP_ADMIN_RESET : OP_ADMIN_STATS;
        else if (sv_eqs(path, "/_s3emu/config"))
            q->op = OP_ADMIN_CONFIG;
        else if (sv_eqs(path, "/_s3emu/reset"))
            q->op = OP_ADMIN_RESET;
        else if (sv_eqs(path, "/_s3emu/populate"))
            q->op = OP_ADMIN_POPULATE;
        q->body_max = 1 << 20;
        return;
    }
    q->bucket = vhost_bucket(q);
    if (path.n && path.p[0] == '/')
        path.p++, path.n--;
    if (!q->bucket && path.n) {
        const char *sl = memchr(path.p, '/', path.n);
        size_t bl = sl ? (size_t)(sl - path.p) : path.n;
        size_t dl;

        q->bucket = decode_path((struct sv){ path.p, bl }, &dl);
        path.p += bl;
        path.n -= bl;
        if (path.n)
            path.p++, path.n--;
        if (sl && !path.n)
            path.n = 0;
    }
    if (q->bucket && path.n)
        q->key = decode_path(path, &q->klen);
    q->op = classify(q);
    EMU_STAT(s, requests, 1);
    EMU_STAT(s, by_op[q->op], 1);
    q->body_max = (q->op == OP_PUT_OBJECT || q->op == OP_UPLOAD_PART) ? EMU_BODY_MAX : EMU_XML_BODY_MAX;
    q->fault = emu_model_pick_fault(s, q, &q->fault_arg);
    if (q->fault == FAULT_RESET)
        c->resp.reset_now = true;
}

/* ---- stored headers and checksums ---- */

static const char *const kept_headers[] = {
    "Content-Type", "Content-Encoding", "Content-Disposition", "Content-Language",
    "Cache-Control", "Expires", "x-amz-website-redirect-location",
    "x-amz-server-side-encryption", "x-amz-server-side-encryption-aws-kms-key-id",
    "x-amz-tagging-count",
};

/* The headers S3 keeps with an object, rendered "Name: v\r\n"; malloc'd. */
static char *capture_headers(const struct emu_req *q, char sc[24])
{
    struct buf b = BUF_INIT(1 << 16);
    bool have_type = false;
    int i;
    size_t k;

    for (i = 0; i < q->n_hdrs; i++) {
        const struct emu_hdr *h = &q->hdrs[i];

        if (h->name.n > 11 && strncasecmp(h->name.p, "x-amz-meta-", 11) == 0) {
            size_t j;

            for (j = 0; j < h->name.n; j++)
                buf_addc(&b, (char)tolower((unsigned char)h->name.p[j]));
            buf_adds(&b, ": ");
            buf_addsv(&b, h->value);
            buf_adds(&b, "\r\n");
            continue;
        }
        if (sv_ieqs(h->name, "x-amz-storage-class")) {
            snprintf(sc, 24, "%.*s", (int)h->value.n, h->value.p);
            continue;
        }
        if (sv_ieqs(h->name, "content-encoding")) {
            /* aws-chunked is framing, not the object's encoding */
            struct sv v = h->value;
            if (sv_ieqs(v, "aws-chunked"))
                continue;
            if (sv_starts(v, "aws-chunked,"))
                v.p += 12, v.n -= 12;
            v = sv_trim(v);
            buf_addf(&b, "Content-Encoding: %.*s\r\n", (int)v.n, v.p);
            continue;
        }
        for (k = 0; k < sizeof(kept_headers) / sizeof(kept_headers[0]); k++) {
            if (sv_ieqs(h->name, kept_headers[k])) {
                buf_addf(&b, "%s: %.*s\r\n", kept_headers[k], (int)h->value.n, h->value.p);
                if (k == 0)
                    have_type = true;
            }
        }
    }
    if (!have_type)
        buf_adds(&b, "Content-Type: binary/octet-stream\r\n");
    return buf_detach(&b);
}

static const char *const ck_algos[] = { "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256" };

static const char *ck_algo_norm(struct sv v)
{
    size_t i;

    for (i = 0; i < sizeof(ck_algos) / sizeof(ck_algos[0]); i++)
        if (sv_ieqs(v, ck_algos[i]))
            return ck_algos[i];
    return NULL;
}

/* Raw checksum bytes of 'algo' over p[0..n); returns the length (4, 8, 20, 32). */
static size_t ck_raw(const char *algo, const void *p, size_t n, unsigned char out[32])
{
    unsigned int len = 0;

    if (!strcmp(algo, "CRC32") || !strcmp(algo, "CRC32C")) {
        uint32_t v = !strcmp(algo, "CRC32") ? crc_crc32_update(0, p, n) : crc_crc32c_update(0, p, n);
        out[0] = (unsigned char)(v >> 24), out[1] = (unsigned char)(v >> 16);
        out[2] = (unsigned char)(v >> 8), out[3] = (unsigned char)v;
        return 4;
    }
    if (!strcmp(algo, "CRC64NVME")) {
        uint64_t v = crc_crc64nvme_update(0, p, n);
        int i;
        for (i = 0; i < 8; i++)
            out[i] = (unsigned char)(v >> (56 - 8 * i));
        return 8;
    }
    if (!strcmp(algo, "SHA1")) {
        EVP_Digest(p, n, out, &len, EVP_sha1(), NULL);
        return 20;
    }
    hash_sha256(p, n, out);
    return 32;
}

static void ck_b64(const char *algo, const void *p, size_t n, char out[96])
{
    unsigned char raw[32];
    size_t len = ck_raw(algo, p, n, raw);
    struct buf b = BUF_INIT(96);

    base64_encode(raw, len, &b);
    str_copy(out, 96, buf_cstr(&b));
    buf_release(&b);
}

/* ck_b64 of the request body, from the digest taken on the way in when there is one. */
static void body_ck_b64(const struct emu_conn *c, const char *algo, const void *p, size_t n, char out[96])
{
    unsigned char raw[32];
    size_t len = emu_body_checksum(c, algo, raw);
    struct buf b = BUF_INIT(96);

    if (!len) {
        ck_b64(algo, p, n, out);
        return;
    }
    base64_encode(raw, len, &b);
    str_copy(out, 96, buf_cstr(&b));
    buf_release(&b);
}

/* The ETag of the request body (its MD5, hashed once). */
static void body_etag(const struct emu_conn *c, const void *p, size_t n, char out[48])
{
    unsigned char d[MD5_LEN];
    char hex[2 * MD5_LEN + 1];

    emu_body_md5(c, p, n, d);
    str_hex(d, MD5_LEN, hex);
    snprintf(out, 48, "\"%s\"", hex);
}

static void ck_header_name(const char *algo, char out[40])
{
    size_t i;

    snprintf(out, 40, "x-amz-checksum-%s", algo);
    for (i = 15; out[i]; i++)
        out[i] = (char)tolower((unsigned char)out[i]);
}

/* "ChecksumCRC32" etc. */
static void ck_xml_name(const char *algo, char out[32])
{
    snprintf(out, 32, "Checksum%s", algo);
}

/*
 * Check the payload of a body-carrying request: aws-chunked framing, signed
 * payload hash, Content-MD5 and x-amz-checksum-* (header or trailer). On
 * success 'ck' holds the verified checksum (algo "" when none was sent).
 * Returns 0, or -1 after writing the error response.
 */
static int check_payload(struct emu_server *s, struct emu_conn *c, struct emu_auth_result *ar,
                         struct emu_cksum *ck)
{
    struct emu_req *q = &c->req;
    struct sv sha = emu_req_header(q, "x-amz-content-sha256");
    struct sv ce = emu_req_header(q, "content-encoding");
    struct sv md5h = emu_req_header(q, "content-md5");
    struct buf trailers = BUF_INIT(8192), tmp = BUF_INIT(256);
    struct emu_blob *b = q->body;
    const char *data = b ? b->data : "";
    size_t n = b ? (size_t)b->len : 0;
    const char *algo = NULL;
    struct sv given = { NULL, 0 };
    int rc = -1, i;

    memset(ck, 0, sizeof(*ck));
    if (b && ((sha.p && sv_starts(sha, "STREAMING-")) || (ce.p && memmem(ce.p, ce.n, "aws-chunked", 11)))) {
        const char *code = NULL, *msg = NULL;
        struct sv dl = emu_req_header(q, "x-amz-decoded-content-length");
        uint64_t want;

        if (emu_auth_decode_chunked(b, ar, &trailers, &code, &msg)) {
            error_x(s, c, strcmp(code, "SignatureDoesNotMatch") ? 400 : 403, code, msg, NULL);
            goto out;
        }
        if (dl.p && sv_to_u64(dl, &want) && want != b->len) {
            error_x(s, c, 400, "IncompleteBody",
                    "You did not provide the number of bytes specified by the Content-Length HTTP header", NULL);
            goto out;
        }
        data = b->data;
        n = (size_t)b->len;
    } else if (ar->signed_payload) {
        char hex[65];

        emu_body_sha256_hex(c, data, n, hex);
        if (strncasecmp(hex, ar->payload_sha, 64) != 0) {
            struct buf x = BUF_INIT(512);
            buf_addf(&x, "<ClientComputedContentSHA256>%s</ClientComputedContentSHA256>"
                         "<S3ComputedContentSHA256>%s</S3ComputedContentSHA256>", ar->payload_sha, hex);
            error_x(s, c, 400, "XAmzContentSHA256Mismatch",
                    "The provided 'x-amz-content-sha256' header does not match what was computed.",
                    buf_cstr(&x));
            buf_release(&x);
            goto out;
        }
    }
    if (md5h.p) {
        unsigned char d[MD5_LEN];

        if (base64_decode(md5h, &tmp) || tmp.len != MD5_LEN) {
            error_x(s, c, 400, "InvalidDigest", "The Content-MD5 you specified was invalid.", NULL);
            goto out;
        }
        emu_body_md5(c, data, n, d);
        if (memcmp(d, tmp.data, MD5_LEN) != 0) {
            error_x(s, c, 400, "BadDigest", "The Content-MD5 you specified did not match what we received.", NULL);
            goto out;
        }
    }
    /* x-amz-checksum-<algo>: from a header, else from the aws-chunked trailer */
    for (i = 0; i < q->n_hdrs && !algo; i++) {
        struct sv nm = q->hdrs[i].name;
        if (nm.n > 15 && strncasecmp(nm.p, "x-amz-checksum-", 15) == 0 &&
            (algo = ck_algo_norm((struct sv){ nm.p + 15, nm.n - 15 })))
            given = q->hdrs[i].value;
    }
    if (!algo && trailers.len) {
        struct sv t = buf_sv(&trailers);

        while (t.n && !algo) {
            const char *nl = memchr(t.p, '\n', t.n);
            struct sv line = { t.p, nl ? (size_t)(nl - t.p) : t.n };
            const char *colon = memchr(line.p, ':', line.n);

            t.p += line.n + (nl ? 1 : 0);
            t.n -= line.n + (nl ? 1 : 0);
            if (colon && sv_starts(line, "x-amz-checksum-") &&
                (algo = ck_algo_norm((struct sv){ line.p + 15, (size_t)(colon - line.p) - 15 })))
                given = sv_trim((struct sv){ colon + 1, line.n - (size_t)(colon - line.p) - 1 });
        }
    }
    if (algo) {
        char got[96];

        body_ck_b64(c, algo, data, n, got);
        if (!sv_eqs(given, got)) {
            char m[128];
            snprintf(m, sizeof(m), "The %s you specified did not match the calculated checksum.", algo);
            error_x(s, c, 400, "BadDigest", m, NULL);
            goto out;
        }
        str_copy(ck->algo, sizeof(ck->algo), algo);
        str_copy(ck->value, sizeof(ck->value), got);
        str_copy(ck->type, sizeof(ck->type), "FULL_OBJECT");
    }
    rc = 0;
out:
    buf_release(&trailers);
    buf_release(&tmp);
    return rc;
}

/* ---- SSE-C ---- */

/*
 * The customer key a request gives (x-amz-server-side-encryption-customer-*, or
 * the x-amz-copy-source-... ones of a copy's source) as the base64 MD5 S3 keeps,
 * "" when it gives none. Checked as S3 does: AES256, a 256-bit key, its MD5.
 * Non-zero when the request was answered (400).
 */
static int ssec_take(struct emu_server *s, struct emu_conn *c, bool copy_source, char md5_out[28])
{
    const char *pre = copy_source ? "x-amz-copy-source-server-side-encryption-customer-"
                                  : "x-amz-server-side-encryption-customer-";
    char n_alg[80], n_key[80], n_md5[80];
    struct sv alg, key, md5;
    struct buf raw = BUF_INIT(64), b64 = BUF_INIT(64);
    unsigned char d[MD5_LEN];
    int rc = 0;

    snprintf(n_alg, sizeof(n_alg), "%salgorithm", pre);
    snprintf(n_key, sizeof(n_key), "%skey", pre);
    snprintf(n_md5, sizeof(n_md5), "%skey-md5", pre);
    alg = emu_req_header(&c->req, n_alg);
    key = emu_req_header(&c->req, n_key);
    md5 = emu_req_header(&c->req, n_md5);
    md5_out[0] = '\0';
    if (!alg.p && !key.p && !md5.p)
        return 0;
    if (!alg.p || !sv_eqs(alg, "AES256")) {
        error_x(s, c, 400, "InvalidEncryptionAlgorithmError", "The encryption request you specified is not valid. "
                "The valid value is AES256.", NULL);
        rc = 400;
    } else if (!key.p || base64_decode(key, &raw) || raw.len != 32) {
        error_x(s, c, 400, "InvalidArgument", "The secret key was invalid for the specified algorithm.", NULL);
        rc = 400;
    } else {
        hash_md5(raw.data, raw.len, d);
        base64_encode(d, MD5_LEN, &b64);
        if (!md5.p || !sv_eqs(md5, buf_cstr(&b64))) {
            error_x(s, c, 400, "InvalidArgument", "The calculated MD5 hash of the key did not match the hash "
                    "that was provided.", NULL);
            rc = 400;
        } else {
            str_copy(md5_out, 28, buf_cstr(&b64));
        }
    }
    buf_release(&raw);
    buf_release(&b64);
    return rc;
}

/* Reading (or adding parts to) what was written with key 'stored' ("" none): the
 * request must give the same key. Non-zero when answered. */
static int ssec_check(struct emu_server *s, struct emu_conn *c, const char *stored, bool copy_source)
{
    char given[28];

    if (ssec_take(s, c, copy_source, given))
        return 400;
    if (!stored[0] && !given[0])
        return 0;
    if (!given[0]) {
        error_x(s, c, 400, "InvalidRequest", "The object was stored using a form of Server Side Encryption. The "
                "correct parameters must be provided to retrieve the object.", NULL);
        return 400;
    }
    if (!stored[0]) {
        error_x(s, c, 400, "InvalidRequest", "The encryption parameters are not applicable to this object.", NULL);
        return 400;
    }
    if (strcmp(stored, given) != 0) {
        error_x(s, c, 403, "AccessDenied", "Access Denied", NULL);
        return 403;
    }
    return 0;
}

static void ssec_headers(struct emu_conn *c, const char *md5)
{
    if (!md5[0])
        return;
    emu_resp_header(&c->resp, "x-amz-server-side-encryption-customer-algorithm", "AES256");
    emu_resp_header(&c->resp, "x-amz-server-side-encryption-customer-key-MD5", "%s", md5);
}

/* Response headers of an object (GET, HEAD). */
static void obj_headers(struct emu_conn *c, const struct emu_bucket *b, const struct emu_obj *o,
                        bool with_checksum)
{
    struct emu_resp *r = &c->resp;
    char t[40];

    static const char *const overrides[][2] = {
        { "response-content-type", "Content-Type" },
        { "response-content-language", "Content-Language" },
        { "response-expires", "Expires" },
        { "response-cache-control", "Cache-Control" },
        { "response-content-disposition", "Content-Disposition" },
        { "response-content-encoding", "Content-Encoding" },
    };
    const char *ov[6];
    const char *line = o->hdrs;
    size_t i;

    http_time(o->mtime_ms, t);
    emu_resp_header(r, "Last-Modified", "%s", t);
    emu_resp_header(r, "ETag", "%s", o->etag);
    for (i = 0; i < 6; i++)
        ov[i] = emu_req_param(&c->req, overrides[i][0]);
    /* Stored headers, minus those a response-* parameter overrides (GET ?response-content-type=...). */
    while (*line) {
        const char *eol = strstr(line, "\r\n");
        size_t len = eol ? (size_t)(eol - line) + 2 : strlen(line);
        bool skip = false;

        for (i = 0; i < 6; i++) {
            size_t hl = strlen(overrides[i][1]);
            if (ov[i] && strncasecmp(line, overrides[i][1], hl) == 0 && line[hl] == ':')
                skip = true;
        }
        if (!skip)
            buf_add(&r->hdrs, line, len);
        line += len;
    }
    for (i = 0; i < 6; i++)
        if (ov[i])
            emu_resp_header(r, overrides[i][1], "%s", ov[i]);
    emu_resp_header(r, "Accept-Ranges", "bytes");
    if (b->versioning != VER_NONE)
        emu_resp_header(r, "x-amz-version-id", "%s", o->vid);
    if (strcmp(o->storage_class, "STANDARD") != 0)
        emu_resp_header(r, "x-amz-storage-class", "%s", o->storage_class);
    if (with_checksum && o->ck.algo[0]) {
        char hn[40];
        ck_header_name(o->ck.algo, hn);
        emu_resp_header(r, hn, "%s", o->ck.value);
        emu_resp_header(r, "x-amz-checksum-type", "%s", o->ck.type);
    }
}


/* ---- canned ACLs ---- */

static const char *const canned_acls[] = {
    "private", "public-read", "public-read-write", "authenticated-read", "aws-exec-read",
    "bucket-owner-read", "bucket-owner-full-control", "log-delivery-write",
};

/*
 * The x-amz-acl of the request into 'out' ("private" when absent).
 * false (answered 400) for an unknown canned ACL.
 */
static bool request_acl(struct emu_server *s, struct emu_conn *c, char out[32])
{
    struct sv v = emu_req_header(&c->req, "x-amz-acl");
    size_t i;

    str_copy(out, 32, "private");
    if (!v.p)
        return true;
    for (i = 0; i < sizeof(canned_acls) / sizeof(canned_acls[0]); i++) {
        if (sv_eqs(v, canned_acls[i])) {
            str_copy(out, 32, canned_acls[i]);
            return true;
        }
    }
    error_x(s, c, 400, "InvalidArgument", "The canned ACL you provided is not valid.", NULL);
    return false;
}

static void acl_xml(struct buf *x, const char *acl)
{
    static const char grantee_user[] =
        "<Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"CanonicalUser\">"
        "<ID>" OWNER_ID "</ID><DisplayName>" OWNER_NAME "</DisplayName></Grantee>";
    static const char all_users[] =
        "<Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"Group\">"
        "<URI>http://acs.amazonaws.com/groups/global/AllUsers</URI></Grantee>";

    xml_open(x, "AccessControlPolicy");
    owner_xml(x, "Owner");
    buf_addf(x, "<AccessControlList><Grant>%s<Permission>FULL_CONTROL</Permission></Grant>", grantee_user);
    if (!strcmp(acl, "public-read") || !strcmp(acl, "public-read-write"))
        buf_addf(x, "<Grant>%s<Permission>READ</Permission></Grant>", all_users);
    if (!strcmp(acl, "public-read-write"))
        buf_addf(x, "<Grant>%s<Permission>WRITE</Permission></Grant>", all_users);
    buf_adds(x, "</AccessControlList></AccessControlPolicy>");
}

/* PUT ?acl: a canned ACL header, or a grant list (AllUsers READ/WRITE is all we model). */
static void op_put_acl(struct emu_server *s, struct emu_conn *c, char acl[32])
{
    struct emu_req *q = &c->req;
    char v[32];

    if (emu_req_header(q, "x-amz-acl").p) {
        if (!request_acl(s, c, v))
            return;
    } else if (q->body && q->body->len) {
        const char *d = q->body->data;
        size_t n = (size_t)q->body->len;
        bool all = memmem(d, n, "AllUsers", 8) != NULL;
        str_copy(v, sizeof(v), !all ? "private"
                 : memmem(d, n, "<Permission>WRITE</Permission>", 30) ? "public-read-write" : "public-read");
    } else {
        error_x(s, c, 400, "MissingSecurityHeader", "Your request was missing a required header",
                "<MissingHeaderName>x-amz-acl</MissingHeaderName>");
        return;
    }
    str_copy(acl, 32, v);
    ok_empty(c, 200);
}

/* May an unsigned request do this, given the canned ACLs of the bucket and the object? */
static bool public_allows(struct emu_bucket *b, struct emu_req *q)
{
    bool bucket_read = !strcmp(b->acl, "public-read") || !strcmp(b->acl, "public-read-write");
    bool bucket_write = !strcmp(b->acl, "public-read-write");

    switch (q->op) {
    case OP_HEAD_BUCKET: case OP_LIST_OBJECTS: case OP_LIST_OBJECTS_V2: case OP_LIST_OBJECT_VERSIONS:
    case OP_GET_BUCKET_LOCATION: case OP_LIST_MPUS:
        return bucket_read;
    case OP_GET_OBJECT: case OP_HEAD_OBJECT: {
        struct emu_obj *o = emu_store_get(b, q->key, q->klen, emu_req_param(q, "versionId"));
        if (!o || o->delete_marker)
            return bucket_read; /* S3 answers 404 to those who may list, 403 to others */
        return !strcmp(o->acl, "public-read") || !strcmp(o->acl, "public-read-write");
    }
    case OP_PUT_OBJECT: case OP_DELETE_OBJECT: case OP_DELETE_OBJECTS: case OP_CREATE_MPU:
    case OP_UPLOAD_PART: case OP_COMPLETE_MPU: case OP_ABORT_MPU:
        return bucket_write;
    default:
        return false;
    }
}

/* ---- bucket operations ---- */

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

static void op_list_buckets(struct emu_server *s, struct emu_conn *c)
{
    struct buf *x = &c->resp.body;
    struct emu_sl_node *n;
    char t[48];

    xml_open(x, "ListAllMyBucketsResult");
    owner_xml(x, "Owner");
    buf_adds(x, "<Buckets>");
    for (n = emu_sl_first(&s->buckets); n; n = emu_sl_next(n)) {
        struct emu_bucket *b = n->val;

        iso_time(b->created_ms, t);
        buf_adds(x, "<Bucket>");
        emu_xml_elem(x, "Name", b->name);
        emu_xml_elem(x, "CreationDate", t);
        emu_xml_elem(x, "BucketRegion", b->region);
        buf_adds(x, "</Bucket>");
    }
    buf_adds(x, "</Buckets></ListAllMyBucketsResult>");
    ok_xml(c);
}

static void op_create_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct loc_ctx l = { "", false };
    struct emu_bucket *nb;
    char acl[32];

    if (q->body && q->body->len &&
        (emu_xml_walk(q->body->data, (size_t)q->body->len, loc_cb, &l) || l.bad)) {
        error_x(s, c, 400, "MalformedXML",
                "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        return;
    }
    if (!valid_bucket_name(q->bucket)) {
        err_bucket(s, c, 400, "InvalidBucketName", "The specified bucket is not valid.");
        return;
    }
    if (!strcmp(l.loc, "us-east-1")) {
        struct buf x = BUF_INIT(256);
        emu_xml_elem(&x, "LocationConstraint", l.loc);
        error_x(s, c, 400, "InvalidLocationConstraint", "The specified location-constraint is not valid",
                buf_cstr(&x));
        buf_release(&x);
        return;
    }
    if (b) {
        err_bucket(s, c, 409, "BucketAlreadyOwnedByYou",
                   "Your previous request to create the named bucket succeeded and you already own it.");
        return;
    }
    if (!request_acl(s, c, acl))
        return;
    nb = emu_store_bucket_create(s, q->bucket, l.loc[0] ? l.loc : s->region);
    if (!nb) {
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    str_copy(nb->acl, sizeof(nb->acl), acl);
    emu_resp_header(&c->resp, "Location", "/%s", q->bucket);
    ok_empty(c, 200);
}

static void op_delete_bucket(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    if (!emu_store_bucket_empty(b)) {
        err_bucket(s, c, 409, "BucketNotEmpty", "The bucket you tried to delete is not empty");
        return;
    }
    emu_store_bucket_delete(s, b);
    ok_empty(c, 204);
}

static void op_get_location(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct buf *x = &c->resp.body;

    buf_adds(x, XML_DECL "<LocationConstraint xmlns=\"" XMLNS "\">");
    if (strcmp(b->region, "us-east-1") != 0)
        emu_xml_esc(x, b->region, strlen(b->region));
    buf_adds(x, "</LocationConstraint>");
    ok_xml(c);
}

static void op_get_versioning(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct buf *x = &c->resp.body;

    xml_open(x, "VersioningConfiguration");
    if (b->versioning == VER_ENABLED)
        buf_adds(x, "<Status>Enabled</Status>");
    else if (b->versioning == VER_SUSPENDED)
        buf_adds(x, "<Status>Suspended</Status>");
    buf_adds(x, "</VersioningConfiguration>");
    ok_xml(c);
}

struct ver_ctx {
    char status[16];
};

static void ver_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct ver_ctx *v = ctx;

    if (!strcmp(name, "Status"))
        str_copy(v->status, sizeof(v->status), text);
}

static void op_put_versioning(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct ver_ctx v = { "" };

    if (!q->body || emu_xml_walk(q->body->data, (size_t)q->body->len, ver_cb, &v) ||
        (strcmp(v.status, "Enabled") && strcmp(v.status, "Suspended"))) {
        error_x(s, c, 400, "MalformedXML",
                "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        return;
    }
    b->versioning = !strcmp(v.status, "Enabled") ? VER_ENABLED : VER_SUSPENDED;
    ok_empty(c, 200);
}

/* ---- listings ---- */

/* First node past every key that starts with p[0..n). */
static struct emu_sl_node *seek_past_prefix(const struct emu_sl *sl, const char *p, size_t n)
{
    char tmp[MAX_KEY_BYTES + 8];

    if (n > sizeof(tmp))
        return NULL;
    memcpy(tmp, p, n);
    while (n && (unsigned char)tmp[n - 1] == 0xff)
        n--;
    if (!n)
        return NULL;
    tmp[n - 1]++;
    return emu_sl_seek(sl, tmp, n, 0);
}

static int key_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);

    return c ? c : (an < bn ? -1 : an > bn);
}

static bool get_max(struct emu_server *s, struct emu_conn *c, const char *name, int *out)
{
    const char *v = emu_req_param(&c->req, name);
    uint64_t n;

    *out = 1000;
    if (!v)
        return true;
    if (!sv_to_u64(sv_from(v), &n)) {
        error_x(s, c, 400, "InvalidArgument", "Provided max-keys not an integer or within integer range", NULL);
        return false;
    }
    *out = n > 1000 ? 1000 : (int)n;
    return true;
}

static void contents_xml(struct buf *x, const char *key, size_t klen, const struct emu_obj *o,
                         bool url, bool owner)
{
    char t[48];

    iso_time(o->mtime_ms, t);
    buf_adds(x, "<Contents>");
    xml_key(x, "Key", key, klen, url);
    buf_addf(x, "<LastModified>%s</LastModified><ETag>", t);
    emu_xml_esc(x, o->etag, strlen(o->etag));
    buf_adds(x, "</ETag>");
    if (o->ck.algo[0])
        buf_addf(x, "<ChecksumAlgorithm>%s</ChecksumAlgorithm><ChecksumType>%s</ChecksumType>",
                 o->ck.algo, o->ck.type);
    buf_addf(x, "<Size>%llu</Size>", (unsigned long long)o->size);
    if (owner)
        owner_xml(x, "Owner");
    buf_addf(x, "<StorageClass>%s</StorageClass></Contents>", o->storage_class);
}

/* ListObjects (v1) and ListObjectsV2: one walk, two spellings. */
static void op_list(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b, bool v2)
{
    struct emu_req *q = &c->req;
    const char *prefix = emu_req_param(q, "prefix");
    const char *delim = emu_req_param(q, "delimiter");
    const char *enc = emu_req_param(q, "encoding-type");
    const char *start_after = emu_req_param(q, v2 ? "start-after" : "marker");
    const char *token = v2 ? emu_req_param(q, "continuation-token") : NULL;
    const char *fo = emu_req_param(q, "fetch-owner");
    bool url = enc && !strcmp(enc, "url"), owner = !v2 || (fo && !strcmp(fo, "true"));
    struct buf contents = BUF_INIT((size_t)64 << 20), cps = BUF_INIT((size_t)16 << 20);
    struct buf marker = BUF_INIT(4096), next = BUF_INIT(4096);
    struct buf *x = &c->resp.body;
    size_t plen = prefix ? strlen(prefix) : 0, dlen = delim ? strlen(delim) : 0;
    struct emu_sl_node *n;
    int max, count = 0;
    bool truncated = false;

    if (enc && strcmp(enc, "url") != 0) {
        error_x(s, c, 400, "InvalidArgument", "Invalid Encoding Method specified in Request", NULL);
        goto out;
    }
    if (!get_max(s, c, "max-keys", &max))
        goto out;
    if (token) {
        if (base64_decode(sv_from(token), &marker)) {
            error_x(s, c, 400, "InvalidArgument", "The continuation token provided is incorrect", NULL);
            goto out;
        }
    } else if (start_after) {
        buf_adds(&marker, start_after);
    }
    n = emu_sl_seek(&b->keys, prefix ? prefix : "", plen, 0);
    if (marker.len && (!prefix || key_cmp(marker.data, marker.len, prefix, plen) >= 0))
        n = emu_sl_seek(&b->keys, marker.data, marker.len, 1);
    while (n) {
        const struct emu_obj *o = n->val;

        if (plen && (n->klen < plen || memcmp(n->key, prefix, plen) != 0))
            break;
        if (dlen) {
            const char *d = memmem(n->key + plen, n->klen - plen, delim, dlen);

            if (d) {
                size_t cpl = (size_t)(d - n->key) + dlen;

                if (marker.len && key_cmp(n->key, cpl, marker.data, marker.len) <= 0) {
                    n = seek_past_prefix(&b->keys, n->key, cpl);
                    continue;
                }
                if (count == max) {
                    truncated = true;
                    break;
                }
                buf_adds(&cps, "<CommonPrefixes>");
                xml_key(&cps, "Prefix", n->key, cpl, url);
                buf_adds(&cps, "</CommonPrefixes>");
                count++;
                buf_reset(&next);
                buf_add(&next, n->key, cpl);
                n = seek_past_prefix(&b->keys, n->key, cpl);
                continue;
            }
        }
        if (o->delete_marker) {
            n = emu_sl_next(n);
            continue;
        }
        if (count == max) {
            truncated = true;
            break;
        }
        contents_xml(&contents, n->key, n->klen, o, url, owner);
        count++;
        buf_reset(&next);
        buf_add(&next, n->key, n->klen);
        n = emu_sl_next(n);
    }
    if (!n)
        truncated = false;

    xml_open(x, "ListBucketResult");
    emu_xml_elem(x, "Name", b->name);
    xml_key(x, "Prefix", prefix ? prefix : "", plen, url);
    if (v2) {
        if (start_after)
            xml_key(x, "StartAfter", start_after, strlen(start_after), url);
        if (token)
            emu_xml_elem(x, "ContinuationToken", token);
        buf_addf(x, "<KeyCount>%d</KeyCount>", count);
    } else {
        xml_key(x, "Marker", start_after ? start_after : "", start_after ? strlen(start_after) : 0, url);
    }
    buf_addf(x, "<MaxKeys>%d</MaxKeys>", max);
    if (delim)
        xml_key(x, "Delimiter", delim, dlen, url);
    if (url)
        buf_adds(x, "<EncodingType>url</EncodingType>");
    buf_addf(x, "<IsTruncated>%s</IsTruncated>", truncated ? "true" : "false");
    if (truncated && v2) {
        struct buf t = BUF_INIT(8192);
        base64_encode(next.data, next.len, &t);
        emu_xml_elem(x, "NextContinuationToken", buf_cstr(&t));
        buf_release(&t);
    } else if (truncated && delim) {
        xml_key(x, "NextMarker", next.data, next.len, url);
    }
    buf_addsv(x, buf_sv(&contents));
    buf_addsv(x, buf_sv(&cps));
    buf_adds(x, "</ListBucketResult>");
    ok_xml(c);
out:
    buf_release(&contents);
    buf_release(&cps);
    buf_release(&marker);
    buf_release(&next);
}

static void op_list_versions(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    const char *prefix = emu_req_param(q, "prefix");
    const char *delim = emu_req_param(q, "delimiter");
    const char *enc = emu_req_param(q, "encoding-type");
    const char *km = emu_req_param(q, "key-marker");
    const char *vm = emu_req_param(q, "version-id-marker");
    bool url = enc && !strcmp(enc, "url");
    struct buf items = BUF_INIT((size_t)64 << 20), cps = BUF_INIT((size_t)16 << 20);
    struct buf nk = BUF_INIT(4096), nv = BUF_INIT(64);
    struct buf *x = &c->resp.body;
    size_t plen = prefix ? strlen(prefix) : 0, dlen = delim ? strlen(delim) : 0;
    struct emu_sl_node *n;
    int max, count = 0;
    bool truncated = false;

    if (!get_max(s, c, "max-keys", &max))
        goto out;
    n = emu_sl_seek(&b->keys, prefix ? prefix : "", plen, 0);
    if (km && *km && (!prefix || strcmp(km, prefix) >= 0))
        n = emu_sl_seek(&b->keys, km, strlen(km), !(vm && *vm));
    for (; n && !truncated; ) {
        const struct emu_obj *o = n->val;
        bool skipping = vm && *vm && km && n->klen == strlen(km) && !memcmp(n->key, km, n->klen);

        if (plen && (n->klen < plen || memcmp(n->key, prefix, plen) != 0))
            break;
        if (dlen) {
            const char *d = memmem(n->key + plen, n->klen - plen, delim, dlen);

            if (d) {
                size_t cpl = (size_t)(d - n->key) + dlen;

                if (km && *km && key_cmp(n->key, cpl, km, strlen(km)) <= 0) {
                    n = seek_past_prefix(&b->keys, n->key, cpl);
                    continue;
                }
                if (count == max) {
                    truncated = true;
                    break;
                }
                buf_adds(&cps, "<CommonPrefixes>");
                xml_key(&cps, "Prefix", n->key, cpl, url);
                buf_adds(&cps, "</CommonPrefixes>");
                count++;
                buf_reset(&nk);
                buf_add(&nk, n->key, cpl);
                buf_reset(&nv);
                n = seek_past_prefix(&b->keys, n->key, cpl);
                continue;
            }
        }
        for (; o; o = o->older) {
            char t[48];

            if (skipping) {
                if (!strcmp(o->vid, vm))
                    skipping = false;
                continue;
            }
            if (count == max) {
                truncated = true;
                break;
            }
            iso_time(o->mtime_ms, t);
            buf_adds(&items, o->delete_marker ? "<DeleteMarker>" : "<Version>");
            xml_key(&items, "Key", n->key, n->klen, url);
            buf_addf(&items, "<VersionId>%s</VersionId><IsLatest>%s</IsLatest><LastModified>%s</LastModified>",
                     o->vid, o == n->val ? "true" : "false", t);
            if (!o->delete_marker) {
                buf_adds(&items, "<ETag>");
                emu_xml_esc(&items, o->etag, strlen(o->etag));
                buf_addf(&items, "</ETag><Size>%llu</Size>", (unsigned long long)o->size);
            }
            owner_xml(&items, "Owner");
            if (!o->delete_marker)
                buf_addf(&items, "<StorageClass>%s</StorageClass>", o->storage_class);
            buf_adds(&items, o->delete_marker ? "</DeleteMarker>" : "</Version>");
            count++;
            buf_reset(&nk);
            buf_add(&nk, n->key, n->klen);
            buf_reset(&nv);
            buf_adds(&nv, o->vid);
        }
        if (!truncated)
            n = emu_sl_next(n);
    }
    xml_open(x, "ListVersionsResult");
    emu_xml_elem(x, "Name", b->name);
    xml_key(x, "Prefix", prefix ? prefix : "", plen, url);
    xml_key(x, "KeyMarker", km ? km : "", km ? strlen(km) : 0, url);
    emu_xml_elem(x, "VersionIdMarker", vm ? vm : "");
    buf_addf(x, "<MaxKeys>%d</MaxKeys>", max);
    if (delim)
        xml_key(x, "Delimiter", delim, dlen, url);
    if (url)
        buf_adds(x, "<EncodingType>url</EncodingType>");
    buf_addf(x, "<IsTruncated>%s</IsTruncated>", truncated ? "true" : "false");
    if (truncated) {
        xml_key(x, "NextKeyMarker", nk.data ? nk.data : "", nk.len, url);
        emu_xml_elem(x, "NextVersionIdMarker", buf_cstr(&nv));
    }
    buf_addsv(x, buf_sv(&items));
    buf_addsv(x, buf_sv(&cps));
    buf_adds(x, "</ListVersionsResult>");
    ok_xml(c);
out:
    buf_release(&items);
    buf_release(&cps);
    buf_release(&nk);
    buf_release(&nv);
}

/* ---- objects ---- */

static void set_body_blob(struct emu_conn *c, struct emu_blob *blob, uint64_t off, uint64_t len)
{
    struct emu_resp *r = &c->resp;

    r->blob = emu_blob_ref(blob);
    r->bp = blob ? blob->data + off : "";
    r->blen = len;
    r->content_length = len;
}

static void deleted_headers(struct emu_conn *c, const struct emu_obj *o)
{
    emu_resp_header(&c->resp, "x-amz-delete-marker", "true");
    emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
}

/* Look up the object a GET/HEAD/copy names; answers the error itself and returns NULL. */
static struct emu_obj *find_obj(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                                const char *key, size_t klen, const char *vid)
{
    struct emu_obj *o = emu_store_get(b, key, klen, vid);

    if (!o) {
        if (vid) {
            struct buf x = BUF_INIT(4096);
            xml_key(&x, "Key", key, klen, false);
            emu_xml_elem(&x, "VersionId", vid);
            error_x(s, c, 404, "NoSuchVersion", "The specified version does not exist.", buf_cstr(&x));
            buf_release(&x);
        } else {
            no_such_key(s, c);
        }
        return NULL;
    }
    if (o->delete_marker) {
        if (vid)
            error_x(s, c, 405, "MethodNotAllowed", "The specified method is not allowed against this resource.", NULL);
        else
            no_such_key(s, c);
        deleted_headers(c, o);
        return NULL;
    }
    return o;
}

/* 0 go on; else the status (304 or 412) already answered. */
static int preconditions(struct emu_server *s, struct emu_conn *c, const struct emu_obj *o,
                         const char *im_h, const char *inm_h, const char *ims_h, const char *ius_h)
{
    struct emu_req *q = &c->req;
    struct sv im = emu_req_header(q, im_h), inm = emu_req_header(q, inm_h);
    int64_t ims = parse_http_time(emu_req_header(q, ims_h));
    int64_t ius = parse_http_time(emu_req_header(q, ius_h));
    int64_t mt = o->mtime_ms / 1000 * 1000;
    struct buf x = BUF_INIT(256);
    const char *cond = NULL;
    int st = 0;

    if (im.p && !etag_match(im, o->etag))
        st = 412, cond = im_h;
    else if (!im.p && ius >= 0 && mt > ius)
        st = 412, cond = ius_h;
    else if (inm.p && etag_match(inm, o->etag))
        st = strstr(im_h, "copy") ? 412 : 304, cond = inm_h;
    else if (!inm.p && ims >= 0 && mt <= ims)
        st = strstr(im_h, "copy") ? 412 : 304, cond = ims_h;
    if (st == 412) {
        emu_xml_elem(&x, "Condition", cond);
        error_x(s, c, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold",
                buf_cstr(&x));
    } else if (st == 304) {
        char t[40];
        http_time(o->mtime_ms, t);
        c->resp.status = 304;
        emu_resp_header(&c->resp, "ETag", "%s", o->etag);
        emu_resp_header(&c->resp, "Last-Modified", "%s", t);
    }
    buf_release(&x);
    return st;
}

static void op_get(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b, bool head)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    const char *vid = emu_req_param(q, "versionId");
    const char *pn = emu_req_param(q, "partNumber");
    struct sv range = emu_req_header(q, "range"), cm = emu_req_header(q, "x-amz-checksum-mode");
    struct emu_obj *o = find_obj(s, c, b, q->key, q->klen, vid);
    uint64_t off = 0, len, size;
    int status = 200;

    if (!o)
        return;
    if (preconditions(s, c, o, "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since") ||
        ssec_check(s, c, o->ssec_md5, false))
        return;
    ssec_headers(c, o->ssec_md5);
    size = o->size;
    len = size;
    if (pn) {
        uint64_t n;

        if (!sv_to_u64(sv_from(pn), &n) || n < 1 || n > 10000 ||
            (o->n_parts ? n > o->n_parts : n != 1)) {
            error_x(s, c, 416, "InvalidPartNumber", "The requested partnumber is not satisfiable", NULL);
            return;
        }
        if (o->n_parts) {
            off = n == 1 ? 0 : o->part_ends[n - 2];
            len = o->part_ends[n - 1] - off;
            status = 206;
            emu_resp_header(r, "x-amz-mp-parts-count", "%u", o->n_parts);
        }
    } else if (range.p && sv_starts(range, "bytes=") && !memchr(range.p, ',', range.n)) {
        struct sv spec = { range.p + 6, range.n - 6 };
        const char *dash = memchr(spec.p, '-', spec.n);
        uint64_t a = 0, z = 0;
        bool ok = dash != NULL, has_a, has_z;

        if (ok) {
            struct sv sa = { spec.p, (size_t)(dash - spec.p) }, sz = { dash + 1, spec.n - sa.n - 1 };
            has_a = sa.n > 0;
            has_z = sz.n > 0;
            ok = (has_a || has_z) && (!has_a || sv_to_u64(sa, &a)) && (!has_z || sv_to_u64(sz, &z));
            if (ok && has_a && has_z && z < a)
                ok = false; /* syntactically invalid: ignore the header, as HTTP says */
            if (ok) {
                if (!has_a) { /* suffix: the last z bytes */
                    if (z == 0) {
                        ok = false;
                        goto unsatisfiable;
                    }
                    a = z > size ? 0 : size - z;
                    z = size - 1;
                } else if (!has_z || z >= size) {
                    z = size ? size - 1 : 0;
                }
                if (a >= size)
                    goto unsatisfiable;
                off = a;
                len = z - a + 1;
                status = 206;
            }
        }
    }
    if (status == 206)
        emu_resp_header(r, "Content-Range", "bytes %llu-%llu/%llu", (unsigned long long)off,
                        (unsigned long long)(off + len - 1), (unsigned long long)size);
    obj_headers(c, b, o, cm.p && sv_ieqs(cm, "ENABLED") && status == 200);
    r->status = status;
    set_body_blob(c, o->blob, off, len);
    r->no_body = head;
    return;
unsatisfiable: {
        struct buf x = BUF_INIT(512);
        buf_adds(&x, "<RangeRequested>");
        emu_xml_esc(&x, range.p, range.n);
        buf_addf(&x, "</RangeRequested><ActualObjectSize>%llu</ActualObjectSize>", (unsigned long long)size);
        error_x(s, c, 416, "InvalidRange", "The requested range is not satisfiable", buf_cstr(&x));
        emu_resp_header(r, "Content-Range", "bytes */%llu", (unsigned long long)size);
        buf_release(&x);
    }
}

/* Conditional writes: If-None-Match: * and If-Match. 0 go on, else answered. */
static int put_preconditions(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct sv inm = emu_req_header(q, "if-none-match"), im = emu_req_header(q, "if-match");
    struct emu_obj *o;

    if (!inm.p && !im.p)
        return 0;
    o = emu_store_get(b, q->key, q->klen, NULL);
    if (o && o->delete_marker)
        o = NULL;
    if (inm.p && o && etag_match(inm, o->etag)) {
        error_x(s, c, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold",
                "<Condition>If-None-Match</Condition>");
        return 412;
    }
    if (im.p && !o) {
        no_such_key(s, c);
        return 404;
    }
    if (im.p && !etag_match(im, o->etag)) {
        error_x(s, c, 412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold",
                "<Condition>If-Match</Condition>");
        return 412;
    }
    return 0;
}

/* Take the request body as object bytes (an empty blob when there was none). */
static struct emu_blob *take_body(struct emu_req *q)
{
    struct emu_blob *b = q->body;

    q->body = NULL;
    if (!b)
        return emu_blob_empty();
    emu_blob_trim(b); /* aws-chunked framing shrank it: give the slack back */
    return b;
}

static void put_done_headers(struct emu_conn *c, struct emu_bucket *b, const struct emu_obj *o)
{
    emu_resp_header(&c->resp, "ETag", "%s", o->etag);
    if (b->versioning == VER_ENABLED)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
    if (o->ck.algo[0]) {
        char hn[40];
        ck_header_name(o->ck.algo, hn);
        emu_resp_header(&c->resp, hn, "%s", o->ck.value);
        emu_resp_header(&c->resp, "x-amz-checksum-type", "%s", o->ck.type);
    }
}

/*
 * What PutObject and UploadPart learn of their body before the store lock is
 * taken: the payload checks (aws-chunked decoding, signatures, digests), the
 * ETag and the move to --dir, all of it work that grows with the body, so
 * none of it runs while other workers wait for the store.
 */
struct body_check {
    int rc;                 /* 0, or -1 with the error in c->resp (sent unless a check
                             * that comes first in S3's order fails too and answers instead) */
    struct emu_cksum ck;    /* the verified x-amz-checksum (algo "" if none) */
    char etag[48];          /* the payload's MD5, quoted */
};

static void body_prepare(struct emu_server *s, struct emu_conn *c, struct emu_auth_result *ar,
                         struct body_check *bc)
{
    struct emu_blob *b;

    memset(bc, 0, sizeof(*bc));
    bc->rc = check_payload(s, c, ar, &bc->ck);
    b = c->req.body;
    if (bc->rc || (b && b->len > EMU_OBJECT_MAX))
        return;
    if (!b) {
        body_etag(c, "", 0, bc->etag);
        return;
    }
    emu_blob_trim(b);
    body_etag(c, b->data, (size_t)b->len, bc->etag);
    emu_store_spill(s, b);
}

static void op_put(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                   const struct body_check *bc)
{
    struct emu_req *q = &c->req;
    struct emu_obj *o;
    char ssec[28];

    char acl[32];

    if (!request_acl(s, c, acl) || put_preconditions(s, c, b) || ssec_take(s, c, false, ssec) || bc->rc)
        return;
    if (q->body && q->body->len > EMU_OBJECT_MAX) {
        err_key(s, c, 400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size");
        return;
    }
    o = emu_store_obj_new();
    if (!o || !(o->blob = take_body(q))) {
        emu_store_obj_free(o);
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    o->size = o->blob->len;
    memcpy(o->etag, bc->etag, sizeof(o->etag));
    free(o->hdrs);
    o->hdrs = capture_headers(q, o->storage_class);
    o->ck = bc->ck;
    str_copy(o->acl, sizeof(o->acl), acl);
    str_copy(o->ssec_md5, sizeof(o->ssec_md5), ssec);
    if (emu_store_put(s, b, q->key, q->klen, o)) {
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    put_done_headers(c, b, o);
    ssec_headers(c, o->ssec_md5);
    ok_empty(c, 200);
}

static void op_delete(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                      const char *key, size_t klen, const char *vid, struct buf *out_marker_vid,
                      bool *out_marker)
{
    bool was_marker = false;

    *out_marker = false;
    if (vid) {
        emu_store_del_version(b, key, klen, vid, &was_marker);
        *out_marker = was_marker;
        buf_adds(out_marker_vid, vid);
        return;
    }
    if (b->versioning == VER_NONE) {
        emu_store_del_version(b, key, klen, "null", NULL);
        return;
    }
    {
        struct emu_obj *m = emu_store_obj_new();

        if (!m)
            return;
        m->delete_marker = true;
        emu_store_put(s, b, key, klen, m);
        *out_marker = true;
        buf_adds(out_marker_vid, m->vid);
    }
}

static void op_delete_object(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    const char *vid = emu_req_param(q, "versionId");
    struct buf mv = BUF_INIT(64);
    bool marker;

    op_delete(s, c, b, q->key, q->klen, vid, &mv, &marker);
    if (marker)
        emu_resp_header(&c->resp, "x-amz-delete-marker", "true");
    if (mv.len)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", buf_cstr(&mv));
    buf_release(&mv);
    ok_empty(c, 204);
}

#define DELETE_MAX 1000

struct del_ctx {
    char *keys[DELETE_MAX + 1];
    char *vids[DELETE_MAX + 1];
    int n;
    char *cur_key, *cur_vid;
    bool quiet, bad;
};

static void del_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct del_ctx *d = ctx;

    if (!strcmp(name, "Quiet") && depth == 2) {
        d->quiet = !strcmp(text, "true");
    } else if (!strcmp(name, "Key") && depth == 3) {
        free(d->cur_key);
        d->cur_key = strdup(text);
    } else if (!strcmp(name, "VersionId") && depth == 3) {
        free(d->cur_vid);
        d->cur_vid = strdup(text);
    } else if (!strcmp(name, "Object") && depth == 2) {
        if (!d->cur_key || d->n == DELETE_MAX + 1) {
            d->bad = true;
            return;
        }
        d->keys[d->n] = d->cur_key;
        d->vids[d->n] = d->cur_vid;
        d->n++;
        d->cur_key = d->cur_vid = NULL;
    }
}

static void op_delete_objects(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct del_ctx *d = calloc(1, sizeof(*d));
    struct buf *x = &c->resp.body;
    int i;

    if (!d) {
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    if (!q->body || emu_xml_walk(q->body->data, (size_t)q->body->len, del_cb, d) || d->bad ||
        d->n == 0 || d->n > DELETE_MAX) {
        error_x(s, c, 400, "MalformedXML",
                "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        goto out;
    }
    xml_open(x, "DeleteResult");
    for (i = 0; i < d->n; i++) {
        struct buf mv = BUF_INIT(64);
        size_t kl = strlen(d->keys[i]);
        bool marker;

        if (kl == 0 || kl > MAX_KEY_BYTES) {
            buf_adds(x, "<Error>");
            xml_key(x, "Key", d->keys[i], kl, false);
            buf_adds(x, "<Code>InvalidArgument</Code><Message>Invalid key</Message></Error>");
            continue;
        }
        if (emu_model_deny_key(s, q, d->keys[i])) {
            buf_adds(x, "<Error>");
            xml_key(x, "Key", d->keys[i], kl, false);
            buf_adds(x, "<Code>AccessDenied</Code><Message>Access Denied</Message></Error>");
            continue;
        }
        op_delete(s, c, b, d->keys[i], kl, d->vids[i], &mv, &marker);
        if (!d->quiet) {
            buf_adds(x, "<Deleted>");
            xml_key(x, "Key", d->keys[i], kl, false);
            if (d->vids[i])
                emu_xml_elem(x, "VersionId", d->vids[i]);
            if (marker) {
                buf_adds(x, "<DeleteMarker>true</DeleteMarker>");
                if (!d->vids[i])
                    emu_xml_elem(x, "DeleteMarkerVersionId", buf_cstr(&mv));
            }
            buf_adds(x, "</Deleted>");
        }
        buf_release(&mv);
    }
    buf_adds(x, "</DeleteResult>");
    ok_xml(c);
out:
    for (i = 0; i < d->n; i++) {
        free(d->keys[i]);
        free(d->vids[i]);
    }
    free(d->cur_key);
    free(d->cur_vid);
    free(d);
}

/* x-amz-copy-source: "[/]bucket/key[?versionId=v]", URL-encoded. Answers errors itself. */
static struct emu_obj *copy_source(struct emu_server *s, struct emu_conn *c, struct emu_bucket **sb_out,
                                   char **skey_out, size_t *sklen_out)
{
    struct sv src = emu_req_header(&c->req, "x-amz-copy-source");
    const char *qm, *sl;
    char *bucket = NULL, *vid = NULL, *key = NULL;
    size_t bl, kl = 0;
    struct emu_bucket *sb;
    struct emu_obj *o = NULL;

    if (src.n && src.p[0] == '/')
        src.p++, src.n--;
    qm = memchr(src.p, '?', src.n);
    if (qm) {
        struct sv v = { qm + 1, src.n - (size_t)(qm - src.p) - 1 };
        if (sv_starts(v, "versionId="))
            vid = sv_dup((struct sv){ v.p + 10, v.n - 10 });
        src.n = (size_t)(qm - src.p);
    }
    sl = memchr(src.p, '/', src.n);
    if (!sl || sl == src.p || (size_t)(sl - src.p) + 1 == src.n) {
        error_x(s, c, 400, "InvalidArgument", "Invalid copy source object key", NULL);
        goto out;
    }
    bucket = decode_path((struct sv){ src.p, (size_t)(sl - src.p) }, &bl);
    key = decode_path((struct sv){ sl + 1, src.n - (size_t)(sl - src.p) - 1 }, &kl);
    sb = emu_store_bucket(s, bucket);
    if (!sb) {
        struct buf x = BUF_INIT(4096);
        emu_xml_elem(&x, "BucketName", bucket);
        error_x(s, c, 404, "NoSuchBucket", "The specified bucket does not exist", buf_cstr(&x));
        buf_release(&x);
        goto out;
    }
    o = find_obj(s, c, sb, key, kl, vid);
    if (!o)
        goto out;
    if (preconditions(s, c, o, "x-amz-copy-source-if-match", "x-amz-copy-source-if-none-match",
                      "x-amz-copy-source-if-modified-since", "x-amz-copy-source-if-unmodified-since")) {
        o = NULL;
        goto out;
    }
    if (sb->versioning != VER_NONE)
        emu_resp_header(&c->resp, "x-amz-copy-source-version-id", "%s", o->vid);
    *sb_out = sb;
    *skey_out = key;
    *sklen_out = kl;
    key = NULL;
out:
    free(bucket);
    free(key);
    free(vid);
    return o;
}

static void op_copy(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct sv dir = emu_req_header(q, "x-amz-metadata-directive");
    struct sv cka = emu_req_header(q, "x-amz-checksum-algorithm");
    struct sv scl = emu_req_header(q, "x-amz-storage-class");
    struct emu_bucket *sb = NULL;
    char *skey = NULL, t[48], xn[32], acl[32], ssec[28];
    size_t sklen = 0;
    struct emu_obj *so, *o;
    bool replace = dir.p && sv_ieqs(dir, "REPLACE");
    struct buf *x = &c->resp.body;

    if (dir.p && !replace && !sv_ieqs(dir, "COPY")) {
        error_x(s, c, 400, "InvalidArgument", "Unknown metadata directive.", NULL);
        return;
    }
    so = copy_source(s, c, &sb, &skey, &sklen);
    if (!so)
        return;
    if (sb == b && sklen == q->klen && !memcmp(skey, q->key, sklen) && !replace && !scl.p && !cka.p) {
        error_x(s, c, 400, "InvalidRequest",
                "This copy request is illegal because it is trying to copy an object to itself without "
                "changing the object's metadata, storage class, website redirect location or encryption "
                "attributes.", NULL);
        goto out;
    }
    if (so->size > EMU_OBJECT_MAX) {
        error_x(s, c, 400, "InvalidRequest", "The specified copy source is larger than the maximum "
                "allowable size for a copy source: 5368709120", NULL);
        goto out;
    }
    if (put_preconditions(s, c, b) || !request_acl(s, c, acl) || ssec_check(s, c, so->ssec_md5, true) ||
        ssec_take(s, c, false, ssec))
        goto out;
    o = emu_store_obj_new();
    if (!o) {
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    str_copy(o->acl, sizeof(o->acl), acl);
    str_copy(o->ssec_md5, sizeof(o->ssec_md5), ssec);
    ssec_headers(c, ssec);
    o->blob = emu_blob_ref(so->blob); /* shared bytes: a copy costs no copy */
    o->size = so->size;
    if (so->n_parts)
        md5_etag(o->blob->data, (size_t)o->size, o->etag);
    else
        memcpy(o->etag, so->etag, sizeof(o->etag));
    free(o->hdrs);
    if (replace) {
        o->hdrs = capture_headers(q, o->storage_class);
    } else {
        o->hdrs = strdup(so->hdrs);
        memcpy(o->storage_class, so->storage_class, sizeof(o->storage_class));
        if (scl.p)
            snprintf(o->storage_class, sizeof(o->storage_class), "%.*s", (int)scl.n, scl.p);
    }
    if (!o->hdrs) {
        emu_store_obj_free(o);
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    {
        const char *algo = cka.p ? ck_algo_norm(cka) : (so->ck.algo[0] ? so->ck.algo : NULL);
        if (algo) {
            str_copy(o->ck.algo, sizeof(o->ck.algo), algo);
            ck_b64(algo, o->blob->data, (size_t)o->size, o->ck.value);
            str_copy(o->ck.type, sizeof(o->ck.type), "FULL_OBJECT");
        }
    }
    if (emu_store_put(s, b, q->key, q->klen, o)) {
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        goto out;
    }
    if (strcmp(sb->region, b->region) != 0)
        c->resp.delay_ns += (int64_t)(s->model.xregion_ms * 1e6);
    if (b->versioning == VER_ENABLED)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
    iso_time(o->mtime_ms, t);
    xml_open(x, "CopyObjectResult");
    buf_addf(x, "<LastModified>%s</LastModified><ETag>", t);
    emu_xml_esc(x, o->etag, strlen(o->etag));
    buf_adds(x, "</ETag>");
    if (o->ck.algo[0]) {
        ck_xml_name(o->ck.algo, xn);
        buf_addf(x, "<%s>%s</%s><ChecksumType>%s</ChecksumType>", xn, o->ck.value, xn, o->ck.type);
    }
    buf_adds(x, "</CopyObjectResult>");
    ok_xml(c);
out:
    free(skey);
}

/* ---- multipart ---- */

static struct emu_upload *find_upload(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    const char *id = emu_req_param(&c->req, "uploadId");
    struct emu_upload *u = id ? emu_store_upload(b, c->req.key, c->req.klen, id) : NULL;

    if (!u)
        no_such_upload(s, c);
    return u;
}

static void op_create_mpu(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct sv cka = emu_req_header(q, "x-amz-checksum-algorithm");
    struct sv ckt = emu_req_header(q, "x-amz-checksum-type");
    struct emu_upload *u = calloc(1, sizeof(*u));
    struct buf k = BUF_INIT(4096);
    struct buf *x = &c->resp.body;

    if (!u)
        goto oom;
    if (!request_acl(s, c, u->acl)) {
        emu_store_upload_free(u);
        return;
    }
    str_copy(u->storage_class, sizeof(u->storage_class), "STANDARD");
    emu_random_hex(s, u->id, 32);
    u->key = malloc(q->klen + 1);
    if (!u->key)
        goto oom;
    memcpy(u->key, q->key, q->klen + 1);
    u->klen = q->klen;
    u->init_ms = emu_wall_ms();
    u->hdrs = capture_headers(q, u->storage_class);
    if (ssec_take(s, c, false, u->ssec_md5)) {
        emu_store_upload_free(u);
        return;
    }
    ssec_headers(c, u->ssec_md5);
    if (cka.p) {
        const char *a = ck_algo_norm(cka);
        if (!a) {
            emu_store_upload_free(u);
            error_x(s, c, 400, "InvalidRequest", "Checksum algorithm provided is unsupported.", NULL);
            return;
        }
        str_copy(u->ck_algo, sizeof(u->ck_algo), a);
        str_copy(u->ck_type, sizeof(u->ck_type),
                 (ckt.p && sv_ieqs(ckt, "FULL_OBJECT")) || !strcmp(a, "CRC64NVME") ? "FULL_OBJECT" : "COMPOSITE");
    }
    if (!u->hdrs || buf_add(&k, q->key, q->klen) || buf_addc(&k, 0) || buf_adds(&k, u->id) ||
        emu_sl_put(&b->uploads, k.data, k.len, u, NULL))
        goto oom;
    buf_release(&k);
    if (u->ck_algo[0]) {
        emu_resp_header(&c->resp, "x-amz-checksum-algorithm", "%s", u->ck_algo);
        emu_resp_header(&c->resp, "x-amz-checksum-type", "%s", u->ck_type);
    }
    xml_open(x, "InitiateMultipartUploadResult");
    emu_xml_elem(x, "Bucket", b->name);
    xml_key(x, "Key", q->key, q->klen, false);
    emu_xml_elem(x, "UploadId", u->id);
    buf_adds(x, "</InitiateMultipartUploadResult>");
    ok_xml(c);
    return;
oom:
    buf_release(&k);
    emu_store_upload_free(u);
    error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
}

static bool part_number(struct emu_server *s, struct emu_conn *c, int *out)
{
    uint64_t n;

    if (!sv_to_u64(sv_from(emu_req_param(&c->req, "partNumber")), &n) || n < 1 || n > 10000) {
        error_x(s, c, 400, "InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive", NULL);
        return false;
    }
    *out = (int)n;
    return true;
}

static void op_upload_part(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                           const struct body_check *bc, bool copy)
{
    struct emu_req *q = &c->req;
    struct emu_upload *u = find_upload(s, c, b);
    struct emu_part p;
    struct buf *x = &c->resp.body;
    char t[48];

    memset(&p, 0, sizeof(p));
    if (!u || !part_number(s, c, &p.num) || ssec_check(s, c, u->ssec_md5, false))
        return;
    ssec_headers(c, u->ssec_md5);
    if (!copy) {
        if (bc->rc)
            return;
        p.ck = bc->ck;
        p.blob = take_body(q);
        memcpy(p.etag, bc->etag, sizeof(p.etag));
    } else {
        struct sv rng = emu_req_header(q, "x-amz-copy-source-range");
        struct emu_bucket *sb = NULL;
        char *skey = NULL;
        size_t sklen = 0;
        struct emu_obj *so = copy_source(s, c, &sb, &skey, &sklen);
        uint64_t a = 0, z;

        free(skey);
        if (!so || ssec_check(s, c, so->ssec_md5, true))
            return;
        z = so->size ? so->size - 1 : 0;
        if (rng.p) {
            const char *dash = memchr(rng.p, '-', rng.n);
            if (!sv_starts(rng, "bytes=") || !dash ||
                !sv_to_u64((struct sv){ rng.p + 6, (size_t)(dash - rng.p) - 6 }, &a) ||
                !sv_to_u64((struct sv){ dash + 1, rng.n - (size_t)(dash - rng.p) - 1 }, &z) || z < a) {
                error_x(s, c, 400, "InvalidArgument", "The x-amz-copy-source-range value must be of the form "
                        "bytes=first-last where first and last are the zero-based offsets of the first and "
                        "last bytes to copy", NULL);
                return;
            }
            if (z >= so->size) {
                error_x(s, c, 416, "InvalidRange", "The requested range is not satisfiable", NULL);
                return;
            }
        }
        p.blob = emu_blob_new(so->size ? z - a + 1 : 1);
        if (p.blob && so->size) {
            memcpy(p.blob->data, so->blob->data + a, (size_t)(z - a + 1));
            p.blob->len = z - a + 1;
        }
    }
    if (!p.blob) {
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    if (copy) {
        md5_etag(p.blob->data, (size_t)p.blob->len, p.etag);
        emu_store_spill(s, p.blob);
    }
    p.mtime_ms = emu_wall_ms();
    if (!p.ck.algo[0] && u->ck_algo[0]) {
        str_copy(p.ck.algo, sizeof(p.ck.algo), u->ck_algo);
        ck_b64(u->ck_algo, p.blob->data, (size_t)p.blob->len, p.ck.value);
    }
    if (emu_store_upload_part(u, &p)) {
        emu_blob_unref(p.blob);
        error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
        return;
    }
    if (copy) {
        iso_time(p.mtime_ms, t);
        xml_open(x, "CopyPartResult");
        buf_addf(x, "<LastModified>%s</LastModified><ETag>", t);
        emu_xml_esc(x, p.etag, strlen(p.etag));
        buf_adds(x, "</ETag></CopyPartResult>");
        ok_xml(c);
        return;
    }
    emu_resp_header(&c->resp, "ETag", "%s", p.etag);
    if (p.ck.algo[0]) {
        char hn[40];
        ck_header_name(p.ck.algo, hn);
        emu_resp_header(&c->resp, hn, "%s", p.ck.value);
    }
    ok_empty(c, 200);
}

struct cpart {
    int num;
    char etag[48];
};

struct complete_ctx {
    struct cpart *parts;
    int n, cap;
    int cur_num;
    char cur_etag[48];
    bool bad;
};

static void complete_cb(void *ctx, const char *name, const char *text, int depth)
{
    struct complete_ctx *cc = ctx;
    uint64_t v;

    if (!strcmp(name, "PartNumber") && depth == 3) {
        cc->cur_num = sv_to_u64(sv_from(text), &v) && v <= 10000 ? (int)v : -1;
    } else if (!strcmp(name, "ETag") && depth == 3) {
        str_copy(cc->cur_etag, sizeof(cc->cur_etag), text);
    } else if (!strcmp(name, "Part") && depth == 2) {
        if (cc->cur_num <= 0 || cc->n == 10000) {
            cc->bad = true;
            return;
        }
        if (cc->n == cc->cap) {
            int cap = cc->cap ? cc->cap * 2 : 64;
            struct cpart *np = realloc(cc->parts, (size_t)cap * sizeof(*np));
            if (!np) {
                cc->bad = true;
                return;
            }
            cc->parts = np;
            cc->cap = cap;
        }
        cc->parts[cc->n].num = cc->cur_num;
        memcpy(cc->parts[cc->n].etag, cc->cur_etag, sizeof(cc->cur_etag));
        cc->n++;
        cc->cur_num = 0;
        cc->cur_etag[0] = 0;
    }
}

static struct emu_part *upload_find_part(struct emu_upload *u, int num)
{
    int lo = 0, hi = u->n_parts;

    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (u->parts[mid].num < num)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < u->n_parts && u->parts[lo].num == num ? &u->parts[lo] : NULL;
}

static int hexbytes(const char *hex, unsigned char *out, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        unsigned int v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    return 0;
}

static void op_complete(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct emu_upload *u = find_upload(s, c, b);
    struct complete_ctx cc;
    struct emu_part **ps = NULL;
    struct emu_obj *o = NULL;
    struct buf *x = &c->resp.body;
    struct buf md5s = BUF_INIT((size_t)16 * 10000), cks = BUF_INIT((size_t)32 * 10000), uk = BUF_INIT(4096);
    uint64_t total = 0, off = 0;
    char host_etag[48];
    int i;

    memset(&cc, 0, sizeof(cc));
    if (!u)
        goto out;
    if (!q->body || emu_xml_walk(q->body->data, (size_t)q->body->len, complete_cb, &cc) || cc.bad || !cc.n) {
        error_x(s, c, 400, "MalformedXML",
                "The XML you provided was not well-formed or did not validate against our published schema.", NULL);
        goto out;
    }
    ps = calloc((size_t)cc.n, sizeof(*ps));
    if (!ps)
        goto oom;
    for (i = 0; i < cc.n; i++) {
        struct emu_part *p;
        struct sv want = sv_from(cc.parts[i].etag);

        if (i && cc.parts[i].num <= cc.parts[i - 1].num) {
            error_x(s, c, 400, "InvalidPartOrder", "The list of parts was not in ascending order. Parts "
                    "must be ordered by part number.", NULL);
            goto out;
        }
        p = upload_find_part(u, cc.parts[i].num);
        if (!p || !etag_match(want, p->etag)) {
            struct buf xx = BUF_INIT(512);
            buf_addf(&xx, "<UploadId>%s</UploadId><PartNumber>%d</PartNumber>", u->id, cc.parts[i].num);
            error_x(s, c, 400, "InvalidPart", "One or more of the specified parts could not be found.  The "
                    "part may not have been uploaded, or the specified entity tag may not match the part's "
                    "entity tag.", buf_cstr(&xx));
            buf_release(&xx);
            goto out;
        }
        ps[i] = p;
    }
    for (i = 0; i + 1 < cc.n; i++) {
        if (ps[i]->blob->len < s->model.min_part_bytes) {
            struct buf xx = BUF_INIT(512);
            buf_addf(&xx, "<ProposedSize>%llu</ProposedSize><MinSizeAllowed>%llu</MinSizeAllowed>"
                          "<PartNumber>%d</PartNumber><ETag>",
                     (unsigned long long)ps[i]->blob->len, (unsigned long long)s->model.min_part_bytes, ps[i]->num);
            emu_xml_esc(&xx, ps[i]->etag + 1, strlen(ps[i]->etag) - 2);
            buf_adds(&xx, "</ETag>");
            error_x(s, c, 400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed "
                    "object size.", buf_cstr(&xx));
            buf_release(&xx);
            goto out;
        }
    }
    if (put_preconditions(s, c, b))
        goto out;
    for (i = 0; i < cc.n; i++)
        total += ps[i]->blob->len;
    if (total > (uint64_t)5 << 40) {
        err_key(s, c, 400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size");
        goto out;
    }
    o = emu_store_obj_new();
    if (!o || !(o->blob = emu_blob_new(total)) || !(o->part_ends = calloc((size_t)cc.n, sizeof(uint64_t))))
        goto oom;
    for (i = 0; i < cc.n; i++) {
        unsigned char d[MD5_LEN];

        memcpy(o->blob->data + off, ps[i]->blob->data, (size_t)ps[i]->blob->len);
        off += ps[i]->blob->len;
        o->part_ends[i] = off;
        if (hexbytes(ps[i]->etag + 1, d, MD5_LEN) == 0)
            buf_add(&md5s, d, MD5_LEN);
        if (u->ck_algo[0] && strcmp(u->ck_type, "COMPOSITE") == 0) {
            unsigned char raw[32];
            size_t rl = ck_raw(u->ck_algo, ps[i]->blob->data, (size_t)ps[i]->blob->len, raw);
            buf_add(&cks, raw, rl);
        }
    }
    o->blob->len = total;
    o->size = total;
    emu_store_spill(s, o->blob);
    o->n_parts = (uint32_t)cc.n;
    {
        unsigned char d[MD5_LEN];
        char hex[33];

        hash_md5(md5s.data ? md5s.data : "", md5s.len, d);
        str_hex(d, MD5_LEN, hex);
        snprintf(o->etag, sizeof(o->etag), "\"%s-%d\"", hex, cc.n);
    }
    if (u->ck_algo[0]) {
        str_copy(o->ck.algo, sizeof(o->ck.algo), u->ck_algo);
        str_copy(o->ck.type, sizeof(o->ck.type), u->ck_type);
        if (!strcmp(u->ck_type, "COMPOSITE")) {
            char v[96];
            ck_b64(u->ck_algo, cks.data ? cks.data : "", cks.len, v);
            snprintf(o->ck.value, sizeof(o->ck.value), "%.80s-%d", v, cc.n);
        } else {
            ck_b64(u->ck_algo, o->blob->data, (size_t)total, o->ck.value);
        }
    }
    free(o->hdrs);
    o->hdrs = u->hdrs;
    u->hdrs = NULL;
    memcpy(o->storage_class, u->storage_class, sizeof(o->storage_class));
    memcpy(o->acl, u->acl, sizeof(o->acl));
    memcpy(o->ssec_md5, u->ssec_md5, sizeof(o->ssec_md5));
    ssec_headers(c, o->ssec_md5);
    if (emu_store_put(s, b, q->key, q->klen, o)) {
        o = NULL;
        goto oom;
    }
    buf_add(&uk, u->key, u->klen);
    buf_addc(&uk, 0);
    buf_adds(&uk, u->id);
    emu_sl_del(&b->uploads, uk.data, uk.len);
    emu_store_upload_free(u);
    if (b->versioning == VER_ENABLED)
        emu_resp_header(&c->resp, "x-amz-version-id", "%s", o->vid);
    {
        struct sv h = emu_req_header(q, "host");
        snprintf(host_etag, sizeof(host_etag), "%s", "");
        xml_open(x, "CompleteMultipartUploadResult");
        buf_addf(x, "<Location>http://%.*s/", (int)h.n, h.p ? h.p : "");
        emu_xml_esc(x, b->name, strlen(b->name));
        buf_addc(x, '/');
        emu_xml_esc(x, q->key, q->klen);
        buf_adds(x, "</Location>");
        emu_xml_elem(x, "Bucket", b->name);
        xml_key(x, "Key", q->key, q->klen, false);
        buf_adds(x, "<ETag>");
        emu_xml_esc(x, o->etag, strlen(o->etag));
        buf_adds(x, "</ETag>");
        if (o->ck.algo[0]) {
            char xn[32];
            ck_xml_name(o->ck.algo, xn);
            buf_addf(x, "<%s>%s</%s><ChecksumType>%s</ChecksumType>", xn, o->ck.value, xn, o->ck.type);
        }
        buf_adds(x, "</CompleteMultipartUploadResult>");
    }
    ok_xml(c);
    goto out;
oom:
    emu_store_obj_free(o);
    error_x(s, c, 500, "InternalError", "Out of memory.", NULL);
out:
    free(cc.parts);
    free(ps);
    buf_release(&md5s);
    buf_release(&cks);
    buf_release(&uk);
}

static void op_abort(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_upload *u = find_upload(s, c, b);
    struct buf uk = BUF_INIT(4096);

    if (!u)
        return;
    buf_add(&uk, u->key, u->klen);
    buf_addc(&uk, 0);
    buf_adds(&uk, u->id);
    emu_sl_del(&b->uploads, uk.data, uk.len);
    emu_store_upload_free(u);
    buf_release(&uk);
    ok_empty(c, 204);
}

static void op_list_parts(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    struct emu_upload *u = find_upload(s, c, b);
    const char *pm = emu_req_param(q, "part-number-marker");
    struct buf *x = &c->resp.body;
    uint64_t marker = 0;
    int max, i, count = 0, last = 0;
    bool truncated = false;

    if (!u || !get_max(s, c, "max-parts", &max))
        return;
    if (pm)
        sv_to_u64(sv_from(pm), &marker);
    xml_open(x, "ListPartsResult");
    emu_xml_elem(x, "Bucket", b->name);
    xml_key(x, "Key", q->key, q->klen, false);
    emu_xml_elem(x, "UploadId", u->id);
    owner_xml(x, "Initiator");
    owner_xml(x, "Owner");
    emu_xml_elem(x, "StorageClass", u->storage_class);
    buf_addf(x, "<PartNumberMarker>%llu</PartNumberMarker>", (unsigned long long)marker);
    {
        struct buf parts = BUF_INIT((size_t)8 << 20);

        for (i = 0; i < u->n_parts; i++) {
            struct emu_part *p = &u->parts[i];
            char t[48];

            if ((uint64_t)p->num <= marker)
                continue;
            if (count == max) {
                truncated = true;
                break;
            }
            iso_time(p->mtime_ms, t);
            buf_addf(&parts, "<Part><PartNumber>%d</PartNumber><LastModified>%s</LastModified><ETag>", p->num, t);
            emu_xml_esc(&parts, p->etag, strlen(p->etag));
            buf_addf(&parts, "</ETag><Size>%llu</Size>", (unsigned long long)p->blob->len);
            if (p->ck.algo[0]) {
                char xn[32];
                ck_xml_name(p->ck.algo, xn);
                buf_addf(&parts, "<%s>%s</%s>", xn, p->ck.value, xn);
            }
            buf_adds(&parts, "</Part>");
            count++;
            last = p->num;
        }
        buf_addf(x, "<NextPartNumberMarker>%d</NextPartNumberMarker><MaxParts>%d</MaxParts>"
                    "<IsTruncated>%s</IsTruncated>", last, max, truncated ? "true" : "false");
        if (u->ck_algo[0])
            buf_addf(x, "<ChecksumAlgorithm>%s</ChecksumAlgorithm><ChecksumType>%s</ChecksumType>",
                     u->ck_algo, u->ck_type);
        buf_addsv(x, buf_sv(&parts));
        buf_release(&parts);
    }
    buf_adds(x, "</ListPartsResult>");
    ok_xml(c);
}

static void op_list_mpus(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b)
{
    struct emu_req *q = &c->req;
    const char *prefix = emu_req_param(q, "prefix");
    const char *km = emu_req_param(q, "key-marker");
    const char *um = emu_req_param(q, "upload-id-marker");
    struct buf *x = &c->resp.body, items = BUF_INIT((size_t)16 << 20), seek = BUF_INIT(4096);
    size_t plen = prefix ? strlen(prefix) : 0;
    struct emu_sl_node *n;
    const struct emu_upload *last = NULL;
    int max, count = 0;
    bool truncated = false;

    if (!get_max(s, c, "max-uploads", &max))
        goto out;
    if (km && *km) {
        buf_adds(&seek, km);
        if (um && *um) {
            buf_addc(&seek, 0);
            buf_adds(&seek, um);
        } else {
            buf_addc(&seek, 0);
            buf_addc(&seek, (char)0x7f); /* past every upload of key-marker */
        }
        n = emu_sl_seek(&b->uploads, seek.data, seek.len, 1);
    } else {
        n = emu_sl_seek(&b->uploads, prefix ? prefix : "", plen, 0);
    }
    for (; n; n = emu_sl_next(n)) {
        const struct emu_upload *u = n->val;
        char t[48];

        if (plen && (u->klen < plen || memcmp(u->key, prefix, plen) != 0)) {
            if (u->klen >= plen && memcmp(u->key, prefix, plen) > 0)
                break;
            continue;
        }
        if (count == max) {
            truncated = true;
            break;
        }
        iso_time(u->init_ms, t);
        buf_adds(&items, "<Upload>");
        xml_key(&items, "Key", u->key, u->klen, false);
        emu_xml_elem(&items, "UploadId", u->id);
        owner_xml(&items, "Initiator");
        owner_xml(&items, "Owner");
        emu_xml_elem(&items, "StorageClass", u->storage_class);
        emu_xml_elem(&items, "Initiated", t);
        buf_adds(&items, "</Upload>");
        count++;
        last = u;
    }
    xml_open(x, "ListMultipartUploadsResult");
    emu_xml_elem(x, "Bucket", b->name);
    xml_key(x, "KeyMarker", km ? km : "", km ? strlen(km) : 0, false);
    emu_xml_elem(x, "UploadIdMarker", um ? um : "");
    if (truncated && last) {
        xml_key(x, "NextKeyMarker", last->key, last->klen, false);
        emu_xml_elem(x, "NextUploadIdMarker", last->id);
    }
    xml_key(x, "Prefix", prefix ? prefix : "", plen, false);
    buf_addf(x, "<MaxUploads>%d</MaxUploads><IsTruncated>%s</IsTruncated>", max, truncated ? "true" : "false");
    buf_addsv(x, buf_sv(&items));
    buf_adds(x, "</ListMultipartUploadsResult>");
    ok_xml(c);
out:
    buf_release(&items);
    buf_release(&seek);
}

/* ---- admin ---- */

static void free_bucket_cb(void *p)
{
    (void)p;
}

static void op_admin(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    char err[256];

    switch (q->op) {
    case OP_ADMIN_STATS:
        emu_model_stats_json(s, &r->body);
        emu_resp_json_body(r, 200);
        return;
    case OP_ADMIN_RESET:
        if (sv_eqs(q->path_raw, "/_s3emu/reset")) {
            struct emu_sl_node *n;

            emu_store_lock(s, true);
            while ((n = emu_sl_first(&s->buckets)) != NULL)
                emu_store_bucket_delete(s, n->val);
            emu_store_unlock(s);
        }
        emu_model_stats_reset(s);
        (void)free_bucket_cb;
        ok_empty(c, 204);
        return;
    case OP_ADMIN_POPULATE:
        emu_admin_populate(s, c);
        return;
    case OP_ADMIN_CONFIG:
        if (sv_eqs(q->method, "GET")) {
            emu_model_stats_json(s, &r->body);
            emu_resp_json_body(r, 200);
            return;
        }
        if (emu_model_configure(s, q->body ? (struct sv){ q->body->data, (size_t)q->body->len } : SV_NULL,
                                err, sizeof(err))) {
            buf_adds(&r->body, "{\"error\":\"");
            buf_adds(&r->body, err);
            buf_adds(&r->body, "\"}\n");
            emu_resp_json_body(r, 400);
            return;
        }
        emu_model_stats_json(s, &r->body);
        emu_resp_json_body(r, 200);
        return;
    default:
        error_x(s, c, 404, "NotFound", "No such admin endpoint.", NULL);
    }
}

/* ---- the dispatcher ---- */

static bool needs_bucket(enum emu_op op)
{
    return op != OP_LIST_BUCKETS && op != OP_CREATE_BUCKET && op != OP_UNKNOWN;
}

static void apply_fault(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    bool body = r->blen > 0 && !r->no_body;

    switch (q->fault) {
    case FAULT_RESET_MID:
        if (body) {
            r->cut_at = r->blen / 2;
            r->cut_rst = 1;
        } else if (!q->body) {
            r->reset_now = true;
        }
        break;
    case FAULT_TRUNCATE:
        if (body) {
            r->cut_at = r->blen / 2;
            r->cut_rst = 0;
        } else {
            r->reset_now = true;
        }
        break;
    case FAULT_SLOW:
        r->slow_bps = q->fault_arg > 0 ? q->fault_arg : 65536;
        break;
    case FAULT_CORRUPT:
        if (body) {
            r->corrupt_copy = malloc((size_t)r->blen);
            if (r->corrupt_copy) {
                memcpy(r->corrupt_copy, r->bp, (size_t)r->blen);
                r->corrupt_copy[r->blen / 2] ^= 0x01;
                r->bp = r->corrupt_copy;
            }
        }
        break;
    default:
        break;
    }
}

static bool precheck_locked(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_bucket *b = q->bucket ? emu_store_bucket(s, q->bucket) : NULL;
    struct emu_auth_result ar;

    emu_auth_check(s, q, (b && q->op != OP_CREATE_BUCKET) ? b->region : NULL, &ar);
    if (ar.status && ar.unsigned_request && b && public_allows(b, q)) {
        EMU_STAT(s, auth_failures, -1);
        ar.status = 0;
    }
    if (ar.status) {
        struct buf x = BUF_INIT(256);
        if (ar.region_hint[0])
            emu_xml_elem(&x, "Region", ar.region_hint);
        error_x(s, c, ar.status, ar.code, ar.msg, buf_cstr(&x));
        buf_release(&x);
        return true;
    }
    if (needs_bucket(q->op) && !b) {
        no_such_bucket(s, c);
        return true;
    }
    if ((q->op == OP_UPLOAD_PART) && !emu_store_upload(b, q->key, q->klen, emu_req_param(q, "uploadId") ?
                                                        emu_req_param(q, "uploadId") : "")) {
        no_such_upload(s, c);
        return true;
    }
    return false;
}

bool emu_ops_precheck(struct emu_server *s, struct emu_conn *c)
{
    bool answered;

    if (c->req.op >= OP_ADMIN_STATS || c->req.fault != FAULT_NONE)
        return false; /* faults play out on the full request */
    emu_store_lock(s, false);
    answered = precheck_locked(s, c);
    emu_store_unlock(s);
    return answered;
}

/*
 * The request's signature, checked against the region of its bucket; an
 * unsigned request passes where canned ACLs allow it. The store is read
 * under its lock only for the region and the ACLs, never during the HMACs.
 */
static void check_auth(struct emu_server *s, struct emu_req *q, struct emu_auth_result *ar)
{
    struct emu_bucket *b;
    char region[32] = "";
    bool has_bucket = false;

    emu_store_lock(s, false);
    b = q->bucket ? emu_store_bucket(s, q->bucket) : NULL;
    if (b) {
        has_bucket = true;
        str_copy(region, sizeof(region), b->region);
    }
    emu_store_unlock(s);
    emu_auth_check(s, q, (has_bucket && q->op != OP_CREATE_BUCKET) ? region : NULL, ar);
    if (ar->status && ar->unsigned_request && has_bucket) {
        emu_store_lock(s, false);
        b = emu_store_bucket(s, q->bucket);
        if (b && public_allows(b, q)) {
            EMU_STAT(s, auth_failures, -1);
            memset(ar, 0, sizeof(*ar));
        }
        emu_store_unlock(s);
    }
}

static void dispatch(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                     const struct body_check *bc);

void emu_ops_handle(struct emu_server *s, struct emu_conn *c)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;
    struct emu_bucket *b = NULL;
    struct emu_auth_result ar;
    struct body_check bc;

    if (q->op >= OP_ADMIN_STATS) {
        op_admin(s, c);
        return;
    }
    if (q->fault == FAULT_500) {
        error_x(s, c, 500, "InternalError", "We encountered an internal error. Please try again.", NULL);
        goto model;
    }
    if (q->fault == FAULT_503) {
        error_x(s, c, 503, "SlowDown", "Please reduce your request rate.", NULL);
        goto model;
    }
    if (q->fault == FAULT_DENY) {
        error_x(s, c, 403, "AccessDenied", "Access Denied", NULL);
        goto model;
    }
    if (emu_model_rate_limited(s, q)) {
        error_x(s, c, 503, "SlowDown", "Please reduce your request rate.", NULL);
        goto model;
    }
    check_auth(s, q, &ar);
    if (ar.status) {
        struct buf x = BUF_INIT(256);
        if (ar.region_hint[0]) {
            emu_xml_elem(&x, "Region", ar.region_hint);
        }
        error_x(s, c, ar.status, ar.code, ar.msg, buf_cstr(&x));
        if (ar.region_hint[0])
            emu_resp_header(r, "x-amz-bucket-region", "%s", ar.region_hint);
        buf_release(&x);
        goto model;
    }
    memset(&bc, 0, sizeof(bc));
    if (q->op == OP_PUT_OBJECT || q->op == OP_UPLOAD_PART) {
        /* Checked now, outside the lock; its error is sent unless an earlier check answers. */
        body_prepare(s, c, &ar, &bc);
    } else if (q->body) {
        /* Small bodies (XML): only the framing and digests matter. */
        struct emu_cksum ck;
        if (check_payload(s, c, &ar, &ck))
            goto model;
    }
    if (q->op == OP_UNKNOWN) {
        error_x(s, c, 501, "NotImplemented", "A header or query you provided implies functionality that is "
                "not implemented.", NULL);
        goto model;
    }
    emu_store_lock(s, emu_op_is_write(q->op));
    if (q->bucket)
        b = emu_store_bucket(s, q->bucket); /* again: it may have gone since check_auth */
    dispatch(s, c, b, &bc);
    emu_store_unlock(s);
model:
    r->delay_ns += emu_model_latency_ns(s, q);
    apply_fault(s, c);
}

/* The operation itself, under the store lock (shared for reads, exclusive for changes). */
static void dispatch(struct emu_server *s, struct emu_conn *c, struct emu_bucket *b,
                     const struct body_check *bc)
{
    struct emu_req *q = &c->req;
    struct emu_resp *r = &c->resp;

    if (needs_bucket(q->op) && !b) {
        no_such_bucket(s, c);
        return;
    }
    if (q->key && q->klen > MAX_KEY_BYTES) {
        err_key(s, c, 400, "KeyTooLongError", "Your key is too long");
        return;
    }
    switch (q->op) {
    case OP_LIST_BUCKETS: op_list_buckets(s, c); break;
    case OP_CREATE_BUCKET: op_create_bucket(s, c, b); break;
    case OP_HEAD_BUCKET:
        emu_resp_header(r, "x-amz-bucket-region", "%s", b->region);
        ok_empty(c, 200);
        break;
    case OP_DELETE_BUCKET: op_delete_bucket(s, c, b); break;
    case OP_GET_BUCKET_LOCATION: op_get_location(s, c, b); break;
    case OP_GET_BUCKET_VERSIONING: op_get_versioning(s, c, b); break;
    case OP_PUT_BUCKET_VERSIONING: op_put_versioning(s, c, b); break;
    case OP_LIST_OBJECTS: op_list(s, c, b, false); break;
    case OP_LIST_OBJECTS_V2: op_list(s, c, b, true); break;
    case OP_LIST_OBJECT_VERSIONS: op_list_versions(s, c, b); break;
    case OP_PUT_OBJECT: op_put(s, c, b, bc); break;
    case OP_GET_OBJECT: op_get(s, c, b, false); break;
    case OP_HEAD_OBJECT: op_get(s, c, b, true); break;
    case OP_DELETE_OBJECT: op_delete_object(s, c, b); break;
    case OP_DELETE_OBJECTS: op_delete_objects(s, c, b); break;
    case OP_COPY_OBJECT: op_copy(s, c, b); break;
    case OP_CREATE_MPU: op_create_mpu(s, c, b); break;
    case OP_UPLOAD_PART: op_upload_part(s, c, b, bc, false); break;
    case OP_UPLOAD_PART_COPY: op_upload_part(s, c, b, bc, true); break;
    case OP_COMPLETE_MPU: op_complete(s, c, b); break;
    case OP_ABORT_MPU: op_abort(s, c, b); break;
    case OP_LIST_PARTS: op_list_parts(s, c, b); break;
    case OP_LIST_MPUS: op_list_mpus(s, c, b); break;
    case OP_GET_BUCKET_ACL:
        acl_xml(&r->body, b->acl);
        ok_xml(c);
        break;
    case OP_PUT_BUCKET_ACL: op_put_acl(s, c, b->acl); break;
    case OP_GET_OBJECT_ACL:
    case OP_PUT_OBJECT_ACL: {
        struct emu_obj *o = find_obj(s, c, b, q->key, q->klen, emu_req_param(q, "versionId"));
        if (!o)
            break;
        if (q->op == OP_PUT_OBJECT_ACL) {
            op_put_acl(s, c, o->acl);
        } else {
            acl_xml(&r->body, o->acl);
            ok_xml(c);
        }
        break;
    }
    default:
        error_x(s, c, 501, "NotImplemented", "Not implemented.", NULL);
    }
}
