/*
 * store_s3: S3 requests end to end — the only place that combines s3/
 * (endpoints, XML), auth/ (SigV4) and http/ (the loop). Callers describe an
 * operation (method, bucket, key, query, headers, body); this module signs
 * it, sends it, retries what S3 says is retryable, and turns an error reply
 * into a struct s3c_error naming the S3 error code.
 *
 * S3 Express directory buckets (BASE--ZONEID--x-s3): requests go to the
 * zonal or control endpoint (s3/endpoint.h) and are signed for "s3express":
 * object requests with a CreateSession's keys and x-amz-s3session-token
 * (auth/express.h caches and refreshes them), bucket management, HeadBucket,
 * CopyObject and UploadPartCopy with the IAM keys, as the S3 API reference
 * says; with s3_disable_express_session_auth every request with the IAM keys.
 * Content-MD5 (which directory buckets do not take) becomes a CRC32.
 */
#ifndef S3C_STORE_STORE_S3_H
#define S3C_STORE_STORE_S3_H

#include <stdbool.h>
#include <time.h>

#include "auth/sigv4.h"
#include "http/http.h"
#include "s3/chunked.h"
#include "s3/endpoint.h"
#include "s3/retry.h"

struct s3c_config;
struct keyring;

#define S3_REQ_MAX_HEADERS 48

struct store_s3_opts {
    const struct s3c_config *cfg;   /* endpoint, addressing style; borrowed */
    const char *region;             /* signing region */
    struct keyring *keys;           /* the keys to sign with (borrowed); NULL with no_sign */
    bool no_sign;                   /* --no-sign-request: anonymous */
    bool sign_payload;              /* s3.payload_signing_enabled: SHA-256 of object data too */
    bool express_no_session;        /* s3_disable_express_session_auth: no CreateSession */
    int max_attempts;               /* total tries per request; 0: 3 (standard mode) */
    int retry_mode;                 /* enum s3_retry_mode (s3/retry.h): which answers retry, how
                                       long to wait, the quota, adaptive's rate limiter */
    struct http_loop_opts http;
    /* Another store's loop, borrowed, that this store's requests go on (the source side of an
     * S3 to S3 copy shares the destination's loop, which the engine steps); NULL: a loop of its
     * own. Its http options but debug are then the loop's, except the CA bundle: each request
     * of this store names http.ca_bundle itself (http_xfer.ca_bundle). */
    struct http_loop *loop;
    /* Which side of a copy this store serves ("source", "destination"), named in --debug lines
     * and error messages; NULL: the only one, named nowhere. */
    const char *side;
};

/* One S3 operation. Strings are borrowed for the duration of the call. */
struct s3_req {
    const char *method;
    const char *bucket;             /* NULL or "" for service-level calls */
    const char *key;                /* raw key (not encoded), NULL for bucket-level */
    const char *query;              /* encoded query without '?', or NULL */
    struct http_header headers[S3_REQ_MAX_HEADERS];
    size_t n_headers;
    const void *body;               /* small in-memory body, or NULL */
    size_t body_len;
    /* Or a streamed body (sent as UNSIGNED-PAYLOAD): see struct http_body. */
    ssize_t (*read)(void *ctx, char *dst, size_t n, uint64_t offset);
    void *read_ctx;
    uint64_t read_len;
    /* Object data (PutObject, UploadPart): integrity comes from Content-MD5
     * and the ETag check, so the body is sent as UNSIGNED-PAYLOAD unless
     * payload signing is configured. Small XML bodies are always signed. */
    bool object_data;
    /* A streamed body ('read') sent as aws-chunked with a trailing
     * x-amz-checksum-<trailer_algo> the store verifies (not when unsigned,
     * nor with a Content-Encoding of its own); see store_s3_call.chunked.
     * A SHA's digest comes from trailer_sum (struct s3_chunked's sum). */
    bool trailer;
    enum ck_algo trailer_algo;
    ssize_t (*trailer_sum)(void *ctx, unsigned char out[CK_MAX_LEN]);
    void *trailer_sum_ctx;
    /* S3 Express bucket management (CreateBucket, DeleteBucket,
     * ListDirectoryBuckets): the regional control endpoint, IAM keys. */
    bool control;
    /* The SHA-256 (hex) of a streamed body ('read'), computed by the caller
     * for payload signing (store_s3_signs_payload): signed instead of
     * UNSIGNED-PAYLOAD, and then sent without an aws-chunked trailer. */
    const char *payload_sha256;
};

