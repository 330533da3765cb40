/*
 * Signing, sending and retrying S3 requests. Every request is signed with
 * SigV4 (header auth) unless the store is anonymous; small bodies are signed
 * with their SHA-256, streamed ones (later) with UNSIGNED-PAYLOAD over TLS.
 */
#include "store/store_s3.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth/express.h"
#include "auth/keyring.h"
#include "auth/sigv4.h"
#include "cfg/config.h"
#include "base/crc.h"
#include "base/hash.h"
#include "base/stop.h"
#include "base/str.h"
#include "s3/endpoint.h"
#include "s3/op.h"
#include "s3/retry.h"
#include "s3/xml.h"

#define VER_BUCKETS_MAX 64

/* What the run knows of each bucket's versioning (store_s3_versioning): the
 * first store's, borrowed by its clones (the engine's loops), so a bucket is
 * asked about once a run. A lock per look, and a look only until the answer
 * (the engine keeps answers of its own). */
struct ver_table {
    pthread_mutex_t lock;
    unsigned n;
    struct {
        char bucket[64];
        enum store_s3_versioning v;
    } b[VER_BUCKETS_MAX];
};

struct store_s3 {
    struct store_s3_opts opts;
    struct http_loop *loop;
    char region[64];            /* signing region of the service and of buckets not in 'buckets' */
    /* Buckets whose region a reply confirmed or a hint taught us (a copy
     * between regions signs for two); replaced round robin past the size.
     * The first request to a bucket not confirmed yet goes alone (it is the
     * probe): the rest wait for its answer, so a bucket in another region
     * costs one refused request, not one per request in flight. */
    struct {
        char bucket[64];
        char region[64];        /* "": the store's region */
        bool confirmed;         /* a reply other than a region hint came back */
        bool probing;           /* its probe is in flight */
        char hinted[64];        /* the region a hint sent it to ("": none yet): followed once */
    } buckets[16];
    unsigned n_buckets;
    char hinted[64];            /* the same for requests to no bucket (or a name too long to keep) */
    long skew_s;                /* server time minus ours, learnt from RequestTimeTooSkewed */
    /* kSigning depends only on the secret, day, region and service: computed
     * once a day per region and service and per generation of keys (the
     * keyring's, or an S3 Express session's). */
    struct {
        bool session;           /* 'gen' is an S3 Express session's */
        unsigned gen;
        char day[9];
        char region[64];
        char service[12];
        unsigned char key[SHA256_LEN];
    } keys[8];
    unsigned n_keys;
    struct express_cache *express;  /* S3 Express sessions, made on first use */
    bool express_read_only;         /* reads ask for ReadOnly sessions */
    struct express_stats express_gone; /* sessions of clones already freed (store_s3_clone) */
    struct store_s3 *parent;        /* a clone's: where its session counts go when it is freed */
    struct ver_table *ver;          /* buckets' versioning: the first store's (clones borrow it) */
    struct creds my_keys;           /* this store's copy of the keyring's keys (keyring_copy) */
    unsigned my_keys_gen;           /* their generation */
    unsigned rng;               /* jitter state */
    /* The retry mode's shared state, for every thread that judges answers. */
    pthread_mutex_t retry_lock;
    struct s3_retry_quota quota;    /* standard and adaptive modes */
    struct s3_rate_limiter rate;    /* adaptive mode */
};

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct store_s3 *store_s3_new(const struct store_s3_opts *opts, struct s3c_error *e)
{
    struct store_s3 *s = calloc(1, sizeof(*s));

    if (!s) {
        s3c_fail(e, S3C_ENOMEM, "out of memory");
        return NULL;
    }
    s->opts = *opts;
    if (s->opts.max_attempts <= 0)
        s->opts.max_attempts = 3;
    str_copy(s->region, sizeof(s->region), opts->region && opts->region[0] ? opts->region : "us-east-1");
    s->rng = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)s;
    pthread_mutex_init(&s->retry_lock, NULL);
    s->quota = (struct s3_retry_quota)S3_RETRY_QUOTA_INIT;
    s3_rate_init(&s->rate, mono_s());
    s->loop = opts->loop ? opts->loop : http_loop_new(&opts->http, e);
    s->ver = calloc(1, sizeof(*s->ver));
    if (!s->loop || !s->ver) {
        if (s->loop && !s->ver)
            s3c_fail(e, S3C_ENOMEM, "out of memory");
        if (!opts->loop)
            http_loop_free(s->loop);
        free(s->ver);
        pthread_mutex_destroy(&s->retry_lock);
        free(s);
        return NULL;
    }
    pthread_mutex_init(&s->ver->lock, NULL);
    return s;
}

static void ver_table_free(struct ver_table *t)
{
    if (t) {
        pthread_mutex_destroy(&t->lock);
        free(t);
    }
}

struct store_s3 *store_s3_clone(struct store_s3 *s, struct s3c_error *e)
{
    return store_s3_clone_on(s, NULL, e);
}

struct store_s3 *store_s3_clone_on(struct store_s3 *s, struct http_loop *loop, struct s3c_error *e)
{
    struct store_s3_opts o = s->opts;
    struct store_s3 *c;
    unsigned i;

    o.loop = loop; /* never the parent's: that one is another thread's */
    if (!(c = store_s3_new(&o, e)))
        return NULL;
    str_copy(c->region, sizeof(c->region), s->region);
    /* What replies taught the store: each bucket's region (not probes in flight). */
    for (i = 0; i < 16 && i < s->n_buckets; i++) {
        if (!s->buckets[i].confirmed)
            continue;
        c->buckets[c->n_buckets++] = s->buckets[i];
    }
    c->skew_s = s->skew_s;
    c->express_read_only = s->express_read_only;
    c->parent = s;
    ver_table_free(c->ver);
    c->ver = s->ver; /* one table a run: the first store's */
    return c;
}

