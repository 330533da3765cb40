/*
 * thread: a deadline some milliseconds ahead on a clock, for the timed waits
 * of s3c. The worker pools are base/workpool.h.
 */
#ifndef S3C_BASE_THREAD_H
#define S3C_BASE_THREAD_H

#include <pthread.h>
#include <time.h>

/* 'clk' now plus 'ms' milliseconds (for pthread_cond_timedwait: CLOCK_REALTIME). */
void thread_deadline(clockid_t clk, long ms, struct timespec *out);

#endif