struct store_s3;

struct store_s3 *store_s3_new(const struct store_s3_opts *opts, struct s3c_error *e);
void store_s3_free(struct store_s3 *s);

/*
 * A store for another thread (one of the engine's loops): the options of
 * 's' and what its replies taught it (each bucket's region, clock skew),
 * with a loop, connections, signing keys cache and S3 Express sessions of
 * its own; the keyring is shared (it is thread-safe). Made on the thread
 * that owns 's', then handed over whole; freed (store_s3_free) on that
 * thread again, after the other is done with it: its session counts are
 * added to those of 's' then. NULL with 'e' set on failure.
 */
struct store_s3 *store_s3_clone(struct store_s3 *s, struct s3c_error *e);

/* The same, on 'loop' (borrowed: another store's, on that thread) rather than a loop of its
 * own: the source side's store of one of the engine's loops. Freed before the loop's owner. */
struct store_s3 *store_s3_clone_on(struct store_s3 *s, struct http_loop *loop, struct s3c_error *e);

/* Name the side of a copy this store serves (store_s3_opts.side; a static string), for it and
 * the clones made after. */
void store_s3_side_set(struct store_s3 *s, const char *side);

/*
 * Whether stores 'a' and 'b' send to one service, where a server-side copy (CopyObject) to one
 * can read its source from the other: both AWS's (no endpoint URL: any region, S3 copies
 * between them), or the same scheme, host and port. When not, 'why' names both ("A and B").
 */
bool store_s3_same_service(const struct store_s3 *a, const struct store_s3 *b, char *why, size_t n);

/* The read timeout's speed floor (http_loop_speed_floor) for this store and its clones made after. */
void store_s3_speed_floor(struct store_s3 *s, long bytes_s);

/* The strings one signed request points into, alive until it is done. */
struct store_s3_call {
    struct s3_target target;
    struct buf url;
    struct buf auth;
    char date[17];
    char payload_hash[2 * SHA256_LEN + 1];
    char bucket[64];                /* the request's bucket ("" for the service) */
    char region[64];                /* the region it was signed for */
    unsigned keys_gen;              /* the generation of the keys it was signed with */
    unsigned express_gen;           /* the S3 Express session it was signed with; 0: none */
    char crc32_b64[16];             /* x-amz-checksum-crc32 sent in place of Content-MD5 */
    bool probe;                     /* the first request to its bucket: it learns the region */
    bool chunked_on;                /* the body went as aws-chunked with a checksum trailer */
    struct s3_chunked chunked;      /* its framing; s3_chunked_crc() once it went */
    char decoded_len[24];
    const char *op;                 /* the S3 operation (s3/op.h), named in errors */
    int quota_cost;                 /* standard mode: what its last retry took from the quota */
};

#define STORE_S3_CALL_INIT { .target = S3_TARGET_INIT, .url = BUF_INIT(32768), .auth = BUF_INIT(4096) }

void store_s3_call_release(struct store_s3_call *c);

/* The loop this store's requests run on (for callers that submit themselves). */
struct http_loop *store_s3_loop(struct store_s3 *s);

/*
 * Resolve, sign and describe request 'r' in 'x' (method, URL, headers,
 * body; x->sink, x->done and x->body_max are left as the caller set them).
 * 'c' holds the strings x points to: keep it until x is done. The caller
 * then submits x with http_loop_submit(store_s3_loop(s), ...).
 */
