/*
 * thread: the small pieces every worker pool and timed wait of s3c repeats:
 * a deadline some milliseconds ahead on a clock, and a pool's end (stop
 * flag, wake, join, destroy). No pool logic of its own.
 */
#ifndef S3C_BASE_THREAD_H
#define S3C_BASE_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

/* 'clk' now plus 'ms' milliseconds (for pthread_cond_timedwait: CLOCK_REALTIME). */
void thread_deadline(clockid_t clk, long ms, struct timespec *out);

/*
 * End a pool: set *stop under 'mu', wake every worker waiting on 'work',
 * join the 'started' threads of 'th', then destroy 'done_cv', 'work' and 'mu'.
 */
void thread_pool_end(pthread_mutex_t *mu, pthread_cond_t *work, pthread_cond_t *done_cv, bool *stop,
                     pthread_t *th, int started);

#endif
