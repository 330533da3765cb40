/* s3/retry.h: the retry modes' rules, the quota and the adaptive rate limiter. */
#include "t.h"

#include "s3/retry.h"

TEST(retry_modes_retry_what_botocore_retries)
{
    /* Standard: 500/502/503/504, transient and throttling codes; not 501. */
    CHECK(s3_retry_retryable(S3_RETRY_STANDARD, 503, "SlowDown"));
    CHECK(s3_retry_retryable(S3_RETRY_STANDARD, 500, "InternalError"));
    CHECK(s3_retry_retryable(S3_RETRY_STANDARD, 400, "RequestTimeout"));
    CHECK(!s3_retry_retryable(S3_RETRY_STANDARD, 501, "NotImplemented"));
    CHECK(!s3_retry_retryable(S3_RETRY_STANDARD, 404, "NoSuchKey"));
    CHECK(!s3_retry_retryable(S3_RETRY_STANDARD, 403, "AccessDenied"));
    CHECK(s3_retry_retryable(S3_RETRY_ADAPTIVE, 400, "BandwidthLimitExceeded"));
    /* Legacy: its statuses (509 too) and its shorter list of codes. */
    CHECK(s3_retry_retryable(S3_RETRY_LEGACY, 509, ""));
    CHECK(s3_retry_retryable(S3_RETRY_LEGACY, 400, "ThrottlingException"));
    CHECK(!s3_retry_retryable(S3_RETRY_LEGACY, 400, "BandwidthLimitExceeded"));
    /* s3c's own: every 5xx but 501, a store's last word on an operation (s3rver's UploadPartCopy). */
    CHECK(s3_retry_retryable(S3_RETRY_S3C, 502, ""));
    CHECK(!s3_retry_retryable(S3_RETRY_S3C, 501, "NotImplemented"));
    CHECK(!s3_retry_retryable(S3_RETRY_S3C, 404, "NoSuchKey"));
    /* Every mode signs again once the server's clock is known. */
    CHECK(s3_retry_retryable(S3_RETRY_LEGACY, 403, "RequestTimeTooSkewed"));
    /* ... and sends a conditional write that raced another again; other 409s are answers. */
    CHECK(s3_retry_retryable(S3_RETRY_LEGACY, 409, "ConditionalRequestConflict"));
    CHECK(s3_retry_retryable(S3_RETRY_S3C, 409, "ConditionalRequestConflict"));
    CHECK(!s3_retry_retryable(S3_RETRY_S3C, 409, "BucketNotEmpty"));
    CHECK(!s3_retry_retryable(S3_RETRY_STANDARD, 409, "OperationAborted"));
    CHECK(s3_retry_is_throttle(429, ""));
    CHECK(s3_retry_is_throttle(503, "SlowDown"));
    CHECK(!s3_retry_is_throttle(503, "ServiceUnavailable"));
}

TEST(retry_backoff_is_rand_times_two_to_the_attempt)
{
    /* Standard and legacy: rand * 2^attempt seconds, at most 20 s. */
    CHECK_INT(s3_retry_backoff_ms(S3_RETRY_STANDARD, 0, false, 0.5), 500);
    CHECK_INT(s3_retry_backoff_ms(S3_RETRY_STANDARD, 2, false, 0.5), 2000);
    CHECK_INT(s3_retry_backoff_ms(S3_RETRY_LEGACY, 3, true, 0.25), 2000);
    CHECK_INT(s3_retry_backoff_ms(S3_RETRY_STANDARD, 9, false, 0.99), S3_RETRY_BACKOFF_MAX_MS);
    /* s3c's: 100 ms base, 1 s after a throttle. */
    CHECK_INT(s3_retry_backoff_ms(S3_RETRY_S3C, 0, false, 0.5), 50);
    CHECK_INT(s3_retry_backoff_ms(S3_RETRY_S3C, 1, true, 0.5), 1000);
    CHECK_INT(s3_retry_backoff_ms(S3_RETRY_S3C, 0, false, 0.0), 0);
}