enum s3c_err store_s3_prepare(struct store_s3 *s, const struct s3_req *r, struct store_s3_call *c,
                              struct http_xfer *x, struct s3c_error *e);

enum store_s3_verdict {
    STORE_S3_OK,        /* 2xx */
    STORE_S3_RETRY,     /* try again after *backoff_ms ('e' says why) */
    STORE_S3_FAIL,      /* final; 'e' says why */
};

/*
 * Judge a finished exchange: the reply's status, an S3 error body, network
 * failures ('c': the call it was prepared with). 'attempt' counts from 0.
 * Learns region hints (per bucket: buckets of one run may live in several
 * regions) and clock skew for later requests; keeps the retry mode's quota
 * and rate (s3/retry.h) and names the operation in e->op. A region hint asks for an immediate retry (backoff 0)
 * that does not count as an attempt: *free_retry is set then; so do keys the store calls
 * expired (ExpiredToken) when fresher ones can be had: the retry is signed with them.
 */
enum store_s3_verdict store_s3_judge(struct store_s3 *s, struct store_s3_call *c,
                                     const struct http_xfer *x, int attempt,
                                     long *backoff_ms, bool *free_retry, struct s3c_error *e);

/*
 * May a new object's first request to 'bucket' be sent now? False while the
 * first request to a bucket whose region no reply has confirmed is still in
 * flight (it may come back with a region hint): admit more once it is judged.
 */
bool store_s3_may_send(struct store_s3 *s, const char *bucket);

/*
 * Whether a bucket keeps old versions, as this run learnt it (GetBucketVersioning,
 * sent by the engine): what decides if a duplicate of a whole-object write
 * would leave a trace (a second version). Shared by the store and its clones.
 */
enum store_s3_versioning {
    STORE_S3_VER_UNKNOWN,   /* not asked */
    STORE_S3_VER_ASKING,    /* a GetBucketVersioning is out for it */
    STORE_S3_VER_NEVER,     /* the answer had no Status: versioning was never turned on */
    STORE_S3_VER_KEEPS,     /* Enabled or Suspended (old versions stay), or no answer (refused,
                               failed, unreadable): treated as keeping versions */
};

/*
 * What the run knows of 'bucket'. With 'claim', an UNKNOWN bucket becomes
 * ASKING, and UNKNOWN is returned to this caller alone: it sends the
 * GetBucketVersioning and tells the answer (store_s3_versioning_set). A
 * bucket the table has no room for is KEEPS. Thread-safe.
 */
enum store_s3_versioning store_s3_versioning(struct store_s3 *s, const char *bucket, bool claim);
void store_s3_versioning_set(struct store_s3 *s, const char *bucket, enum store_s3_versioning v);

/*
 * Ask for ReadOnly S3 Express sessions for reads (verbs that write nothing:
 * ls, cat, a download); writes always take ReadWrite ones, and a ReadWrite
 * session of the bucket serves reads too. Default: ReadWrite for all.
 */
void store_s3_express_read_only(struct store_s3 *s, bool read_only);

/* S3 Express session counters (zero when no directory bucket was used). */
struct express_stats;
void store_s3_express_stats(const struct store_s3 *s, struct express_stats *out);

/* Max attempts in effect (config max_attempts, default 3). */
int store_s3_max_attempts(const struct store_s3 *s);

/*
 * Adaptive retry mode: may a request be sent now? 0 when it may (a token of
 * the client-side rate limiter taken; always 0 in other modes and until the
 * store first throttles), else the milliseconds to wait before asking again.
 * Thread-safe.
 */
long store_s3_rate_wait_ms(struct store_s3 *s);

/* payload_signing_enabled: streamed bodies want their SHA-256 (s3_req.payload_sha256). */
bool store_s3_signs_payload(const struct store_s3 *s);

