/*
 * SigV4 signing. The canonical request is built exactly as AWS's "Signature
 * Calculations for the Authorization Header" page describes; tests in
 * tests/unit/test_sigv4.c reproduce that page's examples byte for byte.
 */
#include "auth/sigv4.h"

#include <stdlib.h>
#include <string.h>

#include "base/pct.h"
#include "base/str.h"

#include <openssl/crypto.h>
#include <stdio.h>

#define SIGV4_ALGO "AWS4-HMAC-SHA256"
#define SIGV4_MAX_HEADERS 64
#define SIGV4_MAX_PARAMS 128




/* Percent-decode then re-encode, so "a/b", "a%2Fb" and "a%2fb" sign alike. */
enum s3c_err sigv4_uri_encode(struct sv in, int keep_slash, struct buf *out)
{
    return pct_encode(in, keep_slash != 0, out);
}

static enum s3c_err reencode(struct sv in, struct buf *out)
{
    struct buf raw = BUF_INIT(in.n + 1);
    enum s3c_err rc = S3C_OK;
    size_t i;

    for (i = 0; i < in.n && !rc; i++) {
        int hi, lo;

        if (in.p[i] == '%' && i + 2 < in.n && (hi = pct_hexval(in.p[i + 1])) >= 0 &&
            (lo = pct_hexval(in.p[i + 2])) >= 0) {
            rc = buf_addc(&raw, (char)(hi * 16 + lo));
            i += 2;
        } else {
            rc = buf_addc(&raw, in.p[i]);
        }
    }
    if (!rc)
        rc = sigv4_uri_encode(buf_sv(&raw), 0, out);
    buf_release(&raw);
    return rc;
}

struct param {
    char *name;   /* canonical-encoded */
    char *value;  /* canonical-encoded */
};

static int param_cmp(const void *a, const void *b)
{
    const struct param *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : strcmp(x->value, y->value);
}

static void params_free(struct param *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(p[i].name);
        free(p[i].value);
    }
}

/* Split "a=b&c" into canonical-encoded pairs. */
static enum s3c_err params_parse(const char *query, struct param *out, size_t *n_out)
{
    struct sv q = sv_from(query);
    size_t n = 0;
    enum s3c_err rc = S3C_OK;

    while (q.n && !rc) {
        const char *amp = memchr(q.p, '&', q.n);
        struct sv item = { q.p, amp ? (size_t)(amp - q.p) : q.n };
        const char *eq = memchr(item.p, '=', item.n);
        struct sv name = { item.p, eq ? (size_t)(eq - item.p) : item.n };
        struct sv value = eq ? (struct sv){ eq + 1, item.n - name.n - 1 } : SV_NULL;
        struct buf nb = BUF_INIT(BUF_MAX_DEFAULT), vb = BUF_INIT(BUF_MAX_DEFAULT);

        q.p += item.n + (amp ? 1 : 0);
        q.n -= item.n + (amp ? 1 : 0);
        if (item.n == 0)
            continue;
        if (n == SIGV4_MAX_PARAMS) {
            rc = S3C_EPARSE; /* n_out still names those parsed, for params_free */
            break;
        }
        rc = reencode(name, &nb);
        if (!rc)
            rc = reencode(value, &vb);
        if (rc) {
            buf_release(&nb);
            buf_release(&vb);
            break;
        }
        out[n].name = buf_detach(&nb);
        out[n].value = buf_detach(&vb);
        n++;
    }
    *n_out = n;
    return rc;
}

static enum s3c_err add_canonical_query(const char *query, struct buf *out)
{
    struct param params[SIGV4_MAX_PARAMS];
    size_t n = 0, i;
    enum s3c_err rc;

    rc = params_parse(query, params, &n);
    if (!rc) {
        qsort(params, n, sizeof(params[0]), param_cmp);
        for (i = 0; i < n && !rc; i++)
            rc = buf_addf(out, "%s%s=%s", i ? "&" : "", params[i].name, params[i].value);
    }
    params_free(params, n);
    return rc;
}

struct hdr {
    char *name;         /* lower-cased */
    const char *value;  /* as given */
    size_t order;       /* original position, for a stable sort */
};