void store_s3_speed_floor(struct store_s3 *s, long bytes_s)
{
    s->opts.http.low_speed_bytes_s = bytes_s > 0 ? bytes_s : 1;
    http_loop_speed_floor(s->loop, s->opts.http.low_speed_bytes_s);
}

static void stats_add(struct express_stats *to, const struct express_stats *from)
{
    to->sessions += from->sessions;
    to->failures += from->failures;
    to->ahead += from->ahead;
    to->waited += from->waited;
    to->evicted += from->evicted;
}

static int bucket_find(const struct store_s3 *s, const char *bucket)
{
    unsigned i, n = s->n_buckets < 16 ? s->n_buckets : 16;

    if (bucket && *bucket)
        for (i = 0; i < n; i++)
            if (!strcmp(s->buckets[i].bucket, bucket))
                return (int)i;
    return -1;
}

/* The bucket's entry, made when missing; -1 for no bucket or a name too long to keep. */
static int bucket_slot(struct store_s3 *s, const char *bucket)
{
    int i = bucket_find(s, bucket);

    if (i >= 0 || !bucket || !*bucket || strlen(bucket) >= sizeof(s->buckets[0].bucket))
        return i;
    i = (int)(s->n_buckets++ % 16);
    memset(&s->buckets[i], 0, sizeof(s->buckets[i]));
    str_copy(s->buckets[i].bucket, sizeof(s->buckets[i].bucket), bucket);
    return i;
}

/* The region to sign a request to 'bucket' for. */
static const char *bucket_region(const struct store_s3 *s, const char *bucket)
{
    int i = bucket_find(s, bucket);

    return i >= 0 && s->buckets[i].region[0] ? s->buckets[i].region : s->region;
}

static void learn_region(struct store_s3 *s, const char *bucket, const char *region)
{
    int i = bucket_slot(s, bucket);

    if (i < 0) {
        str_copy(s->region, sizeof(s->region), region);
        return;
    }
    str_copy(s->buckets[i].region, sizeof(s->buckets[i].region), region);
    s->buckets[i].confirmed = true;
}

/* A request ready to go to a bucket no reply has confirmed yet, and none out
 * for it: this one is the probe (store_s3_judge ends it). */
static void mark_probe(struct store_s3 *s, struct store_s3_call *a)
{
    int b = a->bucket[0] ? bucket_slot(s, a->bucket) : -1;

    if (b >= 0 && !s->buckets[b].confirmed && !s->buckets[b].probing)
        a->probe = s->buckets[b].probing = true;
}

bool store_s3_may_send(struct store_s3 *s, const char *bucket)
{
    int i = bucket_find(s, bucket);

    return i < 0 || s->buckets[i].confirmed || !s->buckets[i].probing;
}

enum store_s3_versioning store_s3_versioning(struct store_s3 *s, const char *bucket, bool claim)
{
    struct ver_table *t = s->ver;
    enum store_s3_versioning v = STORE_S3_VER_KEEPS; /* no room to remember: as if versioned */
    unsigned i;

    if (!bucket || strlen(bucket) >= sizeof(t->b[0].bucket))
        return v;
    pthread_mutex_lock(&t->lock);
    for (i = 0; i < t->n && strcmp(t->b[i].bucket, bucket); i++)
        ;
    if (i < t->n) {
        v = t->b[i].v;
    } else if (i < VER_BUCKETS_MAX) {
        str_copy(t->b[i].bucket, sizeof(t->b[i].bucket), bucket);
        t->b[i].v = STORE_S3_VER_UNKNOWN;
        t->n++;
        v = STORE_S3_VER_UNKNOWN;
    }
    if (v == STORE_S3_VER_UNKNOWN && claim)
        t->b[i].v = STORE_S3_VER_ASKING;
    pthread_mutex_unlock(&t->lock);
    return v;
}

void store_s3_versioning_set(struct store_s3 *s, const char *bucket, enum store_s3_versioning v)
{
    struct ver_table *t = s->ver;
    unsigned i;

    if (!bucket)
        return;
    pthread_mutex_lock(&t->lock);
    for (i = 0; i < t->n; i++)
        if (!strcmp(t->b[i].bucket, bucket))
            t->b[i].v = v;
    pthread_mutex_unlock(&t->lock);
}

/* kSigning for (keys, day, region, service), from the cache or computed. */
static const unsigned char *signing_key(struct store_s3 *s, const struct creds *cr, bool session, unsigned gen,
                                        const struct sigv4_scope *sc)
{
    unsigned i, n = s->n_keys < 8 ? s->n_keys : 8;

    for (i = 0; i < n; i++)
        if (s->keys[i].session == session && s->keys[i].gen == gen && !strncmp(s->keys[i].day, sc->amz_date, 8) &&
            !strcmp(s->keys[i].region, sc->region) && !strcmp(s->keys[i].service, sc->service))
            return s->keys[i].key;
    i = s->n_keys++ % 8;
    s->keys[i].session = session;
    s->keys[i].gen = gen;
    sigv4_signing_key(cr->secret_key, sc, s->keys[i].key);
    memcpy(s->keys[i].day, sc->amz_date, 8);
    s->keys[i].day[8] = '\0';
    str_copy(s->keys[i].region, sizeof(s->keys[i].region), sc->region);
    str_copy(s->keys[i].service, sizeof(s->keys[i].service), sc->service);
    return s->keys[i].key;
}