/*
 * A HeadObject of s3://bucket/KEY answered 404, which has no body to say
 * why: ask HeadBucket, and name in 'e' a missing bucket (NoSuchBucket) or a
 * missing key (NoSuchKey). 'e' is left as it was when HeadBucket cannot tell.
 */
void store_s3_explain_head_404(struct store_s3 *s, const char *bucket, struct s3c_error *e);
/* The same for a HeadObject of one version ('version_id'; NULL or "": the current one, as above):
 * a bucket that exists means no such version (NoSuchVersion, what S3 answers a GetObject of it,
 * whether the key has other versions or none). */
void store_s3_explain_head_404_version(struct store_s3 *s, const char *bucket, const char *version_id,
                                      struct s3c_error *e);
/* The same in two steps, for a caller that sends the HeadBucket itself (the engine, in flight):
 * whether 'e' is such a 404, and 'e' reworded by HeadBucket's status (2xx: no key; 404: no
 * bucket; anything else leaves 'e' as it was). */
bool store_s3_head_404_unexplained(const struct s3c_error *e);
void store_s3_head_404_explain(struct s3c_error *e, long head_bucket_status);

/* Add a header to 'r'; false when full. Strings are borrowed. */
bool s3_req_header(struct s3_req *r, const char *name, const char *value);

/*
 * Send 'r' and wait for the answer, retrying throttling, 5xx and network
 * failures with exponential backoff and jitter (AWS standard mode). On 2xx,
 * returns S3C_OK with the reply in x->resp (caller releases with
 * http_xfer_release). Otherwise 'e' names the operation's S3 error code and
 * status, and the code is S3C_ENOTFOUND (404), S3C_EAUTH (401/403),
 * S3C_ENET (no answer) or S3C_EHTTP.
 */
enum s3c_err store_s3_send(struct store_s3 *s, const struct s3_req *r, struct http_xfer *x,
                           struct s3c_error *e);

/*
 * One request on the store's loop, not waited for: store_s3_send's rules
 * (adaptive mode's client-side rate limit, store_s3_judge's verdicts, the
 * backoff with jitter, free retries and max_attempts counted by
 * s3_retry_count) driven by polls, for a caller that may not wait (a
 * source's next() on the engine's loop: issue 24, nothing blocks a loop).
 * store_s3_send is this and store_s3_async_wait.
 *
 * The caller owns it (STORE_S3_ASYNC_INIT, fields 'rewind' and its ctx set
 * before the start if wanted; it must not move while a try is out) and the
 * exchange 'x' it names: x's sink, sink_ctx and body_max are the caller's,
 * done and done_ctx the async's. Thread: the thread of the store's loop.
 *
 * Contract: once started, store_s3_async_poll answers false while a try is
 * out or waits for its time (a backoff, the rate limit), and true when it
 * is over, then and at every poll after: a->rc is S3C_OK with the reply in
 * x->resp, or the error as store_s3_send returns it, with a->err saying why
 * (S3C_ECANCEL "interrupted" once a stop is asked: base/stop.h). A poll
 * never steps the loop and never sleeps: the caller steps it (the engine
 * does, between its calls to next()) and polls again soon (the engine asks
 * within XFER_LATER_MS); a retry is sent by the first poll after its
 * backoff. store_s3_async_release cuts off a try that is out (its done
 * runs) and leaves 'a' as STORE_S3_ASYNC_INIT; it may be called in any state.
 */
struct store_s3_async {
    struct s3_req req;              /* the request; its strings are the caller's, alive until release */
    struct http_xfer *x;            /* the caller's exchange: each try's answer lands in x->resp */
    struct store_s3_call call;      /* what the try out was signed with (the judge reads it) */
    /* Called before each try but the first (NULL: not needed): a sink that
     * wrote a failed try's bytes somewhere starts over. An error fails the request. */
    enum s3c_err (*rewind)(void *ctx, struct s3c_error *e);
    void *rewind_ctx;
    struct s3_retry_tries tries;    /* attempts and free retries, as store_s3_send counts them */
    int64_t not_before_ns;          /* the next try goes no sooner (http_now_ns): a backoff, the rate limit */
    int sent;                       /* tries submitted */
    bool out;                       /* a try is on the loop: its done has not run */
    bool answered;                  /* its done ran: judged at the next poll */
    bool done;                      /* over: 'rc' and 'err' are final */
    enum s3c_err rc;
    struct s3c_error err;
};

