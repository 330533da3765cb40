#include "s3/retry.h"

#include <math.h>
#include <string.h>

static bool code_in(const char *code, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(code, *list))
            return true;
    return false;
}

/* botocore standard mode's throttling codes (S3's own is SlowDown). */
static const char *const throttle_codes[] = {
    "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
    "TooManyRequestsException", "ProvisionedThroughputExceededException", "TransactionInProgressException",
    "RequestLimitExceeded", "BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
    "SlowDown", "PriorRequestNotComplete", "EC2ThrottledException", NULL,
};

/* Legacy mode's shorter list (botocore's _retry.json "general" policies). */
static const char *const legacy_codes[] = {
    "Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
    "ProvisionedThroughputExceededException", "RequestTimeout", NULL,
};

static const char *const transient_codes[] = {
    "RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete", NULL,
};

bool s3_retry_is_throttle(long http_status, const char *s3_code)
{
    return http_status == 429 || code_in(s3_code ? s3_code : "", throttle_codes);
}

bool s3_retry_retryable(enum s3_retry_mode mode, long http_status, const char *s3_code)
{
    const char *code = s3_code ? s3_code : "";

    /* Every mode: the request was signed with a clock the server refused;
     * the caller learnt the server's time from the answer and signs anew. */
    if (!strcmp(code, "RequestTimeTooSkewed"))
        return true;
    /* Every mode: a conditional write (If-None-Match, If-Match) raced another write of the key
     * and neither was applied; S3 says to send it again, which then succeeds or gets its 412. */
    if (http_status == 409 && !strcmp(code, "ConditionalRequestConflict"))
        return true;
    switch (mode) {
    case S3_RETRY_STANDARD:
    case S3_RETRY_ADAPTIVE:
        return http_status == 500 || http_status == 502 || http_status == 503 || http_status == 504 ||
               code_in(code, transient_codes) || s3_retry_is_throttle(http_status, code);
    case S3_RETRY_LEGACY:
        return http_status == 429 || http_status == 500 || http_status == 502 || http_status == 503 ||
               http_status == 504 || http_status == 509 || code_in(code, legacy_codes);
    case S3_RETRY_S3C:
        break;
    }
    /* 501 NotImplemented is the store's last word on an operation (s3rver's UploadPartCopy): no retry. */
    return (http_status >= 500 && http_status != 501) || s3_retry_is_throttle(http_status, code) ||
           !strcmp(code, "RequestTimeout");
}

long s3_retry_backoff_ms(enum s3_retry_mode mode, int attempt, bool throttle, double r01)
{
    double base;
    long ms;

    if (attempt < 0)
        attempt = 0;
    if (mode == S3_RETRY_S3C) {
        /* Throttles wait longer: from 1 s, where other errors start at 100 ms. */
        base = throttle ? 1000.0 * (double)(1 << (attempt > 5 ? 5 : attempt))
                        : 100.0 * (double)(1 << (attempt > 8 ? 8 : attempt));
    } else {
        /* Both SDK modes: rand * 2^attempt seconds (legacy's growth factor 2,
         * standard's truncated binary exponential backoff). */
        base = 1000.0 * (double)(1 << (attempt > 15 ? 15 : attempt));
    }
    ms = (long)(r01 * base);
    return ms > S3_RETRY_BACKOFF_MAX_MS ? S3_RETRY_BACKOFF_MAX_MS : ms;
}

bool s3_retry_count(struct s3_retry_tries *t, bool free_retry, int max_attempts)
{
    if (!free_retry || t->free_retries++ >= S3_RETRY_FREE_MAX)
        t->attempt++;
    return t->attempt < max_attempts; /* free retries past theirs count: never more tries than the budget */
}

int s3_retry_quota_take(struct s3_retry_quota *q, bool timeout)
{
    int cost = timeout ? 10 : 5;

    if (cost > q->available)
        return 0;
    q->available -= cost;
    return cost;
}

void s3_retry_quota_give(struct s3_retry_quota *q, int cost)
{
    int room = q->max - q->available;

    if (cost <= 0)
        cost = 1;
    q->available += cost < room ? cost : room;
}

/* ---- adaptive: a token bucket whose rate CUBIC sets ---------------------------------- */

#define RATE_MIN 0.5            /* requests per second, never below */
#define CUBIC_C 0.4             /* CUBIC's scale constant */
#define CUBIC_BETA 0.7          /* the rate kept after a throttle */
#define SMOOTHING 0.8           /* weight of the newest half-second's rate */
#define BUCKET_S 0.5            /* the send rate is measured per half second */
#define MAX_RATE_SCALE 2.0      /* the bucket's rate never exceeds twice the measured one */

void s3_rate_init(struct s3_rate_limiter *l, double now_s)
{
    memset(l, 0, sizeof(*l));
    l->fill_rate = 1;
    l->capacity = 1;
    l->last_refill_s = now_s;
    l->last_fail_s = now_s;
    l->bucket_s = floor(now_s);
}

static void refill(struct s3_rate_limiter *l, double now_s)
{
    double t = l->tokens + (now_s - l->last_refill_s) * l->fill_rate;

    if (now_s > l->last_refill_s) {
        l->tokens = t < l->capacity ? t : l->capacity;
        l->last_refill_s = now_s;
    }
}

long s3_rate_acquire(struct s3_rate_limiter *l, double now_s)
{
    double wait_s;

    if (!l->enabled)
        return 0;
    refill(l, now_s);
    if (l->tokens >= 1) {
        l->tokens -= 1;
        return 0;
    }
    wait_s = (1 - l->tokens) / l->fill_rate;
    return wait_s * 1000 < 1 ? 1 : (long)ceil(wait_s * 1000);
}

/* The zero point of the cubic: when it climbs back to w_max. */
static double cubic_k(double w_max)
{
    return cbrt(w_max * (1 - CUBIC_BETA) / CUBIC_C);
}

void s3_rate_update(struct s3_rate_limiter *l, bool throttled, double now_s)
{
    double bucket = floor(now_s / BUCKET_S) * BUCKET_S, rate;

    l->bucket_count++;
    if (bucket > l->bucket_s) {
        double current = (double)l->bucket_count / (bucket - l->bucket_s);

        l->measured_rate = current * SMOOTHING + l->measured_rate * (1 - SMOOTHING);
        l->bucket_count = 0;
        l->bucket_s = bucket;
    }
    if (!throttled) {
        double dt = now_s - l->last_fail_s - l->k;
        rate = CUBIC_C * dt * dt * dt + l->w_max;
    } else {
        double at = l->enabled && l->fill_rate < l->measured_rate ? l->fill_rate : l->measured_rate;

        l->w_max = at;
        l->k = cubic_k(at);
        l->last_fail_s = now_s;
        rate = at * CUBIC_BETA;
        l->enabled = true;
    }
    if (rate > MAX_RATE_SCALE * l->measured_rate)
        rate = MAX_RATE_SCALE * l->measured_rate;
    refill(l, now_s);
    l->fill_rate = rate > RATE_MIN ? rate : RATE_MIN;
    l->capacity = rate >= 1 ? rate : 1;
    if (l->tokens > l->capacity)
        l->tokens = l->capacity;
}
