/*
 * The loop-lag probe behind lag.h. One thread-local record a loop thread;
 * nothing shared.
 */
#include "base/lag.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct lag_sample {
    int64_t wall_ns;            /* CLOCK_MONOTONIC */
    int64_t cpu_ns;             /* on a CPU (schedstat's first field, or the thread's CPU clock) */
    int64_t runq_ns;            /* runnable, waiting for a CPU (schedstat's second; 0 without it) */
};

struct lag_thread {
    int depth;                  /* lag_loop_enter minus lag_loop_leave, while the probe is on */
    long limit_ms;              /* S3C_LOOP_LAG_MS as the outer lag_loop_enter read it; 0: off */
    const char *log;            /* S3C_LOOP_LAG_LOG, or NULL: stderr */
    int stat_fd;                /* /proc/thread-self/schedstat, or -1 */
    bool open_tried;
    bool in_stretch;            /* 'from' is the start of a stretch being measured */
    void (*in_next)(int);       /* the checker's s3c_checker_in_next, or NULL */
    int next_depth;             /* lag_next_begin minus lag_next_end */
    struct lag_sample from;
};

static _Thread_local struct lag_thread lag_me = { .stat_fd = -1 };

/*
 * With the probe on, a checker preloaded into the process (the e2e suite's
 * tests/e2e/slowcalls.so) learns which threads are loops through this
 * function of its own, if it has one, and reports each named blocking call
 * (getaddrinfo, fdatasync, nanosleep...) such a thread makes, however short.
 */
static void lag_tell_checker(int on)
{
    void (*mark)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "s3c_checker_loop_thread");

    if (mark)
        mark(on);
    lag_me.in_next = on ? (void (*)(int))dlsym(RTLD_DEFAULT, "s3c_checker_in_next") : NULL;
}

/* The setting, read as a loop starts (a getenv a run per loop: nothing to share). */
static void lag_setup(struct lag_thread *t)
{
    const char *v = getenv("S3C_LOOP_LAG_MS");

    t->limit_ms = v && *v ? strtol(v, NULL, 10) : 0;
    if (t->limit_ms < 0)
        t->limit_ms = 0;
    t->log = getenv("S3C_LOOP_LAG_LOG");
    if (t->log && !*t->log)
        t->log = NULL;
}

static int64_t ts_ns(clockid_t clk)
{
    struct timespec ts;

    clock_gettime(clk, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void lag_sample(struct lag_thread *t, struct lag_sample *s)
{
    char text[128];
    ssize_t n = -1;

    if (!t->open_tried) {
        t->open_tried = true;
        t->stat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    }
    s->wall_ns = ts_ns(CLOCK_MONOTONIC);
    if (t->stat_fd >= 0)
        n = pread(t->stat_fd, text, sizeof(text) - 1, 0);
    if (n > 0) {
        text[n] = '\0';
        if (sscanf(text, "%" SCNd64 " %" SCNd64, &s->cpu_ns, &s->runq_ns) == 2)
            return;
    }
    s->cpu_ns = ts_ns(CLOCK_THREAD_CPUTIME_ID);
    s->runq_ns = 0;
}

/* Append 'line' ('n' from snprintf into 'size' bytes) to S3C_LOOP_LAG_LOG, or stderr. */
static void lag_say(const struct lag_thread *t, const char *line, int n, size_t size)
{
    int fd;

    if (n <= 0)
        return;
    if ((size_t)n >= size)
        n = (int)size - 1;
    fd = t->log ? open(t->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : STDERR_FILENO;
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) < 0) {
        /* nowhere to say it */
    }
    if (fd != STDERR_FILENO)
        close(fd);
}

static void lag_report(const struct lag_thread *t, const struct lag_sample *a, const struct lag_sample *b, int64_t blocked_ns)
{
    char line[256];
    int n;

    n = snprintf(line, sizeof(line),
                 "s3c loop-lag: pid %d thread %d blocked %" PRId64 " ms outside its poll (over %ld ms; "
                 "stretch %" PRId64 " ms: on cpu %" PRId64 ", runnable %" PRId64 ")\n",
                 (int)getpid(), (int)gettid(), blocked_ns / 1000000, t->limit_ms, (b->wall_ns - a->wall_ns) / 1000000,
                 (b->cpu_ns - a->cpu_ns) / 1000000, (b->runq_ns - a->runq_ns) / 1000000);
    lag_say(t, line, n, sizeof(line));
}

void lag_loop_enter(void)
{
    struct lag_thread *t = &lag_me;

    if (t->depth > 0) {
        t->depth++;
        return;
    }
    lag_setup(t);
    if (!t->limit_ms)
        return;
    t->depth = 1;
    lag_tell_checker(1);
    lag_sample(t, &t->from);
    t->in_stretch = true;
}

void lag_loop_leave(void)
{
    struct lag_thread *t = &lag_me;

    if (t->depth <= 0)
        return;
    if (--t->depth == 0) {
        lag_wait_begin(); /* the last stretch counts too */
        t->depth = 0;
        t->in_stretch = false;
        lag_tell_checker(0);
        if (t->stat_fd >= 0)
            close(t->stat_fd);
        t->stat_fd = -1;
        t->open_tried = false;
    }
}

void lag_wait_begin(void)
{
    struct lag_thread *t = &lag_me;
    struct lag_sample now;
    int64_t blocked;

    if (!t->in_stretch) /* true only on a loop thread with the probe on */
        return;
    t->in_stretch = false;
    lag_sample(t, &now);
    blocked = (now.wall_ns - t->from.wall_ns) - (now.cpu_ns - t->from.cpu_ns) - (now.runq_ns - t->from.runq_ns);
    if (blocked > (int64_t)t->limit_ms * 1000000)
        lag_report(t, &t->from, &now, blocked);
}

void lag_wait_end(void)
{
    struct lag_thread *t = &lag_me;

    if (t->depth <= 0) /* above 0 only with the probe on */
        return;
    lag_sample(t, &t->from);
    t->in_stretch = true;
}

void lag_next_begin(void)
{
    struct lag_thread *t = &lag_me;

    if (t->in_next && t->next_depth++ == 0)
        t->in_next(1);
}

void lag_next_end(void)
{
    struct lag_thread *t = &lag_me;

    if (t->in_next && t->next_depth > 0 && --t->next_depth == 0)
        t->in_next(0);
}

void lag_hashed(const char *what, size_t n)
{
    const struct lag_thread *t = &lag_me;
    char line[192];
    int len;

    if (t->depth <= 0 || n <= LAG_HASH_MAX_BYTES) /* depth above 0 only on a loop with the probe on */
        return;
    len = snprintf(line, sizeof(line), "s3c loop-block: pid %d thread %d hashed %zu bytes (%s) in one call on a loop thread\n",
                   (int)getpid(), (int)gettid(), n, what);
    lag_say(t, line, len, sizeof(line));
}
