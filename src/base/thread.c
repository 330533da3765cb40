/* thread.c — deadlines and a worker pool's end (see thread.h). */
#include "base/thread.h"

void thread_deadline(clockid_t clk, long ms, struct timespec *out)
{
    clock_gettime(clk, out);
    out->tv_sec += ms / 1000;
    out->tv_nsec += (ms % 1000) * 1000000L;
    if (out->tv_nsec >= 1000000000L) {
        out->tv_sec++;
        out->tv_nsec -= 1000000000L;
    }
}

void thread_pool_end(pthread_mutex_t *mu, pthread_cond_t *work, pthread_cond_t *done_cv, bool *stop,
                     pthread_t *th, int started)
{
    int i;

    pthread_mutex_lock(mu);
    *stop = true;
    pthread_cond_broadcast(work);
    pthread_mutex_unlock(mu);
    for (i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_cond_destroy(done_cv);
    pthread_cond_destroy(work);
    pthread_mutex_destroy(mu);
}
