/*
 * auth: SigV4 verification on the emulator's side, built on the same pure
 * functions the client signs with (src/auth/sigv4.h). Header auth and
 * presigned URLs; payload hashes UNSIGNED-PAYLOAD, hex SHA-256 (checked in
 * ops.c once the body is in) and the streaming forms, whose aws-chunked
 * framing is decoded here, chunk signatures checked one by one. Temporary
 * keys (ASIA..., issued by tests/creds/fake_iam.py) are checked here too:
 * their secret and session token derive from the static secret key (README,
 * "Temporary credentials"), so no state is shared with the issuer; so are
 * S3 Express session credentials (x-amz-s3session-token), which it issues
 * for CreateSession too. Which requests may use which credentials is judged
 * by ops_express.c, not here. Counts the requests each access key signed
 * ("signers" in /_s3emu/stats).
 */
#include "emu.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/sigv4.h"
#include "base/hash.h"

#define MAX_SKEW_S (15 * 60)
#define TEMP_PREFIX "ASIA"          /* access key ids of temporary credentials */
#define TEMP_SECRET_LEN 40
#define TEMP_TOKEN_MAX 1024         /* longer session tokens are not ours */
#define SIGNERS_MAX 4096            /* access keys counted; later ones go to "other" */
#define SIGNER_ID_MAX 128

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

/*
 * Signing key of 'ak' (whose secret is 'secret'), cached per thread for the
 * last scope and key seen (the scope changes once a day).
 */
static void signing_key(const char *ak, const char *secret, const struct sigv4_scope *sc,
                        unsigned char out[32])
{
    static _Thread_local char last[320];
    static _Thread_local unsigned char key[32];
    char id[320];

    snprintf(id, sizeof(id), "%.8s/%.31s/%.15s/%.127s", sc->amz_date, sc->region, sc->service, ak);
    if (strcmp(id, last) != 0) {
        sigv4_signing_key(secret, sc, key);
        str_copy(last, sizeof(last), id);
    }
    memcpy(out, key, 32);
}

/* ---- temporary credentials ---- */

/* The secret of temporary key 'ak': base64(HMAC-SHA256(master, DOMAIN ak)), 40 chars. */
static void derived_secret(const struct emu_server *s, const char *domain, const char *ak,
                           char out[TEMP_SECRET_LEN + 1])
{
    struct buf b64 = BUF_INIT(64);
    unsigned char mac[32];
    char msg[SIGNER_ID_MAX + 32];
    int n = snprintf(msg, sizeof(msg), "%s%s", domain, ak);

    hash_hmac_sha256(s->secret_key, strlen(s->secret_key), msg, (size_t)n, mac);
    out[0] = 0;
    if (!base64_encode(mac, sizeof(mac), &b64) && b64.len >= TEMP_SECRET_LEN) {
        memcpy(out, b64.data, TEMP_SECRET_LEN);
        out[TEMP_SECRET_LEN] = 0;
    }
    buf_release(&b64);
}

/* Hex HMAC-SHA256(master, DOMAIN payload). */
static void token_mac(const struct emu_server *s, const char *domain, const char *p, size_t n,
                      char hex[65])
{
    struct buf msg = BUF_INIT(TEMP_TOKEN_MAX + 32);
    unsigned char mac[32];

    buf_adds(&msg, domain);
    buf_add(&msg, p, n);
    hash_hmac_sha256(s->secret_key, strlen(s->secret_key), msg.data, msg.len, mac);
    str_hex(mac, 32, hex);
    buf_release(&msg);
}

/*
 * A token "PAYLOAD.MAC" of ours: MAC is hex HMAC-SHA256(master, DOMAIN
 * PAYLOAD), PAYLOAD the unpadded base64url of a JSON object, decoded into
 * 'json'. false when it is not ours.
 */
static bool token_payload(const struct emu_server *s, struct sv tok, const char *domain, struct buf *json)
{
    struct buf b64 = BUF_INIT(TEMP_TOKEN_MAX + 4);
    const char *dot = tok.n ? memchr(tok.p, '.', tok.n) : NULL;
    char hex[65];
    size_t plen, i;
    bool ok = false;

    if (!dot || tok.n > TEMP_TOKEN_MAX)
        goto out;
    plen = (size_t)(dot - tok.p);
    if (tok.n - plen - 1 != 64)
        goto out;
    token_mac(s, domain, tok.p, plen, hex);
    if (memcmp(hex, dot + 1, 64) != 0)
        goto out;
    for (i = 0; i < plen; i++)      /* base64url -> base64 */
        buf_addc(&b64, tok.p[i] == '-' ? '+' : tok.p[i] == '_' ? '/' : tok.p[i]);
    while (b64.len % 4)
        buf_addc(&b64, '=');
    ok = !base64_decode(buf_sv(&b64), json);
out:
    buf_release(&b64);
    return ok;
}

