/*
 * retry: the AWS SDKs' retry modes as pure functions and plain structs —
 * which answers are worth another try, how long to wait before it, the
 * retry quota of standard mode and the client-side rate limiter of adaptive
 * mode. No I/O, no clock, no locks: callers pass the time and a random
 * number, and hold a lock around a quota or limiter shared by threads.
 *
 * The modes (retry_mode, AWS_RETRY_MODE):
 *   S3C       none configured: s3c's own (every 5xx but 501, throttles wait from 1 s,
 *             5 attempts by default; see README)
 *   STANDARD  botocore's standard: 500/502/503/504, RequestTimeout and the
 *             throttling codes; wait rand * 2^n s, at most 20 s; a retry
 *             quota (500, a retry costs 5, one after a timeout 10)
 *   LEGACY    botocore's legacy: 429/500/502/503/504/509, RequestTimeout
 *             and the legacy throttling codes; wait rand * 2^n s
 *   ADAPTIVE  standard, plus a token bucket that slows sending once the
 *             store throttles (CUBIC on the measured send rate)
 * Network failures (no HTTP answer) are retried by every mode.
 */
#ifndef S3C_S3_RETRY_H
#define S3C_S3_RETRY_H

#include <stdbool.h>

enum s3_retry_mode {
    S3_RETRY_S3C = 0,
    S3_RETRY_STANDARD,
    S3_RETRY_LEGACY,
    S3_RETRY_ADAPTIVE,
};

#define S3_RETRY_BACKOFF_MAX_MS 20000

/* An answer that says "too many requests" (429, SlowDown, Throttling...). */
bool s3_retry_is_throttle(long http_status, const char *s3_code);

/* Whether 'mode' tries again after an HTTP answer of 'http_status' with 's3_code' ("" for none). */
bool s3_retry_retryable(enum s3_retry_mode mode, long http_status, const char *s3_code);

/* The wait before retry number attempt + 1 (attempt counts from 0: the try
 * that failed); 'r01' a random number in [0, 1). */
long s3_retry_backoff_ms(enum s3_retry_mode mode, int attempt, bool throttle, double r01);

/* ---- counting tries ---- */

/* Free retries (a region hint followed, keys or a session renewed: store_s3_judge's
 * free_retry) a request takes before they count as attempts too. */
#define S3_RETRY_FREE_MAX 2

struct s3_retry_tries {
    int attempt;                /* counted tries that failed: the 'attempt' the next answer is judged
                                   with (store_s3_judge), 0 for the first */
    int free_retries;           /* free retries taken */
};

#define S3_RETRY_TRIES_INIT { 0, 0 }

/*
 * A retry was decided ('free_retry' as the judge said): count it. A free
 * retry counts as an attempt once S3_RETRY_FREE_MAX were taken, so a
 * store that keeps hinting cannot hold a request forever. True when the
 * retry may go: fewer than 'max_attempts' tries counted; false when the
 * budget is spent (the request fails with the last answer's error).
 */
bool s3_retry_count(struct s3_retry_tries *t, bool free_retry, int max_attempts);

/* ---- standard mode's retry quota ---- */

struct s3_retry_quota {
    int available;              /* what retries may still take */
    int max;
};

#define S3_RETRY_QUOTA_INIT { 500, 500 }

/* Take what one retry costs (10 after a timeout, else 5): that cost, or 0
 * when the quota has too little left (then no retry). */
int s3_retry_quota_take(struct s3_retry_quota *q, bool timeout);

/* An answer of 2xx: give back 'cost' (what its last retry took), or 1 when
 * it needed no retry. Never above the initial quota. */
void s3_retry_quota_give(struct s3_retry_quota *q, int cost);

/* ---- adaptive mode's client-side rate limiter ---- */

struct s3_rate_limiter {
    bool enabled;               /* off until the first throttle */
    /* Token bucket: 'tokens' of at most 'capacity', refilled at 'fill_rate'/s. */
    double fill_rate, capacity, tokens, last_refill_s;
    /* CUBIC: the rate when last throttled, its zero point, when. */
    double w_max, k, last_fail_s;
    /* The send rate measured over half-second buckets, smoothed. */
    double measured_rate, bucket_s;
    unsigned bucket_count;
};

void s3_rate_init(struct s3_rate_limiter *l, double now_s);

/* May one request be sent at 'now_s'? 0 and a token taken when it may (or
 * the limiter is not engaged yet), else the milliseconds until a token. */
long s3_rate_acquire(struct s3_rate_limiter *l, double now_s);

/* An answer came back at 'now_s' ('throttled': it was a throttling error):
 * the send rate is measured and the bucket's rate set from it. */
void s3_rate_update(struct s3_rate_limiter *l, bool throttled, double now_s);

#endif
