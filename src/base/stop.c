#include "base/stop.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int why_stopped;
static void (*_Atomic hook)(void);

void stop_hook(void (*fn)(void))
{
    atomic_store(&hook, fn);
}

void stop_request(int why)
{
    int none = 0;
    void (*fn)(void);

    if (atomic_compare_exchange_strong(&why_stopped, &none, why) && (fn = atomic_load(&hook)))
        fn();
}

int stop_requested(void)
{
    return atomic_load(&why_stopped);
}

bool stop_sleep_ms(long ms)
{
    /* In slices: a signal may land on another thread, and this one would sleep on. */
    while (ms > 0 && !stop_requested()) {
        long step = ms < 50 ? ms : 50;
        struct timespec ts = { 0, step * 1000000L };

        while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !stop_requested())
            ;
        ms -= step;
    }
    return stop_requested() != 0;
}
