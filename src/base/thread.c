/* thread.c — deadlines (see thread.h). */
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