/* Digits up to the closing '}' that ends 'json' at 'i': the "exp" value. */
static bool json_exp_tail(const struct buf *json, size_t i, int64_t *exp)
{
    if (json->len <= i + 1 || json->data[json->len - 1] != '}')
        return false;
    *exp = 0;
    for (; i + 1 < json->len; i++) {
        if (json->data[i] < '0' || json->data[i] > '9' || *exp > INT64_MAX / 20)
            return false;
        *exp = *exp * 10 + (json->data[i] - '0');
    }
    return true;
}

/*
 * Check session token 'tok' of temporary key 'ak' (README, "Temporary
 * credentials"): {"akid":"AK","exp":N}. true with *exp set when it is ours
 * and for 'ak'.
 */
static bool temp_token_ok(const struct emu_server *s, struct sv tok, const char *ak, int64_t *exp)
{
    struct buf json = BUF_INIT(TEMP_TOKEN_MAX);
    char want[SIGNER_ID_MAX + 16];
    bool ok = false;
    int n;

    if (!token_payload(s, tok, "token:", &json))
        goto out;
    /* Ours (the MAC says so), so in the issuer's one spelling. */
    n = snprintf(want, sizeof(want), "{\"akid\":\"%s\",\"exp\":", ak);
    if (json.len <= (size_t)n || memcmp(json.data, want, (size_t)n) != 0)
        goto out;
    ok = json_exp_tail(&json, (size_t)n, exp);
out:
    buf_release(&json);
    return ok;
}

/*
 * Check S3 Express session token 'tok' of key 'ak': {"akid":"AK",
 * "bucket":"B","mode":"ReadWrite|ReadOnly","exp":N}. Fills the session
 * fields of 'ar' and *exp when it is ours and for 'ak'.
 */
static bool session_token_ok(const struct emu_server *s, struct sv tok, const char *ak,
                             struct emu_auth_result *ar, int64_t *exp)
{
    struct buf json = BUF_INIT(TEMP_TOKEN_MAX);
    char want[SIGNER_ID_MAX + 32];
    const char *p, *end, *q;
    bool ok = false;
    int n;

    if (!token_payload(s, tok, "s3session:", &json))
        goto out;
    n = snprintf(want, sizeof(want), "{\"akid\":\"%s\",\"bucket\":\"", ak);
    if (json.len <= (size_t)n || memcmp(json.data, want, (size_t)n) != 0)
        goto out;
    p = json.data + n;
    end = json.data + json.len;
    q = memchr(p, '"', (size_t)(end - p));
    if (!q || (size_t)(q - p) >= sizeof(ar->session_bucket))
        goto out;
    memcpy(ar->session_bucket, p, (size_t)(q - p));
    ar->session_bucket[q - p] = 0;
    p = q;
    if ((size_t)(end - p) > 28 && !memcmp(p, "\",\"mode\":\"ReadWrite\",\"exp\":", 27))
        ar->session_readonly = false, p += 27;
    else if ((size_t)(end - p) > 27 && !memcmp(p, "\",\"mode\":\"ReadOnly\",\"exp\":", 26))
        ar->session_readonly = true, p += 26;
    else
        goto out;
    ok = json_exp_tail(&json, (size_t)(p - json.data), exp);
out:
    buf_release(&json);
    return ok;
}

void emu_auth_session_issue(struct emu_server *s, const char *bucket, bool readonly, int64_t exp,
                            char akid[24], char secret[48], struct buf *token)
{
    struct buf json = BUF_INIT(512), b64 = BUF_INIT(1024);
    char hex[65];
    size_t i, start;

    memcpy(akid, TEMP_PREFIX, 4);
    emu_random_hex(s, akid + 4, 16);
    for (i = 4; i < 20; i++)
        akid[i] = (char)toupper((unsigned char)akid[i]);
    akid[20] = 0;
    derived_secret(s, "s3session-secret:", akid, secret);
    buf_addf(&json, "{\"akid\":\"%s\",\"bucket\":\"%s\",\"mode\":\"%s\",\"exp\":%lld}", akid, bucket,
             readonly ? "ReadOnly" : "ReadWrite", (long long)exp);
    base64_encode(json.data, json.len, &b64);
    start = token->len;
    for (i = 0; i < b64.len && b64.data[i] != '='; i++)    /* base64 -> unpadded base64url */
        buf_addc(token, b64.data[i] == '+' ? '-' : b64.data[i] == '/' ? '_' : b64.data[i]);
    token_mac(s, "s3session:", token->data + start, token->len - start, hex);
    buf_addc(token, '.');
    buf_adds(token, hex);
    buf_release(&json);
    buf_release(&b64);
}

/*
 * The secret of access key 'ak' into 'secret': the static one, or for a
 * temporary key, once its session token (header, or X-Amz-Security-Token in
 * a presigned query) is checked and unexpired, the derived one. false with
 * 'ar' set to S3's answer when the key is refused.
 */