void store_s3_free(struct store_s3 *s)
{
    if (!s)
        return;
    if (s->parent) {
        struct express_stats mine;

        store_s3_express_stats(s, &mine);
        stats_add(&s->parent->express_gone, &mine);
    }
    express_cache_free(s->express); /* first: a refresh thread may wake the loop */
    if (!s->opts.loop)
        http_loop_free(s->loop);
    if (!s->parent)
        ver_table_free(s->ver);
    pthread_mutex_destroy(&s->retry_lock);
    creds_release(&s->my_keys);
    free(s);
}

bool s3_req_header(struct s3_req *r, const char *name, const char *value)
{
    if (r->n_headers >= S3_REQ_MAX_HEADERS)
        return false;
    r->headers[r->n_headers].name = name;
    r->headers[r->n_headers].value = value;
    r->n_headers++;
    return true;
}

enum s3c_err s3_query_add(struct buf *q, const char *name, const char *value)
{
    enum s3c_err rc = S3C_OK;

    if (q->len)
        rc = buf_addc(q, '&');
    if (!rc)
        rc = sigv4_uri_encode(sv_from(name), 0, q);
    if (!rc)
        rc = buf_addc(q, '=');
    if (!rc)
        rc = sigv4_uri_encode(sv_from(value), 0, q);
    return rc;
}

void s3_amz_date(time_t t, char out[17])
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

void store_s3_call_release(struct store_s3_call *c)
{
    s3_target_release(&c->target);
    buf_release(&c->url);
    buf_release(&c->auth);
}

struct http_loop *store_s3_loop(struct store_s3 *s)
{
    return s->loop;
}

int store_s3_max_attempts(const struct store_s3 *s)
{
    return s->opts.max_attempts;
}

void store_s3_express_read_only(struct store_s3 *s, bool read_only)
{
    s->express_read_only = read_only;
}

void store_s3_express_stats(const struct store_s3 *s, struct express_stats *out)
{
    if (s->express)
        express_stats(s->express, out);
    else
        memset(out, 0, sizeof(*out));
    stats_add(out, &s->express_gone);
}

/* From a refresh thread: a session is ready, let a sleeping loop take it. */
static void express_ready(void *ctx)
{
    http_loop_wakeup(ctx);
}

static bool req_has_header(const struct s3_req *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->n_headers; i++)
        if (!strcasecmp(r->headers[i].name, name))
            return true;
    return false;
}

/* Whether 'r' carries a flexible checksum header (x-amz-checksum-<algorithm>). */
static bool req_has_ck_header(const struct s3_req *r)
{
    int a;

    for (a = 0; a < CK_ALGOS; a++)
        if (req_has_header(r, ck_header((enum ck_algo)a)))
            return true;
    return false;
}

/* Requests to a directory bucket signed with a session: every object
 * request but those the S3 API reference keeps on IAM keys (HeadBucket,
 * CopyObject, UploadPartCopy) and bucket management. */
static bool express_session_auth(const struct store_s3 *s, const struct s3_req *r)
{
    return !s->opts.express_no_session && !r->control && r->bucket && r->bucket[0] &&
           !(!strcmp(r->method, "HEAD") && !(r->key && r->key[0])) && !req_has_header(r, "x-amz-copy-source");
}

/* The session keys for 'r' (signed with IAM keys 'iam'); may move the bucket's region. */
static enum s3c_err express_keys(struct store_s3 *s, const struct s3_req *r, const struct creds *iam,
                                 const char *region, struct express_use *use, struct s3c_error *e)
{
    bool read = !strcmp(r->method, "GET") || !strcmp(r->method, "HEAD");
    enum express_mode mode = read && s->express_read_only ? EXPRESS_READ_ONLY : EXPRESS_READ_WRITE;
    enum s3c_err rc;

    if (!s->express && !(s->express = express_cache_new(store_s3_create_session, &s->opts, express_ready, s->loop)))
        return s3c_fail(e, S3C_ENOMEM, "out of memory");
    rc = express_get(s->express, r->bucket, region, mode, iam, express_now_ms(), use, e);
    if (rc)
        return rc;
    if (use->fresh)
        store_s3_debugf(s, "s3express: session %s for %s (%s)", use->keys->access_key, r->bucket,
                        express_mode_name(mode));
    /* CreateSession answered for this region: the bucket lives there. */
    learn_region(s, r->bucket, use->region);
    return S3C_OK;
}

enum s3c_err store_s3_prepare(struct store_s3 *s, const struct s3_req *r, struct store_s3_call *a,
                              struct http_xfer *x, struct s3c_error *e)
{
    struct sigv4_header sh[HTTP_MAX_REQ_HEADERS + 1]; /* host and every header of x */
    size_t n = 0, i;
    bool own_encoding = false, dropped_md5 = false;
    bool express = r->control || s3_bucket_is_express(r->bucket);
    /* payload_signing_enabled: a streamed body the caller hashed is signed with its SHA-256. */
    bool signed_stream = r->read && s->opts.sign_payload && r->payload_sha256 &&
                         strlen(r->payload_sha256) == 2 * SHA256_LEN;
    struct express_use use = { 0 };
    const struct creds *cr = NULL;
    enum s3c_err rc;

    const char *region = bucket_region(s, r->bucket);