#define STORE_S3_ASYNC_INIT { .call = STORE_S3_CALL_INIT, .tries = S3_RETRY_TRIES_INIT, .err = S3C_ERROR_INIT }

/* Start 'r' (copied; its strings borrowed) into 'x': the first try goes now
 * unless the rate limit holds it. Never fails itself: a failure to sign or
 * submit is the first poll's answer. 'a' is STORE_S3_ASYNC_INIT (or released). */
void store_s3_async_start(struct store_s3 *s, const struct s3_req *r, struct http_xfer *x,
                          struct store_s3_async *a);

/* Over (true: a->rc, a->err) or not yet (false); sends a retry whose time has come. */
bool store_s3_async_poll(struct store_s3 *s, struct store_s3_async *a);

/* Step the store's loop (a backoff waited on it, its other transfers going on)
 * until 'a' is over; a->rc. For blocking callers only: never on the engine's loop. */
enum s3c_err store_s3_async_wait(struct store_s3 *s, struct store_s3_async *a);

void store_s3_async_release(struct store_s3 *s, struct store_s3_async *a);

/* Append "&name=value" (or "name=value" when 'q' is empty), value percent-encoded. */
enum s3c_err s3_query_add(struct buf *q, const char *name, const char *value);

/* ISO 8601 basic "20130524T000000Z" for time 't' (UTC). */
void s3_amz_date(time_t t, char out[17]);


/* ---- operations ------------------------------------------------------------ */
/* Each sends one request (with retries) and parses the reply; 'e' names the
 * S3 error on failure. Results are *_INIT structs of s3/xml.h, released by
 * the caller. */

struct s3_list_buckets;
struct s3_list_objects;
struct s3_list_versions;
struct s3_delete_result;
struct s3_delete_object;

/* ListBuckets (one page; 'token' NULL for the first). */
enum s3c_err store_s3_list_buckets(struct store_s3 *s, const char *token,
                                   struct s3_list_buckets *out, struct s3c_error *e);

/* ListObjectsV2 (or with 'v1' ListObjects, for stores without V2: s5cmd's --use-list-objects-v1) with
 * encoding-type=url. NULL or "" leaves a parameter out. */
struct store_s3_list_args {
    const char *bucket;
    const char *prefix;
    const char *delimiter;
    const char *token;          /* continuation token of the previous page */
    const char *start_after;
    int max_keys;               /* 0: server default (1000) */
    bool v1;                    /* ListObjects (V1): 'token' is the marker; no start_after */
    bool restore_status;        /* V2: ask for each archived object's RestoreStatus too (not of a
                                   directory bucket) */
};
enum s3c_err store_s3_list_objects(struct store_s3 *s, const struct store_s3_list_args *a,
                                   struct s3_list_objects *out, struct s3c_error *e);

/*
 * ListObjectVersions with encoding-type=url: one page of versions and
 * delete markers in key order (newest first within a key). NULL or ""
 * leaves a parameter out. The next page starts at the reply's
 * next_key_marker and next_version_id_marker.
 */
struct store_s3_list_versions_args {
    const char *bucket;
    const char *prefix;
    const char *delimiter;
    const char *key_marker;         /* next_key_marker of the previous page */
    const char *version_id_marker;  /* next_version_id_marker of the previous page */
    int max_keys;                   /* 0: server default (1000) */
};
enum s3c_err store_s3_list_object_versions(struct store_s3 *s, const struct store_s3_list_versions_args *a,
                                           struct s3_list_versions *out, struct s3c_error *e);

