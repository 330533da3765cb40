/*
 * ops_payload: what a request carries beside its operation: the body's
 * checks (aws-chunked, the signed payload hash, Content-MD5,
 * x-amz-checksum-*), checksum arithmetic, the headers kept with an object,
 * and SSE-C keys. It checks and computes; it never changes the store.
 */
#include "ops.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "base/crc.h"
#include "base/hash.h"

/* ---- stored headers and checksums ---- */

static const char *const kept_headers[] = {
    "Content-Type", "Content-Encoding", "Content-Disposition", "Content-Language",
    "Cache-Control", "Expires", "x-amz-website-redirect-location",
    "x-amz-server-side-encryption", "x-amz-server-side-encryption-aws-kms-key-id",
};

/* The headers S3 keeps with an object, rendered "Name: v\r\n"; malloc'd. */
char *ops_capture_headers(const struct emu_req *q, char sc[24])
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

/*
 * A copy's headers when it keeps its source's metadata (directive COPY): the
 * source's, but its encryption is what the request says (S3 keeps no SSE of
 * a copy's source: the request's, else the bucket's default, none here).
 * malloc'd, NULL on OOM.
 */
char *ops_copy_headers(const char *src, const struct emu_req *q)
{
    static const char *const sse[] = { "x-amz-server-side-encryption", "x-amz-server-side-encryption-aws-kms-key-id" };
    struct buf b = BUF_INIT(1 << 16);
    const char *line = src;
    size_t k;

    while (*line) {
        const char *eol = strstr(line, "\r\n");
        size_t len = eol ? (size_t)(eol - line) + 2 : strlen(line);
        bool drop = false;

        for (k = 0; k < sizeof(sse) / sizeof(sse[0]); k++)
            drop |= strncasecmp(line, sse[k], strlen(sse[k])) == 0 && line[strlen(sse[k])] == ':';
        if (!drop)
            buf_add(&b, line, len);
        line += len;
    }
    for (k = 0; k < sizeof(sse) / sizeof(sse[0]); k++) {
        struct sv v = emu_req_header(q, sse[k]);
        if (v.p)
            buf_addf(&b, "%s: %.*s\r\n", sse[k], (int)v.n, v.p);
    }
    return buf_detach(&b);
}

static const char *const ck_algos[] = { "CRC32", "CRC32C", "CRC64NVME", "SHA1", "SHA256" };

const char *ops_ck_algo_norm(struct sv v)
{
    size_t i;

    for (i = 0; i < sizeof(ck_algos) / sizeof(ck_algos[0]); i++)
        if (sv_ieqs(v, ck_algos[i]))
            return ck_algos[i];
    return NULL;
}

uint64_t ops_crc_value(const unsigned char *raw, size_t n)
{
    uint64_t v = 0;
    size_t k;

    for (k = 0; k < n; k++)
        v = v << 8 | raw[k];
    return v;
}

/* Raw checksum bytes of 'algo' over p[0..n); returns the length (4, 8, 20, 32). */
size_t ops_ck_raw(const char *algo, const void *p, size_t n, unsigned char out[32])
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

void ops_ck_b64(const char *algo, const void *p, size_t n, char out[96])
{
    unsigned char raw[32];
    size_t len = ops_ck_raw(algo, p, n, raw);
    struct buf b = BUF_INIT(96);

    base64_encode(raw, len, &b);
    str_copy(out, 96, buf_cstr(&b));
    buf_release(&b);
}