    buf_reset(&a->url);
    buf_reset(&a->auth);
    str_copy(a->bucket, sizeof(a->bucket), r->bucket && strlen(r->bucket) < sizeof(a->bucket) ? r->bucket : "");
    a->probe = false;
    a->express_gen = 0;
    a->crc32_b64[0] = '\0';
    a->op = s3_op_name(r->method, r->bucket && r->bucket[0], r->key && r->key[0], r->query,
                       req_has_header(r, "x-amz-copy-source"));
    if (!s->opts.no_sign) {
        /* A copy of the keyring's keys: the engine's loops sign on several threads. */
        if ((rc = keyring_copy(s->opts.keys, time(NULL), &s->my_keys, &s->my_keys_gen, e)))
            return rc;
        cr = &s->my_keys;
        a->keys_gen = s->my_keys_gen;
        if (express && express_session_auth(s, r)) {
            if ((rc = express_keys(s, r, cr, region, &use, e)))
                return rc;
            cr = use.keys;
            a->express_gen = use.gen;
            region = bucket_region(s, r->bucket);
        }
    }
    str_copy(a->region, sizeof(a->region), region);
    rc = s3_endpoint_resolve_kind(s->opts.cfg, region == s->region ? NULL : region, r->bucket, r->key,
                                  r->control ? S3_EP_CONTROL : S3_EP_OBJECT, &a->target, e);
    if (rc)
        return rc;
    rc = buf_addsv(&a->url, buf_sv(&a->target.url));
    if (!rc && r->query && r->query[0])
        rc = buf_addf(&a->url, "?%s", r->query);
    if (rc)
        return s3c_fail(e, rc, "out of memory building a URL");

    x->method = r->method;
    x->url = buf_cstr(&a->url);
    x->n_headers = 0;
    if (s->opts.loop) { /* another store's loop: this store's CA bundle, not the loop's */
        x->own_ca = true;
        x->ca_bundle = s->opts.http.ca_bundle;
    }
    if (s->opts.side)
        store_s3_debugf(s, "s3: %s side: %s %s%s%s", s->opts.side, a->op, a->bucket, r->key ? "/" : "",
                        r->key ? r->key : "");
    x->body.data = r->body;
    x->body.len = r->body_len;
    x->body.read = r->read;
    x->body.read_ctx = r->read_ctx;
    x->body.read_len = r->read_len;
    a->chunked_on = false;
    for (i = 0; i < r->n_headers; i++) {
        if (express && !strcasecmp(r->headers[i].name, "content-md5")) {
            dropped_md5 = true; /* directory buckets take no MD5 */
            continue;
        }
        http_xfer_header(x, r->headers[i].name, r->headers[i].value);
        if (!strcasecmp(r->headers[i].name, "content-encoding"))
            own_encoding = true; /* no aws-chunked beside it */
    }
    if (dropped_md5 && r->body && !req_has_ck_header(r)) {
        /* What needed an integrity header (DeleteObjects) gets a CRC32 instead. */
        struct buf b = BUF_INIT(16);

        crc_b64_32(crc_crc32_update(0, r->body, r->body_len), &b);
        str_copy(a->crc32_b64, sizeof(a->crc32_b64), buf_cstr(&b));
        buf_release(&b);
        http_xfer_header(x, "x-amz-checksum-crc32", a->crc32_b64);
    }
    if (s->opts.no_sign) {
        mark_probe(s, a);
        return S3C_OK;
    }
    if (r->trailer && r->read && !own_encoding && !signed_stream) {
        s3_chunked_init(&a->chunked, r->read, r->read_ctx, r->read_len, 0);
        s3_chunked_use(&a->chunked, r->trailer_algo, r->trailer_sum, r->trailer_sum_ctx);
        x->body.read = s3_chunked_read;
        x->body.read_ctx = &a->chunked;
        x->body.read_len = s3_chunked_len(&a->chunked);
        snprintf(a->decoded_len, sizeof(a->decoded_len), "%llu", (unsigned long long)r->read_len);
        http_xfer_header(x, "Content-Encoding", "aws-chunked");
        http_xfer_header(x, "x-amz-decoded-content-length", a->decoded_len);
        http_xfer_header(x, "x-amz-trailer", ck_header(r->trailer_algo));
        a->chunked_on = true;
    }

    s3_amz_date(time(NULL) + s->skew_s, a->date);
    if (a->chunked_on)
        str_copy(a->payload_hash, sizeof(a->payload_hash), "STREAMING-UNSIGNED-PAYLOAD-TRAILER");
    else if (signed_stream)
        str_copy(a->payload_hash, sizeof(a->payload_hash), r->payload_sha256);
    else if (r->read || (r->object_data && !s->opts.sign_payload))
        str_copy(a->payload_hash, sizeof(a->payload_hash), SIGV4_UNSIGNED_PAYLOAD);
    else if (r->body && r->body_len)
        hash_sha256_hex(r->body, r->body_len, a->payload_hash);
    else
        str_copy(a->payload_hash, sizeof(a->payload_hash), SHA256_EMPTY_HEX);
    http_xfer_header(x, "x-amz-date", a->date);
    http_xfer_header(x, "x-amz-content-sha256", a->payload_hash);
    /* A session's token goes as x-amz-s3session-token, never x-amz-security-token. */
    if (cr->session_token && cr->session_token[0])
        http_xfer_header(x, a->express_gen ? "x-amz-s3session-token" : "x-amz-security-token", cr->session_token);

    /* Sign Host and every header we send. */
    sh[n].name = "host";
    sh[n++].value = buf_cstr(&a->target.host);
    for (i = 0; i < x->n_headers; i++) {
        sh[n].name = x->headers[i].name;
        sh[n++].value = x->headers[i].value;
    }
    {
        const struct sigv4_request sr = { r->method, buf_cstr(&a->target.path), r->query, sh, n,
                                          a->payload_hash };
        const struct sigv4_scope sc = { a->date, region, a->target.express ? "s3express" : "s3" };
        bool session = a->express_gen != 0;

        rc = sigv4_authorization_with_key(&sr, cr->access_key,
                                          signing_key(s, cr, session, session ? a->express_gen : a->keys_gen, &sc),
                                          &sc, &a->auth);
    }
    if (rc)
        return s3c_fail(e, rc, "cannot sign the request");
    if (!http_xfer_header(x, "Authorization", buf_cstr(&a->auth)))
        return s3c_fail(e, S3C_EINTERNAL, "too many request headers");
    mark_probe(s, a);
    return S3C_OK;
}

