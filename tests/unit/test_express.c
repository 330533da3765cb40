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
#include <unistd.h>

#include "auth/express.h"

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
