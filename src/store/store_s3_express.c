/*
 * store_s3_express.c: CreateSession, the one S3 request made off the loop.
 * auth/express.c calls it on a refresh thread (or in place when the loop has
 * nothing valid left to sign with); it reads only the store's options and
 * what the ask holds, builds, signs and sends GET /BUCKET?session on a
 * connection of its own, and prints nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/express.h"
#include "auth/sigv4.h"
#include "base/hash.h"
#include "base/str.h"
#include "s3/xml.h"
#include "store/store_s3.h"

#define SESSION_BODY_MAX (64 << 10)
#define SESSION_BACKOFF_MAX_MS 5000

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

/* Build, sign and send one CreateSession into 'x'. */
static enum s3c_err session_exchange(const struct store_s3_opts *o, const struct express_ask *ask,
                                     struct http_xfer *x, struct s3c_error *e)
{
    struct s3_target t = S3_TARGET_INIT;
    struct buf url = BUF_INIT(S3_URL_MAX_BYTES + 16), auth = BUF_INIT(4096);
    struct http_loop_opts ho = o->http;
    struct http_loop *loop = NULL;
    struct sigv4_header sh[8];
    const struct sigv4_creds sc = { ask->iam.access_key, ask->iam.secret_key, ask->iam.session_token };
    char date[17];
    size_t n = 0, i;
    enum s3c_err rc;

    rc = s3_endpoint_resolve_in(o->cfg, ask->region, ask->bucket, NULL, &t, e);
    if (rc)
        goto out;
    if (buf_addsv(&url, buf_sv(&t.url)) || buf_adds(&url, "?session=")) {
        rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
        goto out;
    }
    s3_amz_date(time(NULL), date);
    x->method = "GET";
    x->url = buf_cstr(&url);
    x->body_max = SESSION_BODY_MAX;
    http_xfer_header(x, "x-amz-create-session-mode", express_mode_name(ask->mode));
    http_xfer_header(x, "x-amz-date", date);
    http_xfer_header(x, "x-amz-content-sha256", SHA256_EMPTY_HEX);
    if (ask->iam.session_token && ask->iam.session_token[0])
        http_xfer_header(x, "x-amz-security-token", ask->iam.session_token);
    sh[n].name = "host";
    sh[n++].value = buf_cstr(&t.host);
    for (i = 0; i < x->n_headers; i++) {
        sh[n].name = x->headers[i].name;
        sh[n++].value = x->headers[i].value;
    }
    {
        const struct sigv4_request sr = { "GET", buf_cstr(&t.path), "session=", sh, n, SHA256_EMPTY_HEX };
        const struct sigv4_scope scope = { date, ask->region, "s3express" };

        rc = sigv4_authorization(&sr, &sc, &scope, &auth);
    }
    if (rc) {
        s3c_fail(e, rc, "cannot sign CreateSession");
        goto out;
    }
    http_xfer_header(x, "Authorization", buf_cstr(&auth));
    /* A connection of its own: the loop's belong to the loop's thread. */
    ho.debug = NULL;
    ho.debug_ctx = NULL;
    loop = http_loop_new(&ho, e);
    if (!loop) {
        rc = e->code ? e->code : S3C_ENOMEM;
        goto out;
    }
    rc = http_do(loop, x, e);
out:
    http_loop_free(loop);
    s3_target_release(&t);
    /* x->url and the header values point into these: the exchange is over. */
    x->url = NULL;
    x->n_headers = 0;
    buf_release(&url);
    buf_release(&auth);
    return rc;
}

/* How long the session lives from 'sent_wall_ms', on both clocks: the
 * server's own (Expiration - Date, a second taken off for Date's rounding)
 * and ours; the shorter, so skew never stretches it. */
static int64_t session_life_ms(const struct http_resp *resp, int64_t expires_epoch, int64_t sent_wall_ms)
{
    int64_t by_wall = expires_epoch * 1000 - sent_wall_ms, by_server = -1, server;
    struct sv d;

    if (http_resp_header(resp, "date", &d) && http_date_parse(d, &server))
        by_server = (expires_epoch - server - 1) * 1000;
    if (by_server > 0 && (by_wall <= 0 || by_server < by_wall))
        return by_server;
    return by_wall;
}

/* The answer of a CreateSession that came back 2xx: the session, or why not. */
static enum s3c_err session_take(const struct express_ask *ask, const struct http_xfer *x, int64_t sent_wall_ms,
                                 struct express_got *out, struct s3c_error *e)
{
    struct s3_create_session cs = S3_CREATE_SESSION_INIT;
    enum s3c_err rc;