/* ck_b64 of the request body, from the digest taken on the way in when there is one. */
static void body_ck_b64(const struct emu_conn *c, const char *algo, const void *p, size_t n, char out[96])
{
    unsigned char raw[32];
    size_t len = emu_body_checksum(c, algo, n, raw);
    struct buf b = BUF_INIT(96);

    if (!len) {
        ops_ck_b64(algo, p, n, out);
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

void ops_ck_header_name(const char *algo, char out[40])
{
    size_t i;

    snprintf(out, 40, "x-amz-checksum-%s", algo);
    for (i = 15; out[i]; i++)
        out[i] = (char)tolower((unsigned char)out[i]);
}

/* "ChecksumCRC32" etc. */
void ops_ck_xml_name(const char *algo, char out[32])
{
    snprintf(out, 32, "Checksum%s", algo);
}

/*
 * Check the payload of a body-carrying request: aws-chunked framing, signed
 * payload hash, Content-MD5 and x-amz-checksum-* (header or trailer). On
 * success 'ck' holds the verified checksum (algo "" when none was sent).
 * Returns 0, or -1 after writing the error response.
 */
int ops_check_payload(struct emu_server *s, struct emu_conn *c, struct emu_auth_result *ar,
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
            ops_error(s, c, strcmp(code, "SignatureDoesNotMatch") ? 400 : 403, code, msg, NULL);
            goto out;
        }
        if (dl.p && sv_to_u64(dl, &want) && want != b->len) {
            ops_error(s, c, 400, "IncompleteBody",
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
            ops_error(s, c, 400, "XAmzContentSHA256Mismatch",
                      "The provided 'x-amz-content-sha256' header does not match what was computed.",
                      buf_cstr(&x));
            buf_release(&x);
            goto out;
        }
    }
    if (md5h.p) {
        unsigned char d[MD5_LEN];

        if (base64_decode(md5h, &tmp) || tmp.len != MD5_LEN) {
            ops_error(s, c, 400, "InvalidDigest", "The Content-MD5 you specified was invalid.", NULL);
            goto out;
        }
        emu_body_md5(c, data, n, d);
        if (memcmp(d, tmp.data, MD5_LEN) != 0) {
            ops_error(s, c, 400, "BadDigest", "The Content-MD5 you specified did not match what we received.", NULL);
            goto out;
        }
    }
    /* x-amz-checksum-<algo>: from a header, else from the aws-chunked trailer */
    for (i = 0; i < q->n_hdrs && !algo; i++) {
        struct sv nm = q->hdrs[i].name;
        if (nm.n > 15 && strncasecmp(nm.p, "x-amz-checksum-", 15) == 0 &&
            (algo = ops_ck_algo_norm((struct sv){ nm.p + 15, nm.n - 15 })))
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
                (algo = ops_ck_algo_norm((struct sv){ line.p + 15, (size_t)(colon - line.p) - 15 })))
                given = sv_trim((struct sv){ colon + 1, line.n - (size_t)(colon - line.p) - 1 });
        }
    }
    if (algo) {
        char got[96];

        body_ck_b64(c, algo, data, n, got);
        if (!sv_eqs(given, got)) {
            char m[128];
            snprintf(m, sizeof(m), "The %s you specified did not match the calculated checksum.", algo);
            ops_error(s, c, 400, "BadDigest", m, NULL);
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
 * "" when it gives none. Checked as S3 does: AES256, a 256-bit key, its MD5; and, for a
 * write to bucket 'write_to' (NULL: a read), refused when the bucket blocks SSE-C.
 * Non-zero when the request was answered (400).
 */
int ops_ssec_take(struct emu_server *s, struct emu_conn *c, bool copy_source, const struct emu_bucket *write_to,
                  char md5_out[28])
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
    if (write_to && write_to->ssec_blocked) {
        /* A write with SSE-C to a bucket that blocks it: AWS documents a 403 AccessDenied, nothing more. */
        ops_error(s, c, 403, "AccessDenied", "Access Denied", NULL);
        return 403;
    }
    if (!alg.p || !sv_eqs(alg, "AES256")) {
        ops_error(s, c, 400, "InvalidEncryptionAlgorithmError", "The encryption request you specified is not valid. "
                  "The valid value is AES256.", NULL);
        rc = 400;
    } else if (!key.p || base64_decode(key, &raw) || raw.len != 32) {
        ops_error(s, c, 400, "InvalidArgument", "The secret key was invalid for the specified algorithm.", NULL);
        rc = 400;
    } else {
        hash_md5(raw.data, raw.len, d);
        base64_encode(d, MD5_LEN, &b64);
        if (!md5.p || !sv_eqs(md5, buf_cstr(&b64))) {
            ops_error(s, c, 400, "InvalidArgument", "The calculated MD5 hash of the key did not match the hash "
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
int ops_ssec_check(struct emu_server *s, struct emu_conn *c, const char *stored, bool copy_source)
{
    char given[28];

    if (ops_ssec_take(s, c, copy_source, NULL, given))
        return 400;
    if (!stored[0] && !given[0])
        return 0;
    if (!given[0]) {
        ops_error(s, c, 400, "InvalidRequest", "The object was stored using a form of Server Side Encryption. The "
                  "correct parameters must be provided to retrieve the object.", NULL);
        return 400;
    }
    if (!stored[0]) {
        ops_error(s, c, 400, "InvalidRequest", "The encryption parameters are not applicable to this object.", NULL);
        return 400;
    }
    if (strcmp(stored, given) != 0) {
        ops_error(s, c, 403, "AccessDenied", "Access Denied", NULL);
        return 403;
    }
    return 0;
}

void ops_ssec_headers(struct emu_conn *c, const char *md5)
{
    if (!md5[0])
        return;
    emu_resp_header(&c->resp, "x-amz-server-side-encryption-customer-algorithm", "AES256");
    emu_resp_header(&c->resp, "x-amz-server-side-encryption-customer-key-MD5", "%s", md5);
}

/* Take the request body as object bytes (an empty blob when there was none). */
struct emu_blob *ops_take_body(struct emu_req *q)
{
    struct emu_blob *b = q->body;

    q->body = NULL;
    if (!b)
        return emu_blob_empty();
    emu_blob_trim(b); /* aws-chunked framing shrank it: give the slack back */
    return b;
}

/* See struct body_check (ops.h): the body's work, done before the store lock. */
void ops_body_prepare(struct emu_server *s, struct emu_conn *c, struct emu_auth_result *ar,
                      struct body_check *bc)
{
    struct emu_blob *b;

    memset(bc, 0, sizeof(*bc));
    bc->rc = ops_check_payload(s, c, ar, &bc->ck);
    b = c->req.body;
    if (bc->rc || (b && b->len > EMU_OBJECT_MAX))
        return;
    /* A directory bucket's ETag is random (ops_express_body): no MD5 to make. */
    if (!b) {
        if (!c->req.express)
            body_etag(c, "", 0, bc->etag);
        return;
    }
    emu_blob_trim(b);
    if (!c->req.express)
        body_etag(c, b->data, (size_t)b->len, bc->etag);
    emu_store_spill(s, b);
}
