#include "base/stop.h"

#include <stdatomic.h>

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