static const char *status_reason(long status)
{
    switch (status) {
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 409: return "Conflict";
    case 412: return "Precondition Failed";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    }
    return "HTTP error";
}

/* What S3 says for common codes, for stores (Ceph) that send an empty <Message/>. */
static const char *code_message(const char *code)
{
    static const struct {
        const char *code, *msg;
    } known[] = {
        { "NoSuchBucket", "The specified bucket does not exist" },
        { "NoSuchKey", "The specified key does not exist." },
        { "NoSuchUpload", "The specified multipart upload does not exist." },
        { "BucketNotEmpty", "The bucket you tried to delete is not empty" },
        { "BucketAlreadyExists", "The requested bucket name is not available." },
        { "BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it." },
        { "AccessDenied", "Access Denied" },
        { "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records." },
        { "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method." },
        { "InvalidBucketName", "The specified bucket is not valid." },
        { "PreconditionFailed", "At least one of the pre-conditions you specified did not hold" },
        { "SlowDown", "Please reduce your request rate." },
        { NULL, NULL },
    };
    int i;

    for (i = 0; known[i].code; i++)
        if (!strcmp(known[i].code, code))
            return known[i].msg;
    return NULL;
}

/* Fill 'e' from a non-2xx reply; the region hint (if any) goes to 'region'. */
static enum s3c_err reply_error(const struct http_xfer *x, char region[64], struct s3c_error *e)
{
    struct s3_error er = S3_ERROR_INIT;
    long st = x->resp.status;
    enum s3c_err code;
    struct sv hint;

    region[0] = '\0';
    if (st == 0) {
        const char *q = strchr(x->url, '?');
        /* 60: the server's certificate is not one we trust (curl's detail says why). */
        return s3c_fail(e, S3C_ENET, "%s (%.*s)%s", x->resp.err[0] ? x->resp.err : "no answer from the server",
                        q ? (int)(q - x->url) : (int)strlen(x->url), x->url,
                        x->resp.curl_code == 60 ? ": trust its CA with --ca-bundle or AWS_CA_BUNDLE" : "");
    }
    s3_parse_error(buf_sv(&x->resp.body), &er, NULL);
    code = s3_error_to_s3c(&er, st, e);
    /* The message alone: the line printed adds "(status Code)". */
    if (er.message && er.message[0])
        s3c_fail(e, code, "%s", er.message);
    else if (code_message(e->s3_code))
        s3c_fail(e, code, "%s", code_message(e->s3_code));
    else
        s3c_fail(e, code, "%s", status_reason(st));
    if (er.region && er.region[0])
        str_copy(region, 64, er.region);
    else if (http_resp_header(&x->resp, "x-amz-bucket-region", &hint) && hint.n < 64) {
        memcpy(region, hint.p, hint.n);
        region[hint.n] = '\0';
    }
    s3_error_release(&er);
    return code;
}

static bool is_expired_keys(const struct s3c_error *e)
{
    return strcmp(e->s3_code, "ExpiredToken") == 0 || strcmp(e->s3_code, "ExpiredTokenException") == 0 ||
           strcmp(e->s3_code, "InvalidToken") == 0 || strcmp(e->s3_code, "TokenRefreshRequired") == 0;
}

/* A network failure another try may fix (not a bad URL, name or certificate). */
static bool net_retryable(const struct http_xfer *x)
{
    if (x->resp.over_cap)
        return false; /* the same reply would be cut off again */
    switch (x->resp.curl_code) {
    case 1:  /* unsupported protocol: of the URL, or the server's answer (a garbled status
              * line reads as HTTP/0.9, which curl refuses): retried when the request went
              * out, on a new connection (curl closes one that answered so), as the SDKs do */
        return x->resp.sent_s > 0;
    case 3:  /* malformed URL */
    case 6:  /* could not resolve host */
    case 60: /* peer certificate */
    case 77: /* CA cert */
        return false;
    }
    return true;
}

static bool is_retryable(const struct store_s3 *s, const struct http_xfer *x, const struct s3c_error *e)
{
    if (e->code == S3C_ENET)
        return net_retryable(x);
    return s3_retry_retryable((enum s3_retry_mode)s->opts.retry_mode, e->http_status, e->s3_code);
}

/* The store whose retry quota and send rate count: one for the whole run, so
 * a clone (another event loop's store, store_s3_clone) shares its parent's. */
static struct store_s3 *retry_home(struct store_s3 *s)
{
    return s->parent ? s->parent : s;
}

/* The retry mode's bookkeeping of one judged answer: adaptive's send rate,
 * and the retry quota (standard, adaptive), which a retry must be granted
 * (false: the quota is spent, no retry). */
static bool retry_account(struct store_s3 *s, struct store_s3_call *c, const struct http_xfer *x,
                          int attempt, bool ok, bool retry, bool throttle)
{
    enum s3_retry_mode m = (enum s3_retry_mode)s->opts.retry_mode;
    bool granted = true, engaged = false;
    double rate = 0;

    struct store_s3 *h = retry_home(s);

    if (m != S3_RETRY_STANDARD && m != S3_RETRY_ADAPTIVE)
        return true;
    pthread_mutex_lock(&h->retry_lock);
    if (m == S3_RETRY_ADAPTIVE) {
        engaged = !h->rate.enabled;
        s3_rate_update(&h->rate, throttle, mono_s());
        engaged = engaged && h->rate.enabled;
        rate = h->rate.fill_rate;
    }
    if (ok)
        s3_retry_quota_give(&h->quota, attempt > 0 ? c->quota_cost : 1);
    else if (retry)
        granted = (c->quota_cost = s3_retry_quota_take(&h->quota, x->resp.curl_code == 28)) > 0;
    pthread_mutex_unlock(&h->retry_lock);
    if (engaged)
        store_s3_debugf(s, "adaptive retry mode: the store throttles; requests now paced from %.1f a second", rate);
    if (!granted)
        store_s3_debugf(s, "standard retry mode: the retry quota is spent; %s is not tried again", c->op);
    return granted;
}