static int hdr_cmp(const void *a, const void *b)
{
    const struct hdr *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    if (c)
        return c;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Value trimmed, inner runs of spaces folded to one, as SigV4 requires. */
static enum s3c_err add_trimmed(struct buf *out, const char *v)
{
    struct sv t = sv_trim(sv_from(v));
    size_t i;
    bool space = false;

    for (i = 0; i < t.n; i++) {
        char c = t.p[i];

        if (c == ' ' || c == '\t') {
            space = true;
            continue;
        }
        if (space && buf_addc(out, ' '))
            return S3C_ENOMEM;
        space = false;
        if (buf_addc(out, c))
            return S3C_ENOMEM;
    }
    return S3C_OK;
}

enum s3c_err sigv4_canonical_request(const struct sigv4_request *r, struct buf *out,
                                     struct buf *signed_headers)
{
    struct hdr hs[SIGV4_MAX_HEADERS];
    struct buf names = BUF_INIT(BUF_MAX_DEFAULT);
    const char *path = r->path && r->path[0] ? r->path : "/";
    size_t n = 0, i, j;
    enum s3c_err rc;

    if (r->n_headers > SIGV4_MAX_HEADERS)
        return S3C_EPARSE;
    for (i = 0; i < r->n_headers; i++) {
        char *p = strdup(r->headers[i].name);

        if (!p) {
            rc = S3C_ENOMEM;
            goto out;
        }
        for (j = 0; p[j]; j++)
            if (p[j] >= 'A' && p[j] <= 'Z')
                p[j] = (char)(p[j] - 'A' + 'a');
        hs[n].name = p;
        hs[n].value = r->headers[i].value ? r->headers[i].value : "";
        hs[n].order = i;
        n++;
    }
    qsort(hs, n, sizeof(hs[0]), hdr_cmp);

    rc = buf_addf(out, "%s\n%s\n", r->method, path);
    if (!rc)
        rc = add_canonical_query(r->query, out);
    if (!rc)
        rc = buf_addc(out, '\n');
    /* Canonical headers: one line per name; repeated names join with ','. */
    for (i = 0; i < n && !rc; i++) {
        bool repeat = i > 0 && strcmp(hs[i].name, hs[i - 1].name) == 0;

        if (repeat) {
            out->len--; /* drop the '\n' of the previous line */
            rc = buf_addc(out, ',');
        } else {
            rc = buf_addf(out, "%s:", hs[i].name);
            if (!rc && names.len)
                rc = buf_addc(&names, ';');
            if (!rc)
                rc = buf_adds(&names, hs[i].name);
        }
        if (!rc)
            rc = add_trimmed(out, hs[i].value);
        if (!rc)
            rc = buf_addc(out, '\n');
    }
    if (!rc)
        rc = buf_addf(out, "\n%s\n%s", buf_cstr(&names), r->payload_hash);
    if (!rc && signed_headers)
        rc = buf_addsv(signed_headers, buf_sv(&names));
out:
    for (i = 0; i < n; i++)
        free(hs[i].name);
    buf_release(&names);
    return rc;
}

/* "20130524/us-east-1/s3/aws4_request" */
static enum s3c_err add_scope(struct buf *out, const struct sigv4_scope *s)
{
    return buf_addf(out, "%.8s/%s/%s/aws4_request", s->amz_date, s->region, s->service);
}

enum s3c_err sigv4_string_to_sign(const struct sigv4_scope *s, struct sv canonical_request,
                                  struct buf *out)
{
    char hex[2 * SHA256_LEN + 1];
    enum s3c_err rc;

    hash_sha256_hex(canonical_request.p, canonical_request.n, hex);
    rc = buf_addf(out, SIGV4_ALGO "\n%s\n", s->amz_date);
    if (!rc)
        rc = add_scope(out, s);
    if (!rc)
        rc = buf_addf(out, "\n%s", hex);
    return rc;
}

void sigv4_signing_key(const char *secret_key, const struct sigv4_scope *s,
                       unsigned char out[SHA256_LEN])
{
    char seed[256];
    int n = snprintf(seed, sizeof(seed), "AWS4%s", secret_key);
    unsigned char k[SHA256_LEN];

    if (n < 0 || (size_t)n >= sizeof(seed))
        n = (int)sizeof(seed) - 1;
    hash_hmac_sha256(seed, (size_t)n, s->amz_date, 8, k);
    hash_hmac_sha256(k, SHA256_LEN, s->region, strlen(s->region), k);
    hash_hmac_sha256(k, SHA256_LEN, s->service, strlen(s->service), k);
    hash_hmac_sha256(k, SHA256_LEN, "aws4_request", 12, out);
    OPENSSL_cleanse(seed, sizeof(seed));
}

/* Hex signature of 'r' with a derived key; 'names' (may be NULL) gets the signed headers. */
static enum s3c_err sign_with_key(const struct sigv4_request *r, const unsigned char key[SHA256_LEN],
                                  const struct sigv4_scope *s, struct buf *names,
                                  char out_hex[2 * SHA256_LEN + 1])
{
    struct buf creq = BUF_INIT(BUF_MAX_DEFAULT), sts = BUF_INIT(BUF_MAX_DEFAULT);
    unsigned char sig[SHA256_LEN];
    enum s3c_err rc;

    rc = sigv4_canonical_request(r, &creq, names);
    if (!rc)
        rc = sigv4_string_to_sign(s, buf_sv(&creq), &sts);
    if (!rc) {
        hash_hmac_sha256(key, SHA256_LEN, sts.data, sts.len, sig);
        str_hex(sig, SHA256_LEN, out_hex);
    }
    buf_release(&creq);
    buf_release(&sts);
    return rc;
}

enum s3c_err sigv4_signature(const struct sigv4_request *r, const char *secret_key,
                             const struct sigv4_scope *s, char out_hex[2 * SHA256_LEN + 1])
{
    unsigned char key[SHA256_LEN];

    sigv4_signing_key(secret_key, s, key);
    return sign_with_key(r, key, s, NULL, out_hex);
}

enum s3c_err sigv4_authorization_with_key(const struct sigv4_request *r, const char *access_key,
                                          const unsigned char signing_key[SHA256_LEN],
                                          const struct sigv4_scope *s, struct buf *out)
{
    struct buf names = BUF_INIT(BUF_MAX_DEFAULT);
    char sig[2 * SHA256_LEN + 1];
    enum s3c_err rc;

    rc = sign_with_key(r, signing_key, s, &names, sig);
    if (!rc)
        rc = buf_addf(out, SIGV4_ALGO " Credential=%s/", access_key);
    if (!rc)
        rc = add_scope(out, s);
    if (!rc)
        rc = buf_addf(out, ", SignedHeaders=%s, Signature=%s", buf_cstr(&names), sig);
    buf_release(&names);
    return rc;
}

enum s3c_err sigv4_authorization(const struct sigv4_request *r, const struct sigv4_creds *c,
                                 const struct sigv4_scope *s, struct buf *out)
{
    unsigned char key[SHA256_LEN];

    sigv4_signing_key(c->secret_key, s, key);
    return sigv4_authorization_with_key(r, c->access_key, key, s, out);
}

enum s3c_err sigv4_presign(const struct sigv4_request *r, const struct sigv4_creds *c,
                           const struct sigv4_scope *s, long expires_s, struct buf *out)
{
    struct buf query = BUF_INIT(BUF_MAX_DEFAULT), cred = BUF_INIT(4096);
    struct buf names = BUF_INIT(4096), creq = BUF_INIT(BUF_MAX_DEFAULT);
    struct sigv4_request pr = *r;
    char sig[2 * SHA256_LEN + 1];
    enum s3c_err rc;

    /* The signed-headers list goes into the query, so compute it first. */
    rc = sigv4_canonical_request(r, &creq, &names);
    if (!rc)
        rc = buf_addf(&cred, "%s/", c->access_key);
    if (!rc)
        rc = add_scope(&cred, s);
    if (!rc && r->query && r->query[0])
        rc = buf_addf(&query, "%s&", r->query);
    if (!rc)
        rc = buf_adds(&query, "X-Amz-Algorithm=" SIGV4_ALGO "&X-Amz-Credential=");
    if (!rc)
        rc = sigv4_uri_encode(buf_sv(&cred), 0, &query);
    if (!rc)
        rc = buf_addf(&query, "&X-Amz-Date=%s&X-Amz-Expires=%ld", s->amz_date, expires_s);
    if (!rc && c->session_token && c->session_token[0]) {
        rc = buf_adds(&query, "&X-Amz-Security-Token=");
        if (!rc)
            rc = sigv4_uri_encode(sv_from(c->session_token), 0, &query);
    }
    if (!rc)
        rc = buf_adds(&query, "&X-Amz-SignedHeaders=");
    if (!rc)
        rc = sigv4_uri_encode(buf_sv(&names), 0, &query);
    if (rc)
        goto out;
    pr.query = buf_cstr(&query);
    pr.payload_hash = SIGV4_UNSIGNED_PAYLOAD;
    rc = sigv4_signature(&pr, c->secret_key, s, sig);
    if (!rc) {
        buf_reset(&creq);
        rc = add_canonical_query(pr.query, &creq);
    }
    if (!rc)
        rc = buf_addf(out, "%s&X-Amz-Signature=%s", buf_cstr(&creq), sig);
out:
    buf_release(&query);
    buf_release(&cred);
    buf_release(&names);
    buf_release(&creq);
    return rc;
}

void sigv4_chunk_signature(const unsigned char signing_key[SHA256_LEN], const struct sigv4_scope *s,
                           const char *prev_signature_hex, const void *chunk, size_t n,
                           char out_hex[2 * SHA256_LEN + 1])
{
    struct buf sts = BUF_INIT(4096);
    char chunk_hex[2 * SHA256_LEN + 1];
    unsigned char sig[SHA256_LEN];

    hash_sha256_hex(chunk, n, chunk_hex);
    buf_addf(&sts, SIGV4_ALGO "-PAYLOAD\n%s\n", s->amz_date);
    add_scope(&sts, s);
    buf_addf(&sts, "\n%s\n" SHA256_EMPTY_HEX "\n%s", prev_signature_hex, chunk_hex);
    hash_hmac_sha256(signing_key, SHA256_LEN, sts.data, sts.len, sig);
    str_hex(sig, SHA256_LEN, out_hex);
    buf_release(&sts);
}