/* The request of that page, for a caller that sends it itself (store_s3_async):
 * into 'r', whose query is kept in 'q' (alive until the request is over). */
enum s3c_err store_s3_list_versions_req(const struct store_s3_list_versions_args *a, struct s3_req *r,
                                        struct buf *q, struct s3c_error *e);

/* The cap on a listing page's reply. */
#define STORE_S3_LIST_BODY_MAX_BYTES (32u << 20)

/* HeadObject (key set) or HeadBucket (key NULL); the reply headers are in x->resp. */
enum s3c_err store_s3_head(struct store_s3 *s, const char *bucket, const char *key,
                           struct http_xfer *x, struct s3c_error *e);

/* HeadObject of an object written with an SSE-C key ('k' NULL: none). */
struct s3_sse_c;
enum s3c_err store_s3_head_sse_c(struct store_s3 *s, const char *bucket, const char *key,
                                 const struct s3_sse_c *k, struct http_xfer *x, struct s3c_error *e);

/* The same, asking for the stored checksums also when 'ck_mode' (--checksum-mode
 * ENABLED) though response_checksum_validation = when_required: the HEAD a
 * download then takes as its own (xfer_obj.head) is the one it would ask. */
enum s3c_err store_s3_head_ck(struct store_s3 *s, const char *bucket, const char *key, const struct s3_sse_c *k,
                              bool ck_mode, struct http_xfer *x, struct s3c_error *e);

/* The same of one version of the object ('version_id': ?versionId=; NULL or "": the current one). */
enum s3c_err store_s3_head_version(struct store_s3 *s, const char *bucket, const char *key, const char *version_id,
                                   const struct s3_sse_c *k, bool ck_mode, struct http_xfer *x, struct s3c_error *e);
/*
 * store_s3_head_ck not waited for (store_s3_async: its retries' backoff a
 * time the poll keeps), and, when it answers a bare 404, the HeadBucket that
 * says whether the key or the bucket is missing (store_s3_explain_head_404),
 * in flight too: for a caller that may not wait (the engine's source).
 * STORE_S3_HEAD_ASYNC_INIT, then start; poll until true: 'rc' and 'err' are
 * the HEAD's (the 404 explained), its reply in 'x' (the caller may take its
 * headers). 'bucket', 'key' and 'k' are borrowed until the poll says over;
 * 'h' must not move meanwhile. Release in any state. Thread: the store's loop.
 */
struct store_s3_head_async {
    struct store_s3_async a;        /* the request out: the HEAD, then the HeadBucket */
    struct http_xfer x;             /* the HEAD's exchange */
    struct http_xfer bx;            /* the HeadBucket's */
    const char *bucket;
    const char *version_id;         /* NULL or "": the current version; else its 404 is NoSuchVersion */
    struct buf q;                   /* the HEAD's query (?versionId=) */
    bool explaining;                /* 'a' is the HeadBucket */
    bool done;
    enum s3c_err rc;
    struct s3c_error err;
};

#define STORE_S3_HEAD_ASYNC_INIT { .a = STORE_S3_ASYNC_INIT, .q = BUF_INIT(4096), .err = S3C_ERROR_INIT }

void store_s3_head_async_start(struct store_s3 *s, const char *bucket, const char *key, const char *version_id,
                               const struct s3_sse_c *k, bool ck_mode, struct store_s3_head_async *h);
bool store_s3_head_async_poll(struct store_s3 *s, struct store_s3_head_async *h);
/* Step the store's loop until it is over (blocking callers only: never on the engine's loop); h->rc. */
enum s3c_err store_s3_head_async_wait(struct store_s3 *s, struct store_s3_head_async *h);
void store_s3_head_async_release(struct store_s3 *s, struct store_s3_head_async *h);