long store_s3_rate_wait_ms(struct store_s3 *s)
{
    long ms;

    struct store_s3 *h = retry_home(s);

    if (s->opts.retry_mode != S3_RETRY_ADAPTIVE)
        return 0;
    pthread_mutex_lock(&h->retry_lock);
    ms = s3_rate_acquire(&h->rate, mono_s());
    pthread_mutex_unlock(&h->retry_lock);
    return ms;
}

bool store_s3_signs_payload(const struct store_s3 *s)
{
    return s->opts.sign_payload && !s->opts.no_sign;
}

/* Learn the server clock from the Date header of a RequestTimeTooSkewed reply. */
static void learn_skew(struct store_s3 *s, const struct http_xfer *x)
{
    struct sv d;
    int64_t server;

    if (http_resp_header(&x->resp, "date", &d) && http_date_parse(d, &server))
        s->skew_s = (long)(server - (int64_t)time(NULL));
}

/*
 * A region hint (x-amz-bucket-region, or <Region> in the error): S3 names the
 * bucket's region when a request was signed for another; follow it, once per
 * bucket (every request signed before the first hint came back needs the
 * retry too, for that same region). A hint that is no region name, or that
 * names another region than the one followed (a proxy or store whose hints
 * alternate) is not followed: the request fails with a line that says so,
 * where following it would loop forever. (One that repeats the region signed
 * for is not a redirect: store_s3_judge lets the answer stand.) A retry waits
 * the mode's first backoff.
 */
static enum store_s3_verdict follow_region(struct store_s3 *s, const struct store_s3_call *c, const char *region,
                                           long *backoff_ms, bool *free_retry, struct s3c_error *e)
{
    int b = bucket_slot(s, c->bucket);
    char *hinted = b >= 0 ? s->buckets[b].hinted : s->hinted;
    const char *what = c->bucket[0] ? c->bucket : "the service";

    if (!cfg_region_ok(region)) {
        s3c_fail(e, e->code, "the store's region hint for %s, \"%s\", is not a valid region name: not followed",
                 what, region);
        return STORE_S3_FAIL;
    }
    if (hinted[0] && strcmp(hinted, region) != 0) {
        s3c_fail(e, e->code, "the store's region hints for %s change (%s, then %s): a region is followed once, "
                 "not again", what, hinted, region);
        return STORE_S3_FAIL;
    }
    if (!hinted[0]) {
        str_copy(hinted, 64, region);
        learn_region(s, c->bucket, region);
    }
    *free_retry = true;
    *backoff_ms = s3_retry_backoff_ms((enum s3_retry_mode)s->opts.retry_mode, 0, false,
                                      (double)(rand_r(&s->rng) % 1000) / 1000.0);
    return STORE_S3_RETRY;
}

static enum store_s3_verdict judge(struct store_s3 *s, struct store_s3_call *c, const struct http_xfer *x,
                                   int attempt, long *backoff_ms, bool *free_retry, struct s3c_error *e);

enum store_s3_verdict store_s3_judge(struct store_s3 *s, struct store_s3_call *c,
                                     const struct http_xfer *x, int attempt,
                                     long *backoff_ms, bool *free_retry, struct s3c_error *e)
{
    enum store_s3_verdict v = judge(s, c, x, attempt, backoff_ms, free_retry, e);
    char msg[sizeof(e->msg)];

    /* Two sides, two sets of keys: a refusal names whose it is. */
    if (v != STORE_S3_OK && s->opts.side && strncmp(e->msg, s->opts.side, strlen(s->opts.side)) != 0) {
        snprintf(msg, sizeof(msg), "%.20s side: %.480s", s->opts.side, e->msg);
        str_copy(e->msg, sizeof(e->msg), msg);
    }
    return v;
}

