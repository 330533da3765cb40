/*
 * The S3 Express session cache: one CreateSession per (bucket, keys, mode),
 * refreshed ahead of time on a thread while the old session still signs,
 * waited for only when nothing valid is left, ReadWrite serving reads, the
 * LRU cap, sessions refused as expired, failures not retried in a storm.
 * The fetch is a fake that counts its calls; time is the real monotonic
 * clock plus offsets, as the cache measures a session's life from its fetch.
 */
#include "t.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "auth/express.h"
#include "auth/keyring.h"
#include "auth/sigv4.h"
#include "store/store_s3.h"

struct fake {
    atomic_int calls;
    int64_t life_ms;
    bool fail;
    char last_mode[16];
};

static enum s3c_err fake_fetch(void *ctx, struct express_ask *ask, struct express_got *out, struct s3c_error *e)
{
    struct fake *f = ctx;
    char ak[64];
    int n = atomic_fetch_add(&f->calls, 1) + 1;

    snprintf(ak, sizeof(ak), "ASIASESSION%d", n);
    snprintf(f->last_mode, sizeof(f->last_mode), "%s", express_mode_name(ask->mode));
    if (f->fail)
        return s3c_fail(e, S3C_EAUTH, "CreateSession %s: denied", ask->bucket);
    out->keys.access_key = strdup(ak);
    out->keys.secret_key = strdup("secret");
    out->keys.session_token = strdup("token");
    out->life_ms = f->life_ms;
    return S3C_OK;
}

static struct creds iam_keys(const char *ak)
{
    struct creds c = CREDS_INIT;

    c.access_key = (char *)ak;
    c.secret_key = (char *)"iam-secret";
    return c;
}

/* Let the refresh thread in flight finish (it wakes nobody here). */
static void settle(struct fake *f, int want_calls)
{
    int i;

    for (i = 0; i < 500 && atomic_load(&f->calls) < want_calls; i++)
        usleep(2000);
    usleep(5000);
}

TEST(express_session_reuse_and_refresh_ahead)
{
    struct fake f = { .life_ms = 30000 };
    struct express_cache *c = express_cache_new(fake_fetch, &f, NULL, NULL);
    struct creds iam = iam_keys("AKIDONE");
    struct express_use u, u2;
    struct express_stats st;
    int64_t t0 = express_now_ms();
    unsigned first;

    CHECK(c != NULL);
    /* The first request waits for its session. */
    CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, NULL), S3C_OK);
    CHECK_STR(u.keys->access_key, "ASIASESSION1");
    CHECK_STR(u.region, "us-east-1");
    CHECK(u.fresh);
    first = u.gen;
    /* Then it is reused, without another CreateSession. */
    CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0 + 1000, &u2, NULL), S3C_OK);
    CHECK_INT(u2.gen, first);
    CHECK(!u2.fresh);
    CHECK_INT(atomic_load(&f.calls), 1);
    /* In the advisory window (10 s before expiry for 30 s): the old session
     * still signs while a refresh runs on a thread. */
    CHECK_INT(express_advisory_lead_ms(30000), 10000);
    CHECK_INT(express_mandatory_lead_ms(30000), 3000);
    CHECK_INT(express_advisory_lead_ms(300000), 60000);
    CHECK_INT(express_mandatory_lead_ms(300000), 10000);
    CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0 + 21000, &u, NULL), S3C_OK);
    CHECK_INT(u.gen, first);
    settle(&f, 2);
    CHECK_INT(atomic_load(&f.calls), 2);
    CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, express_now_ms(), &u, NULL),
              S3C_OK);
    CHECK(u.gen != first);
    CHECK_STR(u.keys->access_key, "ASIASESSION2");
    express_stats(c, &st);
    CHECK_INT(st.sessions, 2);
    CHECK_INT(st.ahead, 1);
    CHECK_INT(st.waited, 1);
    express_cache_free(c);
}