/* ListDirectoryBuckets (one page; 'token' NULL for the first): S3 Express
 * directory buckets, from the control endpoint. */
enum s3c_err store_s3_list_directory_buckets(struct store_s3 *s, const char *token,
                                             struct s3_list_buckets *out, struct s3c_error *e);

/* CreateBucket in 'region' (LocationConstraint unless us-east-1); a
 * directory bucket's name creates one in its zone (SingleAvailabilityZone
 * or SingleLocalZone), through the control endpoint. */
enum s3c_err store_s3_create_bucket(struct store_s3 *s, const char *bucket, const char *region,
                                    struct s3c_error *e);

/* DeleteBucket (a directory bucket's through the control endpoint). */
enum s3c_err store_s3_delete_bucket(struct store_s3 *s, const char *bucket, struct s3c_error *e);

/* DeleteObjects of 1..1000 keys (quiet: only failures are listed in 'out'). */
enum s3c_err store_s3_delete_objects(struct store_s3 *s, const char *bucket,
                                     const struct s3_delete_object *objs, size_t n, bool quiet,
                                     struct s3_delete_result *out, struct s3c_error *e);

/* A --debug line through the store's debug sink; nothing when --debug is off. */
void store_s3_debugf(struct store_s3 *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool store_s3_debug_on(const struct store_s3 *s);

/* Whether HEADs ask for stored checksums (x-amz-checksum-mode): not with
 * response_checksum_validation = when_required. */
bool store_s3_checksum_mode(const struct store_s3 *s);

/* SSE-C: a customer-provided key as the three headers S3 wants with every
 * request that writes or reads the object (the AWS CLI's --sse-c/--sse-c-key). */
struct s3_sse_c {
    char algorithm[16];             /* "AES256" */
    char key_b64[48];               /* base64 of the 32 key bytes */
    char key_md5_b64[28];           /* base64 of their MD5 */
};

/* Encode 'key' (32 raw bytes, as given on the command line) for 'algorithm'
 * (NULL: AES256). S3C_EUSAGE when the algorithm or the key length is wrong. */
enum s3c_err s3_sse_c_init(struct s3_sse_c *k, const char *algorithm, const char *key, struct s3c_error *e);

/* Add the key's headers to 'r': x-amz-server-side-encryption-customer-*, or with
 * 'copy_source' the x-amz-copy-source-server-side-encryption-customer-* of a
 * copy's source. 'k' is borrowed until the request is prepared. */
void s3_req_sse_c(struct s3_req *r, const struct s3_sse_c *k, bool copy_source);

/* The signing region now in use (after any region hint). */
const char *store_s3_region(const struct store_s3 *s);

/*
 * Sign requests to 'bucket' for 'region' from the first one (--source-region),
 * rather than for the store's and then as a region hint says. The first
 * request still goes alone (a probe); a hint from the store still wins.
 */
void store_s3_bucket_region_set(struct store_s3 *s, const char *bucket, const char *region);

/* The region requests to 'bucket' are signed for: learnt from a hint, else the store's. */
const char *store_s3_bucket_region(const struct store_s3 *s, const char *bucket);

/*
 * Ask where 'bucket' lives (HeadBucket, one try: a region hint is followed,
 * nothing else is retried) and return its region as store_s3_bucket_region()
 * then does. Any failure just leaves the store's region: the caller goes on.
 */
const char *store_s3_probe_region(struct store_s3 *s, const char *bucket);

/*
 * Make one CreateSession (GET /BUCKET?session) with the IAM keys in 'ask',
 * on a private connection, blocking: the auth/express.h fetch, called on its
 * refresh threads. 'ctx' is the store's options (struct store_s3_opts *),
 * read only. Follows one region hint (rewriting ask->region) and retries
 * what S3 says is retryable.
 */
struct express_ask;
struct express_got;
enum s3c_err store_s3_create_session(void *ctx, struct express_ask *ask, struct express_got *out,
                                     struct s3c_error *e);

#endif