static enum store_s3_verdict judge(struct store_s3 *s, struct store_s3_call *c, const struct http_xfer *x,
                                   int attempt, long *backoff_ms, bool *free_retry, struct s3c_error *e)
{
    char region[64] = "";
    enum s3c_err rc;
    bool throttle, retry;

    *backoff_ms = 0;
    *free_retry = false;
    if (c->probe) {
        int b = bucket_find(s, c->bucket);

        /* Any answer but a region hint (handled below) confirms the region. */
        if (b >= 0) {
            s->buckets[b].probing = false;
            s->buckets[b].confirmed |= x->resp.status != 0;
        }
    }
    if (x->resp.status >= 200 && x->resp.status < 300) {
        retry_account(s, c, x, attempt, true, false, false);
        return STORE_S3_OK;
    }
    s3c_error_clear(e);
    rc = reply_error(x, region, e);
    str_copy(e->op, sizeof(e->op), c->op ? c->op : "");
    /* Signed for another region than the one S3 names: follow it, once (a hint
     * naming the region signed for is no redirect: the answer stands as it is). */
    if (region[0] && strcmp(region, c->region) != 0 &&
        (e->http_status == 301 || e->http_status == 400 || e->http_status == 403))
        return follow_region(s, c, region, backoff_ms, free_retry, e);
    /* An S3 Express session refused as expired: sign again with a new one. */
    if (c->express_gen && is_expired_keys(e)) {
        if (!s->express || !express_expired(s->express, c->express_gen))
            return STORE_S3_FAIL;
        store_s3_debugf(s, "s3express: %s refused the session as expired (%s): a new one signs the retry",
                        c->bucket, e->s3_code);
        *free_retry = true;
        return STORE_S3_RETRY;
    }
    /* Keys that expired (a refresh came late, or the clocks disagree): sign
     * again with fresh ones; requests signed with the old keys meanwhile too. */
    if (is_expired_keys(e) && s->opts.keys && keyring_expired(s->opts.keys, c->keys_gen)) {
        *free_retry = true;
        return STORE_S3_RETRY;
    }
    if (strcmp(e->s3_code, "RequestTimeTooSkewed") == 0)
        learn_skew(s, x);
    throttle = s3_retry_is_throttle(e->http_status, e->s3_code);
    retry = rc != S3C_ENOMEM && is_retryable(s, x, e) && attempt + 1 < s->opts.max_attempts;
    if (!retry_account(s, c, x, attempt, false, retry, throttle) || !retry)
        return STORE_S3_FAIL;
    *backoff_ms = s3_retry_backoff_ms((enum s3_retry_mode)s->opts.retry_mode, attempt, throttle,
                                      (double)(rand_r(&s->rng) % 1000) / 1000.0);
    return STORE_S3_RETRY;
}

/* ---- a request driven by polls (store_s3_async), and store_s3_send ----------------- */

static void async_answered(struct http_xfer *x, void *ctx)
{
    struct store_s3_async *a = ctx;

    (void)x;
    a->out = false;
    a->answered = true;
}

static void async_end(struct store_s3_async *a, enum s3c_err rc)
{
    a->done = true;
    a->rc = rc;
}

/* The answer of the try that came back: over, or the time of the next try. */
static void async_judge(struct store_s3 *s, struct store_s3_async *a)
{
    long backoff_ms = 0;
    bool free_retry = false;
    enum store_s3_verdict v;

    if (a->x->resp.status == 0 && a->x->resp.curl_code == 42 /* CURLE_ABORTED_BY_CALLBACK */ && stop_requested()) {
        async_end(a, s3c_fail(&a->err, S3C_ECANCEL, "interrupted")); /* cut off by the stop (http_do's answer) */
        return;
    }
    v = store_s3_judge(s, &a->call, a->x, a->tries.attempt, &backoff_ms, &free_retry, &a->err);
    if (v == STORE_S3_OK)
        async_end(a, S3C_OK);
    else if (v == STORE_S3_FAIL || !s3_retry_count(&a->tries, free_retry, s->opts.max_attempts))
        async_end(a, a->err.code ? a->err.code : S3C_EHTTP);
    else
        a->not_before_ns = http_now_ns() + (int64_t)(backoff_ms > 0 ? backoff_ms : 0) * 1000000;
}

/* Send the next try if nothing holds it: its backoff, the rate limit, a stop. */
static void async_try(struct store_s3 *s, struct store_s3_async *a)
{
    int64_t now = http_now_ns();
    enum s3c_err rc;
    long wait_ms;

    /* A stop ends a wait between tries too (store_s3_send's nap did); before
     * the first, what http_do did: a keep_on_cancel exchange still goes. */
    if (stop_requested() && (a->sent || !a->x->keep_on_cancel)) {
        async_end(a, s3c_fail(&a->err, S3C_ECANCEL, "interrupted"));
        return;
    }
    if (now < a->not_before_ns)
        return;
    if ((wait_ms = store_s3_rate_wait_ms(s)) > 0) {
        a->not_before_ns = now + (int64_t)wait_ms * 1000000; /* adaptive mode: no token yet */
        return;
    }
    s3c_error_clear(&a->err);
    if (a->sent && a->rewind && (rc = a->rewind(a->rewind_ctx, &a->err))) {
        async_end(a, rc);
        return;
    }
    rc = store_s3_prepare(s, &a->req, &a->call, a->x, &a->err);
    if (!rc) {
        a->x->done = async_answered;
        a->x->done_ctx = a;
        rc = http_loop_submit(s->loop, a->x, &a->err);
    }
    if (rc) {
        async_end(a, rc);
        return;
    }
    a->out = true;
    a->sent++;
}

void store_s3_async_start(struct store_s3 *s, const struct s3_req *r, struct http_xfer *x,
                          struct store_s3_async *a)
{
    a->req = *r;
    a->x = x;
    async_try(s, a);
}

bool store_s3_async_poll(struct store_s3 *s, struct store_s3_async *a)
{
    if (a->done)
        return true;
    if (a->out)
        return false;
    if (a->answered) {
        a->answered = false;
        async_judge(s, a);
        if (a->done)
            return true;
    }
    async_try(s, a);
    return a->done;
}

enum s3c_err store_s3_async_wait(struct store_s3 *s, struct store_s3_async *a)
{
    while (!store_s3_async_poll(s, a)) {
        int64_t left_ns = a->not_before_ns - http_now_ns();

        if (a->out)
            http_loop_step(s->loop, 250); /* a signal ends the wait (EINTR; or within 250 ms on another thread), then the step cuts 'x' off */
        else if (left_ns > 0)
            http_loop_nap(s->loop, (long)((left_ns + 999999) / 1000000)); /* the backoff, the loop's other transfers going on */
    }
    return a->rc;
}

void store_s3_async_release(struct store_s3 *s, struct store_s3_async *a)
{
    if (a->out)
        http_loop_cancel(s->loop, a->x); /* its done runs before this returns */
    store_s3_call_release(&a->call);
    *a = (struct store_s3_async)STORE_S3_ASYNC_INIT;
}