    rc = s3_parse_create_session(buf_sv(&x->resp.body), &cs, e);
    if (rc) {
        /* A 2xx that is no session: a store without S3 Express took "?session" for another
         * request (moto lists the bucket). Say that, not the XML's shape. */
        char why[sizeof(e->msg)];

        str_copy(why, sizeof(why), e->msg);
        rc = s3c_fail(e, S3C_EHTTP, "CreateSession for %s: the store does not speak S3 Express One Zone (its answer "
                      "is no session: %s); a name ending in --x-s3 is a directory bucket's, which only S3 Express "
                      "serves: use a general purpose bucket name there", ask->bucket, why);
        goto out;
    }
    out->life_ms = session_life_ms(&x->resp, cs.expires_epoch, sent_wall_ms);
    if (!cs.expires_epoch || out->life_ms <= 0) {
        rc = s3c_fail(e, S3C_EAUTH, "CreateSession for %s: the session came back expired (Expiration %s)",
                      ask->bucket, cs.expiration ? cs.expiration : "missing");
        goto out;
    }
    out->keys.access_key = strdup(cs.access_key);
    out->keys.secret_key = strdup(cs.secret_key);
    out->keys.session_token = strdup(cs.session_token);
    out->keys.expires = (time_t)cs.expires_epoch;
    out->keys.method = "s3express-session";
    if (!out->keys.access_key || !out->keys.secret_key || !out->keys.session_token) {
        creds_release(&out->keys);
        rc = s3c_fail(e, S3C_ENOMEM, "out of memory");
    }
out:
    s3_create_session_release(&cs);
    return rc;
}

/* A refused CreateSession: its error, and the region S3 names if it names one. */
static enum s3c_err session_refused(const struct express_ask *ask, const struct http_xfer *x, char hint[64],
                                    struct s3c_error *e)
{
    struct s3_error er = S3_ERROR_INIT;
    enum s3c_err code;
    struct sv h;

    hint[0] = '\0';
    if (x->resp.status == 0)
        return s3c_fail(e, S3C_ENET, "CreateSession for %s: %s", ask->bucket,
                        x->resp.err[0] ? x->resp.err : "no answer from the server");
    s3_parse_error(buf_sv(&x->resp.body), &er, NULL);
    code = s3_error_to_s3c(&er, x->resp.status, e);
    s3c_fail(e, code, "CreateSession for %s: %s", ask->bucket,
             er.message && er.message[0] ? er.message : "refused");
    if (er.region && er.region[0] && strlen(er.region) < 64)
        str_copy(hint, 64, er.region);
    else if (http_resp_header(&x->resp, "x-amz-bucket-region", &h) && h.n && h.n < 64) {
        memcpy(hint, h.p, h.n);
        hint[h.n] = '\0';
    }
    s3_error_release(&er);
    return code;
}

enum s3c_err store_s3_create_session(void *ctx, struct express_ask *ask, struct express_got *out,
                                     struct s3c_error *e)
{
    const struct store_s3_opts *o = ctx;
    int attempts = o->max_attempts > 0 ? o->max_attempts : 3, attempt = 0;
    bool hinted = false;
    unsigned rng = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)ask;
    enum s3c_err rc;

    for (;;) {
        struct http_xfer x;
        int64_t sent = wall_ms();
        char hint[64];
        long st;

        memset(&x, 0, sizeof(x));
        s3c_error_clear(e);
        rc = session_exchange(o, ask, &x, e);
        if (!rc && x.resp.status >= 200 && x.resp.status < 300)
            rc = session_take(ask, &x, sent, out, e);
        else if (!rc)
            rc = session_refused(ask, &x, hint, e);
        else
            x.resp.status = -1; /* not sent at all: nothing to try again */
        if (!rc || x.resp.status < 0) {
            http_xfer_release(&x);
            return rc;
        }
        st = x.resp.status;
        http_xfer_release(&x);
        if (hint[0] && strcmp(hint, ask->region) != 0 && !hinted && (st == 301 || st == 400 || st == 403)) {
            str_copy(ask->region, sizeof(ask->region), hint); /* signed for the wrong region */
            hinted = true;
            continue;
        }
        if (++attempt >= attempts || !(st == 0 || st >= 500 || !strcmp(e->s3_code, "RequestTimeout") || st == 429 || !strcmp(e->s3_code, "SlowDown")))
            return rc;
        {
            long base = 100L << (attempt > 6 ? 6 : attempt);
            long ms = (long)(rand_r(&rng) % 1000) * base / 1000;
            nap_ms(ms > SESSION_BACKOFF_MAX_MS ? SESSION_BACKOFF_MAX_MS : ms);
        }
    }
}
