/*
 * auth: SigV4 verification on the emulator's side, built on the same pure
 * functions the client signs with (src/auth/sigv4.h). Header auth and
 * presigned URLs; payload hashes UNSIGNED-PAYLOAD, hex SHA-256 (checked in
 * ops.c once the body is in) and the streaming forms, whose aws-chunked
 * framing is decoded here, chunk signatures checked one by one.
 */
#include "emu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/sigv4.h"
#include "base/hash.h"

#define MAX_SKEW_S (15 * 60)

static void fail(struct emu_auth_result *ar, int status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void fail(struct emu_auth_result *ar, int status, const char *code, const char *fmt, ...)
{
    va_list ap;

    ar->status = status;
    ar->code = code;
    va_start(ap, fmt);
    vsnprintf(ar->msg, sizeof(ar->msg), fmt, ap);
    va_end(ap);
}

/* "20130524T000000Z" -> epoch seconds; -1 if malformed. */
static time_t parse_amz_date(const char *d)
{
    struct tm tm;
    char *end;

    memset(&tm, 0, sizeof(tm));
    end = strptime(d, "%Y%m%dT%H%M%SZ", &tm);
    if (!end || *end)
        return -1;
    return timegm(&tm);
}

/* Copy of a view into the arena; returns an offset. */
static size_t arena_add(struct buf *a, struct sv v)
{
    size_t off = a->len;

    buf_addsv(a, v);
    buf_addc(a, 0);
    return off;
}

/* Value of "Name=value" within a comma-separated Authorization header. */
static struct sv auth_field(struct sv h, const char *name)
{
    size_t nl = strlen(name), i;

    for (i = 0; i + nl < h.n; i++) {
        if ((i == 0 || h.p[i - 1] == ' ' || h.p[i - 1] == ',') && memcmp(h.p + i, name, nl) == 0 &&
            h.p[i + nl] == '=') {
            size_t j = i + nl + 1, k = j;

            while (k < h.n && h.p[k] != ',' && h.p[k] != ' ')
                k++;
            return (struct sv){ h.p + j, k - j };
        }
    }
    return (struct sv){ NULL, 0 };
}

/* Signing key, cached per thread for the last scope seen (it changes once a day). */
static void signing_key(struct emu_server *s, const struct sigv4_scope *sc, unsigned char out[32])
{
    static _Thread_local char last[320];
    static _Thread_local unsigned char key[32];
    char id[320];

    snprintf(id, sizeof(id), "%.8s/%.31s/%.15s/%.127s", sc->amz_date, sc->region, sc->service, s->access_key);
    if (strcmp(id, last) != 0) {
        sigv4_signing_key(s->secret_key, sc, key);
        str_copy(last, sizeof(last), id);
    }
    memcpy(out, key, 32);
}

static int compute(struct emu_server *s, const struct sigv4_request *r, const struct sigv4_scope *sc,
                   const unsigned char key[32], char out[65])
{
    struct buf creq = BUF_INIT(1 << 20), sts = BUF_INIT(1 << 20);
    unsigned char sig[32];
    int rc = -1;

    if (!sigv4_canonical_request(r, &creq, NULL) && !sigv4_string_to_sign(sc, buf_sv(&creq), &sts)) {
        hash_hmac_sha256(key, 32, sts.data, sts.len, sig);
        str_hex(sig, 32, out);
        rc = 0;
    }
    buf_release(&creq);
    buf_release(&sts);
    return rc;
}

/* The path re-encoded the SigV4 way, for clients that sign another spelling than they send. */
static char *reencoded_path(const char *raw)
{
    struct buf dec = BUF_INIT(1 << 16), enc = BUF_INIT(1 << 18);
    size_t i, n = strlen(raw);
    char *out = NULL;

    for (i = 0; i < n; i++) {
        unsigned int v;

        if (raw[i] == '%' && i + 2 < n + 0 && sscanf(raw + i + 1, "%2x", &v) == 1) {
            buf_addc(&dec, (char)v);
            i += 2;
        } else {
            buf_addc(&dec, raw[i]);
        }
    }
    if (!sigv4_uri_encode(buf_sv(&dec), 1, &enc))
        out = buf_detach(&enc);
    buf_release(&dec);
    buf_release(&enc);
    return out;
}

void emu_auth_check(struct emu_server *s, struct emu_req *q, const char *region,
                    struct emu_auth_result *ar)
{
    struct sv authz = emu_req_header(q, "authorization");
    struct sv sha = emu_req_header(q, "x-amz-content-sha256");
    struct buf arena = BUF_INIT(EMU_HDR_MAX_BYTES * 2), query = BUF_INIT(EMU_HDR_MAX_BYTES);
    struct sigv4_header hs[EMU_MAX_HEADERS];
    size_t hoff[EMU_MAX_HEADERS][2];
    struct sv cred, signed_hdrs, sig, date;
    struct sigv4_request r;
    struct sigv4_scope sc;
    char ph[96], ak[128], cdate[16], cregion[32], csvc[16], term[16], want[65], scratch[2048];
    bool presigned = false;
    time_t t, now = time(NULL);
    size_t nh = 0, i;

    memset(ar, 0, sizeof(*ar));
    if (sha.p) {
        ar->streaming_signed = sv_starts(sha, "STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
        if (sha.n == 64 && !sv_starts(sha, "STREAMING")) {
            ar->signed_payload = true;
            memcpy(ar->payload_sha, sha.p, 64);
        }
    }
    if (s->anonymous) {
        ar->streaming_signed = false; /* nothing to check chunks against */
        goto out;
    }
    if (authz.p && sv_starts(authz, "AWS4-HMAC-SHA256 ")) {
        cred = auth_field(authz, "Credential");
        signed_hdrs = auth_field(authz, "SignedHeaders");
        sig = auth_field(authz, "Signature");
        date = emu_req_header(q, "x-amz-date");
        if (!cred.p || !signed_hdrs.p || !sig.p) {
            fail(ar, 400, "AuthorizationHeaderMalformed", "The authorization header is malformed; "
                 "it must contain Credential, SignedHeaders and Signature.");
            goto out;
        }
        if (!date.p) {
            fail(ar, 403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
            goto out;
        }
        if (!sha.p) {
            fail(ar, 400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
            goto out;
        }
    } else if (emu_req_param(q, "X-Amz-Algorithm")) {
        const char *v;

        presigned = true;
        if (strcmp(emu_req_param(q, "X-Amz-Algorithm"), "AWS4-HMAC-SHA256") != 0) {
            fail(ar, 400, "AuthorizationQueryParametersError",
                 "X-Amz-Algorithm only supports \"AWS4-HMAC-SHA256\"");
            goto out;
        }
        v = emu_req_param(q, "X-Amz-Credential");
        cred = sv_from(v);
        v = emu_req_param(q, "X-Amz-SignedHeaders");
        signed_hdrs = sv_from(v);
        v = emu_req_param(q, "X-Amz-Signature");
        sig = sv_from(v);
        v = emu_req_param(q, "X-Amz-Date");
        date = sv_from(v);
        if (!cred.n || !signed_hdrs.n || !sig.n || !date.n || !emu_req_param(q, "X-Amz-Expires")) {
            fail(ar, 400, "AuthorizationQueryParametersError",
                 "Query-string authentication version 4 requires the X-Amz-Algorithm, "
                 "X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and "
                 "X-Amz-Expires parameters.");
            goto out;
        }
    } else if (authz.p) {
        fail(ar, 400, "InvalidRequest", "The authorization mechanism you have provided is not "
             "supported. Please use AWS4-HMAC-SHA256.");
        goto out;
    } else {
        ar->unsigned_request = true;
        fail(ar, 403, "AccessDenied", "Access Denied");
        goto out;
    }

    /* Credential = AK/yyyymmdd/region/service/aws4_request */
    if (cred.n >= sizeof(scratch)) {
        fail(ar, 400, "AuthorizationHeaderMalformed", "The Credential is too long.");
        goto out;
    }
    memcpy(scratch, cred.p, cred.n);
    scratch[cred.n] = 0;
    {
        char *parts[5], *p = scratch, *sl;
        int k;

        for (k = 0; k < 5; k++) {
            parts[k] = p;
            sl = strchr(p, '/');
            if (k < 4) {
                if (!sl)
                    break;
                *sl = 0;
                p = sl + 1;
            }
        }
        if (k < 5) {
            fail(ar, 400, presigned ? "AuthorizationQueryParametersError" : "AuthorizationHeaderMalformed",
                 "The authorization header is malformed; the Credential is mal-formed; expecting "
                 "\"<YOUR-AKID>/YYYYMMDD/REGION/SERVICE/aws4_request\".");
            goto out;
        }
        str_copy(ak, sizeof(ak), parts[0]);
        str_copy(cdate, sizeof(cdate), parts[1]);
        str_copy(cregion, sizeof(cregion), parts[2]);
        str_copy(csvc, sizeof(csvc), parts[3]);
        str_copy(term, sizeof(term), parts[4]);
    }
    if (strcmp(ak, s->access_key) != 0) {
        fail(ar, 403, "InvalidAccessKeyId",
             "The AWS Access Key Id you provided does not exist in our records.");
        goto out;
    }
    if (region && strcmp(cregion, region) != 0) {
        if (presigned)
            fail(ar, 400, "AuthorizationQueryParametersError",
                 "Error parsing the X-Amz-Credential parameter; the region '%s' is wrong; expecting '%s'",
                 cregion, region);
        else
            fail(ar, 400, "AuthorizationHeaderMalformed",
                 "The authorization header is malformed; the region '%s' is wrong; expecting '%s'",
                 cregion, region);
        str_copy(ar->region_hint, sizeof(ar->region_hint), region);
        goto out;
    }
    if (date.n >= sizeof(ar->amz_date) || (t = parse_amz_date(
                (memcpy(ar->amz_date, date.p, date.n), ar->amz_date[date.n] = 0, ar->amz_date))) < 0) {
        fail(ar, 403, "AccessDenied", "AWS authentication requires a valid Date or x-amz-date header");
        goto out;
    }
    if (presigned) {
        uint64_t exp = 0;

        if (!sv_to_u64(sv_from(emu_req_param(q, "X-Amz-Expires")), &exp) || exp > 604800) {
            fail(ar, 400, "AuthorizationQueryParametersError",
                 "X-Amz-Expires must be less than a week (in seconds) that is 604800");
            goto out;
        }
        if (now > t + (time_t)exp) {
            fail(ar, 403, "AccessDenied", "Request has expired");
            goto out;
        }
        if (t > now + MAX_SKEW_S) {
            fail(ar, 403, "AccessDenied", "Request is not valid yet");
            goto out;
        }
    } else if (t < now - MAX_SKEW_S || t > now + MAX_SKEW_S) {
        fail(ar, 403, "RequestTimeTooSkewed",
             "The difference between the request time and the current time is too large.");
        goto out;
    }

    /* The signed headers, with the values this request carries. */
    {
        struct sv names = signed_hdrs;

        while (names.n) {
            const char *semi = memchr(names.p, ';', names.n);
            struct sv nm = { names.p, semi ? (size_t)(semi - names.p) : names.n };
            int found = 0;

            names.p += nm.n + (semi ? 1 : 0);
            names.n -= nm.n + (semi ? 1 : 0);
            for (i = 0; i < (size_t)q->n_hdrs && nh < EMU_MAX_HEADERS; i++) {
                if (q->hdrs[i].name.n == nm.n && strncasecmp(q->hdrs[i].name.p, nm.p, nm.n) == 0) {
                    hoff[nh][0] = arena_add(&arena, nm);
                    hoff[nh][1] = arena_add(&arena, q->hdrs[i].value);
                    nh++;
                    found = 1;
                }
            }
            if (!found && nh < EMU_MAX_HEADERS) {
                /* Signed but absent: sign it as empty, the mismatch will tell. */
                hoff[nh][0] = arena_add(&arena, nm);
                hoff[nh][1] = arena_add(&arena, SV_NULL);
                nh++;
            }
        }
        for (i = 0; i < nh; i++) {
            hs[i].name = arena.data + hoff[i][0];
            hs[i].value = arena.data + hoff[i][1];
        }
    }
    /* Presigned: the query as sent, minus X-Amz-Signature. */
    if (presigned) {
        struct sv qs = sv_from(q->qraw);

        while (qs.n) {
            const char *amp = memchr(qs.p, '&', qs.n);
            struct sv item = { qs.p, amp ? (size_t)(amp - qs.p) : qs.n };

            qs.p += item.n + (amp ? 1 : 0);
            qs.n -= item.n + (amp ? 1 : 0);
            if (sv_starts(item, "X-Amz-Signature="))
                continue;
            if (query.len)
                buf_addc(&query, '&');
            buf_addsv(&query, item);
        }
    }
    {
        char method[16];

        snprintf(method, sizeof(method), "%.*s", (int)q->method.n, q->method.p);
        memset(&r, 0, sizeof(r));
        r.method = method;
        r.path = q->praw;
        r.query = presigned ? buf_cstr(&query) : q->qraw;
        r.headers = hs;
        r.n_headers = nh;
        snprintf(ph, sizeof(ph), "%.*s", (int)sha.n, sha.p ? sha.p : "");
        r.payload_hash = sha.p ? ph : SIGV4_UNSIGNED_PAYLOAD;
        sc.amz_date = ar->amz_date;
        str_copy(ar->scope_region, sizeof(ar->scope_region), cregion);
        str_copy(ar->scope_date, sizeof(ar->scope_date), cdate);
        sc.region = ar->scope_region;
        sc.service = csvc;
        signing_key(s, &sc, ar->signing_key);
        if (compute(s, &r, &sc, ar->signing_key, want) == 0 && sig.n == 64 &&
            strncmp(want, sig.p, 64) == 0)
            goto good;
        {
            char *alt = reencoded_path(q->praw);

            if (alt && strcmp(alt, q->praw) != 0) {
                r.path = alt;
                if (compute(s, &r, &sc, ar->signing_key, want) == 0 && sig.n == 64 &&
                    strncmp(want, sig.p, 64) == 0) {
                    free(alt);
                    goto good;
                }
            }
            free(alt);
        }
        fail(ar, 403, "SignatureDoesNotMatch",
             "The request signature we calculated does not match the signature you provided. "
             "Check your key and signing method.");
        goto out;
    }
good:
    memcpy(ar->seed_sig, sig.p, 64);
    ar->seed_sig[64] = 0;
out:
    if (ar->status)
        EMU_STAT(s, auth_failures, 1);
    buf_release(&arena);
    buf_release(&query);
}

int emu_auth_decode_chunked(struct emu_blob *b, struct emu_auth_result *ar, struct buf *trailers,
                            const char **code, const char **msg)
{
    char *d = b->data;
    uint64_t rp = 0, wp = 0, n = b->len;
    char prev[65];
    struct sigv4_scope sc = { ar->amz_date, ar->scope_region, "s3" };

    memcpy(prev, ar->seed_sig, sizeof(prev));
    for (;;) {
        char *eol = memmem(d + rp, (size_t)(n - rp), "\r\n", 2);
        uint64_t size = 0;
        char *p = d + rp, *ext;
        struct sv chunk_sig = { NULL, 0 };

        if (!eol)
            goto bad;
        while (p < eol && ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F'))) {
            int v = *p <= '9' ? *p - '0' : (*p | 32) - 'a' + 10;
            if (size >> 59)
                goto bad;
            size = size * 16 + (uint64_t)v;
            p++;
        }
        if (p == d + rp)
            goto bad;
        ext = memmem(p, (size_t)(eol - p), "chunk-signature=", 16);
        if (ext)
            chunk_sig = (struct sv){ ext + 16, (size_t)(eol - ext - 16) };
        rp = (uint64_t)(eol - d) + 2;
        if (size > n - rp)
            goto bad;
        if (ar->streaming_signed) {
            char got[65];

            if (chunk_sig.n != 64)
                goto badsig;
            sigv4_chunk_signature(ar->signing_key, &sc, prev, d + rp, (size_t)size, got);
            if (memcmp(got, chunk_sig.p, 64) != 0)
                goto badsig;
            memcpy(prev, got, 65);
        }
        if (size == 0)
            break;
        memmove(d + wp, d + rp, (size_t)size);
        wp += size;
        rp += size;
        if (n - rp < 2 || d[rp] != '\r' || d[rp + 1] != '\n')
            goto bad;
        rp += 2;
    }
    /* Trailers: "name:value\r\n" lines up to an empty line (or the end). */
    while (rp < n) {
        char *eol = memmem(d + rp, (size_t)(n - rp), "\r\n", 2);
        size_t len = eol ? (size_t)(eol - (d + rp)) : (size_t)(n - rp);

        if (len == 0)
            break;
        buf_add(trailers, d + rp, len);
        buf_addc(trailers, '\n');
        rp += len + (eol ? 2 : 0);
    }
    b->len = wp;
    return 0;
bad:
    *code = "IncompleteBody";
    *msg = "The request body is not valid aws-chunked encoding.";
    return -1;
badsig:
    *code = "SignatureDoesNotMatch";
    *msg = "The request signature we calculated does not match the signature you provided. "
           "Check your key and signing method.";
    return -1;
}
