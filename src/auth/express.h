/*
 * express: S3 Express One Zone session credentials (CreateSession), cached
 * per (bucket, IAM access key id, session mode) and refreshed ahead of their
 * expiry on threads of their own, so the loop that signs never waits for a
 * CreateSession but when no valid session is left (the first request to a
 * bucket, or one refused as expired). It signs nothing and sends nothing:
 * the fetch is a callback store/ gives (it runs on a refresh thread and must
 * touch nothing the loop owns).
 *
 * Windows (aws-c-s3 refreshes sessions within 60 s of expiry, botocore from
 * 45 s and waits from 10 s): a refresh starts min(60 s, life/3) before
 * expiry and is waited for from min(10 s, life/10) before it, so a session
 * of 5 minutes is replaced after 4, and one of a few seconds (tests) still
 * long before it runs out. A session's life is measured on a monotonic clock
 * from before its request was sent, so clock skew never stretches it.
 *
 * Bounded: at most EXPRESS_CACHE_MAX sessions (least recently used goes
 * first) and EXPRESS_THREADS_MAX refreshes at once.
 *
 * Threads: every function is called from one thread (the loop's); the
 * refresh threads touch only their own entry's 'next' slot and hand it back
 * with one atomic flag.
 */
#ifndef S3C_AUTH_EXPRESS_H
#define S3C_AUTH_EXPRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "auth/creds.h"
#include "base/err.h"

#define EXPRESS_CACHE_MAX 64
#define EXPRESS_THREADS_MAX 8
#define EXPRESS_BUCKET_MAX 64       /* bucket names are at most 63 characters */

enum express_mode {
    EXPRESS_READ_WRITE = 0,
    EXPRESS_READ_ONLY,
};

/* "ReadWrite" / "ReadOnly": the x-amz-create-session-mode value. */
const char *express_mode_name(enum express_mode m);

/* One CreateSession to make: everything the fetch reads, owned by the cache
 * and left alone by the loop while the fetch runs. */
struct express_ask {
    char bucket[EXPRESS_BUCKET_MAX];
    char region[64];                /* the region to sign for; a fetch that follows a
                                       region hint writes the right one back here */
    enum express_mode mode;
    struct creds iam;               /* the IAM keys CreateSession is signed with */
};

/* What a fetch brings: the session's keys and how long they live. */
struct express_got {
    struct creds keys;              /* access_key, secret_key, session_token */
    int64_t life_ms;                /* from when the request was sent; > 0 */
};

/*
 * Make one CreateSession for 'ask' (may rewrite ask->region). Called on a
 * refresh thread or, when none can be had, in place on the loop's. On
 * success fills 'out' and returns S3C_OK; else 'e' says why.
 */
typedef enum s3c_err (*express_fetch_fn)(void *ctx, struct express_ask *ask, struct express_got *out,
                                         struct s3c_error *e);

struct express_cache;

/*
 * A cache fetching with 'fetch'(fetch_ctx, ...). 'wake' (may be NULL) is
 * called from a refresh thread when a session is ready, so a sleeping loop
 * takes it early. NULL only when out of memory.
 */
struct express_cache *express_cache_new(express_fetch_fn fetch, void *fetch_ctx, void (*wake)(void *ctx),
                                        void *wake_ctx);

/* Waits for the refreshes in flight, then frees everything (secrets wiped). NULL is a no-op. */
void express_cache_free(struct express_cache *c);

/* What a signer gets: the session keys, their generation, the region they are for. */
struct express_use {
    const struct creds *keys;       /* valid until the next call on the cache */
    unsigned gen;                   /* unique per fetched session: give it to express_expired() */
    const char *region;             /* the region CreateSession was signed for (after any hint) */
    bool fresh;                     /* a session not handed out before (for --debug) */
};

/*
 * The session to sign a request to 'bucket' with, for the IAM keys 'iam' in
 * 'mode' at 'now_ms' (express_now_ms()). A ReadOnly ask is served by a valid
 * ReadWrite session of the same bucket and keys when one is cached. Starts a
 * refresh in the advisory window; in the mandatory one, or when there is no
 * session yet or it was refused as expired, waits for one. Fails (with 'e')
 * only when no valid session can be had: CreateSession's own error.
 */
enum s3c_err express_get(struct express_cache *c, const char *bucket, const char *region, enum express_mode mode,
                         const struct creds *iam, int64_t now_ms, struct express_use *out, struct s3c_error *e);

/*
 * The store refused session 'gen' as expired (ExpiredToken and friends).
 * True when a retry can use another: a newer one is cached already, or the
 * next express_get() will fetch one (forced). False past a few forced
 * refreshes per session and per run, so a server that refuses every session ends.
 */
bool express_expired(struct express_cache *c, unsigned gen);

/* Counters for --stat, --debug and tests. */
struct express_stats {
    unsigned sessions;              /* CreateSession calls that succeeded */
    unsigned failures;              /* ... that failed */
    unsigned ahead;                 /* sessions replaced by a refresh started ahead of time */
    unsigned waited;                /* times the loop waited for a session */
    unsigned evicted;               /* sessions dropped to stay within the cap */
};
void express_stats(const struct express_cache *c, struct express_stats *out);

/* Milliseconds on the monotonic clock (what now_ms means above). */
int64_t express_now_ms(void);

/* The windows above, for a session living life_ms: lead before expiry of the
 * advisory refresh and of the mandatory wait (exposed for the unit tests). */
int64_t express_advisory_lead_ms(int64_t life_ms);
int64_t express_mandatory_lead_ms(int64_t life_ms);

#endif
