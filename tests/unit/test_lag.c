#include "t.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/lag.h"

static int lines_in(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, c;

    if (!f)
        return 0;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000L };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void spin_ms(long ms)
{
    struct timespec a, b;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

/* The probe fires on a loop thread asleep outside its wait, not on one busy
 * (however long), not inside a wait, and not on a thread that is no loop. */
TEST(lag_probe_tells_blocked_from_busy)
{
    char path[] = "/tmp/s3c-unit-lag.XXXXXX";
    int fd = mkstemp(path);

    CHECK(fd >= 0);
    close(fd);
    setenv("S3C_LOOP_LAG_MS", "20", 1);
    setenv("S3C_LOOP_LAG_LOG", path, 1);

    sleep_ms(60); /* no loop yet: nothing to say */
    lag_wait_begin();
    lag_wait_end();
    CHECK_INT(lines_in(path), 0);

    lag_loop_enter();
    spin_ms(60); /* busy, not blocked */
    lag_wait_begin();
    CHECK_INT(lines_in(path), 0);
    sleep_ms(60); /* inside the wait */
    lag_wait_end();
    CHECK_INT(lines_in(path), 0);
    sleep_ms(60); /* blocked outside it */
    lag_wait_begin();
    CHECK_INT(lines_in(path), 1);
    lag_wait_end();
    sleep_ms(60); /* the last stretch counts as the loop ends */
    lag_loop_leave();
    CHECK_INT(lines_in(path), 2);

    unsetenv("S3C_LOOP_LAG_MS");
    unsetenv("S3C_LOOP_LAG_LOG");
    lag_loop_enter(); /* off: nothing measured */
    sleep_ms(60);
    lag_wait_begin();
    lag_wait_end();
    lag_loop_leave();
    CHECK_INT(lines_in(path), 2);
    unlink(path);
}