TEST(retry_quota_costs_and_refunds)
{
    struct s3_retry_quota q = S3_RETRY_QUOTA_INIT;
    int i, granted = 0;

    CHECK_INT(s3_retry_quota_take(&q, false), 5);
    CHECK_INT(s3_retry_quota_take(&q, true), 10);
    CHECK_INT(q.available, 485);
    s3_retry_quota_give(&q, 10); /* the retried request succeeded */
    CHECK_INT(q.available, 495);
    s3_retry_quota_give(&q, 0);  /* one that needed no retry */
    CHECK_INT(q.available, 496);
    s3_retry_quota_give(&q, 50); /* never above the start */
    CHECK_INT(q.available, 500);
    for (i = 0; i < 200; i++)
        granted += s3_retry_quota_take(&q, false) > 0;
    CHECK_INT(granted, 100);     /* 500 / 5: then no more retries */
}

TEST(rate_limiter_engages_on_throttle_and_recovers)
{
    struct s3_rate_limiter l;
    double t = 1000.0;
    long waits = 0;
    int i, sent = 0;

    s3_rate_init(&l, t);
    /* Not engaged: every request goes. */
    for (i = 0; i < 100; i++)
        CHECK_INT(s3_rate_acquire(&l, t), 0);
    /* 100 answers a second for 3 s, then a throttle. */
    for (i = 0; i < 300; i++)
        s3_rate_update(&l, false, t += 0.01);
    CHECK(l.measured_rate > 50 && l.measured_rate < 150);
    s3_rate_update(&l, true, t);
    CHECK(l.enabled);
    CHECK(l.fill_rate > 0.6 * l.measured_rate && l.fill_rate < 0.8 * l.measured_rate + 1);
    /* Sending is now paced: over one second, about the fill rate. */
    for (i = 0; i < 1000; i++) {
        long w = s3_rate_acquire(&l, t + i * 0.001);
        if (w == 0)
            sent++;
        else
            waits++;
    }
    CHECK(waits > 0);
    CHECK(sent < (int)(l.fill_rate * 1.0) + 2 + (int)l.capacity);
    /* Successes let the rate climb back (CUBIC). */
    {
        double before = l.fill_rate;
        for (i = 0; i < 400; i++)
            s3_rate_update(&l, false, t += 0.01);
        CHECK(l.fill_rate > before);
    }
}

TEST(retry_count_free_retries_then_the_budget)
{
    struct s3_retry_tries t = S3_RETRY_TRIES_INIT;

    /* Ordinary retries: max_attempts 3 is the first try and two retries. */
    CHECK(s3_retry_count(&t, false, 3));
    CHECK_INT(t.attempt, 1);
    CHECK(s3_retry_count(&t, false, 3));
    CHECK(!s3_retry_count(&t, false, 3));
    CHECK_INT(t.attempt, 3);

    /* Free retries (a region hint, fresh keys) cost nothing, twice; then they count. */
    t = (struct s3_retry_tries)S3_RETRY_TRIES_INIT;
    CHECK(s3_retry_count(&t, true, 3));
    CHECK(s3_retry_count(&t, true, 3));
    CHECK_INT(t.attempt, 0);
    CHECK_INT(t.free_retries, 2);
    CHECK(s3_retry_count(&t, true, 3));
    CHECK_INT(t.attempt, 1);
    CHECK(s3_retry_count(&t, false, 3));
    CHECK(!s3_retry_count(&t, true, 3)); /* a store that keeps hinting ends within the budget */

    /* One attempt in all (max_attempts 1): no retry, free ones aside. */
    t = (struct s3_retry_tries)S3_RETRY_TRIES_INIT;
    CHECK(!s3_retry_count(&t, false, 1));
    t = (struct s3_retry_tries)S3_RETRY_TRIES_INIT;
    CHECK(s3_retry_count(&t, true, 1));
}