TEST(express_session_mandatory_wait)
{
    struct fake f = { .life_ms = 30000 };
    struct express_cache *c = express_cache_new(fake_fetch, &f, NULL, NULL);
    struct creds iam = iam_keys("AKIDONE");
    struct express_use u;
    struct express_stats st;
    int64_t t0 = express_now_ms();
    unsigned first;

    CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, NULL), S3C_OK);
    first = u.gen;
    /* 2 s before expiry (inside the 3 s mandatory lead): wait for a new one. */
    CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0 + 28000, &u, NULL), S3C_OK);
    CHECK(u.gen != first);
    CHECK_INT(atomic_load(&f.calls), 2);
    express_stats(c, &st);
    CHECK_INT(st.waited, 2);
    CHECK_INT(st.ahead, 0);
    express_cache_free(c);
}

TEST(express_session_keys_modes_and_cap)
{
    struct fake f = { .life_ms = 300000 };
    struct express_cache *c = express_cache_new(fake_fetch, &f, NULL, NULL);
    struct creds iam = iam_keys("AKIDONE"), other = iam_keys("AKIDTWO");
    struct express_use u;
    struct express_stats st;
    int64_t t0 = express_now_ms();
    unsigned rw;
    char name[64];
    int i;

    /* A read with no session yet asks for a ReadOnly one. */
    CHECK_INT(express_get(c, "r--use1-az4--x-s3", "us-east-1", EXPRESS_READ_ONLY, &iam, t0, &u, NULL), S3C_OK);
    CHECK_STR(f.last_mode, "ReadOnly");
    /* A write needs its own ReadWrite session... */
    CHECK_INT(express_get(c, "r--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, NULL), S3C_OK);
    CHECK_STR(f.last_mode, "ReadWrite");
    rw = u.gen;
    /* ...which then serves reads too. */
    CHECK_INT(express_get(c, "r--use1-az4--x-s3", "us-east-1", EXPRESS_READ_ONLY, &iam, t0, &u, NULL), S3C_OK);
    CHECK_INT(u.gen, rw);
    CHECK_INT(atomic_load(&f.calls), 2);
    /* Other keys, other session. */
    CHECK_INT(express_get(c, "r--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &other, t0, &u, NULL), S3C_OK);
    CHECK(u.gen != rw);
    CHECK_INT(atomic_load(&f.calls), 3);
    /* 64 sessions at most: the least recently used goes. */
    for (i = 0; i < EXPRESS_CACHE_MAX; i++) {
        snprintf(name, sizeof(name), "b%d--use1-az4--x-s3", i);
        CHECK_INT(express_get(c, name, "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, NULL), S3C_OK);
    }
    express_stats(c, &st);
    CHECK_INT(st.evicted, 3);
    CHECK_INT(st.sessions, 3 + EXPRESS_CACHE_MAX);
    /* b63 is still cached; r's ReadWrite session was evicted first. */
    CHECK_INT(express_get(c, "b63--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, NULL), S3C_OK);
    CHECK_INT(atomic_load(&f.calls), 3 + EXPRESS_CACHE_MAX);
    express_cache_free(c);
}

TEST(express_session_expired_and_failures)
{
    struct fake f = { .life_ms = 300000 };
    struct express_cache *c = express_cache_new(fake_fetch, &f, NULL, NULL);
    struct creds iam = iam_keys("AKIDONE");
    struct s3c_error e = S3C_ERROR_INIT;
    struct express_use u;
    int64_t t0 = express_now_ms();
    unsigned g1, g2;
    int i;

    CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, NULL), S3C_OK);
    g1 = u.gen;
    /* Refused as expired: the next request gets a new session. */
    CHECK(express_expired(c, g1));
    CHECK(express_expired(c, g1)); /* asked already: the retry may go */
    CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, NULL), S3C_OK);
    g2 = u.gen;
    CHECK(g2 != g1);
    CHECK(express_expired(c, g1)); /* a request signed with the old one: the new one may do */
    CHECK_INT(atomic_load(&f.calls), 2);
    /* A server that refuses every session: a bounded number of fetches. */
    for (i = 0; i < 100 && express_expired(c, u.gen); i++)
        CHECK_INT(express_get(c, "b--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, NULL), S3C_OK);
    CHECK(i < 60);
    /* CreateSession refused: the error, then no second try before a short wait. */
    f.fail = true;
    CHECK_INT(express_get(c, "x--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, t0, &u, &e), S3C_EAUTH);
    CHECK(strstr(e.msg, "denied") != NULL);
    i = atomic_load(&f.calls);
    CHECK_INT(express_get(c, "x--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, express_now_ms(), &u, &e),
              S3C_EAUTH);
    CHECK_INT(atomic_load(&f.calls), i);
    f.fail = false;
    usleep(250000);
    CHECK_INT(express_get(c, "x--use1-az4--x-s3", "us-east-1", EXPRESS_READ_WRITE, &iam, express_now_ms(), &u, &e),
              S3C_OK);
    CHECK_INT(atomic_load(&f.calls), i + 1);
    express_cache_free(c);
}

/* ---- signing ------------------------------------------------------------------ */

/* A request signed with session keys under "s3express", its token signed as
 * x-amz-s3session-token; the expected value computed independently (Python's
 * hmac/hashlib from the SigV4 specification), not by this code. */
TEST(express_sigv4_session_vector)
{
    const char *host = "mybucket--usw2-az1--x-s3.s3express-usw2-az1.us-west-2.amazonaws.com";
    const struct sigv4_header h[] = {
        { "host", host },
        { "x-amz-content-sha256", SHA256_EMPTY_HEX },
        { "x-amz-date", "20240115T120000Z" },
        { "x-amz-s3session-token", "session-token.EXAMPLE" },
    };
    const struct sigv4_request r = { "GET", "/photos/2024/a%20b.jpg", NULL, h, 4, SHA256_EMPTY_HEX };
    const struct sigv4_creds cr = { "ASIAEXPRESSSESSION01", "sessionSecret/Key+EXAMPLE0123456789abcdef", NULL };
    const struct sigv4_scope sc = { "20240115T120000Z", "us-west-2", "s3express" };
    struct buf auth = BUF_INIT(4096);

    CHECK_INT(sigv4_authorization(&r, &cr, &sc, &auth), S3C_OK);
    CHECK_STR(buf_cstr(&auth),
              "AWS4-HMAC-SHA256 Credential=ASIAEXPRESSSESSION01/20240115/us-west-2/s3express/aws4_request, "
              "SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-s3session-token, "
              "Signature=8ee483fed4525602e1f6eb509bd0836f9149d9133a48ba600876fde2910aa80d");
    buf_release(&auth);
}

/* The value of request header 'name' of 'x', or NULL. */
static const char *xhdr(const struct http_xfer *x, const char *name)
{
    size_t i;

    for (i = 0; i < x->n_headers; i++)
        if (!strcasecmp(x->headers[i].name, name))
            return x->headers[i].value;
    return NULL;
}

/* What the store signs with for each kind of request to a directory bucket,
 * without a network: requests that need no session (bucket management,
 * HeadBucket, copies, or all of them with session auth disabled). */
TEST(express_store_signing_decisions)
{
    struct s3c_config cfg = S3C_CONFIG_INIT;
    struct creds k = CREDS_INIT;
    struct keyring *kr;
    struct store_s3_opts o;
    struct store_s3 *s;
    struct store_s3_call c = STORE_S3_CALL_INIT;
    struct http_xfer x;
    struct s3c_error e = S3C_ERROR_INIT;
    const char *bucket = "b--use1-az4--x-s3";

    cfg.region = (char *)"us-east-1";
    cfg.endpoint_url = (char *)"http://127.0.0.1:9";
    k.access_key = strdup("AKIDIAM");
    k.secret_key = strdup("iam-secret");
    kr = keyring_new(NULL, &k, NULL, NULL);
    memset(&o, 0, sizeof(o));
    o.cfg = &cfg;
    o.region = "us-east-1";
    o.keys = kr;
    s = store_s3_new(&o, &e);
    CHECK(s != NULL);
    if (!s)
        return;
    memset(&x, 0, sizeof(x));
    {
        /* CreateBucket of a directory bucket: control endpoint, IAM keys, s3express. */
        struct s3_req r = { .method = "PUT", .bucket = bucket, .control = true };
        CHECK_INT(store_s3_prepare(s, &r, &c, &x, &e), S3C_OK);
        CHECK_STR(x.url, "http://127.0.0.1:9/b--use1-az4--x-s3");
        CHECK(strstr(xhdr(&x, "Authorization"), "Credential=AKIDIAM/") != NULL);
        CHECK(strstr(xhdr(&x, "Authorization"), "/us-east-1/s3express/aws4_request") != NULL);
        CHECK(xhdr(&x, "x-amz-s3session-token") == NULL);
        CHECK_INT(c.express_gen, 0);
    }
    {
        /* CopyObject and HeadBucket: IAM keys too (the S3 API reference). */
        struct s3_req r = { .method = "PUT", .bucket = bucket, .key = "k" };
        s3_req_header(&r, "x-amz-copy-source", "/src/k");
        CHECK_INT(store_s3_prepare(s, &r, &c, &x, &e), S3C_OK);
        CHECK(strstr(xhdr(&x, "Authorization"), "Credential=AKIDIAM/") != NULL);
        CHECK(strstr(xhdr(&x, "Authorization"), "/s3express/aws4_request") != NULL);
        struct s3_req hb = { .method = "HEAD", .bucket = bucket };
        CHECK_INT(store_s3_prepare(s, &hb, &c, &x, &e), S3C_OK);
        CHECK(strstr(xhdr(&x, "Authorization"), "Credential=AKIDIAM/") != NULL);
    }
    {
        /* A general-purpose bucket: plain "s3". */
        struct s3_req r = { .method = "GET", .bucket = "plain", .key = "k" };
        CHECK_INT(store_s3_prepare(s, &r, &c, &x, &e), S3C_OK);
        CHECK(strstr(xhdr(&x, "Authorization"), "/us-east-1/s3/aws4_request") != NULL);
    }
    store_s3_free(s);
    /* Session auth disabled: object requests with the IAM keys for s3express;
     * DeleteObjects' Content-MD5 (not taken by directory buckets) becomes a CRC32. */
    o.express_no_session = true;
    s = store_s3_new(&o, &e);
    {
        static const char body[] = "<Delete><Object><Key>a</Key></Object></Delete>";
        struct s3_req r = { .method = "POST", .bucket = bucket, .query = "delete=", .body = body,
                            .body_len = sizeof(body) - 1 };
        s3_req_header(&r, "Content-MD5", "bm90IGEgcmVhbCBtZDU=");
        CHECK_INT(store_s3_prepare(s, &r, &c, &x, &e), S3C_OK);
        CHECK_STR(x.url, "http://127.0.0.1:9/b--use1-az4--x-s3?delete=");
        CHECK(strstr(xhdr(&x, "Authorization"), "Credential=AKIDIAM/") != NULL);
        CHECK(strstr(xhdr(&x, "Authorization"), "/s3express/aws4_request") != NULL);
        CHECK(xhdr(&x, "Content-MD5") == NULL);
        CHECK(xhdr(&x, "x-amz-checksum-crc32") != NULL);
        CHECK_INT(c.express_gen, 0);
    }
    store_s3_call_release(&c);
    store_s3_free(s);
    keyring_free(kr);
}