enum s3c_err store_s3_send(struct store_s3 *s, const struct s3_req *r, struct http_xfer *x,
                           struct s3c_error *e)
{
    struct store_s3_async a = STORE_S3_ASYNC_INIT;
    enum s3c_err rc;

    store_s3_async_start(s, r, x, &a);
    rc = store_s3_async_wait(s, &a);
    *e = a.err;
    store_s3_async_release(s, &a);
    return rc;
}

const char *store_s3_region(const struct store_s3 *s)
{
    return s->region;
}

void store_s3_bucket_region_set(struct store_s3 *s, const char *bucket, const char *region)
{
    int i = bucket_slot(s, bucket);

    if (i >= 0 && region && region[0])
        str_copy(s->buckets[i].region, sizeof(s->buckets[i].region), region);
}

const char *store_s3_bucket_region(const struct store_s3 *s, const char *bucket)
{
    return bucket_region(s, bucket);
}

const char *store_s3_probe_region(struct store_s3 *s, const char *bucket)
{
    struct s3_req r = { .method = "HEAD", .bucket = bucket };
    struct store_s3_call c = STORE_S3_CALL_INIT;
    struct s3c_error e = S3C_ERROR_INIT;
    int tries;

    for (tries = 0; tries < 2; tries++) {
        struct http_xfer x;
        long wait_ms;
        bool again = false;

        memset(&x, 0, sizeof(x));
        x.body_max = 64 << 10;
        if (!store_s3_prepare(s, &r, &c, &x, &e) && !http_do(s->loop, &x, &e))
            again = store_s3_judge(s, &c, &x, 0, &wait_ms, &again, &e) == STORE_S3_RETRY && again;
        http_xfer_release(&x);
        if (!again)
            break;
    }
    store_s3_call_release(&c);
    return bucket_region(s, bucket);
}

bool store_s3_checksum_mode(const struct store_s3 *s)
{
    return !(s->opts.cfg && s->opts.cfg->response_checksum_validation == CFG_WHEN_REQUIRED);
}

void store_s3_side_set(struct store_s3 *s, const char *side)
{
    s->opts.side = side;
}

/* "scheme://host:port" of a custom endpoint (whose URL parsed at load), into 'out'. */
static void service_of(const struct store_s3 *s, char *out, size_t n)
{
    struct s3_url u;
    struct s3c_error e = S3C_ERROR_INIT;

    if (!s->opts.cfg->endpoint_url || s3_url_parse(s->opts.cfg->endpoint_url, &u, &e)) {
        snprintf(out, n, "%s", s->opts.cfg->endpoint_url ? s->opts.cfg->endpoint_url : "AWS");
        return;
    }
    snprintf(out, n, "%s://%.*s:%u", u.tls ? "https" : "http", (int)u.host.n, u.host.p,
             u.port ? u.port : u.tls ? 443u : 80u);
}

bool store_s3_same_service(const struct store_s3 *a, const struct store_s3 *b, char *why, size_t n)
{
    char sa[300], sb[300];

    service_of(a, sa, sizeof(sa));
    service_of(b, sb, sizeof(sb));
    if (!strcmp(sa, sb))
        return true;
    snprintf(why, n, "%s and %s", sa, sb);
    return false;
}

bool store_s3_debug_on(const struct store_s3 *s)
{
    return s->opts.http.debug != NULL;
}

void store_s3_debugf(struct store_s3 *s, const char *fmt, ...)
{
    char line[2048];
    va_list ap;

    if (!s->opts.http.debug)
        return;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    s->opts.http.debug(s->opts.http.debug_ctx, line);
}

enum s3c_err s3_sse_c_init(struct s3_sse_c *k, const char *algorithm, const char *key, struct s3c_error *e)
{
    struct buf b = BUF_INIT(64);
    unsigned char md5[MD5_LEN];
    size_t n = key ? strlen(key) : 0;

    memset(k, 0, sizeof(*k));
    if (algorithm && algorithm[0] && strcmp(algorithm, "AES256") != 0)
        return s3c_fail(e, S3C_EUSAGE, "the SSE-C algorithm must be AES256, not \"%s\"", algorithm);
    if (n != 32)
        return s3c_fail(e, S3C_EUSAGE, "an SSE-C key must be 32 bytes (256 bits), not %zu", n);
    str_copy(k->algorithm, sizeof(k->algorithm), "AES256");
    base64_encode(key, n, &b);
    str_copy(k->key_b64, sizeof(k->key_b64), buf_cstr(&b));
    buf_reset(&b);
    hash_md5(key, n, md5);
    base64_encode(md5, MD5_LEN, &b);
    str_copy(k->key_md5_b64, sizeof(k->key_md5_b64), buf_cstr(&b));
    buf_release(&b);
    return S3C_OK;
}

void s3_req_sse_c(struct s3_req *r, const struct s3_sse_c *k, bool copy_source)
{
    if (copy_source) {
        s3_req_header(r, "x-amz-copy-source-server-side-encryption-customer-algorithm", k->algorithm);
        s3_req_header(r, "x-amz-copy-source-server-side-encryption-customer-key", k->key_b64);
        s3_req_header(r, "x-amz-copy-source-server-side-encryption-customer-key-MD5", k->key_md5_b64);
    } else {
        s3_req_header(r, "x-amz-server-side-encryption-customer-algorithm", k->algorithm);
        s3_req_header(r, "x-amz-server-side-encryption-customer-key", k->key_b64);
        s3_req_header(r, "x-amz-server-side-encryption-customer-key-MD5", k->key_md5_b64);
    }
}