static bool key_secret(struct emu_server *s, struct emu_req *q, const char *ak, time_t now,
                       char secret[128], struct emu_auth_result *ar)
{
    struct sv tok;
    int64_t exp = 0;

    if (strcmp(ak, s->access_key) == 0) {
        str_copy(secret, 128, s->secret_key);
        return true;
    }
    if (strncmp(ak, TEMP_PREFIX, strlen(TEMP_PREFIX)) != 0 || strlen(ak) >= SIGNER_ID_MAX) {
        fail(ar, 403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
        return false;
    }
    tok = emu_req_header(q, "x-amz-s3session-token");
    if (!tok.p)
        tok = sv_from(emu_req_param(q, "X-Amz-S3session-Token"));
    if (tok.n) {    /* S3 Express session credentials */
        if (!session_token_ok(s, tok, ak, ar, &exp)) {
            fail(ar, 400, "InvalidToken", "The provided token is malformed or otherwise invalid.");
            return false;
        }
        if ((int64_t)now >= exp) {
            fail(ar, 400, "ExpiredToken", "The provided token has expired.");
            return false;
        }
        ar->session = true;
        derived_secret(s, "s3session-secret:", ak, secret);
        return true;
    }
    tok = emu_req_header(q, "x-amz-security-token");
    if (!tok.p)
        tok = sv_from(emu_req_param(q, "X-Amz-Security-Token"));
    if (!tok.n) {
        fail(ar, 403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
        return false;
    }
    if (!temp_token_ok(s, tok, ak, &exp)) {
        fail(ar, 400, "InvalidToken", "The provided token is malformed or otherwise invalid.");
        return false;
    }
    if ((int64_t)now >= exp) {
        fail(ar, 400, "ExpiredToken", "The provided token has expired.");
        return false;
    }
    derived_secret(s, "secret:", ak, secret);
    return true;
}

/* ---- signers: requests signed per access key ---- */

struct signer {
    char id[SIGNER_ID_MAX];     /* "" = free; set once, under signers_lock */
    _Atomic uint64_t n;
};
static struct signer signers[SIGNERS_MAX + 1];  /* the last one counts the overflow */
static _Atomic int n_signers;
static pthread_mutex_t signers_lock = PTHREAD_MUTEX_INITIALIZER;

/* Count one request signed by 'ak'. Slots never move, so a thread keeps the last one it used. */
static void signer_count(const char *ak)
{
    static _Thread_local struct signer *last;
    int i, n;

    if (last && strcmp(last->id, ak) == 0)
        goto count;
    n = atomic_load(&n_signers);
    for (i = 0; i < n; i++) {
        if (strcmp(signers[i].id, ak) == 0) {
            last = &signers[i];
            goto count;
        }
    }
    pthread_mutex_lock(&signers_lock);
    n = atomic_load(&n_signers);
    for (i = 0; i < n && strcmp(signers[i].id, ak) != 0; i++)
        ;
    if (i == n && n < SIGNERS_MAX) {
        str_copy(signers[n].id, sizeof(signers[n].id), ak);
        atomic_store(&n_signers, n + 1);
    }
    last = i < SIGNERS_MAX ? &signers[i] : &signers[SIGNERS_MAX];
    pthread_mutex_unlock(&signers_lock);
count:
    atomic_fetch_add_explicit(&last->n, 1, memory_order_relaxed);
}

void emu_auth_signers_json(struct buf *b)
{
    int i, n = atomic_load(&n_signers), first = 1;

    buf_adds(b, "{");
    for (i = 0; i <= SIGNERS_MAX; i++) {
        uint64_t c;

        if (i == n)
            i = SIGNERS_MAX;
        c = atomic_load_explicit(&signers[i].n, memory_order_relaxed);
        if (!c)
            continue;
        /* Ids are SigV4 credential fields: no quote or backslash gets this far unescaped. */
        buf_addf(b, "%s\"%s\":%llu", first ? "" : ",", i == SIGNERS_MAX ? "(other)" : signers[i].id,
                 (unsigned long long)c);
        first = 0;
    }
    buf_adds(b, "}");
}

void emu_auth_signers_reset(void)
{
    int i;

    for (i = 0; i <= SIGNERS_MAX; i++)
        atomic_store(&signers[i].n, 0);
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
    char secret[128];
    bool presigned = false;
    time_t t, now = time(NULL);
    size_t nh = 0, i;

    memset(ar, 0, sizeof(*ar));
    /* S3 judges a request (its date, its token's expiry) when it arrives,
     * not when a long body has been received. */
    if (q->t_head_ns) {
        int64_t waited_ns = emu_now_ns() - q->t_head_ns;
        if (waited_ns > 0)
            now -= (time_t)(waited_ns / 1000000000);
    }
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
        str_copy(ar->scope_service, sizeof(ar->scope_service), csvc);
        ar->presigned = presigned;
    }
    if (!key_secret(s, q, ak, now, secret, ar))
        goto out;
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
        signing_key(ak, secret, &sc, ar->signing_key);
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
    signer_count(ak);
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
    struct sigv4_scope sc = { ar->amz_date, ar->scope_region, ar->scope_service[0] ? ar->scope_service : "s3" };

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
